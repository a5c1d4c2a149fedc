//! The placement phase solved: for every position with sheep still in hand, whether the side to
//! move wins, draws or loses with perfect play.
//!
//! Every sheep move adds a sheep, so the placement phase has no cycles and each position's value
//! follows from its children's: the sheep to move with `p` placed from the tigers to move with
//! `p + 1`, the tigers to move with `p` from the sheep to move with `p` (a capture stays in that
//! layer with one more sheep dead, and a fifth capture wins). The solve goes backwards one
//! layer at a time from the movement table (the tigers to move with all 20 placed), two layers
//! in memory, and writes each layer to a file as it finishes.
//!
//! - [`index`]: layers, blocks by dead sheep and tiger class, ranks of sheep sets;
//! - [`solve`]: one layer from its child layer, on scoped threads;
//! - [`store`]: the layer files, the manifest, resuming a stopped solve, probing from disk;
//! - [`census`]: positions and wins, draws and losses per layer, up to symmetry;
//! - [`verify`]: every value recomputed from the game's own moves and a second lookup path;
//! - [`judge`]: a game's moves judged by both solved phases (exact accuracy over the whole game).

pub mod census;
pub mod index;
pub mod judge;
pub mod solve;
pub mod store;
pub mod verify;

use std::fmt;

pub use census::{LayerCount, count_layer, count_layer_on, count_up_to_symmetry};
pub use index::{LAST_PLACED, LayerId, LayerShape, MAX_DEAD};
pub use judge::{WholeGameAccuracy, keeps_placement_value};
pub use solve::{
	Children, LayerProgress, NoSlices, SLICE_CLASSES, Slice, SliceStore, solve_layer,
	solve_one_slice,
};
pub use store::{
	BuildProgress, BuildReport, PartialSlices, PlacementError, PlacementTable, build,
	check_manifest, has_layer, read_layer, write_layer, write_manifest_if_complete,
};
pub use verify::{PlacementVerifyError, VerifyChildren, VerifyLayerReport, verify_layer};

/// The layout of the layer files and their index.
pub const PLACEMENT_FORMAT_VERSION: u32 = 1;

/// A placement position's value for the side to move, without a distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
	/// The side to move can force a win.
	Win,
	/// Neither side can force a win.
	Draw,
	/// The other side can force a win.
	Loss,
}

/// The two-bit code of a draw.
pub(crate) const DRAW: u8 = 0;
/// The two-bit code of a win for the side to move.
pub(crate) const WIN: u8 = 1;
/// The two-bit code of a loss for the side to move.
pub(crate) const LOSS: u8 = 2;
/// The two-bit code of padding after a block's last entry; never a position's.
pub(crate) const PAD: u8 = 3;

impl Verdict {
	/// The value for the other side.
	pub fn flip(self) -> Verdict {
		match self {
			Verdict::Win => Verdict::Loss,
			Verdict::Draw => Verdict::Draw,
			Verdict::Loss => Verdict::Win,
		}
	}

	/// Win, draw or loss as 1, 0, -1.
	pub fn sign(self) -> i32 {
		match self {
			Verdict::Win => 1,
			Verdict::Draw => 0,
			Verdict::Loss => -1,
		}
	}

	/// The movement table's value without its distance.
	pub fn of_value(value: super::Value) -> Verdict {
		match value {
			super::Value::Win(_) => Verdict::Win,
			super::Value::Draw => Verdict::Draw,
			super::Value::Loss(_) => Verdict::Loss,
		}
	}

	pub(crate) fn from_code(code: u8) -> Option<Verdict> {
		match code {
			DRAW => Some(Verdict::Draw),
			WIN => Some(Verdict::Win),
			LOSS => Some(Verdict::Loss),
			_ => None,
		}
	}
}

impl fmt::Display for Verdict {
	/// `win`, `draw` or `loss`, from the side to move's point of view.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		f.write_str(match self {
			Verdict::Win => "win",
			Verdict::Draw => "draw",
			Verdict::Loss => "loss",
		})
	}
}

/// The code of entry `rank` in a block that starts at `bytes[0]`.
#[inline]
pub(crate) fn code_at(bytes: &[u8], start: u64, rank: u32) -> u8 {
	(bytes[(start + u64::from(rank / 4)) as usize] >> (2 * (rank % 4))) & 3
}
