//! `Figures`: the run's numbers as Prometheus metrics. A copy is taken from the live state under
//! its lock, then recorded after the lock is released; `publish_every` does so once a second.
//!
//! Run totals (samples, games, steps, gates) come from the ledger on resume, so their counters
//! carry on across restarts instead of starting again at zero; refusals and duplicates are
//! counted by this process only.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ::metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge};
use tigers_proto::v1;

use crate::error::RejectReason;
use crate::ingest::session::INGEST_SECONDS;
use crate::live::{Live, Shared};
use crate::store::committer::{LEDGER_COMMITS, LEDGER_COMPACTED};
use crate::tablebase::TablebaseState;

/// How often the live state is copied into the metrics. Prometheus scrapes every 15 s or more
/// by default, so a second is fresh enough and costs one brief lock.
pub(crate) const PUBLISH_INTERVAL: Duration = Duration::from_secs(1);

const SAMPLES: &str = "tigers_samples_total";
const GAMES: &str = "tigers_games_total";
const TRAINING_STEPS: &str = "tigers_training_steps_total";
const REJECTED: &str = "tigers_batches_rejected_total";
const DUPLICATES: &str = "tigers_batches_duplicate_total";
const DROPPED: &str = "tigers_samples_dropped_untrained_total";
const GATES: &str = "tigers_gates_total";
const GENERATION: &str = "tigers_generation";
const LOSS: &str = "tigers_training_loss";
const WINDOW: &str = "tigers_window_samples";
const WINDOW_CAPACITY: &str = "tigers_window_capacity_samples";
const CONNECTED: &str = "tigers_workers_connected";
const KNOWN: &str = "tigers_workers_known";
const CPU_HOURS: &str = "tigers_workers_cpu_hours";
const SINCE_SAMPLES: &str = "tigers_seconds_since_samples";
const GATE_SCORE: &str = "tigers_gate_score";
const GATE_ELO: &str = "tigers_gate_elo";
const INCUMBENT_ELO: &str = "tigers_incumbent_elo";
const GATE_EXACT: &str = "tigers_gate_exact_accuracy";
const INCUMBENT_EXACT: &str = "tigers_incumbent_exact_accuracy";
const GATE_PLACEMENT: &str = "tigers_gate_placement_accuracy";
const INCUMBENT_PLACEMENT: &str = "tigers_incumbent_placement_accuracy";
const TIMED_SCORE: &str = "tigers_timed_score";
const TIMED_ELO: &str = "tigers_timed_elo";
const TIMED_GENERATION: &str = "tigers_timed_generation";
const TIMED_EXACT: &str = "tigers_timed_exact_accuracy";
const TIMED_PLACEMENT: &str = "tigers_timed_placement_accuracy";
const TIMED_PAIRS_DONE: &str = "tigers_timed_pairs_done";
const TABLEBASE_READY: &str = "tigers_tablebase_ready";
const TABLEBASE_PROGRESS: &str = "tigers_tablebase_solve_progress";
const SELFPLAY_DEPTH: &str = "tigers_selfplay_depth";
const SELFPLAY_DEPTH_BOUND: &str = "tigers_selfplay_depth_bound";
const ARRIVING: &str = "tigers_samples_arriving_per_second";
const TRAINABLE: &str = "tigers_trainer_capacity_samples_per_second";
const TRAINED_SHARE: &str = "tigers_samples_trained_share";
const MEAN_USES: &str = "tigers_samples_mean_uses";
const DISK_FREE: &str = "tigers_disk_free_bytes";
const DISK_LOW: &str = "tigers_disk_low";
const GAMES_KEPT: &str = "tigers_games_kept";
const GAMES_PENDING: &str = "tigers_games_pending";
const GAMES_PRUNED: &str = "tigers_games_pruned_total";
const GAME_ARCHIVE_BYTES: &str = "tigers_game_archive_bytes";

/// Gives every metric its help text and unit, shown in the scrape. Call once, after the
/// recorder is installed.
pub(crate) fn describe() {
	describe_totals();
	describe_run_state();
	describe_gates();
	describe_timed();
	describe_workload();
	describe_ingest();
}

/// The run's totals: samples, games (and the archive's), training steps, refusals, duplicates,
/// gates.
fn describe_totals() {
	describe_counter!(SAMPLES, Unit::Count, "Samples durably stored over the run.");
	describe_counter!(GAMES, Unit::Count, "Self-play games stored over the run.");
	describe_counter!(TRAINING_STEPS, Unit::Count, "Training steps over the run.");
	describe_gauge!(
		GAMES_KEPT,
		Unit::Count,
		"Self-play games kept for replay: in the game archive, or stored and about to be written there."
	);
	describe_gauge!(
		GAMES_PENDING,
		Unit::Count,
		"Games stored in the ledger and not yet written to the game archive."
	);
	describe_counter!(
		GAMES_PRUNED,
		Unit::Count,
		"Games deleted from the archive, or never written, because --keep-game-generations pruned their generation."
	);
	describe_gauge!(
		GAME_ARCHIVE_BYTES,
		Unit::Bytes,
		"The game archive's files, compressed."
	);
	describe_gauge!(
		DISK_FREE,
		Unit::Bytes,
		"Bytes the coordinator may still write on the run directory's disk."
	);
	describe_gauge!(
		DISK_LOW,
		"1 while the run directory's disk is short of space (below --min-free-mb, or a write \
		 failed for lack of it): batches wait unacknowledged and training pauses; else 0."
	);
	describe_counter!(
		REJECTED,
		Unit::Count,
		"Sample batches refused as malformed since this process started, by reason."
	);
	describe_counter!(
		DUPLICATES,
		Unit::Count,
		"Sample batches received again after being stored (acknowledged, not stored twice)."
	);
	describe_counter!(
		DROPPED,
		Unit::Count,
		"Stored samples the trainer never took in: more than a replay window's worth waited \
		 for it, so the oldest were dropped (they stay in the ledger)."
	);
	describe_counter!(
		GATES,
		Unit::Count,
		"Gates over the run: candidates promoted or refused, each counted once whatever \
		 matches it played (head to head against the incumbent under --gate both, the default, \
		 and --gate incumbent, then a winner's check against ClaudePlayer under --gate both; \
		 ClaudePlayer under --gate sprt), and measurements of promoted nets against \
		 ClaudePlayer."
	);
}

/// The run's state: generation, loss, window, workers, CPU time, the last samples.
fn describe_run_state() {
	describe_gauge!(GENERATION, Unit::Count, "The latest promoted generation.");
	describe_gauge!(LOSS, "Mean training loss over the latest 100 steps.");
	describe_gauge!(WINDOW, Unit::Count, "Samples in the replay window.");
	describe_gauge!(
		WINDOW_CAPACITY,
		Unit::Count,
		"The replay window's capacity."
	);
	describe_gauge!(CONNECTED, Unit::Count, "Workers with an open session.");
	describe_gauge!(
		KNOWN,
		Unit::Count,
		"Workers joined in this process's life or seen within the forgetting horizon before it."
	);
	describe_gauge!(
		CPU_HOURS,
		"Worker CPU-hours (threads times hours connected) over the run."
	);
	describe_gauge!(
		SINCE_SAMPLES,
		Unit::Seconds,
		"Seconds since this process last stored samples (or since it started)."
	);
}

/// The latest gate's and the incumbent's results.
fn describe_gates() {
	describe_gauge!(
		GATE_SCORE,
		"Score (0 to 1) of the latest candidate against its opponent: the incumbent net (--gate \
		 both, the default, and --gate incumbent), or ClaudePlayer (--gate sprt, and a check \
		 under --gate both)."
	);
	describe_gauge!(
		GATE_ELO,
		"Elo difference of the latest candidate from its opponent (see tigers_gate_score)."
	);
	describe_gauge!(
		INCUMBENT_ELO,
		"Elo difference from ClaudePlayer of the promoted net: its measurement, or until it is \
		 measured its match against ClaudePlayer that promoted it (the gate under --gate sprt, \
		 the check under --gate both). Under --gate sprt, the bar a candidate must clear; \
		 head to head no candidate is held to it."
	);
	describe_gauge!(
		GATE_EXACT,
		"Share (0 to 1) of movement-phase moves that kept the exact result in the latest \
		 candidate's gate, judged by the tablebase: player=candidate, or player=reference (its \
		 opponent, as for tigers_gate_score)."
	);
	describe_gauge!(
		INCUMBENT_EXACT,
		"The promoted net's exact accuracy as last measured (see tigers_gate_exact_accuracy)."
	);
	describe_gauge!(
		GATE_PLACEMENT,
		"Share (0 to 1) of placement-phase moves that kept the exact value in the latest \
		 candidate's gate, judged by the solved placement layers: player=candidate, or \
		 player=reference (its opponent, as for tigers_gate_exact_accuracy)."
	);
	describe_gauge!(
		INCUMBENT_PLACEMENT,
		"The promoted net's placement-phase exact accuracy as last measured (see \
		 tigers_gate_placement_accuracy)."
	);
}

/// The latest measurement at equal time per move, and the one under way.
fn describe_timed() {
	describe_gauge!(
		TIMED_SCORE,
		"Score (0 to 1) against ClaudePlayer of the latest promoted net measured at equal time \
		 per move (both players on the same clock, every pair played)."
	);
	describe_gauge!(
		TIMED_ELO,
		"Elo difference from ClaudePlayer of the latest net measured at equal time."
	);
	describe_gauge!(
		TIMED_GENERATION,
		Unit::Count,
		"The generation of the latest net measured at equal time."
	);
	describe_gauge!(
		TIMED_EXACT,
		"Exact accuracy (see tigers_gate_exact_accuracy) in the latest measurement at equal \
		 time: player=candidate (the net), or player=reference (ClaudePlayer)."
	);
	describe_gauge!(
		TIMED_PLACEMENT,
		"Placement-phase exact accuracy (see tigers_gate_placement_accuracy) in the latest \
		 measurement at equal time: player=candidate (the net), or player=reference."
	);
	describe_gauge!(
		TIMED_PAIRS_DONE,
		Unit::Count,
		"Pairs played of the measurement at equal time under way; 0 when none is."
	);
}

/// The tablebase, and the self-play depth with the rates it follows.
fn describe_workload() {
	describe_gauge!(
		TABLEBASE_READY,
		"1 once the coordinator has its tablebase, else 0."
	);
	describe_gauge!(
		TABLEBASE_PROGRESS,
		"The share (0 to 1) of the tablebase solve done; 1 when ready, 0 without one."
	);
	describe_gauge!(
		SELFPLAY_DEPTH,
		Unit::Count,
		"The self-play search depth in plies workers are asked to play."
	);
	describe_gauge!(
		SELFPLAY_DEPTH_BOUND,
		Unit::Count,
		"The bounds the self-play depth adapts within: bound=min (--depth) or bound=max \
		 (--self-play-depth-max)."
	);
	describe_gauge!(
		ARRIVING,
		"Samples stored per second over the self-play depth rule's last period."
	);
	describe_gauge!(
		TRAINABLE,
		"Fresh samples per second the trainer can use: steps per second while training, times \
		 the batch size, over the uses allowed per sample."
	);
	describe_gauge!(
		TRAINED_SHARE,
		"Share (0 to 1) of the samples that left the replay window that were drawn for \
		 training at least once."
	);
	describe_gauge!(
		MEAN_USES,
		"Mean draws for training of the samples that left the replay window."
	);
}

/// Ingest latency and the ledger's writer, recorded where the work happens.
fn describe_ingest() {
	describe_histogram!(
		INGEST_SECONDS,
		Unit::Seconds,
		"Time to validate and durably store one sample batch."
	);
	describe_counter!(
		LEDGER_COMMITS,
		Unit::Count,
		"Ledger transactions committed with writes in them; batches arriving together share one."
	);
	describe_counter!(
		LEDGER_COMPACTED,
		Unit::Count,
		"Batch rows folded into their workers' totals by compaction."
	);
	describe_counter!(
		tigers_play::access::LOGINS_METRIC,
		Unit::Count,
		"Tries of the web pages' token since this process started, by outcome: accepted (a \
		 login), wrong (a wrong token from the form or a bearer header), throttled (refused \
		 unlooked-at while the address, or everyone, must wait)."
	);
	for outcome in ["accepted", "wrong", "throttled"] {
		counter!(tigers_play::access::LOGINS_METRIC, "outcome" => outcome).increment(0);
	}
}

/// The latest gate's outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LastGate {
	/// Score (0 to 1).
	pub score: f64,
	/// The score as Elo, within ±1000.
	pub elo: f64,
	/// The candidate's and the reference's exact accuracy, when judged by a tablebase.
	pub exact: Option<(f64, f64)>,
	/// Their placement-phase exact accuracy, when judged by the placement layers.
	pub placement: Option<(f64, f64)>,
}

/// A gate's exact accuracies (candidate, reference), if it was judged.
fn exact_shares(gate: &v1::GateSummary) -> Option<(f64, f64)> {
	shares(gate.candidate_exact, gate.reference_exact)
}

/// A gate's placement-phase exact accuracies (candidate, reference), if it was judged.
fn placement_shares(gate: &v1::GateSummary) -> Option<(f64, f64)> {
	shares(gate.candidate_placement, gate.reference_placement)
}

/// Two exact accuracies as shares, if both were judged.
fn shares(
	candidate: Option<v1::ExactAccuracy>,
	reference: Option<v1::ExactAccuracy>,
) -> Option<(f64, f64)> {
	let share = |a: Option<v1::ExactAccuracy>| {
		a.filter(|a| a.moves > 0)
			.map(|a| f64::from(a.kept) / f64::from(a.moves))
	};
	Some((share(candidate)?, share(reference)?))
}

/// The numbers published, copied out of the live state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Figures {
	/// Samples stored over the run.
	pub samples: u64,
	/// Games stored over the run.
	pub games: u64,
	/// Training steps over the run.
	pub training_steps: u64,
	/// Refused batches by reason, every reason listed (zero included).
	pub rejected: [(RejectReason, u64); RejectReason::ALL.len()],
	/// Duplicate batches.
	pub duplicates: u64,
	/// Samples the training thread's inbox dropped untrained.
	pub dropped: u64,
	/// Gates that promoted their candidate.
	pub gates_promoted: u64,
	/// Gates that did not.
	pub gates_refused: u64,
	/// Matches that measured a promoted net.
	pub gates_measured: u64,
	/// The latest promoted generation.
	pub generation: u64,
	/// Mean of the recent losses, if training has begun.
	pub loss: Option<f64>,
	/// Samples in the replay window.
	pub window: u64,
	/// The window's capacity.
	pub window_capacity: u64,
	/// Workers with an open session.
	pub connected: u64,
	/// Workers ever joined.
	pub known: u64,
	/// Worker CPU-hours over the run.
	pub cpu_hours: f64,
	/// Seconds since samples were last stored.
	pub since_samples: f64,
	/// The latest candidate's gate.
	pub last_gate: Option<LastGate>,
	/// The promoted net's Elo: its latest measurement, or its promotion gate until measured.
	pub incumbent_elo: Option<f64>,
	/// The promoted net's exact accuracy from the same gate, when judged.
	pub incumbent_exact: Option<f64>,
	/// Its placement-phase exact accuracy from the same gate, when judged.
	pub incumbent_placement: Option<f64>,
	/// The tablebase solve's progress (0 to 1), 1 once ready; `None` without one coming.
	pub tablebase: Option<f64>,
	/// The latest measurement at equal time.
	pub timed: Option<LastTimed>,
	/// Pairs played of the measurement at equal time under way.
	pub timed_pairs_done: u32,
	/// The self-play depth and the rates it follows.
	pub work: v1::SelfPlayWork,
	/// What the game archive holds, if there is one (not in the live state: the ledger's
	/// writer keeps it).
	pub games_archive: Option<v1::GameArchive>,
	/// The run directory's disk (not in the live state either).
	pub disk: Option<v1::DiskSpace>,
}

/// The latest measurement at equal time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LastTimed {
	/// The measured generation.
	pub generation: u64,
	/// Score (0 to 1).
	pub score: f64,
	/// The score as Elo, within ±1000.
	pub elo: f64,
	/// The net's and the reference's exact accuracy, when judged by a tablebase.
	pub exact: Option<(f64, f64)>,
	/// Their placement-phase exact accuracy, when judged by the placement layers.
	pub placement: Option<(f64, f64)>,
}

impl Figures {
	/// Copies the figures out of `live` at `now`; `started` stands in for the last samples when
	/// none have arrived yet.
	pub(crate) fn read(
		live: &mut Live,
		now: Instant,
		started: Instant,
		tablebase: Option<f64>,
	) -> Figures {
		let cpu_hours = live.cpu_hours(now);
		let since = live.last_samples().unwrap_or(started);
		let gates = live.gates();
		let (gates_promoted, gates_refused, gates_measured) = gates.counts();
		let (window, window_capacity) = live.window();
		Figures {
			samples: live.samples_total(),
			games: live.games_total(),
			training_steps: live.training_steps(),
			rejected: RejectReason::ALL.map(|reason| (reason, live.rejected(reason))),
			duplicates: live.batches_duplicate(),
			dropped: live.inbox_dropped(),
			gates_promoted,
			gates_refused,
			gates_measured,
			generation: live.generation(),
			loss: live.recent_loss(),
			window,
			window_capacity,
			connected: live.workers_connected(),
			known: live.workers_known(),
			cpu_hours,
			since_samples: now.saturating_duration_since(since).as_secs_f64(),
			last_gate: gates.last_candidate().map(|g| LastGate {
				score: g.score,
				elo: g.elo,
				exact: exact_shares(g),
				placement: placement_shares(g),
			}),
			incumbent_elo: gates.last_promoted().map(|g| g.elo),
			incumbent_exact: gates
				.last_promoted()
				.and_then(exact_shares)
				.map(|(candidate, _)| candidate),
			incumbent_placement: gates
				.last_promoted()
				.and_then(placement_shares)
				.map(|(candidate, _)| candidate),
			tablebase,
			timed: live.last_timed().map(|t| LastTimed {
				generation: t.generation,
				score: t.score,
				elo: t.elo,
				exact: shares(t.candidate_exact, t.reference_exact),
				placement: shares(t.candidate_placement, t.reference_placement),
			}),
			timed_pairs_done: live.timed_running().map_or(0, |r| r.pairs_done),
			work: live.work(),
			games_archive: None,
			disk: None,
		}
	}

	/// Records the figures in the current recorder (none installed: nothing happens).
	pub(crate) fn publish(&self) {
		self.publish_totals();
		self.publish_gates();
		self.publish_timed();
		gauge!(TABLEBASE_READY).set(if self.tablebase == Some(1.0) {
			1.0
		} else {
			0.0
		});
		gauge!(TABLEBASE_PROGRESS).set(self.tablebase.unwrap_or(0.0));
		self.publish_work();
		if let Some(disk) = &self.disk {
			if let Some(free) = disk.free_bytes {
				gauge!(DISK_FREE).set(free as f64);
			}
			gauge!(DISK_LOW).set(if disk.low { 1.0 } else { 0.0 });
		}
		if let Some(archive) = self.games_archive {
			gauge!(GAMES_KEPT).set(archive.kept as f64);
			gauge!(GAMES_PENDING).set(archive.pending as f64);
			counter!(GAMES_PRUNED).absolute(archive.pruned);
			gauge!(GAME_ARCHIVE_BYTES).set(archive.bytes as f64);
		}
	}

	/// The run's totals, training, the window and the workers.
	fn publish_totals(&self) {
		counter!(SAMPLES).absolute(self.samples);
		counter!(GAMES).absolute(self.games);
		counter!(TRAINING_STEPS).absolute(self.training_steps);
		for (reason, count) in self.rejected {
			counter!(REJECTED, "reason" => reason.name()).absolute(count);
		}
		counter!(DUPLICATES).absolute(self.duplicates);
		counter!(DROPPED).absolute(self.dropped);
		counter!(GATES, "result" => "promoted").absolute(self.gates_promoted);
		counter!(GATES, "result" => "refused").absolute(self.gates_refused);
		counter!(GATES, "result" => "measured").absolute(self.gates_measured);
		gauge!(GENERATION).set(self.generation as f64);
		if let Some(loss) = self.loss {
			gauge!(LOSS).set(loss);
		}
		gauge!(WINDOW).set(self.window as f64);
		gauge!(WINDOW_CAPACITY).set(self.window_capacity as f64);
		gauge!(CONNECTED).set(self.connected as f64);
		gauge!(KNOWN).set(self.known as f64);
		gauge!(CPU_HOURS).set(self.cpu_hours);
		gauge!(SINCE_SAMPLES).set(self.since_samples);
	}

	/// The last gate match, and the incumbent's figures.
	fn publish_gates(&self) {
		if let Some(gate) = self.last_gate {
			gauge!(GATE_SCORE).set(gate.score);
			gauge!(GATE_ELO).set(gate.elo);
			set_by_player(GATE_EXACT, gate.exact);
			set_by_player(GATE_PLACEMENT, gate.placement);
		}
		if let Some(elo) = self.incumbent_elo {
			gauge!(INCUMBENT_ELO).set(elo);
		}
		if let Some(share) = self.incumbent_exact {
			gauge!(INCUMBENT_EXACT).set(share);
		}
		if let Some(share) = self.incumbent_placement {
			gauge!(INCUMBENT_PLACEMENT).set(share);
		}
	}

	/// The last measurement at equal time, and the pairs of the one under way.
	fn publish_timed(&self) {
		if let Some(timed) = self.timed {
			gauge!(TIMED_SCORE).set(timed.score);
			gauge!(TIMED_ELO).set(timed.elo);
			gauge!(TIMED_GENERATION).set(timed.generation as f64);
			set_by_player(TIMED_EXACT, timed.exact);
			set_by_player(TIMED_PLACEMENT, timed.placement);
		}
		gauge!(TIMED_PAIRS_DONE).set(f64::from(self.timed_pairs_done));
	}

	/// The self-play depth and its rates; the share and uses once samples have left the window.
	fn publish_work(&self) {
		let work = &self.work;
		gauge!(SELFPLAY_DEPTH).set(f64::from(work.depth));
		gauge!(SELFPLAY_DEPTH_BOUND, "bound" => "min").set(f64::from(work.depth_min));
		gauge!(SELFPLAY_DEPTH_BOUND, "bound" => "max").set(f64::from(work.depth_max));
		gauge!(ARRIVING).set(work.arriving_per_second);
		gauge!(TRAINABLE).set(work.trainable_per_second);
		if let Some(share) = work.trained_share {
			gauge!(TRAINED_SHARE).set(share);
		}
		if let Some(uses) = work.mean_uses {
			gauge!(MEAN_USES).set(uses);
		}
	}
}

/// Sets the gauge `name` for the candidate and for the reference, if there are their shares.
fn set_by_player(name: &'static str, shares: Option<(f64, f64)>) {
	if let Some((candidate, reference)) = shares {
		gauge!(name, "player" => "candidate").set(candidate);
		gauge!(name, "player" => "reference").set(reference);
	}
}

/// Copies the run's figures into the metrics every [`PUBLISH_INTERVAL`] until the coordinator
/// closes. The live lock is held only for the copy.
pub(crate) async fn publish_every(shared: Arc<Shared>) {
	let mut ticks = tokio::time::interval(PUBLISH_INTERVAL);
	let mut closing = shared.closing();
	loop {
		tokio::select! {
			_ = closing.changed() => break,
			_ = ticks.tick() => {
				let tablebase = match shared.tablebase.state() {
					TablebaseState::Ready => Some(1.0),
					TablebaseState::Building(done) => Some(done),
					TablebaseState::Off(_) | TablebaseState::Failed(_) => None,
				};
				let mut figures =
					Figures::read(&mut shared.live(), Instant::now(), shared.started, tablebase);
				figures.games_archive = shared.committer().games();
				figures.disk = Some(shared.disk.to_wire());
				figures.publish();
			}
		}
	}
}

#[cfg(test)]
mod tests;
