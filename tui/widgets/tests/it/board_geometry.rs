//! `BoardView::pos_at` against the drawing: every cell drawn for a point maps back to it.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::widgets::Widget;
use tigers_core::{GameBoard, Pos};
use tigers_widgets::{BoardView, Highlights};

/// The start's tigers with a sheep on `pos` (unless a tiger stands there).
fn board_with_piece_on(pos: Pos) -> GameBoard {
	let start = GameBoard::default();
	if start.piece_at(pos).is_some() {
		return start;
	}
	GameBoard::new(start.tigers(), pos.bit(), 19).expect("a legal board")
}

/// The cells drawn reversed, that is, the selected piece's.
fn reversed_cells(buf: &Buffer) -> Vec<Position> {
	buf.area
		.positions()
		.filter(|&cell| buf[cell].modifier.contains(Modifier::REVERSED))
		.collect()
}

#[test]
fn every_drawn_cell_of_every_point_maps_back_to_it() {
	for scale in 1..=4 {
		let size = BoardView::size(scale);
		// Away from the origin, to catch a forgotten offset.
		let area = Rect::new(3, 2, size.width, size.height);
		let piece_cells = match scale {
			1 => 1,
			2 => 3,
			_ => 15,
		};
		for pos in Pos::all() {
			let highlights = Highlights {
				selected: Some(pos),
				targets: Vec::new(),
			};
			let mut buf = Buffer::empty(Rect::new(0, 0, area.right() + 2, area.bottom() + 2));
			BoardView::new(board_with_piece_on(pos), &highlights, None).render(area, &mut buf);
			let cells = reversed_cells(&buf);
			assert_eq!(cells.len(), piece_cells, "scale {scale}, {pos}");
			for &cell in &cells {
				assert_eq!(
					BoardView::pos_at(area, cell),
					Some(pos),
					"scale {scale}, {pos}, cell {cell:?}"
				);
			}
			let centre = BoardView::point_cell(area, pos).expect("the board fits");
			assert!(cells.contains(&centre), "scale {scale}, {pos}");
		}
	}
}

#[test]
fn the_letter_of_each_piece_is_at_its_point() {
	for scale in 1..=4 {
		let size = BoardView::size(scale);
		let area = Rect::new(0, 0, size.width, size.height);
		let mut buf = Buffer::empty(area);
		let board = GameBoard::new(
			GameBoard::default().tigers(),
			"c3".parse::<Pos>().unwrap().bit(),
			19,
		)
		.unwrap();
		BoardView::new(board, &Highlights::default(), None).render(area, &mut buf);
		for pos in Pos::all() {
			let centre = BoardView::point_cell(area, pos).unwrap();
			let expected = match board.piece_at(pos) {
				Some(tigers_core::Turn::Tiger) => "T",
				Some(tigers_core::Turn::Sheep) => "S",
				None => "•",
			};
			assert_eq!(buf[centre].symbol(), expected, "scale {scale}, {pos}");
		}
	}
}

#[test]
fn cells_off_the_board_map_to_nothing() {
	let size = BoardView::size(2);
	let area = Rect::new(10, 5, size.width, size.height);
	assert_eq!(BoardView::pos_at(area, Position::new(9, 5)), None);
	assert_eq!(BoardView::pos_at(area, Position::new(10, 4)), None);
	assert_eq!(
		BoardView::pos_at(area, Position::new(area.right(), 6)),
		None
	);
	// Too small an area has no board at all.
	assert_eq!(
		BoardView::pos_at(Rect::new(0, 0, 10, 5), Position::new(1, 1)),
		None
	);
}
