//! `Replay`: the latest finished self-play game, stepped through move by move.
//!
//! While the cursor is at the end of the game, a newer game replaces it as it arrives (the
//! screen follows the run). Once the user steps back, the game stays until they go to the end
//! again or ask for the latest, so a replay is never pulled away mid-study.

use tigers_core::{Game, GameBoard, GameRecord, Move};

/// A game record and how far into it the board shows.
#[derive(Debug, Default)]
pub struct Replay {
	/// The record's text as received, to notice a new one.
	text: String,
	/// The record, if it read.
	record: Option<GameRecord>,
	/// The game replayed to the end (as far as its moves are legal).
	game: Option<Game>,
	/// Moves shown as played.
	cursor: usize,
	/// A newer record waiting while the user studies this one.
	waiting: Option<String>,
	/// Why the record could not be shown.
	problem: Option<String>,
}

impl Replay {
	/// Offers the latest record text from a snapshot.
	pub fn offer(&mut self, text: &str) {
		if text == self.text || text.is_empty() {
			self.waiting = None;
			return;
		}
		if self.record.is_some() && !self.at_end() {
			self.waiting = Some(text.to_string());
			return;
		}
		self.load(text);
	}

	/// Shows the newest record received, at its end.
	pub fn latest(&mut self) {
		if let Some(text) = self.waiting.take() {
			self.load(&text);
		}
		self.cursor = self.len();
	}

	fn load(&mut self, text: &str) {
		self.text = text.to_string();
		self.waiting = None;
		match GameRecord::from_text(text) {
			Ok(record) => {
				let (game, refused) = record.replay();
				self.problem =
					refused.map(|(index, e)| format!("move {} is refused: {e}", index + 1));
				self.cursor = game.history().len();
				self.game = Some(game);
				self.record = Some(record);
			}
			Err(e) => {
				self.problem = Some(format!("the record does not read: {e}"));
				self.record = None;
				self.game = None;
				self.cursor = 0;
			}
		}
	}

	/// Moves in the game.
	pub fn len(&self) -> usize {
		self.game.as_ref().map_or(0, |g| g.history().len())
	}

	/// Whether there is no game to show.
	pub fn is_empty(&self) -> bool {
		self.game.is_none()
	}

	/// Moves shown as played.
	pub fn cursor(&self) -> usize {
		self.cursor
	}

	/// Whether the board shows the final position.
	pub fn at_end(&self) -> bool {
		self.cursor == self.len()
	}

	/// Whether a newer game is waiting.
	pub fn newer_waiting(&self) -> bool {
		self.waiting.is_some()
	}

	/// Steps by `delta` moves, within the game; reaching the end takes a waiting game.
	pub fn step(&mut self, delta: isize) {
		self.cursor = self.cursor.saturating_add_signed(delta).min(self.len());
	}

	/// Jumps to the start.
	pub fn home(&mut self) {
		self.cursor = 0;
	}

	/// Jumps to the end of this game.
	pub fn end(&mut self) {
		self.cursor = self.len();
	}

	/// The record shown.
	pub fn record(&self) -> Option<&GameRecord> {
		self.record.as_ref()
	}

	/// Why the record is not (fully) shown.
	pub fn problem(&self) -> Option<&str> {
		self.problem.as_deref()
	}

	/// Every move of the game.
	pub fn moves(&self) -> Vec<Move> {
		self.game.as_ref().map(Game::moves).unwrap_or_default()
	}

	/// The board after `cursor` moves, with the move that led to it.
	pub fn board(&self) -> Option<(GameBoard, Option<Move>)> {
		let game = self.game.as_ref()?;
		Some(match self.cursor {
			0 => (game.start().board, None),
			n => {
				let (mv, board) = game.history()[n - 1];
				(board, Some(mv))
			}
		})
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn record(moves: &[&str]) -> String {
		let mut game = Game::default();
		for mv in moves {
			game.play_text(mv).unwrap();
		}
		GameRecord::from_game(&game).to_text()
	}

	#[test]
	fn follows_new_games_only_from_the_end() {
		let mut replay = Replay::default();
		replay.offer(&record(&["sc3", "ta5b4"]));
		assert_eq!((replay.len(), replay.cursor()), (2, 2));
		replay.offer(&record(&["sc3"]));
		assert_eq!(replay.len(), 1, "at the end, a new game is taken");
		replay.offer(&record(&["sc3", "ta5b4", "sd3"]));
		replay.step(-2);
		replay.offer(&record(&["sb2"]));
		assert!(replay.newer_waiting());
		assert_eq!((replay.len(), replay.cursor()), (3, 1));
		replay.latest();
		assert_eq!((replay.len(), replay.cursor()), (1, 1));
		assert!(!replay.newer_waiting());
	}

	#[test]
	fn steps_stay_in_the_game() {
		let mut replay = Replay::default();
		replay.offer(&record(&["sc3", "ta5b4", "sd3"]));
		replay.step(-10);
		assert_eq!(replay.cursor(), 0);
		assert_eq!(replay.board().unwrap().1, None);
		replay.step(2);
		assert_eq!(replay.board().unwrap().1.unwrap().to_string(), "ta5b4");
		replay.step(10);
		assert!(replay.at_end());
	}

	#[test]
	fn a_bad_record_says_why() {
		let mut replay = Replay::default();
		replay.offer("not a record");
		assert!(replay.is_empty());
		assert!(replay.problem().unwrap().contains("does not read"));
	}
}
