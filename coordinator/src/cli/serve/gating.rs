//! `coordinator`'s flags for gating and measuring: how a candidate is promoted, the gate
//! matches' size, threads and tablebase, the promoted nets' measurements at equal time and
//! grades, and the alarm when no net improves.

use std::time::Duration;

use clap::Args;
use clap::builder::RangedU64ValueParser;
use tigers_coordinator::config::{CoordinatorConfig, GateMode};
use tigers_core::gate::TableRole;

use crate::cli::common::{one_of, run_defaults, share};

/// Gating's and measuring's flags.
#[derive(Args)]
pub(crate) struct GatingArgs {
	/// Most pairs of games in a gate match.
	#[arg(long, default_value_t = run_defaults().gate.policy.max_pairs)]
	gate_max_pairs: u32,
	/// Pairs before the gate's SPRT may stop it.
	#[arg(long, default_value_t = run_defaults().gate.policy.min_pairs)]
	gate_min_pairs: u32,
	/// How a candidate becomes a generation: both (a gate match against the incumbent net, then
	/// for a winner a check against ClaudePlayer beside the incumbent on the same openings,
	/// promoted only if it is not worse there by more than --gate-claude-margin), incumbent (the
	/// match against the incumbent alone, promoted if it scores above 0.5 and the SPRT does not
	/// find it no better), sprt (a gate match against ClaudePlayer, promoted if the SPRT finds
	/// it better than the incumbent) or none (every candidate promoted without a match). Every
	/// promoted net is then measured against ClaudePlayer on fresh openings.
	#[arg(long, value_name = "MODE", default_value = run_defaults().gate_mode.name(),
		value_parser = one_of::<GateMode>(&GateMode::NAMES))]
	gate: GateMode,
	/// Promote only a candidate whose gate match ended with the SPRT accepting H1, not one that
	/// reached --gate-max-pairs undecided with a better score: a stricter gate, for
	/// experiments (under --gate incumbent most promotions come at the cap, within the noise).
	#[arg(long)]
	gate_require_h1: bool,
	/// Under --gate both, how far below the incumbent (in points a game, 0 to 1) a candidate may
	/// score against ClaudePlayer on the same openings, by the one-sided 95% lower bound of the
	/// paired difference, and still be promoted.
	#[arg(long, value_name = "POINTS", default_value_t = run_defaults().promotion.claude_margin,
		value_parser = share::<f64>)]
	gate_claude_margin: f64,
	/// What the tablebase does in gate matches: judge (it only judges the moves, so a candidate
	/// plays the movement phase with its own evaluation) or play (both players search with it,
	/// so only the placement phase, which self-play trains on, decides a game).
	#[arg(long, value_name = "ROLE", default_value = run_defaults().gate.table.name(),
		value_parser = one_of::<TableRole>(&TableRole::NAMES))]
	gate_tablebase: TableRole,
	/// Minutes without a stronger net (a promotion by the gate, or a measurement better than
	/// every earlier one) before the dashboards raise an alarm; 0 for never.
	#[arg(long, value_name = "MINUTES",
		default_value_t = run_defaults().stall_alarm.as_secs() / 60)]
	stall_alarm_minutes: u64,
	/// Threads that play gate matches (1 to 256): the share of the machine gating may take
	/// [default: one per core].
	#[arg(long, value_name = "N",
		value_parser = RangedU64ValueParser::<usize>::new().range(1..=256))]
	gate_threads: Option<usize>,
	/// Each player's time a move when promoted nets are measured at equal time against
	/// ClaudePlayer (1 to 60000).
	#[arg(long, value_name = "MS",
		default_value_t = run_defaults().timed.move_time.as_millis() as u64,
		value_parser = clap::value_parser!(u64).range(1..=60_000))]
	timed_ms: u64,
	/// Pairs of games in each measurement at equal time; 0 measures none.
	#[arg(long, default_value_t = run_defaults().timed.pairs)]
	timed_pairs: u32,
	/// Do not grade the promoted nets on the grading suite (by default each is graded at the
	/// gate's depth, a few seconds of one core; docs/training.md, "Grades from the exact
	/// values").
	#[arg(long)]
	no_grades: bool,
	/// What the tablebase does in the measurements at equal time: play (both players search
	/// with it, as in tui, and it judges their moves) or judge (it judges the moves only).
	#[arg(long, value_name = "ROLE", default_value = run_defaults().timed.tablebase.name(),
		value_parser = one_of::<TableRole>(&TableRole::NAMES))]
	measure_tablebase: TableRole,
}

impl GatingArgs {
	/// Sets how candidates are gated and promoted nets measured at equal time and graded, and
	/// the threads the gate matches take, in `config`.
	pub(super) fn apply(&self, config: &mut CoordinatorConfig) {
		config.gate_threads = self.gate_threads;
		let run = &mut config.run;
		run.gate.policy.max_pairs = self.gate_max_pairs.max(1);
		run.gate.policy.min_pairs = self.gate_min_pairs;
		run.gate_mode = self.gate;
		run.promotion.require_h1 = self.gate_require_h1;
		run.promotion.claude_margin = self.gate_claude_margin;
		run.gate.table = self.gate_tablebase;
		run.stall_alarm = Duration::from_secs(self.stall_alarm_minutes.saturating_mul(60));
		run.timed.move_time = Duration::from_millis(self.timed_ms);
		run.timed.pairs = self.timed_pairs.min(10_000);
		run.timed.tablebase = self.measure_tablebase;
		run.grade = !self.no_grades;
	}
}
