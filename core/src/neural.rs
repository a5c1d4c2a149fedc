//! `NeuralPlayer`: the search with a [`Network`] as its evaluation.

use std::sync::Arc;
use std::time::Duration;

use crate::board::GameBoard;
use crate::moves::Turn;
use crate::network::Network;
use crate::player::SearchPlayer;
use crate::search::{Evaluator, MAX_DEPTH, ScoreType, SearchSettings};

/// Table size for self-play, where every thread runs its own player: 2^16 slots, 1.5 MiB.
pub const SELF_PLAY_TABLE_BITS: u32 = 16;

/// The network's value of the canonical board.
///
/// Evaluating the canonical board (rather than the board as given) makes the evaluation the
/// same for all eight symmetric images, which the transposition table needs, since they share
/// its entries. Values stay inside `-1..1`, far from the search's forced results at `±WIN`.
#[derive(Clone, Debug)]
pub struct NeuralEval {
	net: Arc<Network>,
}

impl NeuralEval {
	/// An evaluation by `net`.
	pub fn new(net: Arc<Network>) -> NeuralEval {
		NeuralEval { net }
	}

	/// The net.
	pub fn net(&self) -> &Arc<Network> {
		&self.net
	}
}

impl Evaluator for NeuralEval {
	#[inline]
	fn evaluate(&mut self, board: GameBoard, turn: Turn) -> ScoreType {
		self.net.forward(board.canonical().0, turn)
	}
}

/// The search with a network's evaluation.
pub type NeuralPlayer = SearchPlayer<NeuralEval>;

impl SearchPlayer<NeuralEval> {
	/// A player that thinks for at most `time_limit` a move, with `1 << table_bits` table slots.
	pub fn new(net: Arc<Network>, time_limit: Duration, table_bits: u32) -> NeuralPlayer {
		let settings = SearchSettings {
			time_limit: Some(time_limit),
			..SearchSettings::fixed_depth(MAX_DEPTH)
		};
		NeuralPlayer::with_net(net, settings, table_bits)
	}

	/// A player with these settings.
	pub fn with_net(net: Arc<Network>, settings: SearchSettings, table_bits: u32) -> NeuralPlayer {
		let name = format!("Net {}", net.generation);
		SearchPlayer::with_parts(&name, NeuralEval::new(net), settings, table_bits)
	}

	/// The net this player evaluates with.
	pub fn net(&self) -> &Arc<Network> {
		self.evaluator().net()
	}

	/// Plays with another net from now on, forgetting what the old one taught the table.
	pub fn set_net(&mut self, net: Arc<Network>) {
		*self.evaluator_mut() = NeuralEval::new(net);
		self.clear();
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::network::Shape;
	use crate::position::Position;
	use crate::search::MinimaxPlayer;
	use crate::symmetry::Symmetry;

	#[test]
	fn symmetric_positions_evaluate_the_same() {
		let mut eval = NeuralEval::new(Arc::new(Network::new(Shape::default(), 1)));
		let p: Position = "T.S.T/.SSS./..T../S...S/...T. t 12".parse().unwrap();
		let value = eval.evaluate(p.board, p.turn);
		for sym in Symmetry::ALL {
			assert_eq!(eval.evaluate(sym.apply_board(p.board), p.turn), value);
		}
		assert!(value.abs() < 1.0);
	}

	#[test]
	fn forced_wins_stay_outside_the_net_range() {
		let net = Arc::new(Network::new(Shape::default(), 2));
		let mut player = NeuralPlayer::with_net(net, SearchSettings::fixed_depth(3), 12);
		let p: Position = "T...T/.S.../...../SSSSS/TSSST t 7".parse().unwrap();
		let report = player.pick_move(p.board, p.turn, &[]).unwrap();
		assert_eq!(report.mv.to_string(), "ta5xc3");
		assert_eq!(report.forced_result(), Some((Turn::Tiger, 1)));
		assert!(report.score > 1.0);
	}

	#[test]
	fn switching_nets_changes_the_evaluation() {
		let first = Arc::new(Network::new(Shape::default(), 3));
		let second = Arc::new(Network::new(Shape::default(), 4));
		let mut player = NeuralPlayer::with_net(first, SearchSettings::fixed_depth(1), 10);
		let start = GameBoard::default();
		let before = player.evaluate(start, Turn::Sheep);
		player.set_net(second.clone());
		assert_eq!(
			player.evaluate(start, Turn::Sheep),
			second.forward(start.canonical().0, Turn::Sheep)
		);
		assert_ne!(before, player.evaluate(start, Turn::Sheep));
	}
}
