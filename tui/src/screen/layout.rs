//! `ScreenLayout`: where each pane of the game screen goes, for drawing and for clicks alike.
//!
//! ```text
//! ┌ Tigers and Sheep ───────── status ┬ Moves ───────────────┐
//! │            board (scaled)         │   1. sc3             │
//! │                                   │   2. ta5b4           │
//! ├──── key binds ────────────────────┼──────────────────────┤
//! │ the player to move's panel        │ Played ...           │
//! └────────────── Sheep: You ─────────┴──── Last: Tigers ────┘
//! ```
//!
//! Neighbouring panes share their borders (the rectangles overlap by one cell). The board pane
//! is exactly as tall as the board at the largest scale that fits; the bottom row gets the rest.

use ratatui::layout::{Rect, Size};
use tigers_widgets::BoardView;

/// Width of the right-hand column (moves and the last turn), borders included.
pub const SIDE_WIDTH: u16 = 24;
/// The least height of the bottom row, borders included: three lines of text.
pub const MIN_BOTTOM_HEIGHT: u16 = 5;

/// The panes of the game screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScreenLayout {
	/// The board's pane, borders included.
	pub board_pane: Rect,
	/// Exactly where the board is drawn (its [`BoardView::size`]), centred in the pane.
	pub board: Rect,
	/// The move list's pane, borders included.
	pub history_pane: Rect,
	/// The bottom-left pane: the player to move.
	pub current_pane: Rect,
	/// The bottom-right pane: the last move and its mover's comments.
	pub last_turn_pane: Rect,
}

impl ScreenLayout {
	/// The layout for a screen `area`, or `None` if the board does not fit even at scale 1.
	pub fn new(area: Rect) -> Option<ScreenLayout> {
		let left_width = area.width.checked_sub(SIDE_WIDTH)? + 1;
		let available = Size::new(
			left_width.checked_sub(2)?,
			(area.height + 1).checked_sub(MIN_BOTTOM_HEIGHT + 2)?,
		);
		let size = BoardView::size(BoardView::scale_to_fit(available)?);
		let top_height = size.height + 2;
		let bottom_y = area.y + top_height - 1;
		let bottom_height = area.height - top_height + 1;
		let board_pane = Rect::new(area.x, area.y, left_width, top_height);
		let side_x = area.x + left_width - 1;
		Some(ScreenLayout {
			board_pane,
			board: Rect::new(
				area.x + 1 + (available.width - size.width) / 2,
				area.y + 1,
				size.width,
				size.height,
			),
			history_pane: Rect::new(side_x, area.y, SIDE_WIDTH, top_height),
			current_pane: Rect::new(area.x, bottom_y, left_width, bottom_height),
			last_turn_pane: Rect::new(side_x, bottom_y, SIDE_WIDTH, bottom_height),
		})
	}
}

/// The inside of a bordered pane.
pub fn inner(pane: Rect) -> Rect {
	Rect::new(
		pane.x + 1,
		pane.y + 1,
		pane.width.saturating_sub(2),
		pane.height.saturating_sub(2),
	)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn an_80_by_24_screen_gets_scale_2_and_three_lines_below() {
		let layout = ScreenLayout::new(Rect::new(0, 0, 80, 24)).unwrap();
		assert_eq!(layout.board.as_size(), BoardView::size(2));
		assert_eq!(layout.board_pane, Rect::new(0, 0, 57, 20));
		assert_eq!(layout.history_pane, Rect::new(56, 0, 24, 20));
		assert_eq!(layout.current_pane, Rect::new(0, 19, 57, 5));
		assert_eq!(layout.last_turn_pane, Rect::new(56, 19, 24, 5));
		assert!(inner(layout.board_pane).contains(layout.board.as_position()));
	}

	#[test]
	fn a_tiny_screen_has_no_layout() {
		assert_eq!(ScreenLayout::new(Rect::new(0, 0, 40, 14)), None);
		assert!(ScreenLayout::new(Rect::new(0, 0, 44, 16)).is_some());
	}
}
