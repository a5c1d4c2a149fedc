//! What a load test measured: each session's acknowledgements and errors, added up into the
//! one-line summary and the per-second table.

use std::fmt;
use std::time::Duration;

/// One acknowledged batch, as a session saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Acked {
	/// Whole seconds from the start of the timed run to the acknowledgement.
	pub(crate) second: u32,
	/// From sending the batch to its acknowledgement, in microseconds.
	pub(crate) latency_us: u32,
	/// The batch's samples.
	pub(crate) samples: u32,
}

/// What one simulated worker saw.
#[derive(Debug, Default)]
pub(crate) struct SessionTally {
	/// Batches acknowledged as newly stored.
	pub(crate) acked: Vec<Acked>,
	/// Errors, each with the second of the run it happened in (0 for those before it).
	pub(crate) errors: Vec<u32>,
	/// The first error's text.
	pub(crate) first_error: Option<String>,
}

impl SessionTally {
	/// Counts an error at `second` of the run.
	pub(crate) fn error(&mut self, second: u32, text: impl FnOnce() -> String) {
		self.errors.push(second);
		if self.first_error.is_none() {
			self.first_error = Some(text());
		}
	}
}

/// The figures of one second of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SecondRow {
	/// Batches acknowledged in that second.
	pub batches: u64,
	/// Their samples.
	pub samples: u64,
	/// The median acknowledgement time, in milliseconds (0 without batches).
	pub ack_p50_ms: f64,
	/// The 99th percentile, in milliseconds.
	pub ack_p99_ms: f64,
	/// Errors in that second.
	pub errors: u64,
}

/// A load test's result: [`fmt::Display`] prints the one-line summary, [`LoadtestReport::table`]
/// the per-second figures.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadtestReport {
	/// Simulated workers asked for.
	pub sessions: usize,
	/// Those whose session opened.
	pub opened: usize,
	/// The timed run's length.
	pub seconds: f64,
	/// Batches acknowledged as stored within the timed run.
	pub batches: u64,
	/// Their samples.
	pub samples: u64,
	/// The median time from sending a batch to its acknowledgement, over every acknowledged
	/// batch (those acknowledged after the end included), in milliseconds.
	pub ack_p50_ms: f64,
	/// The 99th percentile of the same.
	pub ack_p99_ms: f64,
	/// Sessions that could not open, sessions that ended early, acknowledgements that were
	/// not of a new batch, and batches still unacknowledged at the end.
	pub errors: u64,
	/// The first error, for the user to act on.
	pub first_error: Option<String>,
	/// One row per second of the run.
	pub per_second: Vec<SecondRow>,
	/// The batches a second offered in all, for a run at a rate; `None` for a saturating run.
	pub offered: Option<u32>,
}

impl LoadtestReport {
	/// Adds up the sessions' tallies over a run of `seconds`; `failed` are the sessions that
	/// never opened, with the first reason.
	pub(crate) fn new(
		sessions: usize,
		seconds: f64,
		tallies: Vec<SessionTally>,
		failed: (usize, Option<String>),
	) -> LoadtestReport {
		let opened = tallies.len();
		let rows = seconds.ceil().max(1.0) as usize;
		let mut latencies = Vec::new();
		let mut per_second = vec![(0u64, 0u64, Vec::new(), 0u64); rows];
		let (mut batches, mut samples) = (0, 0);
		let mut errors = failed.0 as u64;
		let mut first_error = failed.1;
		for tally in tallies {
			for acked in &tally.acked {
				latencies.push(acked.latency_us);
				if let Some(row) = per_second.get_mut(acked.second as usize) {
					row.0 += 1;
					row.1 += u64::from(acked.samples);
					row.2.push(acked.latency_us);
					batches += 1;
					samples += u64::from(acked.samples);
				}
			}
			for second in &tally.errors {
				errors += 1;
				let row = (*second as usize).min(rows - 1);
				per_second[row].3 += 1;
			}
			first_error = first_error.or(tally.first_error);
		}
		let per_second = per_second
			.into_iter()
			.map(|(batches, samples, mut latencies, errors)| SecondRow {
				batches,
				samples,
				ack_p50_ms: percentile_ms(&mut latencies, 0.50),
				ack_p99_ms: percentile_ms(&mut latencies, 0.99),
				errors,
			})
			.collect();
		LoadtestReport {
			sessions,
			opened,
			seconds,
			batches,
			samples,
			ack_p50_ms: percentile_ms(&mut latencies, 0.50),
			ack_p99_ms: percentile_ms(&mut latencies, 0.99),
			errors,
			first_error,
			per_second,
			offered: None,
		}
	}

	/// Acknowledged batches per second of the timed run.
	pub fn batches_per_second(&self) -> f64 {
		self.batches as f64 / self.seconds
	}

	/// Acknowledged samples per second of the timed run.
	pub fn samples_per_second(&self) -> f64 {
		self.samples as f64 / self.seconds
	}

	/// The per-second figures as a table with a header line.
	pub fn table(&self) -> String {
		let mut text = String::from("second batches samples ack_p50_ms ack_p99_ms errors\n");
		for (second, row) in self.per_second.iter().enumerate() {
			text.push_str(&format!(
				"{:>6} {:>7} {:>7} {:>10.1} {:>10.1} {:>6}\n",
				second + 1,
				row.batches,
				row.samples,
				row.ack_p50_ms,
				row.ack_p99_ms,
				row.errors
			));
		}
		text
	}
}

impl fmt::Display for LoadtestReport {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		if let Some(rate) = self.offered {
			write!(f, "offered_batches/s {rate} ")?;
		}
		write!(
			f,
			"sessions {} batches/s {:.1} samples/s {:.0} ack_p50_ms {:.1} ack_p99_ms {:.1} errors {}",
			self.sessions,
			self.batches_per_second(),
			self.samples_per_second(),
			self.ack_p50_ms,
			self.ack_p99_ms,
			self.errors
		)
	}
}

/// The `quantile` (0 to 1) of `latencies` (microseconds) in milliseconds, the nearest rank;
/// 0 for none.
fn percentile_ms(latencies: &mut [u32], quantile: f64) -> f64 {
	if latencies.is_empty() {
		return 0.0;
	}
	latencies.sort_unstable();
	let rank = (quantile * latencies.len() as f64).ceil() as usize;
	let index = rank.clamp(1, latencies.len()) - 1;
	f64::from(latencies[index]) / 1000.0
}

/// `duration` in whole microseconds, saturating.
pub(crate) fn micros(duration: Duration) -> u32 {
	u32::try_from(duration.as_micros()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
	use super::*;

	fn acked(second: u32, latency_ms: u32) -> Acked {
		Acked {
			second,
			latency_us: latency_ms * 1000,
			samples: 10,
		}
	}

	#[test]
	fn percentiles_take_the_nearest_rank() {
		let mut values: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
		assert_eq!(percentile_ms(&mut values, 0.50), 50.0);
		assert_eq!(percentile_ms(&mut values, 0.99), 99.0);
		assert_eq!(percentile_ms(&mut [7000], 0.99), 7.0);
		assert_eq!(percentile_ms(&mut [], 0.5), 0.0);
	}

	#[test]
	fn tallies_add_up_into_the_line_and_the_table() {
		let mut first = SessionTally {
			acked: vec![acked(0, 2), acked(0, 4), acked(1, 6)],
			..SessionTally::default()
		};
		first.error(1, || "stream ended".into());
		let second = SessionTally {
			// Acknowledged after the end: timed, but not counted as throughput.
			acked: vec![acked(1, 8), acked(2, 100)],
			..SessionTally::default()
		};
		let report = LoadtestReport::new(3, 2.0, vec![first, second], (1, Some("refused".into())));
		assert_eq!((report.opened, report.batches, report.samples), (2, 4, 40));
		assert_eq!(report.errors, 2);
		assert_eq!(report.first_error.as_deref(), Some("refused"));
		assert_eq!(report.ack_p50_ms, 6.0);
		assert_eq!(report.ack_p99_ms, 100.0);
		assert_eq!(
			report.to_string(),
			"sessions 3 batches/s 2.0 samples/s 20 ack_p50_ms 6.0 ack_p99_ms 100.0 errors 2"
		);
		assert_eq!(report.per_second.len(), 2);
		assert_eq!(report.per_second[1].batches, 2);
		assert_eq!(report.per_second[1].errors, 1);
		let table = report.table();
		assert_eq!(table.lines().count(), 3, "{table}");
		assert!(table.starts_with("second batches"), "{table}");
	}
}
