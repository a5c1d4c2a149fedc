//! `Improvement`: when the run last got a stronger net, for the dashboards' alarm "no stronger
//! net for 30 minutes", which tells a user that more hardware or other settings are needed.
//!
//! A net counts as stronger when a gate promoted it (the SPRT found it better than the
//! incumbent), or when its measurement on fresh openings beat every earlier measurement: with
//! the gate off every candidate is promoted, and only the measurements say which were better.

use crate::store::ledger::{GateRow, StopReason};

/// The run's best measured score so far and when it last got a stronger net.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Improvement {
	/// The best score of a measurement on fresh openings, if there has been one.
	pub best_measured: Option<f64>,
	/// When (Unix seconds) the run last got a stronger net; 0 before any gate match.
	pub since: f64,
}

impl Improvement {
	/// Takes in a finished gate match; whether it showed a stronger net.
	pub(crate) fn see(&mut self, gate: &GateRow) -> bool {
		let stronger = match gate.stop {
			StopReason::Candidate(_) => gate.promoted,
			StopReason::Measured => self.best_measured.is_none_or(|best| gate.score > best),
		};
		if gate.stop == StopReason::Measured && stronger {
			self.best_measured = Some(gate.score);
		}
		if stronger {
			self.since = self.since.max(gate.finished_at);
		}
		stronger
	}
}

#[cfg(test)]
mod tests {
	use tigers_core::stats::GateStop;

	use super::*;

	fn gate(stop: StopReason, promoted: bool, score: f64, finished_at: f64) -> GateRow {
		GateRow {
			id: 0,
			candidate_generation: 0,
			training_steps: 0,
			promoted,
			tigers_wins: 0,
			tigers_draws: 0,
			tigers_losses: 0,
			sheep_wins: 0,
			sheep_draws: 0,
			sheep_losses: 0,
			score,
			score_low: score,
			score_high: score,
			elo: 0.0,
			stop,
			reason: String::new(),
			finished_at,
			cpu_seconds: 0.0,
			candidate_exact: Default::default(),
			reference_exact: Default::default(),
			candidate_placement: Default::default(),
			reference_placement: Default::default(),
			opponent_generation: None,
			pairs: [0; 5],
		}
	}

	#[test]
	fn a_promotion_or_a_better_measurement_is_a_stronger_net() {
		let measured = StopReason::Measured;
		let candidate = StopReason::Candidate(GateStop::AcceptH1);
		let rejected = StopReason::Candidate(GateStop::AcceptH0);
		let gates = [
			// Generation 0 measured: the first net is the first "stronger" one.
			gate(measured, true, 0.10, 100.0),
			gate(rejected, false, 0.30, 200.0),
			// A promotion by the gate.
			gate(candidate, true, 0.40, 300.0),
			// Its measurement read lower than the gate (the gate's is the best of many).
			gate(measured, true, 0.35, 400.0),
			// With the gate off: promoted, measured no better.
			gate(measured, true, 0.20, 500.0),
			gate(rejected, false, 0.90, 600.0),
		];
		let mut improvement = Improvement::default();
		for gate in &gates {
			improvement.see(gate);
		}
		assert_eq!(improvement.since, 400.0);
		assert_eq!(improvement.best_measured, Some(0.35));
		let mut later = improvement;
		assert!(later.see(&gate(measured, true, 0.36, 700.0)));
		assert_eq!(later.since, 700.0);
		assert_eq!(Improvement::default().since, 0.0);
	}
}
