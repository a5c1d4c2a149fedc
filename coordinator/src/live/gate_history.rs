//! `GateHistory`: the run's gate matches for the progress snapshots and the metrics, bounded
//! however long the run: the latest in full, older ones thinned evenly, and counts of them all.

use std::collections::VecDeque;

use tigers_proto::v1;

use crate::live::series::Thinned;

/// The latest gates a snapshot lists in full.
pub(crate) const RECENT_GATES: usize = 100;

/// The most older gates a snapshot lists, evenly thinned.
pub(crate) const OLDER_GATES: usize = 100;

/// Every gate counted, the latest kept whole, older ones thinned.
#[derive(Debug)]
pub(crate) struct GateHistory {
	recent: VecDeque<v1::GateSummary>,
	older: Thinned<v1::GateSummary>,
	total: u64,
	promoted: u64,
	refused: u64,
	measured: u64,
	last_candidate: Option<v1::GateSummary>,
	last_promoted: Option<v1::GateSummary>,
}

impl Default for GateHistory {
	fn default() -> GateHistory {
		GateHistory {
			recent: VecDeque::new(),
			older: Thinned::new(OLDER_GATES),
			total: 0,
			promoted: 0,
			refused: 0,
			measured: 0,
			last_candidate: None,
			last_promoted: None,
		}
	}
}

impl GateHistory {
	/// Records a finished gate. A candidate is counted promoted or refused once, whatever
	/// matches it played: under `--gate both` a winner's head-to-head row and its check's row
	/// (the same generation and training steps, one after the other) are one candidate.
	pub(crate) fn push(&mut self, gate: v1::GateSummary) {
		self.total += 1;
		if gate.measurement {
			self.measured += 1;
		} else {
			let counted = self.last_candidate.as_ref().is_some_and(|last| {
				last.generation == gate.generation && last.training_steps == gate.training_steps
			});
			match (counted, gate.promoted) {
				(true, _) => {}
				(false, true) => self.promoted += 1,
				(false, false) => self.refused += 1,
			}
			self.last_candidate = Some(gate.clone());
		}
		// Measurements are recorded as promoted: they are the incumbent's record. A promotion
		// by a match against the incumbent (`--gate incumbent`, or `both`'s head to head) says
		// nothing of its strength against `ClaudePlayer`, which the incumbent's figures are:
		// its measurement will, or under `--gate both` the check that follows it.
		if gate.promoted && gate.opponent_generation.is_none() {
			self.last_promoted = Some(gate.clone());
		}
		if self.recent.len() == RECENT_GATES
			&& let Some(oldest) = self.recent.pop_front()
		{
			self.older.push(oldest);
		}
		self.recent.push_back(gate);
	}

	/// What a snapshot lists, oldest first: the thinned older gates, then the recent ones.
	pub(crate) fn listed(&self) -> Vec<v1::GateSummary> {
		let older = self.older.points().iter();
		older.chain(self.recent.iter()).cloned().collect()
	}

	/// Gates over the run.
	pub(crate) fn total(&self) -> u64 {
		self.total
	}

	/// Candidates promoted, candidates refused (each once) and measurements, over the run.
	pub(crate) fn counts(&self) -> (u64, u64, u64) {
		(self.promoted, self.refused, self.measured)
	}

	/// The latest candidate's gate (not a measurement), if any.
	pub(crate) fn last_candidate(&self) -> Option<&v1::GateSummary> {
		self.last_candidate.as_ref()
	}

	/// The latest gate against `ClaudePlayer` that stands for the incumbent: its measurement,
	/// or its promotion.
	pub(crate) fn last_promoted(&self) -> Option<&v1::GateSummary> {
		self.last_promoted.as_ref()
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn gate(generation: u64, promoted: bool, measurement: bool) -> v1::GateSummary {
		v1::GateSummary {
			generation,
			promoted,
			measurement,
			..v1::GateSummary::default()
		}
	}

	#[test]
	fn a_long_run_lists_a_bounded_history_and_counts_everything() {
		let mut history = GateHistory::default();
		for n in 0..10_000 {
			history.push(gate(n, n % 10 < 2, n % 10 == 1));
		}
		let listed = history.listed();
		assert!(
			listed.len() <= RECENT_GATES + OLDER_GATES,
			"{}",
			listed.len()
		);
		// The latest are there in full, in order, and the oldest of all is kept.
		let tail: Vec<u64> = listed[listed.len() - RECENT_GATES..]
			.iter()
			.map(|g| g.generation)
			.collect();
		assert_eq!(tail, (9_900..10_000).collect::<Vec<_>>());
		assert_eq!(listed[0].generation, 0);
		assert!(listed.windows(2).all(|w| w[0].generation < w[1].generation));
		assert_eq!(history.total(), 10_000);
		assert_eq!(history.counts(), (1_000, 8_000, 1_000));
		assert_eq!(history.last_candidate().unwrap().generation, 9_999);
		assert_eq!(history.last_promoted().unwrap().generation, 9_991);
	}

	#[test]
	fn a_promotion_against_the_incumbent_does_not_stand_for_it_until_measured() {
		let mut history = GateHistory::default();
		history.push(gate(4, true, true));
		history.push(v1::GateSummary {
			opponent_generation: Some(4),
			..gate(5, true, false)
		});
		assert_eq!(history.last_promoted().unwrap().generation, 4);
		assert_eq!(history.last_candidate().unwrap().generation, 5);
		assert_eq!(history.counts(), (1, 0, 1));
		history.push(gate(5, true, true));
		assert_eq!(history.last_promoted().unwrap().generation, 5);
	}

	#[test]
	fn a_winner_checked_against_claude_player_counts_once() {
		let mut history = GateHistory::default();
		let candidate = |generation, training_steps, promoted, opponent| v1::GateSummary {
			training_steps,
			opponent_generation: opponent,
			..gate(generation, promoted, false)
		};
		// Promoted: the incumbent measured on the check's openings, the head to head, the check.
		history.push(gate(4, true, true));
		history.push(candidate(5, 100, true, Some(4)));
		history.push(candidate(5, 100, true, None));
		// Refused by its check.
		history.push(gate(5, true, true));
		history.push(candidate(6, 200, false, Some(5)));
		history.push(candidate(6, 200, false, None));
		// Refused head to head, never checked; then the next candidate of the same generation.
		history.push(candidate(6, 300, false, Some(5)));
		history.push(candidate(6, 400, false, Some(5)));
		assert_eq!(history.counts(), (1, 3, 2));
		assert_eq!(history.total(), 8);
	}
}
