//! Gating, for the training thread: a candidate, or the incumbent to measure it, plays its
//! match on the gating pool, off the training thread, one match at a time. A measurement is
//! always against `ClaudePlayer`; a candidate plays `ClaudePlayer` too (`--gate sprt`) or the
//! incumbent net itself (`--gate incumbent`), and under `--gate both`, the default, a candidate
//! that wins against the incumbent then plays `ClaudePlayer` beside the incumbent on the same
//! openings and must not be worse there by more than a margin. A finished match is recorded in
//! the ledger and on the dashboards, judged by core's promotion rule, and a candidate that
//! wins is promoted. With the gate off (`--gate none`) every candidate is promoted without a
//! match, and its measurement is what says how strong it is.

mod parallel;
mod summary;

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use tigers_core::Network;
use tigers_core::gate::{GateSettings, GateTally, Reference, Tables};
use tigers_core::stats::{
	GatePolicy, GateRecord, PairedDifference, PromotionDecision, not_worse, promote,
	promote_over_incumbent,
};
use tracing::{error, info};

use self::parallel::{run_check_parallel, run_gate_parallel};
pub(crate) use self::summary::{exact, gate_summary};
use crate::clock::unix_now;
use crate::config::GateMode;
use crate::live::Shared;
use crate::store::StorageError;
use crate::store::ledger::{GateRow, GenerationRow, StopReason};

/// Where gating starts from: what the ledger holds of the run's matches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GatingStart {
	/// The incumbent's gate record; `None` until generation 0 has been gated.
	pub incumbent: Option<GateRecord>,
	/// Whether that record is a measurement on fresh openings rather than the incumbent's own
	/// promotion gate; if not, the incumbent is measured first.
	pub incumbent_measured: bool,
	/// Gate matches so far in the run; each match draws its openings from its own number.
	pub gates_played: u64,
}

/// What a gate match is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateKind {
	/// Measuring the incumbent on fresh openings, all pairs played: the first net, and every net
	/// just promoted, whose promotion score is biased upwards by its selection (the best of many
	/// noisy candidates) and would otherwise be a bar later candidates cannot reach.
	Measure,
	/// A candidate that may replace the incumbent.
	Candidate,
	/// Under `--gate both`, a candidate that won against the incumbent, playing `ClaudePlayer`
	/// on fresh openings, all pairs, beside the incumbent on the same ones.
	Check,
}

/// A gate match that finished on the gating pool.
struct GateDone {
	kind: GateKind,
	/// The incumbent's generation if the candidate played it head to head; `None` for
	/// `ClaudePlayer`.
	opponent_generation: Option<u64>,
	candidate: Network,
	steps: u64,
	tally: GateTally,
	/// A check's other half: the incumbent on the same openings.
	check: Option<CheckTally>,
}

impl GateDone {
	/// What its ledger row takes from it: the tally, the training steps and the opponent.
	fn facts(&self) -> (&GateTally, u64, Option<u64>) {
		(&self.tally, self.steps, self.opponent_generation)
	}
}

/// The incumbent's side of a check, and each opening's difference between the two nets.
struct CheckTally {
	/// The incumbent's generation.
	generation: u64,
	/// The incumbent's results against `ClaudePlayer` on the check's openings.
	tally: GateTally,
	/// Each opening's pair score, the candidate's minus the incumbent's.
	difference: PairedDifference,
}

/// A candidate that won against the incumbent and waits for its check against `ClaudePlayer`;
/// its head-to-head row is written once the check has decided.
struct Pending {
	done: GateDone,
	record: GateRecord,
	verdict: Verdict,
}

/// What a finished match decided.
struct Verdict {
	/// The generation its net is (measured) or would be (a candidate).
	generation: u64,
	/// Whether the candidate is promoted (a measurement is recorded as promoted: its row is the
	/// incumbent's record, which is how a restart finds it), and why.
	decision: PromotionDecision,
	/// How the match ended.
	stop: StopReason,
}

/// The run's gate matches, and what they established about the incumbent.
pub(super) struct Gating {
	shared: Arc<Shared>,
	pool: Arc<rayon::ThreadPool>,
	/// Finished matches come back on this channel from their threads.
	results: (Sender<GateDone>, Receiver<GateDone>),
	/// Whether a match is being played.
	running: bool,
	/// The incumbent's record: the score a candidate must beat.
	incumbent: Option<GateRecord>,
	/// The incumbent, when it still has to be measured.
	to_measure: Option<Network>,
	/// Matches so far in the run.
	played: u64,
	/// The training steps when the last candidate was taken.
	last_candidate: u64,
	/// The candidate whose check against `ClaudePlayer` is being played.
	pending: Option<Pending>,
}

impl Gating {
	/// Gating from `start`, with the run at `steps` training steps.
	pub(super) fn new(
		shared: Arc<Shared>,
		start: GatingStart,
		steps: u64,
		pool: Arc<rayon::ThreadPool>,
	) -> Gating {
		// A new run, or one stopped before its incumbent was measured: measure it first, so
		// candidates have a fair score to beat.
		let to_measure = (start.incumbent.is_none() || !start.incumbent_measured)
			.then(|| (*shared.current().net).clone());
		Gating {
			shared,
			pool,
			results: channel(),
			running: false,
			incumbent: start.incumbent,
			to_measure,
			played: start.gates_played,
			last_candidate: steps,
			pending: None,
		}
	}

	/// Finishes the match that is done, if one is; whether it promoted a candidate.
	pub(super) fn finish_done(&mut self) -> bool {
		let mut promoted = false;
		while let Ok(done) = self.results.1.try_recv() {
			promoted |= self.finish(done);
		}
		promoted
	}

	/// Starts what is due if no match is running: the incumbent's measurement first, otherwise
	/// the `candidate` of the training at `steps` steps, every `steps_per_candidate` steps,
	/// gated or (with the gate off) promoted at once. Whether it promoted one.
	pub(super) fn start_due(&mut self, candidate: &dyn Fn() -> Network, steps: u64) -> bool {
		let due = steps >= self.last_candidate + self.shared.settings.steps_per_candidate;
		let next = next_action(
			self.running,
			self.to_measure.is_some(),
			due,
			self.shared.settings.gate_mode,
		);
		match next {
			Next::Wait => false,
			Next::Measure => {
				if let Some(incumbent) = self.to_measure.take() {
					self.start(GateKind::Measure, incumbent, steps);
				}
				false
			}
			Next::Gate => {
				self.last_candidate = steps;
				self.start(GateKind::Candidate, candidate(), steps);
				false
			}
			Next::Promote => {
				self.last_candidate = steps;
				self.promote_ungated(candidate(), steps)
			}
		}
	}

	/// With the gate off: makes `net`, trained for `steps`, the next generation without a
	/// match, to be measured next like any promoted net. Whether it was promoted.
	fn promote_ungated(&mut self, mut net: Network, steps: u64) -> bool {
		net.generation = self.shared.current().assignment.generation + 1;
		if let Err(e) = promote_net(&self.shared, net.clone(), steps, unix_now()) {
			error!(%e, "could not promote the candidate");
			return false;
		}
		info!(
			generation = net.generation,
			steps, "promoted without a gate (--gate none)"
		);
		self.to_measure = Some(net);
		true
	}

	/// Plays `net`'s match on the gating pool, from a thread of its own that sends the result
	/// back.
	fn start(&mut self, kind: GateKind, net: Network, steps: u64) {
		self.running = true;
		let settings = self.next_match(kind);
		// A candidate under `--gate incumbent` or `both` plays the incumbent, which cannot
		// change while its match or its check runs: only a finished match promotes.
		let (reference, opponent_generation) = if self.head_to_head(kind) {
			let current = self.shared.current();
			(
				Reference::Net(current.net.clone()),
				Some(current.assignment.generation),
			)
		} else {
			(Reference::Claude, None)
		};
		let sender = self.results.0.clone();
		let pool = self.pool.clone();
		// The table judges the players' moves, and both search with it if the gate's settings
		// put it in play (`--gate-tablebase play`); the placement layers, if any, judge the
		// placement-phase moves.
		let judge = self.shared.tablebase.table();
		let placement = self.shared.placement.table().cloned();
		std::thread::Builder::new()
			.name("gate".into())
			.spawn(move || {
				let net = Arc::new(net);
				let tables = Tables {
					movement: judge.as_ref(),
					placement: placement.as_ref(),
				};
				let tally = pool.install(|| run_gate_parallel(&net, &reference, &settings, tables));
				let candidate = Arc::try_unwrap(net).unwrap_or_else(|net| (*net).clone());
				let _ = sender.send(GateDone {
					kind,
					opponent_generation,
					candidate,
					steps,
					tally,
					check: None,
				});
			})
			.expect("the gate thread starts");
	}

	/// Plays the check of `candidate`, which won against the incumbent: both play
	/// `ClaudePlayer` on the same fresh openings, on the gating pool, from a thread of its own.
	fn start_check(&mut self, candidate: Network, steps: u64) {
		self.running = true;
		let settings = self.next_match(GateKind::Check);
		let current = self.shared.current();
		let (incumbent, generation) = (current.net.clone(), current.assignment.generation);
		let sender = self.results.0.clone();
		let pool = self.pool.clone();
		let judge = self.shared.tablebase.table();
		let placement = self.shared.placement.table().cloned();
		std::thread::Builder::new()
			.name("gate-check".into())
			.spawn(move || {
				let net = Arc::new(candidate);
				let tables = Tables {
					movement: judge.as_ref(),
					placement: placement.as_ref(),
				};
				let (tally, theirs, difference) =
					pool.install(|| run_check_parallel(&net, &incumbent, &settings, tables));
				let candidate = Arc::try_unwrap(net).unwrap_or_else(|net| (*net).clone());
				let _ = sender.send(GateDone {
					kind: GateKind::Check,
					opponent_generation: None,
					candidate,
					steps,
					tally,
					check: Some(CheckTally {
						generation,
						tally: theirs,
						difference,
					}),
				});
			})
			.expect("the gate thread starts");
	}

	/// Whether a match of `kind` is a candidate's against the incumbent itself.
	fn head_to_head(&self, kind: GateKind) -> bool {
		kind == GateKind::Candidate && self.shared.settings.gate_mode.head_to_head()
	}

	/// The settings of the next match, one of `kind`.
	fn next_match(&mut self, kind: GateKind) -> GateSettings {
		let base = self.shared.settings.gate;
		let policy = match kind {
			// A measurement plays every pair: no early stop, the most accurate score; so does a
			// check, whose two halves must cover the same openings.
			GateKind::Measure | GateKind::Check => GatePolicy {
				min_pairs: base.policy.max_pairs,
				..base.policy
			},
			// Head to head the SPRT's Elo is already the candidate's over the incumbent.
			GateKind::Candidate if self.head_to_head(kind) => base.policy,
			GateKind::Candidate => base.policy_against(self.incumbent.as_ref()),
		};
		// Fresh openings for every match, so no net is judged on the openings that selected it.
		let seed = base
			.seed
			.wrapping_add(self.played.wrapping_mul(0x9e37_79b9_7f4a_7c15));
		self.played += 1;
		GateSettings {
			policy,
			seed,
			..base
		}
	}

	/// Judges a finished match, records it, and acts on it; whether it promoted a candidate.
	fn finish(&mut self, done: GateDone) -> bool {
		self.running = false;
		let Some(record) = done.tally.record() else {
			return false;
		};
		if done.kind == GateKind::Check {
			return self.finish_check(done, record);
		}
		let verdict = self.judge(done.kind, &record);
		if done.kind == GateKind::Candidate
			&& verdict.decision.promote
			&& self.shared.settings.gate_mode == GateMode::Both
		{
			info!(generation = verdict.generation, score = %record.estimate(), "won against the incumbent; checking against ClaudePlayer");
			let (candidate, steps) = (done.candidate.clone(), done.steps);
			self.pending = Some(Pending {
				done,
				record,
				verdict,
			});
			self.start_check(candidate, steps);
			return false;
		}
		let now = unix_now();
		let row = gate_row(done.facts(), &record, &verdict, self.cpu_seconds(), now);
		self.record(&row);
		let (generation, decision) = (verdict.generation, &verdict.decision);
		info!(generation, kind = ?done.kind, score = %record.estimate(), promoted = decision.promote, reason = %decision.reason, "gate finished");
		self.act(done, record, &verdict, now)
	}

	/// Decides a finished check: writes the incumbent's half as a measurement of it, then the
	/// candidate's head-to-head row and its check row, both with the check's verdict, and
	/// promotes the candidate if it passed. Whether it did.
	fn finish_check(&mut self, done: GateDone, record: GateRecord) -> bool {
		let (Some(pending), Some(check)) = (self.pending.take(), done.check.as_ref()) else {
			return false;
		};
		let decision = not_worse(
			&check.difference,
			self.shared.settings.promotion.claude_margin,
		);
		let now = unix_now();
		let cpu_seconds = self.cpu_seconds();
		let candidate_generation = pending.verdict.generation;
		if let Some(theirs) = check.tally.record() {
			let verdict = Verdict {
				generation: check.generation,
				decision: PromotionDecision {
					promote: true,
					reason: format!(
						"generation {} measured on generation {candidate_generation}'s check \
						 openings",
						check.generation
					),
				},
				stop: StopReason::Measured,
			};
			self.record(&gate_row(
				(&check.tally, done.steps, None),
				&theirs,
				&verdict,
				cpu_seconds,
				now,
			));
		}
		let head_to_head = Verdict {
			decision: PromotionDecision {
				promote: decision.promote,
				reason: format!(
					"{}; then {}",
					pending.verdict.decision.reason, decision.reason
				),
			},
			..pending.verdict
		};
		self.record(&gate_row(
			pending.done.facts(),
			&pending.record,
			&head_to_head,
			cpu_seconds,
			now,
		));
		let verdict = Verdict {
			generation: candidate_generation,
			decision,
			stop: StopReason::Candidate(record.stop),
		};
		self.record(&gate_row(done.facts(), &record, &verdict, cpu_seconds, now));
		info!(generation = candidate_generation, score = %record.estimate(), promoted = verdict.decision.promote, reason = %verdict.decision.reason, "check finished");
		if !verdict.decision.promote {
			return false;
		}
		self.promote_candidate(done.candidate, candidate_generation, done.steps, now)
	}

	/// What the match of `kind` that made `record` decides: a measurement sets the score to
	/// beat; a candidate is judged by the promotion rule against the incumbent's record.
	fn judge(&self, kind: GateKind, record: &GateRecord) -> Verdict {
		let generation = self.shared.current().assignment.generation;
		match kind {
			GateKind::Measure => Verdict {
				generation,
				decision: PromotionDecision {
					promote: true,
					reason: format!(
						"generation {generation} measured on fresh openings: the score to beat"
					),
				},
				stop: StopReason::Measured,
			},
			GateKind::Candidate | GateKind::Check => Verdict {
				generation: generation + 1,
				decision: if self.head_to_head(kind) {
					promote_over_incumbent(record, &self.shared.settings.promotion)
				} else {
					promote(
						record,
						self.incumbent.as_ref(),
						&self.shared.settings.promotion,
					)
				},
				stop: StopReason::Candidate(record.stop),
			},
		}
	}

	/// The workers' CPU-seconds over the run, counted up to now.
	fn cpu_seconds(&self) -> f64 {
		self.shared.live().cpu_seconds(Instant::now())
	}

	/// Writes a finished match's row to the ledger and shows it on the dashboards.
	fn record(&self, row: &GateRow) {
		if let Err(e) = self.shared.ledger().record_gate(row) {
			error!(%e, "could not record the gate");
		}
		self.shared.live().gate_finished(gate_summary(row), row);
		self.shared.name_best();
	}

	/// Acts on a recorded match: a measurement becomes the incumbent's record; a candidate that
	/// won is promoted, its promotion gate standing for it until it is measured. Whether one
	/// was promoted.
	fn act(&mut self, done: GateDone, record: GateRecord, verdict: &Verdict, now: f64) -> bool {
		match done.kind {
			GateKind::Measure => {
				self.incumbent = Some(record);
				false
			}
			GateKind::Candidate if verdict.decision.promote => {
				// Its gate stands for it until it is measured, unless that gate was against the
				// incumbent, whose record against `ClaudePlayer` then stays the best known.
				if done.opponent_generation.is_none() {
					self.incumbent = Some(record);
				}
				self.promote_candidate(done.candidate, verdict.generation, done.steps, now)
			}
			GateKind::Candidate | GateKind::Check => false,
		}
	}

	/// Promotes `net`, trained for `steps`, as `generation`, to be measured next on fresh
	/// openings. Whether it was promoted.
	fn promote_candidate(
		&mut self,
		mut net: Network,
		generation: u64,
		steps: u64,
		now: f64,
	) -> bool {
		net.generation = generation;
		if let Err(e) = promote_net(&self.shared, net.clone(), steps, now) {
			error!(%e, "could not promote the candidate");
			return false;
		}
		self.to_measure = Some(net);
		true
	}
}

/// What gating does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
	/// Nothing: a match is running, or nothing is due.
	Wait,
	/// Measure the incumbent on fresh openings.
	Measure,
	/// Play a candidate's gate match.
	Gate,
	/// Promote the candidate without a match (the gate is off).
	Promote,
}

/// The rule behind [`Gating::start_due`]: one match at a time; a net waiting to be measured
/// first; then a candidate once one is due, gated or promoted by `mode`. With the gate off a
/// candidate is due only after the last promoted net's measurement, so generations come no
/// faster than they are measured.
fn next_action(running: bool, to_measure: bool, candidate_due: bool, mode: GateMode) -> Next {
	if running {
		Next::Wait
	} else if to_measure {
		Next::Measure
	} else if !candidate_due {
		Next::Wait
	} else if mode == GateMode::None {
		Next::Promote
	} else {
		Next::Gate
	}
}

/// Makes `net`, trained for `steps`, the run's new generation: its file, its ledger row, and
/// the assignment every session is told.
fn promote_net(shared: &Shared, net: Network, steps: u64, now: f64) -> Result<(), StorageError> {
	let sha256 = shared.run_dir.save_net(&net)?;
	let samples = shared.live().samples_total();
	shared.ledger().record_generation(&GenerationRow {
		generation: net.generation,
		sha256: sha256.clone(),
		training_steps: steps,
		promoted_at: now,
		samples_at_promotion: samples,
	})?;
	info!(generation = net.generation, "promoted");
	shared.promote(Arc::new(net), sha256);
	Ok(())
}

/// The ledger's row of a finished match (its tally, the training steps of the net that played,
/// and the opponent net's generation if it was one) that made `record` and was judged `verdict`,
/// with the workers' CPU-seconds over the run and the time (Unix seconds) when it finished.
fn gate_row(
	(tally, steps, opponent_generation): (&GateTally, u64, Option<u64>),
	record: &GateRecord,
	verdict: &Verdict,
	cpu_seconds: f64,
	now: f64,
) -> GateRow {
	let estimate = record.estimate();
	let (t, s) = (tally.by_side.as_tigers, tally.by_side.as_sheep);
	GateRow {
		id: 0,
		candidate_generation: verdict.generation,
		training_steps: steps,
		promoted: verdict.decision.promote,
		tigers_wins: t.wins,
		tigers_draws: t.draws,
		tigers_losses: t.losses,
		sheep_wins: s.wins,
		sheep_draws: s.draws,
		sheep_losses: s.losses,
		score: estimate.score,
		score_low: estimate.low,
		score_high: estimate.high,
		elo: estimate.elo().elo,
		stop: verdict.stop,
		reason: verdict.decision.reason.clone(),
		finished_at: now,
		pairs: record.pairs.counts,
		cpu_seconds,
		candidate_exact: tally.candidate_accuracy,
		reference_exact: tally.reference_accuracy,
		candidate_placement: tally.candidate_placement,
		reference_placement: tally.reference_placement,
		opponent_generation,
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn candidates_are_gated_or_with_the_gate_off_promoted_each_after_a_measurement() {
		for mode in [GateMode::Sprt, GateMode::None] {
			assert_eq!(next_action(true, true, true, mode), Next::Wait);
			assert_eq!(next_action(false, true, true, mode), Next::Measure);
			assert_eq!(next_action(false, false, false, mode), Next::Wait);
		}
		assert_eq!(next_action(false, false, true, GateMode::Sprt), Next::Gate);
		assert_eq!(
			next_action(false, false, true, GateMode::None),
			Next::Promote
		);
	}
}
