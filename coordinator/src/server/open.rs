//! Opening a run, new or resumed: the run directory and its ledger, generation 0 if the run is
//! new, the trainer restored from the checkpoint and the batches stored after it, the live
//! counters and histories from the ledger, the tablebase, and the assignment workers are told
//! first.

use std::sync::Arc;
use std::time::Instant;

use tigers_core::Network;
use tigers_core::network::file::sha256_hex;
use tigers_core::replay::ReplayWindow;
use tigers_core::stats::{GateRecord, PairCounts};
use tigers_core::trainer::{Trainer, TrainingSettings};
use tigers_proto::v1;
use tracing::info;

use crate::clock::unix_now;
use crate::config::{CoordinatorConfig, RunSettings};
use crate::error::CoordinatorError;
use crate::live::recent::RECENT_SAMPLES;
use crate::live::{Current, Live, Resumed, Shared};
use crate::store::ledger::{GateRow, GenerationRow, Ledger, StopReason};
use crate::store::rundir::{Checkpoint, RunDir};
use crate::tablebase::{self, TablebaseHolder};
use crate::training::TrainingStart;
use crate::training::gating::{GatingStart, gate_summary};
use crate::training::grades::grade_summary;
use crate::training::timed::timed_summary;

/// The training state as it was left: the trainer, the steps taken, and the newest ledger
/// batch whose samples are in its window.
struct Restored {
	trainer: Trainer,
	steps: u64,
	last_batch_id: i64,
}

/// Opens the run directory, creating a new run or resuming the one there.
pub(crate) fn open_run(
	config: &CoordinatorConfig,
) -> Result<(Arc<Shared>, TrainingStart), CoordinatorError> {
	let settings = &config.run;
	// Before the run directory: a table that cannot be used stops the start without leaving a
	// new, empty run behind.
	let tablebase = tablebase::open(config)?;
	let placement = tablebase::open_placement(config)?;
	let run_dir = RunDir::open(&config.run_dir)?;
	let mut ledger = Ledger::open(&run_dir.ledger_path())?;
	let generation = latest_or_first_generation(&run_dir, &mut ledger, settings)?;
	let incumbent = run_dir.load_net(generation)?;
	check_shape(settings, &incumbent, &run_dir)?;
	check_encoding(settings, &incumbent, &run_dir)?;
	let mut restored = restore_trainer(&run_dir, &ledger, settings, &incumbent)?;
	let gates = ledger.gates()?;
	let live = live_from_ledger(&ledger, config, generation, &restored, &gates)?;
	hand_out_tablebase(&tablebase, &mut restored.trainer);
	let current = first_current(settings, generation, incumbent, &tablebase);
	info!(
		run = %run_dir.name(),
		generation,
		samples = live.samples_total(),
		steps = restored.steps,
		window = restored.trainer.window.len(),
		"run opened"
	);
	let shared = Shared::new(
		run_dir,
		ledger,
		settings.clone(),
		current,
		live,
		(tablebase, placement),
		config.min_free_bytes,
	)
	.map_err(|source| CoordinatorError::Io {
		path: "the ledger's writer thread".into(),
		source,
	})?;
	// A run from before the ladder, or one stopped before its pointer was written, names its
	// best net now.
	shared.name_best();
	let start = TrainingStart {
		trainer: restored.trainer,
		steps: restored.steps,
		last_batch_id: restored.last_batch_id,
		gating: gating_start(&gates, generation),
	};
	Ok((shared, start))
}

/// The newest generation in the run directory; in a new run, generation 0, a net made from the
/// run's seed.
fn latest_or_first_generation(
	run_dir: &RunDir,
	ledger: &mut Ledger,
	settings: &RunSettings,
) -> Result<u64, CoordinatorError> {
	if let Some(generation) = run_dir.latest_generation()? {
		return Ok(generation);
	}
	let net = Network::with_encoding(
		settings.shape.unwrap_or_default(),
		settings.new_run_encoding(),
		settings.seed,
	);
	let sha256 = run_dir.save_net(&net)?;
	ledger.record_generation(&GenerationRow {
		generation: 0,
		sha256,
		training_steps: 0,
		promoted_at: unix_now(),
		samples_at_promotion: 0,
	})?;
	info!(
		run = %run_dir.name(),
		shape = %net.shape(),
		input_version = net.encoding().version(),
		"new run: generation 0 created"
	);
	Ok(0)
}

/// Refuses to resume a run with a net shape other than its nets': the shape is chosen when a run
/// starts, and a checkpoint's optimiser state only fits the nets it trained.
fn check_shape(
	settings: &RunSettings,
	incumbent: &Network,
	run_dir: &RunDir,
) -> Result<(), CoordinatorError> {
	match settings.shape {
		Some(wanted) if wanted != incumbent.shape() => Err(CoordinatorError::Config(format!(
			"--net-shape {wanted}: the nets of run {} are {}, and a run keeps the shape it \
			 started with; leave --net-shape out to resume it, or start a new run directory",
			run_dir.name(),
			incumbent.shape()
		))),
		_ => Ok(()),
	}
}

/// Refuses to resume a run with an input encoding other than its nets', as [`check_shape`]: a
/// net reads one encoding for good, and so does every net trained from it.
fn check_encoding(
	settings: &RunSettings,
	incumbent: &Network,
	run_dir: &RunDir,
) -> Result<(), CoordinatorError> {
	match settings.encoding {
		Some(wanted) if wanted != incumbent.encoding() => Err(CoordinatorError::Config(format!(
			"--input-version {wanted}: the nets of run {} read input encoding {}, and a run \
				 keeps the encoding it started with; leave --input-version out to resume it, or \
				 start a new run directory",
			run_dir.name(),
			incumbent.encoding()
		))),
		_ => Ok(()),
	}
}

/// The trainer as the checkpoint left it, or a new one training `incumbent` if there is no
/// checkpoint; with the samples of every batch the ledger stored after it. The window is as
/// large as the growth rule makes it for the samples the ledger holds over the run, the count
/// training follows while the run goes on.
fn restore_trainer(
	run_dir: &RunDir,
	ledger: &Ledger,
	settings: &RunSettings,
	incumbent: &Network,
) -> Result<Restored, CoordinatorError> {
	let mut training = settings.training;
	training.targets.rescore = settings.tablebase_use.rescores();
	let capacity = training
		.window_growth
		.capacity(training.window, ledger.totals()?.samples);
	let mut restored = match run_dir.load_checkpoint()? {
		Some(checkpoint) => from_checkpoint(checkpoint, training, capacity, settings.seed),
		None => {
			let mut trainer = Trainer::new(incumbent.clone(), training, settings.seed);
			trainer.window.set_capacity(capacity);
			Restored {
				trainer,
				steps: 0,
				last_batch_id: 0,
			}
		}
	};
	let later = if restored.last_batch_id > 0 || restored.trainer.window.total_added() > 0 {
		ledger.batches_after(restored.last_batch_id)?
	} else {
		ledger.recent_samples(capacity)?
	};
	for (id, samples) in later {
		restored.trainer.add_samples(samples);
		restored.last_batch_id = restored.last_batch_id.max(id);
	}
	Ok(restored)
}

/// The trainer of `checkpoint`, with the window and its use counts as saved in a window of
/// `capacity`, under the run's `training` settings; its draws go on from a seed of the run's
/// `seed` and the steps taken.
fn from_checkpoint(
	checkpoint: Checkpoint,
	training: TrainingSettings,
	capacity: usize,
	seed: u64,
) -> Restored {
	let mut window = ReplayWindow::new(capacity, training.max_uses);
	for &(sample, uses) in &checkpoint.window {
		window.push_with_uses(sample, uses);
	}
	let steps = checkpoint.training_steps;
	let mut trainer = Trainer::resume(
		checkpoint.net,
		checkpoint.adam,
		window,
		training,
		seed ^ steps,
	);
	// The running average goes on from where it was saved; a checkpoint without one (the
	// average was off, or the run is older) starts it from the weights.
	if trainer.average.is_some() && checkpoint.average.is_some() {
		trainer.average = checkpoint.average;
	}
	Restored {
		trainer,
		steps,
		last_batch_id: checkpoint.last_batch_id,
	}
}

/// The live counters and lists of a run at `generation`, trained as `restored`, from the
/// ledger, which also holds `gates`.
fn live_from_ledger(
	ledger: &Ledger,
	config: &CoordinatorConfig,
	generation: u64,
	restored: &Restored,
	gates: &[GateRow],
) -> Result<Live, CoordinatorError> {
	let generations = ledger.generations()?;
	let mut live = counters(ledger, &config.run, generation, &generations, restored)?;
	histories(&mut live, ledger, gates)?;
	let (now, unix) = (Instant::now(), unix_now());
	// CPU time is counted from now: before, no session of this process was open.
	live.count_cpu(now);
	load_workers(&mut live, ledger, config.limits.forget_workers_after, unix)?;
	seed_recent(&mut live, ledger, &generations, unix, now)?;
	Ok(live)
}

/// The run's counters: its generation and since when, its totals, training's steps and window.
fn counters(
	ledger: &Ledger,
	settings: &RunSettings,
	generation: u64,
	generations: &[GenerationRow],
	restored: &Restored,
) -> Result<Live, CoordinatorError> {
	let totals = ledger.totals()?;
	Ok(Live::resumed(Resumed {
		generation,
		generation_since: generations
			.iter()
			.find(|g| g.generation == generation)
			.map_or(0.0, |g| g.promoted_at),
		samples_total: totals.samples,
		games_total: totals.games,
		training_steps: restored.steps,
		window_samples: restored.trainer.window.len() as u64,
		window_capacity: restored.trainer.window.capacity() as u64,
		last_game: ledger.last_game()?.unwrap_or_default(),
		// Every start begins at the shallowest depth; the rule raises it again within a few
		// periods if the fleet still outruns the trainer.
		work: v1::SelfPlayWork {
			depth: settings.depth,
			depth_min: settings.depth,
			depth_max: settings.adapt.max_depth.max(settings.depth),
			..v1::SelfPlayWork::default()
		},
	}))
}

/// The histories the charts and lists show: `gates`, the measurements at equal time, the
/// losses and the throughput, with the CPU-seconds counted so far.
fn histories(live: &mut Live, ledger: &Ledger, gates: &[GateRow]) -> Result<(), CoordinatorError> {
	for gate in gates {
		live.gate_finished(gate_summary(gate), gate);
	}
	for grade in ledger.grades()? {
		live.record_grade(grade_summary(&grade));
	}
	for timed in ledger.timed()? {
		live.record_timed(timed_summary(&timed));
	}
	for (step, loss) in ledger.losses(0)? {
		live.loss_recorded(v1::LossPoint {
			training_steps: step,
			loss: f64::from(loss),
		});
	}
	// The loss as last recorded stands until training runs again, so that a resumed run shows
	// its loss (and no alarm) rather than none.
	if let Some(last) = live.loss_history().last().filter(|l| l.loss.is_finite()) {
		live.push_loss(last.loss as f32);
	}
	for row in ledger.throughput()? {
		live.throughput_resumed(&row);
	}
	Ok(())
}

/// Lists the workers of the ledger as they were last seen, unconnected: when (by the wall
/// clock, as the ledger keeps it), the generation of their last batch, their samples and flags.
/// Workers not seen within `horizon` of `now` (Unix seconds) stay in the ledger but out of the
/// snapshots; one that joins again is listed again.
fn load_workers(
	live: &mut Live,
	ledger: &Ledger,
	horizon: std::time::Duration,
	now: f64,
) -> Result<(), CoordinatorError> {
	for worker in ledger.workers()? {
		// A last_seen stored as NULL reads as NaN: kept, as if just seen.
		let last_heard = if worker.last_seen.is_finite() {
			worker.last_seen
		} else {
			now
		};
		if now - last_heard > horizon.as_secs_f64() {
			continue;
		}
		live.worker_remembered(worker, last_heard);
	}
	Ok(())
}

/// The samples of the last five minutes, from the ledger's batches, each judged against the
/// generation promoted when it arrived: the share of stale samples covers those minutes across
/// the restart. `unix` and `now` are the same moment by the wall and the monotonic clock.
fn seed_recent(
	live: &mut Live,
	ledger: &Ledger,
	generations: &[GenerationRow],
	unix: f64,
	now: Instant,
) -> Result<(), CoordinatorError> {
	let promoted_at = |t: f64| {
		generations
			.iter()
			.filter(|g| g.promoted_at <= t)
			.map(|g| g.generation)
			.max()
			.unwrap_or(0)
	};
	let recent = ledger.batches_since(unix - RECENT_SAMPLES.as_secs_f64())?;
	live.recent_samples_resumed(&recent, promoted_at, unix, now);
	Ok(())
}

/// A table already at hand goes to the trainer, and to this process's local workers.
fn hand_out_tablebase(tablebase: &TablebaseHolder, trainer: &mut Trainer) {
	if let Some(table) = tablebase.table() {
		// Local workers in this process take this one copy instead of reading the file again.
		super::local_workers::share_tablebase(&table);
		trainer.tablebase = Some(table);
	}
}

/// What workers are told first: `incumbent`, of `generation`, at the shallowest self-play depth
/// (as `counters` says), with the tablebase if there is one.
fn first_current(
	settings: &RunSettings,
	generation: u64,
	incumbent: Network,
	tablebase: &TablebaseHolder,
) -> Current {
	let sha256 = sha256_hex(&incumbent.to_bytes());
	let assignment = settings.assignment(generation, sha256, tablebase.identity(), settings.depth);
	Current {
		assignment,
		net: Arc::new(incumbent),
	}
}

/// What the ledger's `gates` tell gating: the incumbent's record (the newest promoted row
/// against `ClaudePlayer`, its promotion gate or its measurement), whether it is a measurement,
/// and how many matches were played.
fn gating_start(gates: &[GateRow], generation: u64) -> GatingStart {
	let incumbent = gates
		.iter()
		.rev()
		.find(|g| g.promoted && g.opponent_generation.is_none());
	GatingStart {
		incumbent: incumbent.map(|g| GateRecord {
			pairs: PairCounts { counts: g.pairs },
			stop: g.stop.gate_stop(),
		}),
		// Measured only if that measurement is of the newest generation: with the gate off, a
		// net is promoted without a row of its own, and the last measurement is its
		// predecessor's.
		incumbent_measured: incumbent.is_some_and(|g| {
			g.stop == StopReason::Measured && g.candidate_generation == generation
		}),
		gates_played: gates.len() as u64,
	}
}

#[cfg(test)]
mod tests {
	use tigers_core::stats::GateStop;
	use tigers_core::tablebase::Accuracy;

	use super::*;

	fn gate(generation: u64, promoted: bool, stop: StopReason, pairs: [u32; 5]) -> GateRow {
		GateRow {
			id: 0,
			candidate_generation: generation,
			training_steps: 500 * generation,
			promoted,
			tigers_wins: 0,
			tigers_draws: 0,
			tigers_losses: 0,
			sheep_wins: 0,
			sheep_draws: 0,
			sheep_losses: 0,
			score: 0.5,
			score_low: 0.4,
			score_high: 0.6,
			elo: 0.0,
			stop,
			reason: String::new(),
			finished_at: 0.0,
			pairs,
			cpu_seconds: 0.0,
			candidate_exact: Accuracy::default(),
			reference_exact: Accuracy::default(),
			candidate_placement: Accuracy::default(),
			reference_placement: Accuracy::default(),
			opponent_generation: None,
		}
	}

	#[test]
	fn a_new_run_has_no_incumbent_record_to_beat() {
		let start = gating_start(&[], 0);
		assert_eq!(start.incumbent, None);
		assert!(!start.incumbent_measured);
		assert_eq!(start.gates_played, 0);
	}

	#[test]
	fn the_incumbents_record_is_the_newest_promoted_row() {
		let h1 = StopReason::Candidate(GateStop::AcceptH1);
		let h0 = StopReason::Candidate(GateStop::AcceptH0);
		let measured = gate(1, true, StopReason::Measured, [0, 1, 2, 3, 4]);
		let promoted = gate(2, true, h1, [1, 1, 1, 1, 1]);
		let refused = gate(3, false, h0, [4, 0, 0, 0, 0]);
		let start = gating_start(&[measured.clone(), promoted, refused.clone()], 2);
		let record = start.incumbent.expect("a promoted row");
		assert_eq!(record.pairs.counts, [1, 1, 1, 1, 1]);
		assert_eq!(record.stop, GateStop::AcceptH1);
		assert!(!start.incumbent_measured, "promoted, not yet measured");
		assert_eq!(start.gates_played, 3);
		let start = gating_start(&[measured.clone(), refused.clone()], 1);
		assert!(start.incumbent_measured);
		assert_eq!(start.incumbent.map(|r| r.stop), Some(GateStop::Cap));
		// With the gate off, generation 2 was promoted without a row: not yet measured.
		assert!(!gating_start(&[measured.clone(), refused.clone()], 2).incumbent_measured);
		// Promoted by a match against the incumbent: generation 1's measurement is the record
		// against ClaudePlayer, and generation 2 is still to be measured.
		let head_to_head = GateRow {
			opponent_generation: Some(1),
			..gate(2, true, h1, [0, 0, 0, 0, 9])
		};
		let start = gating_start(&[measured, head_to_head, refused], 2);
		assert_eq!(
			start.incumbent.map(|r| r.pairs.counts),
			Some([0, 1, 2, 3, 4])
		);
		assert!(!start.incumbent_measured);
	}
}
