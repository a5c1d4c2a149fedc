//! The movement phase solved exactly: for every position with all sheep placed, who wins with
//! perfect play and in how many plies.
//!
//! - [`index`]: where a position sits in the table (tiger classes, ranks of empty points);
//! - [`solve`]: the retrograde solve, layer by layer, on scoped threads;
//! - [`file`]: the file format, its checks and its sha256 identity;
//! - [`census`]: counts of positions and of wins, draws and losses;
//! - [`verify`]: every stored value recomputed from its children with the game's own rules.
//!
//! Values are from the side to move's point of view. A win in `n` plies ends the game on the
//! winner's move with the loser delaying as long as possible, so `n` is odd for a win and even
//! for a loss (a loss in 0: the side to move has no move). Repetitions never matter to a value:
//! the winning side can always make progress without repeating, and a side that can only avoid
//! losing by going round for ever is held to a draw, as the third-repetition rule would have it.

pub mod census;
pub mod file;
pub mod index;
pub mod placement;
pub mod solve;
pub mod verify;

use std::fmt;
use std::path::Path;

use thiserror::Error;

use crate::board::{BOARD_MASK, DEAD_SHEEP_TO_WIN, GameBoard};
use crate::game::Game;
use crate::moves::{Move, Turn};

pub use census::{Census, LayerCensus, Wdl};
pub use file::{TABLEBASE_FORMAT_VERSION, TablebaseFileError};
pub use solve::{SolveError, SolveProgress};
pub use verify::{VerifyError, VerifyProgress, VerifyReport};

use index::Layout;

/// The rules the table was solved under; a table solved under other rules is refused. Raise it
/// with any change to `docs/rules.md` that changes a movement-phase value.
pub const RULES_VERSION: u32 = 1;

/// Movement-phase positions up to the board's eight symmetries.
pub const POSITIONS_UP_TO_SYMMETRY: u64 = 88_260_972;
/// Movement-phase positions counting every symmetric image.
pub const POSITIONS: u64 = 705_743_500;

/// The longest distance an entry can hold, in plies.
pub const MAX_DISTANCE: u32 = 254;

/// A position's exact value for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
	/// The side to move wins in this many plies (odd), against the longest defence.
	Win(u32),
	/// Neither side can force a win.
	Draw,
	/// The side to move loses in this many plies (even) at best.
	Loss(u32),
}

impl Value {
	/// The value for the other side: a win for one is a loss for the other, in as many plies.
	pub fn flip(self) -> Value {
		match self {
			Value::Win(n) => Value::Loss(n),
			Value::Draw => Value::Draw,
			Value::Loss(n) => Value::Win(n),
		}
	}

	/// The value one ply earlier, for the side that moved into this position: what the mover
	/// gets by playing the move that leads here.
	pub fn before_move(self) -> Value {
		match self {
			Value::Win(n) => Value::Loss(n + 1),
			Value::Draw => Value::Draw,
			Value::Loss(n) => Value::Win(n + 1),
		}
	}

	/// The better of two values for the side choosing between them: the quicker win, else a
	/// draw, else the slower loss.
	pub fn preferred(self, other: Value) -> Value {
		match (self, other) {
			(Value::Win(a), Value::Win(b)) => Value::Win(a.min(b)),
			(Value::Loss(a), Value::Loss(b)) => Value::Loss(a.max(b)),
			_ if self.sign() >= other.sign() => self,
			_ => other,
		}
	}

	/// Win, draw or loss as 1, 0, -1.
	pub fn sign(self) -> i32 {
		match self {
			Value::Win(_) => 1,
			Value::Draw => 0,
			Value::Loss(_) => -1,
		}
	}
}

impl fmt::Display for Value {
	/// `win 17`, `draw` or `loss 8`, from the side to move's point of view.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		match self {
			Value::Win(n) => write!(f, "win {n}"),
			Value::Draw => write!(f, "draw"),
			Value::Loss(n) => write!(f, "loss {n}"),
		}
	}
}

/// An entry's byte: 0 for a draw (or undecided, during the solve), else the distance plus one.
#[inline]
pub(crate) fn decode_value(byte: u8) -> Value {
	match byte {
		0 => Value::Draw,
		b if b % 2 == 0 => Value::Win(u32::from(b - 1)),
		b => Value::Loss(u32::from(b - 1)),
	}
}

/// The byte of a win in `distance` (odd) plies.
#[inline]
pub(crate) fn encode_win(distance: u32) -> u8 {
	debug_assert!(distance % 2 == 1 && distance <= MAX_DISTANCE);
	distance as u8 + 1
}

/// The byte of a loss in `distance` (even) plies.
#[inline]
pub(crate) fn encode_loss(distance: u32) -> u8 {
	debug_assert!(distance.is_multiple_of(2) && distance <= MAX_DISTANCE);
	distance as u8 + 1
}

/// Why a table could be neither loaded nor built.
#[derive(Debug, Error)]
pub enum TablebaseError {
	/// The file exists but cannot be used, or cannot be written.
	#[error(transparent)]
	File(#[from] TablebaseFileError),
	/// The solve failed.
	#[error(transparent)]
	Solve(#[from] SolveError),
	/// The lock that keeps two processes from building the same file at once failed.
	#[error("{path}: cannot lock: {source}")]
	Lock {
		/// The lock file.
		path: String,
		/// What the system said.
		source: std::io::Error,
	},
}

/// Whether [`Tablebase::load_or_build`] found the file or made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
	/// Read from the file.
	Loaded,
	/// Solved, then written to the file.
	Built,
}

/// The solved movement phase: one byte per entry, its file's header, and the table's identity.
pub struct Tablebase {
	values: Vec<u8>,
	header: [u8; file::HEADER_BYTES],
	identity: String,
}

impl Tablebase {
	/// Solves the movement phase on `threads` threads, calling `progress` as it goes (from any
	/// of them). Takes a few minutes and a few hundred megabytes.
	pub fn solve(
		threads: usize,
		progress: &(dyn Fn(SolveProgress) + Sync),
	) -> Result<Tablebase, SolveError> {
		let values = solve::solve(threads, progress)?;
		let census = census::census(&values);
		if census.positions_up_to_symmetry != POSITIONS_UP_TO_SYMMETRY
			|| census.positions != POSITIONS
		{
			return Err(SolveError::Counts {
				up_to_symmetry: census.positions_up_to_symmetry,
				positions: census.positions,
			});
		}
		Ok(Tablebase::from_values(values))
	}

	/// Counts the table's positions, wins, draws and losses (a second or two).
	pub fn census(&self) -> Census {
		census::census(&self.values)
	}

	fn from_values(values: Vec<u8>) -> Tablebase {
		let header = file::header_bytes(&values);
		let identity = file::identity_of(&header, &values);
		Tablebase {
			values,
			header,
			identity,
		}
	}

	/// The table at `path`, or, if there is no file there, a new solve written to it. A lock
	/// file beside it (`.lock`) makes a second process wait for the first one's solve and then
	/// load it, instead of solving twice. An unusable file is refused, never overwritten.
	pub fn load_or_build(
		path: &Path,
		threads: usize,
		progress: &(dyn Fn(SolveProgress) + Sync),
	) -> Result<(Tablebase, Origin), TablebaseError> {
		let lock_path = path.with_extension("lock");
		let lock_error = |source| TablebaseError::Lock {
			path: lock_path.display().to_string(),
			source,
		};
		if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
			std::fs::create_dir_all(dir).map_err(lock_error)?;
		}
		let lock = std::fs::File::create(&lock_path).map_err(lock_error)?;
		lock.lock().map_err(lock_error)?;
		if path.exists() {
			return Ok((Tablebase::read(path)?, Origin::Loaded));
		}
		let table = Tablebase::solve(threads, progress)?;
		table.write(path)?;
		Ok((table, Origin::Built))
	}

	/// How many entries the table has (canonical entries and their symmetric copies).
	pub fn len(&self) -> u32 {
		self.values.len() as u32
	}

	/// Whether the table has no entries (never, for a table that loaded).
	pub fn is_empty(&self) -> bool {
		self.values.is_empty()
	}

	/// The position entry `index` stands for and its value; for sampling positions from the
	/// table. Panics if `index` is not below [`Tablebase::len`].
	pub fn entry(&self, index: u32) -> (crate::Position, Value) {
		let position = census::position_of(Layout::get(), index);
		(position, decode_value(self.values[index as usize]))
	}

	/// The sha256 of the table's file, in hex: two tables with the same identity are the same.
	pub fn identity(&self) -> &str {
		&self.identity
	}

	/// The exact value of a position for `turn`, or `None` outside the movement phase (sheep
	/// still in hand, or the game already over by captures).
	#[inline]
	pub fn probe(&self, board: GameBoard, turn: Turn) -> Option<Value> {
		if board.sheep_in_hand() != 0 || board.dead_sheep() >= DEAD_SHEEP_TO_WIN {
			return None;
		}
		let empty = !(board.tigers() | board.sheep()) & BOARD_MASK;
		let index = Layout::get().index(board.tigers(), empty, turn);
		Some(decode_value(self.values[index as usize]))
	}

	/// Whether `mv`, played on `board` by its side, keeps the position's result (a win stays a
	/// win, a draw at least a draw); `None` outside the movement phase. The distance does not
	/// count: a slower win is still a win.
	pub fn keeps_value(&self, board: GameBoard, mv: Move) -> Option<bool> {
		let turn = mv.side();
		let before = self.probe(board, turn)?;
		let after = board.after_move_unchecked(mv);
		let now = self
			.probe(after, turn.opponent())
			.map_or(Value::Win(1), Value::before_move);
		Some(now.sign() >= before.sign())
	}

	/// The entries, one byte each.
	pub(crate) fn values(&self) -> &[u8] {
		&self.values
	}
}

/// How many of a player's movement-phase moves kept the position's exact result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accuracy {
	/// Moves made in movement-phase positions.
	pub moves: u32,
	/// Those that kept the result (see [`Tablebase::keeps_value`]).
	pub kept: u32,
}

impl Accuracy {
	/// The moves `side` made in the movement phase of `game`, judged by `table`.
	pub fn of_game(table: &Tablebase, game: &Game, side: Turn) -> Accuracy {
		let mut accuracy = Accuracy::default();
		let mut before = game.start().board;
		for (mv, after) in game.history() {
			if mv.side() == side
				&& let Some(kept) = table.keeps_value(before, *mv)
			{
				accuracy.moves += 1;
				accuracy.kept += u32::from(kept);
			}
			before = *after;
		}
		accuracy
	}

	/// Both counts added.
	#[must_use]
	pub fn plus(self, other: Accuracy) -> Accuracy {
		Accuracy {
			moves: self.moves + other.moves,
			kept: self.kept + other.kept,
		}
	}

	/// The share kept, 0 to 1; `None` without moves.
	pub fn share(&self) -> Option<f64> {
		(self.moves > 0).then(|| f64::from(self.kept) / f64::from(self.moves))
	}
}

impl fmt::Debug for Tablebase {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(f, "Tablebase({})", self.identity)
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn values_survive_their_byte() {
		for byte in 0..=u8::MAX {
			let back = match decode_value(byte) {
				Value::Draw => 0,
				Value::Win(n) => encode_win(n),
				Value::Loss(n) => encode_loss(n),
			};
			assert_eq!(back, byte);
		}
		assert_eq!(decode_value(encode_loss(0)), Value::Loss(0));
		assert_eq!(decode_value(encode_win(1)), Value::Win(1));
	}

	#[test]
	fn a_move_turns_a_loss_into_a_longer_win() {
		assert_eq!(Value::Loss(0).before_move(), Value::Win(1));
		assert_eq!(Value::Win(3).before_move(), Value::Loss(4));
		assert_eq!(Value::Draw.before_move(), Value::Draw);
		assert_eq!(Value::Win(5).flip(), Value::Loss(5));
		assert_eq!(Value::Loss(8).to_string(), "loss 8");
		assert_eq!(Value::Win(5).preferred(Value::Win(3)), Value::Win(3));
		assert_eq!(Value::Loss(4).preferred(Value::Loss(6)), Value::Loss(6));
		assert_eq!(Value::Loss(4).preferred(Value::Draw), Value::Draw);
		assert_eq!(Value::Draw.preferred(Value::Win(9)), Value::Win(9));
	}
}
