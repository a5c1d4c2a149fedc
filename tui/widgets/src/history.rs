//! `HistoryView`: the list of moves, one a row, and [`HistoryView::move_at`], which maps a
//! click back to the move on that row.
//!
//! Rows are the moves played followed by the moves undone (kept so that the user can step
//! forward again), greyed. Sheep moves are white, tiger moves yellow; a move that gave away a
//! win or a draw (by the tablebase: a [`Slip`]) is red and marked `?` or `??`. The list scrolls
//! so that the last move played stays in view.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;
use tigers_core::tablebase::Value;
use tigers_core::{Move, Turn};

/// A move that made its side's exact result worse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slip {
	/// The mover's value before the move.
	pub before: Value,
	/// The mover's value after it.
	pub after: Value,
}

impl Slip {
	/// `?` for one step down (a win to a draw, a draw to a loss), `??` for a win to a loss.
	pub fn mark(self) -> &'static str {
		if self.before.sign() - self.after.sign() >= 2 {
			"??"
		} else {
			"?"
		}
	}

	/// What was thrown away, short enough for the last move's pane: "threw away a win".
	pub fn describe(self) -> &'static str {
		match self.before {
			Value::Win(_) => "threw away a win",
			_ => "threw away a draw",
		}
	}
}

/// The move list widget.
#[derive(Clone, Copy, Debug)]
pub struct HistoryView<'a> {
	played: &'a [Move],
	undone: &'a [Move],
	slips: &'a [Option<Slip>],
}

impl<'a> HistoryView<'a> {
	/// The moves played, oldest first, and the moves undone after them, next first.
	pub fn new(played: &'a [Move], undone: &'a [Move]) -> HistoryView<'a> {
		HistoryView {
			played,
			undone,
			slips: &[],
		}
	}

	/// Marks the moves played that slipped: `slips[i]` is about move `i + 1`.
	#[must_use]
	pub fn with_slips(mut self, slips: &'a [Option<Slip>]) -> HistoryView<'a> {
		self.slips = slips;
		self
	}

	/// The index of the first row shown in a list `height` rows tall.
	pub fn first_row(played: usize, height: u16) -> usize {
		played.saturating_sub(usize::from(height))
	}

	/// The index of the move on the row at `cell` in a view rendered into `area`, if there is
	/// one. Index `i` is move `i + 1` of the game; `played..` are the undone moves.
	pub fn move_at(area: Rect, played: usize, undone: usize, cell: Position) -> Option<usize> {
		if !area.contains(cell) {
			return None;
		}
		let index = HistoryView::first_row(played, area.height) + usize::from(cell.y - area.y);
		(index < played + undone).then_some(index)
	}
}

impl Widget for HistoryView<'_> {
	fn render(self, area: Rect, buf: &mut Buffer) {
		let first = HistoryView::first_row(self.played.len(), area.height);
		let rows = self
			.played
			.iter()
			.chain(self.undone)
			.enumerate()
			.skip(first);
		for (y, (index, mv)) in (area.y..area.bottom()).zip(rows) {
			let style = if index >= self.played.len() {
				Style::new().fg(Color::DarkGray)
			} else {
				match mv.side() {
					Turn::Sheep => Style::new().fg(Color::White),
					Turn::Tiger => Style::new().fg(Color::Yellow),
				}
			};
			let style = if index + 1 == self.played.len() {
				style.add_modifier(Modifier::BOLD)
			} else {
				style
			};
			let slip = self.slips.get(index).copied().flatten();
			let (style, mark) = match slip {
				Some(slip) if index < self.played.len() => (style.fg(Color::Red), slip.mark()),
				_ => (style, ""),
			};
			let text = format!("{:>3}. {mv}{mark}", index + 1);
			buf.set_stringn(area.x, y, text, usize::from(area.width), style);
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn marks_grow_with_what_was_lost() {
		let slip = |before, after| Slip { before, after };
		assert_eq!(slip(Value::Win(3), Value::Draw).mark(), "?");
		assert_eq!(slip(Value::Draw, Value::Loss(4)).mark(), "?");
		assert_eq!(slip(Value::Win(3), Value::Loss(2)).mark(), "??");
		assert_eq!(
			slip(Value::Win(3), Value::Draw).describe(),
			"threw away a win"
		);
		assert_eq!(
			slip(Value::Draw, Value::Loss(2)).describe(),
			"threw away a draw"
		);
	}

	#[test]
	fn the_last_move_played_stays_in_view() {
		assert_eq!(HistoryView::first_row(3, 10), 0);
		assert_eq!(HistoryView::first_row(10, 10), 0);
		assert_eq!(HistoryView::first_row(25, 10), 15);
		let area = Rect::new(5, 2, 10, 10);
		assert_eq!(
			HistoryView::move_at(area, 25, 0, Position::new(6, 11)),
			Some(24)
		);
		assert_eq!(
			HistoryView::move_at(area, 25, 0, Position::new(6, 2)),
			Some(15)
		);
		assert_eq!(
			HistoryView::move_at(area, 3, 2, Position::new(6, 6)),
			Some(4)
		);
		assert_eq!(HistoryView::move_at(area, 3, 2, Position::new(6, 7)), None);
		assert_eq!(HistoryView::move_at(area, 3, 2, Position::new(4, 2)), None);
	}
}
