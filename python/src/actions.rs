//! One fixed action space for both sides, so that a policy is a vector and legal moves a mask.
//!
//! Actions are numbered in three runs, each in order of the starting point's index (a5 = 0,
//! b5 = 1, ..., e1 = 24, row by row as the notation writes them) and then of the direction,
//! clockwise from "up" (towards rank 5) as in the core's lines:
//!
//! - 0 to 24: a sheep placed on that point;
//! - then every step along a line from a point to its neighbour (a sheep's or a tiger's: the
//!   side to move says whose);
//! - then every jump along a line from a point over its neighbour to the point beyond (only
//!   tigers jump).
//!
//! [`Actions::get`] builds the table once; [`Actions::count`] is its size (217).

use std::sync::OnceLock;

use tigers_core::lines::DIRECTIONS;
use tigers_core::pos::POINTS;
use tigers_core::{Move, Pos, Turn};

/// What an action does, whoever plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
	/// A sheep placed on the point.
	Place(Pos),
	/// A step from the first point to the second.
	Step(Pos, Pos),
	/// A jump from the first point to the second.
	Jump(Pos, Pos),
}

/// The action space: each action and, for each move's shape, its number.
pub struct Actions {
	actions: Vec<Action>,
	steps: [[u16; POINTS]; POINTS],
	jumps: [[u16; POINTS]; POINTS],
}

/// No action has this number.
const NONE: u16 = u16::MAX;

impl Actions {
	/// The one table.
	pub fn get() -> &'static Actions {
		static TABLE: OnceLock<Actions> = OnceLock::new();
		TABLE.get_or_init(Actions::build)
	}

	fn build() -> Actions {
		let mut actions: Vec<Action> = Pos::all().map(Action::Place).collect();
		let mut steps = [[NONE; POINTS]; POINTS];
		let mut jumps = [[NONE; POINTS]; POINTS];
		for from in Pos::all() {
			for &(dx, dy) in &DIRECTIONS {
				if let Some(to) = along(from, dx, dy, 1)
					&& tigers_core::lines::are_neighbours(from, to)
				{
					steps[from.index()][to.index()] = actions.len() as u16;
					actions.push(Action::Step(from, to));
				}
			}
		}
		for from in Pos::all() {
			for &(dx, dy) in &DIRECTIONS {
				if let Some(to) = along(from, dx, dy, 2)
					&& tigers_core::lines::jump_over(from, to).is_some()
				{
					jumps[from.index()][to.index()] = actions.len() as u16;
					actions.push(Action::Jump(from, to));
				}
			}
		}
		Actions {
			actions,
			steps,
			jumps,
		}
	}

	/// How many actions there are.
	pub fn count(&self) -> usize {
		self.actions.len()
	}

	/// The action numbered `index`, if there is one.
	pub fn action(&self, index: usize) -> Option<Action> {
		self.actions.get(index).copied()
	}

	/// The number of an action.
	pub fn number(&self, action: Action) -> usize {
		match action {
			Action::Place(to) => to.index(),
			Action::Step(from, to) => usize::from(self.steps[from.index()][to.index()]),
			Action::Jump(from, to) => usize::from(self.jumps[from.index()][to.index()]),
		}
	}

	/// The number of `mv`'s action.
	pub fn index(&self, mv: Move) -> usize {
		let found = match mv {
			Move::Place { to } => return to.index(),
			Move::SheepStep { from, to } | Move::TigerStep { from, to } => {
				self.steps[from.index()][to.index()]
			}
			Move::TigerJump { from, to } => self.jumps[from.index()][to.index()],
		};
		debug_assert_ne!(found, NONE, "every legal move's shape has an action");
		usize::from(found)
	}

	/// The move action `index` is for `turn`, if that side can make moves of its shape.
	pub fn to_move(&self, index: usize, turn: Turn) -> Option<Move> {
		Some(match (self.action(index)?, turn) {
			(Action::Place(to), Turn::Sheep) => Move::Place { to },
			(Action::Step(from, to), Turn::Sheep) => Move::SheepStep { from, to },
			(Action::Step(from, to), Turn::Tiger) => Move::TigerStep { from, to },
			(Action::Jump(from, to), Turn::Tiger) => Move::TigerJump { from, to },
			_ => return None,
		})
	}
}

/// The point `n` steps from `from` in direction `(dx, dy)`, if it is on the board.
fn along(from: Pos, dx: i8, dy: i8, n: i8) -> Option<Pos> {
	let x = from.x() as i8 + dx * n;
	let y = from.y() as i8 + dy * n;
	if (0..5).contains(&x) && (0..5).contains(&y) {
		Pos::new(x as u8, y as u8)
	} else {
		None
	}
}
