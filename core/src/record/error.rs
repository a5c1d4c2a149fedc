//! `RecordError`: why a text is not a game record, by line.

use thiserror::Error;

use super::header::HEADER;
use super::name::PlayerNameError;
use crate::board::MoveError;
use crate::moves::{Move, ParseMoveError};
use crate::outcome::Outcome;
use crate::position::PositionError;

/// Why a text is not a game record. Every message starts with the line number, from 1.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordError {
	/// The first line does not name the format.
	#[error("line {line}: a record starts with {HEADER:?}, not {found:?}")]
	BadHeader {
		/// Always 1.
		line: usize,
		/// The first line.
		found: String,
	},
	/// The header names a version this code does not read.
	#[error("line {line}: record version {found:?} is not supported; this code reads version 1")]
	UnsupportedVersion {
		/// Always 1.
		line: usize,
		/// What follows the format's name.
		found: String,
	},
	/// The text does not end with a newline.
	#[error("line {line}: the last line must end with a newline")]
	NoFinalNewline {
		/// The last line.
		line: usize,
	},
	/// An empty line.
	#[error("line {line} is empty; a record has no blank lines")]
	BlankLine {
		/// The empty line.
		line: usize,
	},
	/// A key the format does not have.
	#[error(
		"line {line}: unknown key {key:?}; the keys are sheep, tigers, generation, seed, start, \
		 moves and result"
	)]
	UnknownKey {
		/// The line.
		line: usize,
		/// The first word of the line.
		key: String,
	},
	/// A key that already had its line.
	#[error("line {line}: a second `{key}` line; the first is line {first}")]
	DuplicateKey {
		/// The second occurrence.
		line: usize,
		/// The key.
		key: &'static str,
		/// The first occurrence.
		first: usize,
	},
	/// A key after one that must follow it.
	#[error("line {line}: the `{key}` line must come before the `{after}` line")]
	OutOfOrder {
		/// The misplaced line.
		line: usize,
		/// Its key.
		key: &'static str,
		/// The key read earlier that belongs after it.
		after: &'static str,
	},
	/// A required key missing before a later one.
	#[error("line {line}: a `{key}` line is missing before this `{before}` line")]
	MissingKey {
		/// The line that should have come after it.
		line: usize,
		/// The missing key.
		key: &'static str,
		/// The key found instead.
		before: &'static str,
	},
	/// The text ends before a required key.
	#[error("line {line}: the record ends without a `{key}` line")]
	Truncated {
		/// The line after the last one.
		line: usize,
		/// The first missing key.
		key: &'static str,
	},
	/// A player's name that cannot be one.
	#[error("line {line}: the `{key}` player's name is refused: {source}")]
	Name {
		/// The line.
		line: usize,
		/// `sheep` or `tigers`.
		key: &'static str,
		/// What is wrong with it.
		source: PlayerNameError,
	},
	/// A generation that is not a number.
	#[error("line {line}: the generation is a decimal number without leading zeros, not {found:?}")]
	BadGeneration {
		/// The line.
		line: usize,
		/// The value found.
		found: String,
	},
	/// A seed that is not 16 hex digits.
	#[error("line {line}: the seed is 16 lowercase hex digits, not {found:?}")]
	BadSeed {
		/// The line.
		line: usize,
		/// The value found.
		found: String,
	},
	/// A start position that cannot be read.
	#[error("line {line}: the start position is refused: {source}")]
	BadPosition {
		/// The line.
		line: usize,
		/// What is wrong with it.
		source: PositionError,
	},
	/// A move that is not in our notation.
	#[error("line {line}: move {number} cannot be read: {source}")]
	BadMove {
		/// The `moves` line.
		line: usize,
		/// The move's number in the list, from 1.
		number: usize,
		/// What is wrong with it.
		source: ParseMoveError,
	},
	/// A move the rules refuse when the game is replayed.
	#[error("line {line}: move {number} ({mv}) cannot be played: {source}")]
	RefusedMove {
		/// The `moves` line.
		line: usize,
		/// The move's number in the list, from 1.
		number: usize,
		/// The move.
		mv: Move,
		/// Why the rules refuse it.
		source: MoveError,
	},
	/// A result that is neither `*` nor an outcome's code.
	#[error(
		"line {line}: unknown result {found:?}; use * for a game not over, or \
		 tigers-by-captures, tigers-by-sheep-blocked, sheep-by-trapping or draw-by-repetition"
	)]
	UnknownResult {
		/// The line.
		line: usize,
		/// The value found.
		found: String,
	},
	/// The result is `*` but the replayed game is over.
	#[error(
		"line {line}: the result is * (not over), but the moves end the game ({actual}); write {}",
		.actual.code()
	)]
	OverButUnfinished {
		/// The `result` line.
		line: usize,
		/// How the replayed game ended.
		actual: Outcome,
	},
	/// The record gives a result but the replayed game is not over.
	#[error(
		"line {line}: the result is {}, but after these moves the game is not over; write *",
		.recorded.code()
	)]
	FinishedButNotOver {
		/// The `result` line.
		line: usize,
		/// The result recorded.
		recorded: Outcome,
	},
	/// The recorded result is not how the replayed game ended.
	#[error(
		"line {line}: the result is {}, but the moves end the game as {}",
		.recorded.code(),
		.actual.code()
	)]
	WrongResult {
		/// The `result` line.
		line: usize,
		/// The result recorded.
		recorded: Outcome,
		/// How the replayed game ended.
		actual: Outcome,
	},
}

impl RecordError {
	/// The line the error is on, from 1.
	pub fn line(&self) -> usize {
		use RecordError::*;
		match *self {
			BadHeader { line, .. }
			| UnsupportedVersion { line, .. }
			| NoFinalNewline { line }
			| BlankLine { line }
			| UnknownKey { line, .. }
			| DuplicateKey { line, .. }
			| OutOfOrder { line, .. }
			| MissingKey { line, .. }
			| Truncated { line, .. }
			| Name { line, .. }
			| BadGeneration { line, .. }
			| BadSeed { line, .. }
			| BadPosition { line, .. }
			| BadMove { line, .. }
			| RefusedMove { line, .. }
			| UnknownResult { line, .. }
			| OverButUnfinished { line, .. }
			| FinishedButNotOver { line, .. }
			| WrongResult { line, .. } => line,
		}
	}
}
