//! `BoardView`: the board drawn at a whole-number scale, and [`BoardView::pos_at`], which maps
//! a cell back to the point drawn there; [`Highlights`], what it marks for the player to move.
//!
//! At scale `s` neighbouring points are `4s` columns and `2s` rows apart (terminal cells are
//! about twice as tall as wide, so the board comes out square), and diagonals advance two
//! columns a row. Pieces grow with the scale:
//!
//! ```text
//! scale 1      scale 2        scale 3 and up
//!  T  S         [T]  (S)       ┏━━━┓  ╭───╮
//!                              ┃ T ┃  │ S │
//!                              ┗━━━┛  ╰───╯
//! ```
//!
//! Drawing and [`BoardView::pos_at`] share one geometry, so a click anywhere on a drawn piece
//! finds that piece's point.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect, Size};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;
use tigers_core::{GameBoard, Move, Pos, Turn};

/// The largest scale drawn; beyond it the board would only get emptier.
pub const MAX_SCALE: u16 = 8;

/// Columns taken by the rank labels on the left (a digit and a space).
const LABEL_WIDTH: u16 = 2;

/// What the board shows for the player to move: a selected piece and where it can go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Highlights {
	/// The piece picked up, if any.
	pub selected: Option<Pos>,
	/// The points it can move to (or, while placing, nothing: every empty point is a target).
	pub targets: Vec<Pos>,
}

/// The board widget: a board, what to highlight, and the last move played.
#[derive(Clone, Copy, Debug)]
pub struct BoardView<'a> {
	board: GameBoard,
	highlights: &'a Highlights,
	last_move: Option<Move>,
}

/// Where a board is drawn: its area's corner and the scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geometry {
	left: u16,
	top: u16,
	scale: u16,
}

impl Geometry {
	/// The geometry for drawing into `area`, if even scale 1 does not fit: `None`.
	fn fit(area: Rect) -> Option<Geometry> {
		BoardView::scale_to_fit(area.as_size()).map(|scale| Geometry {
			left: area.x,
			top: area.y,
			scale,
		})
	}

	/// Columns between neighbouring points.
	fn column_step(self) -> u16 {
		4 * self.scale
	}

	/// Rows between neighbouring points.
	fn row_step(self) -> u16 {
		2 * self.scale
	}

	/// The centre cell of `pos`.
	fn centre(self, pos: Pos) -> Position {
		let (half_width, half_height) = piece_half_size(self.scale);
		Position::new(
			self.left + LABEL_WIDTH + half_width + u16::from(pos.x()) * self.column_step(),
			self.top + half_height + u16::from(pos.y()) * self.row_step(),
		)
	}

	/// The point whose cell is nearest `cell`, if it is within half a step of one.
	fn pos_at(self, cell: Position) -> Option<Pos> {
		let a5 = self.centre(Pos::new(0, 0).expect("a5 is on the board"));
		let nearest = |offset: i32, step: u16| {
			let step = i32::from(step);
			let index = (offset + step / 2).div_euclid(step);
			u8::try_from(index).ok().filter(|i| *i < 5)
		};
		let x = nearest(i32::from(cell.x) - i32::from(a5.x), self.column_step())?;
		let y = nearest(i32::from(cell.y) - i32::from(a5.y), self.row_step())?;
		Pos::new(x, y)
	}
}

/// How far a piece reaches left or right, and up or down, of its point's centre.
fn piece_half_size(scale: u16) -> (u16, u16) {
	match scale {
		0 | 1 => (0, 0),
		2 => (1, 0),
		_ => (2, 1),
	}
}

impl<'a> BoardView<'a> {
	/// A view of `board` with the player's highlights and the last move marked.
	pub fn new(board: GameBoard, highlights: &'a Highlights, last_move: Option<Move>) -> Self {
		BoardView {
			board,
			highlights,
			last_move,
		}
	}

	/// The cells the board takes at `scale` (1 or more), labels included.
	pub fn size(scale: u16) -> Size {
		let (half_width, half_height) = piece_half_size(scale);
		Size::new(
			LABEL_WIDTH + 2 * half_width + 16 * scale + 1,
			2 * half_height + 8 * scale + 1 + 1,
		)
	}

	/// The largest scale whose [`BoardView::size`] fits in `available`, or `None` if none does.
	pub fn scale_to_fit(available: Size) -> Option<u16> {
		(1..=MAX_SCALE).rev().find(|&scale| {
			let size = BoardView::size(scale);
			size.width <= available.width && size.height <= available.height
		})
	}

	/// The point drawn at `cell` by a view rendered into `area`, if `cell` is on the board.
	/// Every cell of a drawn piece maps to the piece's point.
	pub fn pos_at(area: Rect, cell: Position) -> Option<Pos> {
		if !area.contains(cell) {
			return None;
		}
		Geometry::fit(area)?.pos_at(cell)
	}

	/// The centre cell of `pos` in a view rendered into `area`, if the board fits there.
	pub fn point_cell(area: Rect, pos: Pos) -> Option<Position> {
		Geometry::fit(area).map(|geometry| geometry.centre(pos))
	}

	fn draw_lines(geometry: Geometry, buf: &mut Buffer) {
		let style = Style::new().fg(Color::DarkGray);
		let (column_step, row_step) = (geometry.column_step(), geometry.row_step());
		for pos in Pos::all() {
			let c = geometry.centre(pos);
			if pos.x() < 4 {
				for dx in 1..column_step {
					put(buf, c.x + dx, c.y, "─", style);
				}
			}
			if pos.y() < 4 {
				for dy in 1..row_step {
					put(buf, c.x, c.y + dy, "│", style);
				}
			}
			if pos.has_diagonals() && pos.y() < 4 {
				for k in 1..row_step {
					if pos.x() < 4 {
						put(buf, c.x + 2 * k, c.y + k, "╲", style);
					}
					if pos.x() > 0 {
						put(buf, c.x - 2 * k, c.y + k, "╱", style);
					}
				}
			}
		}
	}

	fn draw_labels(geometry: Geometry, buf: &mut Buffer) {
		let style = Style::new().fg(Color::Gray);
		let (_, half_height) = piece_half_size(geometry.scale);
		for i in 0..5u8 {
			let pos = Pos::new(i, i).expect("i is below 5");
			let c = geometry.centre(pos);
			let rank = char::from(b'5' - i).to_string();
			let file = char::from(b'a' + i).to_string();
			put(buf, geometry.left, c.y, &rank, style);
			let bottom = geometry.centre(Pos::new(i, 4).expect("i is below 5"));
			put(buf, c.x, bottom.y + half_height + 1, &file, style);
		}
	}

	fn draw_point(&self, geometry: Geometry, pos: Pos, buf: &mut Buffer) {
		let c = geometry.centre(pos);
		let in_last_move = self
			.last_move
			.is_some_and(|mv| mv.to() == pos || mv.from() == Some(pos));
		let mut style = match self.board.piece_at(pos) {
			Some(Turn::Tiger) => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
			Some(Turn::Sheep) => Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
			None if self.highlights.targets.contains(&pos) => {
				Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
			}
			None => Style::new().fg(Color::Gray),
		};
		if in_last_move {
			style = style.add_modifier(Modifier::UNDERLINED);
		}
		if self.highlights.selected == Some(pos) {
			style = style.add_modifier(Modifier::REVERSED);
		}
		let Some(piece) = self.board.piece_at(pos) else {
			let mark = if self.highlights.targets.contains(&pos) {
				"*"
			} else {
				"•"
			};
			put(buf, c.x, c.y, mark, style);
			return;
		};
		let letter = match piece {
			Turn::Tiger => 'T',
			Turn::Sheep => 'S',
		};
		for (dy, row) in piece_picture(piece, geometry.scale, letter)
			.iter()
			.enumerate()
		{
			let (half_width, half_height) = piece_half_size(geometry.scale);
			let y = c.y + dy as u16 - half_height;
			put(buf, c.x - half_width, y, row, style);
		}
	}
}

/// The rows of a piece's picture at `scale`, each `2 * half_width + 1` cells wide.
fn piece_picture(piece: Turn, scale: u16, letter: char) -> Vec<String> {
	match (scale, piece) {
		(0 | 1, _) => vec![letter.to_string()],
		(2, Turn::Tiger) => vec![format!("[{letter}]")],
		(2, Turn::Sheep) => vec![format!("({letter})")],
		(_, Turn::Tiger) => vec![
			"┏━━━┓".to_string(),
			format!("┃ {letter} ┃"),
			"┗━━━┛".to_string(),
		],
		(_, Turn::Sheep) => vec![
			"╭───╮".to_string(),
			format!("│ {letter} │"),
			"╰───╯".to_string(),
		],
	}
}

/// Writes `text` at `(x, y)` if that cell is inside the buffer.
fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, style: Style) {
	if buf.area.contains(Position::new(x, y)) {
		buf.set_string(x, y, text, style);
	}
}

impl Widget for BoardView<'_> {
	/// Draws the board at the largest scale that fits, from `area`'s top-left corner; a
	/// message if even scale 1 does not fit.
	fn render(self, area: Rect, buf: &mut Buffer) {
		let Some(geometry) = Geometry::fit(area) else {
			put(buf, area.x, area.y, "(too small)", Style::new());
			return;
		};
		BoardView::draw_lines(geometry, buf);
		BoardView::draw_labels(geometry, buf);
		for pos in Pos::all() {
			self.draw_point(geometry, pos, buf);
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn sizes_grow_with_the_scale() {
		assert_eq!(BoardView::size(1), Size::new(19, 10));
		assert_eq!(BoardView::size(2), Size::new(37, 18));
		assert_eq!(BoardView::size(3), Size::new(55, 28));
		assert_eq!(BoardView::scale_to_fit(Size::new(18, 40)), None);
		assert_eq!(BoardView::scale_to_fit(Size::new(55, 27)), Some(2));
		assert_eq!(BoardView::scale_to_fit(Size::new(55, 28)), Some(3));
		assert_eq!(
			BoardView::scale_to_fit(Size::new(1000, 1000)),
			Some(MAX_SCALE)
		);
	}

	#[test]
	fn scale_one_draws_the_start() {
		let area = Rect::new(0, 0, 19, 10);
		let mut buf = Buffer::empty(area);
		let highlights = Highlights::default();
		BoardView::new(GameBoard::default(), &highlights, None).render(area, &mut buf);
		let rows: Vec<String> = (0..area.height)
			.map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect())
			.collect();
		assert_eq!(rows[0], "5 T───•───•───•───T");
		assert_eq!(rows[1], "  │ ╲ │ ╱ │ ╲ │ ╱ │");
		assert_eq!(rows[9], "  a   b   c   d   e");
	}
}
