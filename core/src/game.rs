//! `Game`: a game from a start position, with its history, repetitions and outcome.

use crate::board::{GameBoard, MoveError};
use crate::movegen::MoveList;
use crate::moves::{Move, Turn};
use crate::outcome::Outcome;
use crate::position::Position;

/// A third occurrence of a position draws: one that has come up this many times before.
pub const REPETITION_DRAW: usize = 2;

/// A game in progress or finished: a start position and the moves played from it.
///
/// Refusals are returned, never panicked: [`Game::play`] checks every move, including whether
/// the game is already over.
///
/// ```
/// use tigers_core::{Game, Outcome};
/// let mut game = Game::default();
/// game.play_text("sc3").unwrap();
/// game.play_text("ta5b4").unwrap();
/// assert_eq!(game.moves().len(), 2);
/// assert!(game.play_text("ta5b4").is_err()); // sheep to move
/// assert_eq!(game.outcome(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Game {
	start: Position,
	/// Each move with the board after it.
	history: Vec<(Move, GameBoard)>,
}

/// Why a move given as text was not played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
	/// The text is not a move.
	#[error(transparent)]
	Parse(#[from] crate::moves::ParseMoveError),
	/// The move is not legal here.
	#[error(transparent)]
	Illegal(#[from] MoveError),
}

impl Game {
	/// A game starting from `start`.
	pub fn new(start: Position) -> Game {
		Game {
			start,
			history: Vec::new(),
		}
	}

	/// Plays moves from `start` until one is refused. Returns the game so far and, if a move was
	/// refused, its index in `moves` with the reason.
	pub fn replay(start: Position, moves: &[Move]) -> (Game, Option<(usize, MoveError)>) {
		let mut game = Game::new(start);
		for (index, &mv) in moves.iter().enumerate() {
			if let Err(error) = game.play(mv) {
				return (game, Some((index, error)));
			}
		}
		(game, None)
	}

	/// The start position.
	pub fn start(&self) -> Position {
		self.start
	}

	/// The current board.
	pub fn board(&self) -> GameBoard {
		self.history
			.last()
			.map_or(self.start.board, |(_, board)| *board)
	}

	/// The side to move.
	pub fn turn(&self) -> Turn {
		if self.history.len().is_multiple_of(2) {
			self.start.turn
		} else {
			self.start.turn.opponent()
		}
	}

	/// The current position.
	pub fn position(&self) -> Position {
		Position {
			board: self.board(),
			turn: self.turn(),
		}
	}

	/// The moves played, in order.
	pub fn moves(&self) -> Vec<Move> {
		self.history.iter().map(|(mv, _)| *mv).collect()
	}

	/// The moves with the board after each.
	pub fn history(&self) -> &[(Move, GameBoard)] {
		&self.history
	}

	/// Every board before the current one, oldest first (what a search needs for repetitions).
	pub fn previous(&self) -> Vec<GameBoard> {
		let mut boards = Vec::with_capacity(self.history.len());
		if !self.history.is_empty() {
			boards.push(self.start.board);
			boards.extend(
				self.history[..self.history.len() - 1]
					.iter()
					.map(|(_, b)| *b),
			);
		}
		boards
	}

	/// How many times the current position has come up before.
	pub fn repetitions(&self) -> usize {
		let board = self.board();
		// Positions with the same side to move are an even number of plies back.
		let earlier = std::iter::once(&self.start.board).chain(self.history.iter().map(|(_, b)| b));
		earlier
			.rev()
			.skip(2)
			.step_by(2)
			.filter(|b| **b == board)
			.count()
	}

	/// The result, if the game is over.
	pub fn outcome(&self) -> Option<Outcome> {
		self.board().outcome(self.turn()).or_else(|| {
			(self.repetitions() >= REPETITION_DRAW).then_some(Outcome::DrawByRepetition)
		})
	}

	/// Whether the game is over.
	pub fn is_over(&self) -> bool {
		self.outcome().is_some()
	}

	/// The legal moves, none once the game is over.
	pub fn legal_moves(&self) -> MoveList {
		if self.is_over() {
			MoveList::new()
		} else {
			self.board().get_moves(self.turn())
		}
	}

	/// Plays a move if it is legal and the game is not over; otherwise changes nothing.
	pub fn play(&mut self, mv: Move) -> Result<(), MoveError> {
		if let Some(outcome) = self.outcome() {
			return Err(MoveError::GameOver(outcome));
		}
		let mut board = self.board();
		board.make_move(mv, self.turn())?;
		self.history.push((mv, board));
		Ok(())
	}

	/// Parses and plays a move in our notation.
	pub fn play_text(&mut self, text: &str) -> Result<Move, PlayError> {
		let mv: Move = text.parse()?;
		self.play(mv)?;
		Ok(mv)
	}

	/// Goes back to the position before move `index` (0-based), dropping it and what followed.
	pub fn revert(&mut self, index: usize) {
		self.history.truncate(index);
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	/// A movement-phase position where a tiger and a sheep can shuffle back and forth.
	fn shuffle_start() -> Position {
		"TSSST/SSSSS/SS.SS/SSSS./TSSST t 0".parse().unwrap()
	}

	#[test]
	fn third_occurrence_draws() {
		let mut game = Game::new(shuffle_start());
		// e1 tiger steps to e2 and back; the d3 sheep steps into c3 and back.
		let cycle = ["te1e2", "sd3c3", "te2e1", "sc3d3"];
		for (i, text) in cycle.iter().chain(cycle.iter()).enumerate() {
			assert_eq!(game.outcome(), None, "before move {i}");
			game.play_text(text).unwrap();
		}
		assert_eq!(game.repetitions(), 2);
		assert_eq!(game.outcome(), Some(Outcome::DrawByRepetition));
		assert_eq!(
			game.play_text("te1e2"),
			Err(PlayError::Illegal(MoveError::GameOver(
				Outcome::DrawByRepetition
			)))
		);
		assert!(game.legal_moves().is_empty());
	}

	#[test]
	fn replay_reports_the_first_refused_move() {
		let moves: Vec<Move> = ["sc3", "ta5b4", "sc3", "te5d4"]
			.iter()
			.map(|m| m.parse().unwrap())
			.collect();
		let (game, refusal) = Game::replay(Position::default(), &moves);
		assert_eq!(game.moves().len(), 2);
		assert_eq!(
			refusal,
			Some((2, MoveError::Occupied("c3".parse().unwrap())))
		);
	}

	#[test]
	fn revert_goes_back_before_the_move() {
		let mut game = Game::default();
		for m in ["sc3", "ta5b4", "sd3"] {
			game.play_text(m).unwrap();
		}
		game.revert(1);
		assert_eq!(game.moves().len(), 1);
		assert_eq!(game.turn(), Turn::Tiger);
		assert_eq!(game.previous(), vec![GameBoard::default()]);
	}
}
