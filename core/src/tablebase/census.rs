//! Counting a table: positions with and without symmetry, wins, draws and losses per layer and
//! side to move, and the longest win.

use crate::board::GameBoard;
use crate::moves::Turn;
use crate::position::Position;
use crate::tablebase::index::{LAYERS, Layout};
use crate::tablebase::value::{Value, decode_value};

/// Wins, draws and losses for the side to move, counted up to symmetry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
	/// Positions the side to move wins.
	pub wins: u64,
	/// Drawn positions.
	pub draws: u64,
	/// Positions the side to move loses.
	pub losses: u64,
}

impl Wdl {
	/// All three together.
	pub fn total(&self) -> u64 {
		self.wins + self.draws + self.losses
	}

	fn add(&mut self, value: Value) {
		match value {
			Value::Win(_) => self.wins += 1,
			Value::Draw => self.draws += 1,
			Value::Loss(_) => self.losses += 1,
		}
	}
}

/// One layer's counts: positions with a given number of dead sheep, by side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerCensus {
	/// The sheep to move.
	pub sheep_to_move: Wdl,
	/// The tigers to move.
	pub tigers_to_move: Wdl,
}

/// The whole table counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Census {
	/// Positions up to the board's symmetries: canonical entries.
	pub positions_up_to_symmetry: u64,
	/// Positions counting every symmetric image.
	pub positions: u64,
	/// Per number of dead sheep (0 to 4).
	pub layers: [LayerCensus; LAYERS],
	/// The longest win in plies and the first position (in table order) that takes it.
	pub longest_win: Option<(u32, Position)>,
}

/// Counts the canonical entries of `values`, a whole table.
pub(crate) fn census(values: &[u8]) -> Census {
	let layout = Layout::get();
	let mut census = Census {
		positions_up_to_symmetry: 0,
		positions: 0,
		layers: [LayerCensus::default(); LAYERS],
		longest_win: None,
	};
	let mut longest: Option<(u32, u32)> = None;
	for layer in 0..LAYERS {
		for (turn, class, indices) in layout.blocks(layer) {
			let counts = match turn {
				Turn::Sheep => &mut census.layers[layer].sheep_to_move,
				Turn::Tiger => &mut census.layers[layer].tigers_to_move,
			};
			let asymmetric = layout.is_asymmetric(class);
			for index in indices {
				let images = if asymmetric {
					8
				} else {
					match layout.stabiliser_size(index) {
						Some(fixed) => 8 / fixed,
						None => continue,
					}
				};
				let value = decode_value(values[index as usize]);
				counts.add(value);
				census.positions_up_to_symmetry += 1;
				census.positions += u64::from(images);
				if let Value::Win(n) = value
					&& longest.is_none_or(|(best, _)| n > best)
				{
					longest = Some((n, index));
				}
			}
		}
	}
	census.longest_win = longest.map(|(n, index)| (n, position_of(layout, index)));
	census
}

/// The position an entry stands for.
pub(crate) fn position_of(layout: &Layout, index: u32) -> Position {
	let entry = layout.decode(index);
	let board = GameBoard::new(entry.tigers, entry.sheep(), 0)
		.expect("every entry is a movement-phase board");
	Position {
		board,
		turn: entry.turn,
	}
}
