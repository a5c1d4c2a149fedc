//! `NeuralPlayer`: the search with a [`Network`] as its evaluation.

use std::sync::Arc;
use std::time::Duration;

use crate::board::GameBoard;
use crate::moves::Turn;
use crate::network::Network;
use crate::network::quantized::{Accumulator, QuantizedNet};
use crate::player::SearchPlayer;
use crate::search::{Evaluator, MAX_DEPTH, ScoreType, SearchSettings};

/// Table size for self-play, where every thread runs its own player: 2^16 slots, 1.5 MiB.
pub const SELF_PLAY_TABLE_BITS: u32 = 16;

/// The network's value of the board as it stands, computed by its [`QuantizedNet`].
///
/// Between calls it keeps the first layer's sums for the last board it evaluated, which the next
/// board, usually a sibling, updates by the points that changed; and the values of recent
/// positions, since a search meets many of them again (about four evaluations in ten repeated an
/// earlier one in the searches of docs/benchmarks.md). Neither changes a value: a position's
/// value is the same whatever was evaluated before it.
///
/// The board is not made canonical first: that would cost a symmetry search per evaluation
/// and defeat the update of the sums, since the symmetry that makes a board canonical changes
/// from one sibling to the next. Nets train on random symmetric images
/// ([`crate::replay::Augmentation::RandomSymmetry`]), so their values for symmetric boards are
/// close but not equal; see [`Evaluator::evaluate`] for what that means for the search.
/// Values stay inside `-1..1`, far from the search's forced results at `±WIN`.
#[derive(Clone, Debug)]
pub struct NeuralEval {
	net: Arc<Network>,
	quantized: Arc<QuantizedNet>,
	accumulator: Accumulator,
	cache: ValueCache,
}

/// Slots in the value cache: 2^14 of 16 bytes, 256 KiB, which stays in a core's L2 cache.
/// Searching the named positions with each size in turn, 2^12 and 2^14 gave the same speed
/// within the noise and 2^16 and 2^18 were slower (docs/benchmarks.md).
const VALUE_CACHE_BITS: u32 = 14;

impl NeuralEval {
	/// An evaluation by `net`.
	pub fn new(net: Arc<Network>) -> NeuralEval {
		NeuralEval {
			quantized: Arc::new(QuantizedNet::new(&net)),
			net,
			accumulator: Accumulator::default(),
			cache: ValueCache::new(VALUE_CACHE_BITS),
		}
	}

	/// The net.
	pub fn net(&self) -> &Arc<Network> {
		&self.net
	}
}

/// The values of recently evaluated positions, one per slot, the newest kept on a collision.
#[derive(Clone, Debug)]
struct ValueCache {
	/// The position's key (its board's bits and the side to move; never 0, since a board has
	/// four tigers) and its value.
	slots: Vec<(u64, f32)>,
	shift: u32,
}

impl ValueCache {
	fn new(bits: u32) -> ValueCache {
		ValueCache {
			slots: vec![(0, 0.0); 1 << bits],
			shift: 64 - bits,
		}
	}

	fn clear(&mut self) {
		self.slots.fill((0, 0.0));
	}

	#[inline]
	fn key(board: GameBoard, turn: Turn) -> u64 {
		// The board's bits leave the top bit free (docs of `GameBoard::to_bits`).
		board.to_bits() | u64::from(turn == Turn::Tiger) << 63
	}

	#[inline]
	fn slot(&self, key: u64) -> usize {
		// Fibonacci hashing, as in the transposition table.
		(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
	}
}

impl Evaluator for NeuralEval {
	#[inline]
	fn evaluate(&mut self, board: GameBoard, turn: Turn) -> ScoreType {
		let key = ValueCache::key(board, turn);
		let slot = self.cache.slot(key);
		let (known, value) = self.cache.slots[slot];
		if known == key {
			return value;
		}
		let value = self.quantized.value(&mut self.accumulator, board, turn);
		self.cache.slots[slot] = (key, value);
		value
	}

	/// With the quantised net, a table probe at depth 1 (usually a cache miss) costs more than
	/// the evaluations it saves: from depth 2, the searches of 40 random positions at depths 8
	/// and 9 visited 10% to 14% more nodes but took 8% to 20% less time (docs/benchmarks.md).
	fn table_min_depth(&self) -> u32 {
		2
	}

	fn clear(&mut self) {
		self.cache.clear();
		self.accumulator = Accumulator::default();
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
	use crate::position::{NAMED_POSITIONS, Position};
	use crate::search::MinimaxPlayer;
	use crate::symmetry::Symmetry;

	#[test]
	fn the_board_is_evaluated_as_it_stands() {
		let net = Arc::new(Network::new(Shape::default(), 1));
		let mut eval = NeuralEval::new(net.clone());
		let p: Position = "T.S.T/.SSS./..T../S...S/...T. t 12".parse().unwrap();
		for sym in Symmetry::ALL {
			let image = sym.apply_board(p.board);
			let value = eval.evaluate(image, p.turn);
			assert!((value - net.forward(image, p.turn)).abs() < 1e-3);
			assert!(value.abs() < 1.0);
		}
	}

	#[test]
	fn cached_values_are_the_values() {
		let net = Arc::new(Network::new(Shape::default(), 2));
		let mut eval = NeuralEval::new(net.clone());
		let positions: Vec<Position> = NAMED_POSITIONS
			.iter()
			.map(|(_, text)| text.parse().unwrap())
			.collect();
		let first: Vec<f32> = positions
			.iter()
			.map(|p| eval.evaluate(p.board, p.turn))
			.collect();
		for (p, value) in positions.iter().zip(&first).rev() {
			assert_eq!(eval.evaluate(p.board, p.turn), *value);
			assert_eq!(
				NeuralEval::new(net.clone()).evaluate(p.board, p.turn),
				*value
			);
		}
		eval.clear();
		assert_eq!(
			eval.evaluate(positions[2].board, positions[2].turn),
			first[2]
		);
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
		let value = player.evaluate(start, Turn::Sheep);
		assert!((value - second.forward(start, Turn::Sheep)).abs() < 1e-3);
		assert_ne!(before, player.evaluate(start, Turn::Sheep));
	}
}
