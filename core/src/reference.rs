//! A deliberately slow rules implementation, written from the rules' text alone, to check the fast
//! one against.
//!
//! It keeps the board as a 5x5 grid of cells, walks the eight directions from every point and
//! decides each line by the parity rule directly, without the precomputed tables or masks the fast
//! code uses. Tests and the perft cross-check demand that both agree at every node.

use crate::board::{GameBoard, TOTAL_SHEEP};
use crate::moves::{Move, Turn};
use crate::pos::Pos;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
	Empty,
	Tiger,
	Sheep,
}

/// A grid copy of a board: `cells[y][x]`.
#[derive(Clone, Copy)]
struct Grid {
	cells: [[Cell; 5]; 5],
	in_hand: u32,
}

const DIRECTIONS: [(i32, i32); 8] = [
	(-1, -1),
	(0, -1),
	(1, -1),
	(-1, 0),
	(1, 0),
	(-1, 1),
	(0, 1),
	(1, 1),
];

impl Grid {
	fn from_board(board: GameBoard) -> Grid {
		let mut cells = [[Cell::Empty; 5]; 5];
		for (y, row) in cells.iter_mut().enumerate() {
			for (x, cell) in row.iter_mut().enumerate() {
				let pos = Pos::new(x as u8, y as u8).expect("inside the grid");
				*cell = match board.piece_at(pos) {
					Some(Turn::Tiger) => Cell::Tiger,
					Some(Turn::Sheep) => Cell::Sheep,
					None => Cell::Empty,
				};
			}
		}
		Grid {
			cells,
			in_hand: u32::from(board.sheep_in_hand()),
		}
	}

	fn to_board(self) -> GameBoard {
		let (mut tigers, mut sheep) = (0, 0);
		for (y, row) in self.cells.iter().enumerate() {
			for (x, cell) in row.iter().enumerate() {
				let bit = Pos::new(x as u8, y as u8).expect("inside the grid").bit();
				match cell {
					Cell::Tiger => tigers |= bit,
					Cell::Sheep => sheep |= bit,
					Cell::Empty => {}
				}
			}
		}
		GameBoard::new(tigers, sheep, self.in_hand).expect("a legal move keeps the board possible")
	}

	fn at(&self, x: i32, y: i32) -> Cell {
		self.cells[y as usize][x as usize]
	}
}

fn inside(x: i32, y: i32) -> bool {
	(0..5).contains(&x) && (0..5).contains(&y)
}

/// Whether a line leaves `(x, y)` in direction `(dx, dy)`: orthogonal lines always do, diagonal
/// lines only from points whose coordinates add up to an even number.
fn line_leaves(x: i32, y: i32, dx: i32, dy: i32) -> bool {
	let diagonal = dx != 0 && dy != 0;
	!diagonal || (x + y) % 2 == 0
}

fn pos(x: i32, y: i32) -> Pos {
	Pos::new(x as u8, y as u8).expect("inside the grid")
}

/// Every legal move of `turn`, found the slow way, sorted by notation.
pub fn legal_moves_slow(board: GameBoard, turn: Turn) -> Vec<Move> {
	let grid = Grid::from_board(board);
	let mut moves = Vec::new();
	for y in 0..5 {
		for x in 0..5 {
			let here = grid.at(x, y);
			if turn == Turn::Sheep && grid.in_hand > 0 {
				if here == Cell::Empty {
					moves.push(Move::Place { to: pos(x, y) });
				}
				continue;
			}
			let mine = if turn == Turn::Sheep {
				Cell::Sheep
			} else {
				Cell::Tiger
			};
			if here != mine {
				continue;
			}
			for (dx, dy) in DIRECTIONS {
				if !line_leaves(x, y, dx, dy) || !inside(x + dx, y + dy) {
					continue;
				}
				let (nx, ny) = (x + dx, y + dy);
				let next = grid.at(nx, ny);
				if next == Cell::Empty {
					let (from, to) = (pos(x, y), pos(nx, ny));
					moves.push(match turn {
						Turn::Sheep => Move::SheepStep { from, to },
						Turn::Tiger => Move::TigerStep { from, to },
					});
				} else if turn == Turn::Tiger
					&& next == Cell::Sheep
					&& inside(nx + dx, ny + dy)
					&& grid.at(nx + dx, ny + dy) == Cell::Empty
				{
					moves.push(Move::TigerJump {
						from: pos(x, y),
						to: pos(nx + dx, ny + dy),
					});
				}
			}
		}
	}
	moves.sort_by_cached_key(|m| m.to_string());
	moves
}

/// The board after a move from [`legal_moves_slow`], computed on the grid.
pub fn play_slow(board: GameBoard, mv: Move) -> GameBoard {
	let mut grid = Grid::from_board(board);
	let set = |grid: &mut Grid, p: Pos, cell| grid.cells[p.y() as usize][p.x() as usize] = cell;
	match mv {
		Move::Place { to } => {
			set(&mut grid, to, Cell::Sheep);
			grid.in_hand -= 1;
		}
		Move::SheepStep { from, to } => {
			set(&mut grid, from, Cell::Empty);
			set(&mut grid, to, Cell::Sheep);
		}
		Move::TigerStep { from, to } => {
			set(&mut grid, from, Cell::Empty);
			set(&mut grid, to, Cell::Tiger);
		}
		Move::TigerJump { from, to } => {
			let over = pos(
				(i32::from(from.x()) + i32::from(to.x())) / 2,
				(i32::from(from.y()) + i32::from(to.y())) / 2,
			);
			set(&mut grid, from, Cell::Empty);
			set(&mut grid, over, Cell::Empty);
			set(&mut grid, to, Cell::Tiger);
		}
	}
	grid.to_board()
}

/// Whether the game is over with `turn` to move: five sheep dead, or `turn` cannot move.
pub fn is_over_slow(board: GameBoard, turn: Turn) -> bool {
	let grid = Grid::from_board(board);
	let on_board = grid
		.cells
		.iter()
		.flatten()
		.filter(|c| **c == Cell::Sheep)
		.count() as u32;
	let dead = TOTAL_SHEEP - on_board - grid.in_hand;
	dead >= 5 || legal_moves_slow(board, turn).is_empty()
}
