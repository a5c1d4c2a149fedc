//! Board planes: the position as seven 5x5 planes for models of one's own (the net's own
//! inputs are `encode`'s).
//!
//! Plane 0 holds the tigers, 1 the sheep, 2 the empty points, 3 the sheep a tiger could take
//! right now (were the tigers to move); plane 4 is all ones when the tigers are to move; planes
//! 5 and 6 hold the sheep in hand over 20 and the dead sheep over 5 on every point. A plane is
//! indexed `[row][file]` as the notation writes the board: row 0 holds a5 to e5 and row 4 a1 to
//! e1, so a plane's flat index is the point's index.

use tigers_core::Position;
use tigers_core::Turn;
use tigers_core::board::{DEAD_SHEEP_TO_WIN, TOTAL_SHEEP, each_point};
use tigers_core::pos::POINTS;

/// Planes a position has.
pub const PLANES: usize = 7;
/// Values a position's planes hold.
pub const PLANE_VALUES: usize = PLANES * POINTS;

/// Writes `position`'s planes into `out` (`PLANE_VALUES` long), which must hold zeros: only the
/// values that are not zero are written.
pub fn planes_into(position: Position, out: &mut [f32]) {
	let board = position.board;
	let masks = [
		board.tigers(),
		board.sheep(),
		board.empty(),
		board.capturable_sheep(),
	];
	for (plane, mask) in masks.into_iter().enumerate() {
		for point in each_point(mask) {
			out[plane * POINTS + point.index()] = 1.0;
		}
	}
	let fills = [
		if position.turn == Turn::Tiger {
			1.0
		} else {
			0.0
		},
		f32::from(board.sheep_in_hand()) / TOTAL_SHEEP as f32,
		board.dead_sheep() as f32 / DEAD_SHEEP_TO_WIN as f32,
	];
	for (offset, fill) in fills.into_iter().enumerate() {
		let plane = 4 + offset;
		if fill != 0.0 {
			out[plane * POINTS..(plane + 1) * POINTS].fill(fill);
		}
	}
}
