//! Promoted nets measured at equal time per move against `ClaudePlayer`, on a thread of their
//! own beside training and the fixed-depth gate.
//!
//! The gate plays at a fixed depth, so that promotion is reproducible; a person who plays the
//! net meets it on the clock, where a slower evaluation sees less. So the newest promoted net
//! is also measured with both players on the same time a move (`RunSettings::timed`), every
//! pair played on openings of its own. When there is a tablebase, both players search with it
//! by default, as `tui` plays (`TimedSettings::tablebase`), and each game stops at its first
//! movement-phase position with the table's result; judging only, it judges their
//! movement-phase moves. The solved placement layers, when found at start, judge the
//! placement-phase moves either way. A measurement takes minutes (some 200 games of 100 ms moves), one game at a
//! time so that each search has the time it is given; a net promoted meanwhile is measured
//! next, and those promoted and superseded while one measurement ran are skipped. A stop
//! abandons the measurement under way between moves; the next start measures the incumbent
//! again if it was not finished.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tigers_core::gate::{
	Contender, GateSettings, GateTally, Reference, TableRole, Tables, play_match,
};
use tigers_core::stats::GatePolicy;
use tigers_proto::v1;
use tracing::{error, info};

use crate::clock::unix_now;
use crate::live::Shared;
use crate::store::ledger::TimedRow;
use crate::store::ledger::table_role_text;
use crate::training::gating::exact;

/// How often the idle thread looks for a newly promoted net.
const IDLE_LOOK: Duration = Duration::from_millis(200);

/// The thread that measures promoted nets at equal time.
pub(crate) struct TimedMeasurer {
	stop: Arc<AtomicBool>,
	handle: JoinHandle<()>,
}

impl TimedMeasurer {
	/// Starts the thread, unless the run measures no pairs.
	pub(crate) fn start(shared: Arc<Shared>) -> Option<TimedMeasurer> {
		if shared.settings.timed.pairs == 0 {
			return None;
		}
		let stop = Arc::new(AtomicBool::new(false));
		let stopped = stop.clone();
		let handle = std::thread::Builder::new()
			.name("timed".into())
			.spawn(move || measure_loop(&shared, &stopped))
			.expect("the timed measurement thread starts");
		Some(TimedMeasurer { stop, handle })
	}

	/// Abandons the measurement under way (between moves) and waits for the thread.
	pub(crate) fn stop(self) {
		self.stop.store(true, Ordering::Relaxed);
		let _ = self.handle.join();
	}
}

fn measure_loop(shared: &Shared, stop: &AtomicBool) {
	while !stop.load(Ordering::Relaxed) {
		let current = shared.current();
		let generation = current.assignment.generation;
		if shared.live().is_timed(generation) {
			std::thread::sleep(IDLE_LOOK);
			continue;
		}
		let Some(row) = measure(shared, generation, &current.net, stop) else {
			return;
		};
		if let Err(e) = shared.ledger().record_timed(&row) {
			error!(%e, "could not record the measurement at equal time");
		}
		info!(
			generation,
			move_ms = row.move_ms,
			score = row.score,
			low = row.score_low,
			high = row.score_high,
			"measured at equal time"
		);
		shared.live().timed_finished(timed_summary(&row));
		shared.name_best();
	}
}

/// Plays the whole measurement of `net`; `None` if stopped first.
fn measure(
	shared: &Shared,
	generation: u64,
	net: &Arc<tigers_core::Network>,
	stop: &AtomicBool,
) -> Option<TimedRow> {
	let timed = shared.settings.timed;
	let settings = settings_for(&shared.settings.gate, &timed, generation);
	let judge = shared.tablebase.table();
	let tables = Tables {
		movement: judge.as_ref(),
		placement: shared.placement.table(),
	};
	let begun = Begun {
		generation,
		move_ms: u64::try_from(timed.move_time.as_millis()).unwrap_or(u64::MAX),
		started_at: unix_now(),
		started: Instant::now(),
		tablebase: judge.as_ref().map(|_| timed.tablebase),
	};
	begun.announce(shared, timed.pairs);
	let go_on = || !stop.load(Ordering::Relaxed);
	let on_pair = |done: u32| {
		shared.live().timed_progressed(done);
	};
	// One game at a time, so that each search has the time it is told.
	let contender = Contender::Net(net.clone());
	let played = play_match(
		&contender,
		&Reference::Claude,
		&settings,
		tables,
		1,
		&go_on,
		&on_pair,
	);
	let Some(tally) = played else {
		shared.live().timed_stopped();
		return None;
	};
	begun.row(shared, &tally)
}

/// A measurement under way: what it measures, and since when.
struct Begun {
	generation: u64,
	move_ms: u64,
	/// Unix seconds.
	started_at: f64,
	started: Instant,
	/// What the tablebase does in the games; `None` without one.
	tablebase: Option<TableRole>,
}

impl Begun {
	/// Shows the measurement of `pairs` pairs as under way, in the live state and the log.
	fn announce(&self, shared: &Shared, pairs: u32) {
		shared.live().timed_started(v1::TimedRunning {
			generation: self.generation,
			move_ms: self.move_ms,
			pairs_done: 0,
			pairs,
			started_at: self.started_at,
			tablebase: table_role_text(self.tablebase).to_string(),
		});
		info!(
			generation = self.generation,
			move_ms = self.move_ms,
			pairs,
			tablebase = table_role_text(self.tablebase),
			"measuring at equal time"
		);
	}

	/// The ledger's row for the measurement once `tally` is played; `None` if the match did
	/// not finish (`GateTally::record`).
	fn row(&self, shared: &Shared, tally: &GateTally) -> Option<TimedRow> {
		let estimate = tally.record()?.estimate();
		let cpu_seconds = shared.live().cpu_seconds(Instant::now());
		info!(
			generation = self.generation,
			seconds = self.started.elapsed().as_secs_f64(),
			"measurement at equal time played"
		);
		Some(TimedRow {
			generation: self.generation,
			move_ms: self.move_ms,
			result: tally.by_side,
			score: estimate.score,
			score_low: estimate.low,
			score_high: estimate.high,
			elo: estimate.elo().elo,
			pairs: tally.pairs.counts,
			candidate_exact: tally.candidate_accuracy,
			reference_exact: tally.reference_accuracy,
			candidate_placement: tally.candidate_placement,
			reference_placement: tally.reference_placement,
			started_at: self.started_at,
			finished_at: unix_now(),
			cpu_seconds,
			tablebase: self.tablebase,
		})
	}
}

/// The match that measures `generation`: the gate's openings and ply cap, both players on the
/// clock, every pair played, openings of its own, the tablebase in the role `timed` gives it.
pub(crate) fn settings_for(
	gate: &GateSettings,
	timed: &crate::config::TimedSettings,
	generation: u64,
) -> GateSettings {
	GateSettings {
		search: timed.search(),
		policy: GatePolicy {
			min_pairs: timed.pairs,
			max_pairs: timed.pairs,
			..gate.policy
		},
		seed: gate.seed
			^ 0x7151_3d00_0000_0000
			^ generation
				.wrapping_add(1)
				.wrapping_mul(0x9e37_79b9_7f4a_7c15),
		table: timed.tablebase,
		..*gate
	}
}

/// The dashboard's view of a measurement at equal time.
pub(crate) fn timed_summary(row: &TimedRow) -> v1::TimedMeasurement {
	let side = |s: tigers_core::versus::SideResult| {
		Some(v1::SideResult {
			wins: s.wins,
			draws: s.draws,
			losses: s.losses,
		})
	};
	v1::TimedMeasurement {
		generation: row.generation,
		move_ms: row.move_ms,
		as_tigers: side(row.result.as_tigers),
		as_sheep: side(row.result.as_sheep),
		score: row.score,
		score_low: row.score_low,
		score_high: row.score_high,
		elo: row.elo,
		candidate_exact: exact(row.candidate_exact),
		reference_exact: exact(row.reference_exact),
		finished_at: row.finished_at,
		cpu_hours: row.cpu_seconds / 3600.0,
		tablebase: table_role_text(row.tablebase).to_string(),
		candidate_placement: exact(row.candidate_placement),
		reference_placement: exact(row.reference_placement),
	}
}

#[cfg(test)]
mod tests {
	use tigers_core::gate::{TableRole, gate_openings};

	use super::*;
	use crate::config::{RunSettings, TimedSettings};

	#[test]
	fn a_measurement_plays_every_pair_on_the_clock_and_openings_of_its_own() {
		let run = RunSettings::default();
		let timed = TimedSettings {
			move_time: Duration::from_millis(250),
			pairs: 30,
			tablebase: TableRole::Play,
		};
		let settings = settings_for(&run.gate, &timed, 4);
		assert_eq!(settings.table, TableRole::Play);
		let judged = TimedSettings {
			tablebase: TableRole::Judge,
			..timed
		};
		assert_eq!(settings_for(&run.gate, &judged, 4).table, TableRole::Judge);
		assert_eq!(settings.search.time_limit, Some(Duration::from_millis(250)));
		assert_eq!(
			(settings.policy.min_pairs, settings.policy.max_pairs),
			(30, 30)
		);
		assert_eq!(settings.max_plies, run.gate.max_plies);
		assert_eq!(settings.opening_plies, run.gate.opening_plies);
		let openings = gate_openings(&settings);
		assert_eq!(openings.len(), 30);
		assert_ne!(openings, gate_openings(&run.gate)[..30]);
		assert_ne!(openings, gate_openings(&settings_for(&run.gate, &timed, 5)));
	}
}
