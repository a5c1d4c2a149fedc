//! The solved movement phase in memory: its entries, how it is solved, read and written, and
//! how a position is looked up.

use std::fmt;
use std::path::Path;

use thiserror::Error;

use crate::board::{BOARD_MASK, DEAD_SHEEP_TO_WIN, GameBoard};
use crate::moves::{Move, Turn};
use crate::tablebase::census::{self, Census};
use crate::tablebase::file::{self, TablebaseFileError};
use crate::tablebase::index::{Layout, POSITIONS, POSITIONS_UP_TO_SYMMETRY};
use crate::tablebase::solve::{self, SolveError, SolveProgress};
use crate::tablebase::value::{Value, decode_value};

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

impl Tablebase {
	/// Reads a table file: one read of the whole file, then every check.
	pub fn read(path: &Path) -> Result<Tablebase, TablebaseFileError> {
		let bytes = std::fs::read(path).map_err(|source| TablebaseFileError::Io {
			path: path.display().to_string(),
			source,
		})?;
		Tablebase::from_bytes(bytes)
	}

	/// The table at `path`, or `None` if there is no file there; any other failure, or a file
	/// that is not a good table, is an error.
	pub fn read_if_present(path: &Path) -> Result<Option<Tablebase>, TablebaseFileError> {
		match Tablebase::read(path) {
			Ok(table) => Ok(Some(table)),
			Err(TablebaseFileError::Io { source, .. })
				if source.kind() == std::io::ErrorKind::NotFound =>
			{
				Ok(None)
			}
			Err(error) => Err(error),
		}
	}

	/// A table from the bytes of its file, checked.
	pub fn from_bytes(bytes: Vec<u8>) -> Result<Tablebase, TablebaseFileError> {
		let (values, header, identity) = file::checked_entries(bytes)?;
		Ok(Tablebase {
			values,
			header,
			identity,
		})
	}

	/// Writes the table's file, through a temporary file renamed into place, so that a reader
	/// never sees half a table.
	pub fn write(&self, path: &Path) -> Result<(), TablebaseFileError> {
		file::write_file(path, &self.header, &self.values)
	}

	/// The whole file's bytes (80 bytes of header, then the entries).
	pub fn to_bytes(&self) -> Vec<u8> {
		let (header, entries) = self.file_parts();
		let mut bytes = Vec::with_capacity(header.len() + entries.len());
		bytes.extend_from_slice(header);
		bytes.extend_from_slice(entries);
		bytes
	}

	/// The file as its two parts, the header and the entries, without copying them: to send
	/// or write it piece by piece.
	pub fn file_parts(&self) -> (&[u8], &[u8]) {
		(&self.header, &self.values)
	}

	/// The file's length in bytes.
	pub fn file_len(&self) -> u64 {
		(file::HEADER_BYTES + self.values.len()) as u64
	}
}

impl fmt::Debug for Tablebase {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(f, "Tablebase({})", self.identity)
	}
}
