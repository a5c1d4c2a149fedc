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
//! - [`Verdict`]: a position's value without a distance, and its two-bit code;
//! - [`index`]: layers, blocks by dead sheep and tiger class, ranks of sheep sets;
//! - [`solve`]: one layer from its child layer, on scoped threads;
//! - [`blocks`]: a layer's bytes in blocks deflated apart, for files a quarter to half the size;
//! - [`store`]: the layer files, the manifest, resuming a stopped solve, probing from disk;
//! - [`census`]: positions and wins, draws and losses per layer, up to symmetry;
//! - [`verify`]: every value recomputed from the game's own moves and a second lookup path;
//! - [`judge`]: a game's moves judged by both solved phases (exact accuracy over the whole game).

pub mod blocks;
pub mod census;
pub mod index;
pub mod judge;
pub mod solve;
pub mod store;
mod verdict;
pub mod verify;

pub use census::{LayerCount, count_layer, count_layer_on, count_up_to_symmetry};
pub use index::{LAST_PLACED, LayerId, LayerShape, MAX_DEAD};
pub use judge::{WholeGameAccuracy, keeps_placement_value};
pub use solve::{
	Children, LayerProgress, NoSlices, SLICE_CLASSES, Slice, SliceStore, solve_layer,
	solve_one_slice,
};
pub use store::{
	BuildProgress, BuildReport, PLACEMENT_FORMAT_VERSION, PLACEMENT_INDEX_VERSION, PartialSlices,
	PlacementError, PlacementTable, build, check_manifest, has_layer, layer_entries, read_layer,
	write_layer, write_manifest_if_complete,
};
pub use verdict::Verdict;
pub use verify::{PlacementVerifyError, VerifyChildren, VerifyLayerReport, verify_layer};
