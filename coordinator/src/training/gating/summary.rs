//! A gate match as the dashboards see it: the ledger's row as the wire's `GateSummary`, and the
//! tablebase's judgement of the moves as the wire's accuracy.

use tigers_core::tablebase::Accuracy;
use tigers_proto::v1;

use crate::store::ledger::{GateRow, StopReason};

/// The dashboard's view of a gate row.
pub(crate) fn gate_summary(row: &GateRow) -> v1::GateSummary {
	let side = |w, d, l| {
		Some(v1::SideResult {
			wins: w,
			draws: d,
			losses: l,
		})
	};
	v1::GateSummary {
		generation: row.candidate_generation,
		training_steps: row.training_steps,
		promoted: row.promoted,
		as_tigers: side(row.tigers_wins, row.tigers_draws, row.tigers_losses),
		as_sheep: side(row.sheep_wins, row.sheep_draws, row.sheep_losses),
		score: row.score,
		score_low: row.score_low,
		score_high: row.score_high,
		reason: row.reason.clone(),
		finished_at: row.finished_at,
		elo: row.elo,
		cpu_hours: row.cpu_seconds / 3600.0,
		measurement: row.stop == StopReason::Measured,
		candidate_exact: exact(row.candidate_exact),
		reference_exact: exact(row.reference_exact),
		candidate_placement: exact(row.candidate_placement),
		reference_placement: exact(row.reference_placement),
		opponent_generation: row.opponent_generation,
	}
}

/// An accuracy for the wire; absent where nothing was judged (no tablebase, or no placement
/// layers).
pub(crate) fn exact(accuracy: Accuracy) -> Option<v1::ExactAccuracy> {
	(accuracy.moves > 0).then_some(v1::ExactAccuracy {
		moves: accuracy.moves,
		kept: accuracy.kept,
	})
}
