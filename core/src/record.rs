//! A whole game as text: start, moves, result and metadata.
//!
//! A record is a header line followed by `key value` lines, always in this order:
//!
//! ```text
//! tigers-and-sheep record 1
//! sheep Ada Lovelace
//! tigers net
//! generation 12
//! seed 00000000deadbeef
//! start T...T/...../...../...../T...T s 20
//! moves sc3 ta5b4 sd3
//! result *
//! ```
//!
//! - the header names the format and its version, exactly `tigers-and-sheep record 1`;
//! - `sheep` and `tigers`: optional; the players' names, the rest of the line after one space
//!   (spaces inside are fine; see [`PlayerName`]);
//! - `generation`: optional; the network generation that played, in decimal;
//! - `seed`: optional; the seed the game was played with, as 16 lowercase hex digits;
//! - `start`: the start position in [`Position`] notation;
//! - `moves`: the moves in our notation, separated by single spaces, on one line (`moves` alone
//!   for none);
//! - `result`: an [`Outcome::code`], or `*` while the game is not over.
//!
//! The text is canonical: one space between key and value, optional lines left out when absent,
//! no blank lines, a newline after every line, no timestamps. So two games with the same history
//! and metadata write the same text, and [`GameRecord::from_text`] accepts exactly the texts that
//! [`GameRecord::to_text`] writes (for records whose moves replay), refusing anything else with a
//! [`RecordError`] that names the line.
//!
//! Reading checks the layout first (header, final newline, keys and their order), then each
//! value in line order, then replays the moves: a move the rules refuse is an error, and so is a
//! result that disagrees with the replayed game. The result is `*` if and only if the game is not
//! over; a game stopped early (abandoned, adjudicated) is recorded as unfinished.
//!
//! ```
//! use tigers_core::GameRecord;
//! let text = "tigers-and-sheep record 1\n\
//!             sheep Ada Lovelace\n\
//!             start T...T/...../...../...../T...T s 20\n\
//!             moves sc3 ta5b4 sd3\n\
//!             result *\n";
//! let record = GameRecord::from_text(text).unwrap();
//! assert_eq!(record.sheep_player.as_ref().unwrap().as_str(), "Ada Lovelace");
//! assert_eq!(record.moves.len(), 3);
//! assert_eq!(record.result, None);
//! assert_eq!(record.to_text(), text);
//! ```

mod error;
mod header;
mod name;
mod read;

use std::fmt::Write;

use crate::board::MoveError;
use crate::game::Game;
use crate::moves::Move;
use crate::outcome::Outcome;
use crate::position::Position;
use header::FORMAT_NAME;
use read::{Key, Line};

pub use error::RecordError;
pub use header::HEADER;
pub use name::{PlayerName, PlayerNameError};

/// A game with its start, moves, result and who played it.
///
/// The fields are plain data: [`GameRecord::to_text`] writes whatever they hold, while
/// [`GameRecord::from_text`] only accepts a record whose moves replay and whose result agrees
/// with the replayed game. [`GameRecord::from_game`] always builds such a record; the default
/// is an empty game from the usual start, without metadata.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameRecord {
	/// The name of whoever played the sheep.
	pub sheep_player: Option<PlayerName>,
	/// The name of whoever played the tigers.
	pub tigers_player: Option<PlayerName>,
	/// The network generation that played, for self-play games.
	pub generation: Option<u64>,
	/// The seed the game was played with, to reproduce it.
	pub seed: Option<u64>,
	/// The position the game started from.
	pub start: Position,
	/// The moves played, in order.
	pub moves: Vec<Move>,
	/// How the game ended, or `None` if it is not over.
	pub result: Option<Outcome>,
}

impl GameRecord {
	/// The record of a game, without metadata; the result is the game's outcome.
	pub fn from_game(game: &Game) -> GameRecord {
		GameRecord {
			start: game.start(),
			moves: game.moves(),
			result: game.outcome(),
			..GameRecord::default()
		}
	}

	/// Replays the moves from the start. Returns the game so far and, if a move was refused, its
	/// index in `moves` (0-based) with the reason.
	pub fn replay(&self) -> (Game, Option<(usize, MoveError)>) {
		Game::replay(self.start, &self.moves)
	}

	/// The record as canonical text (see the [module documentation](self)).
	pub fn to_text(&self) -> String {
		let mut lines = vec![HEADER.to_string()];
		if let Some(name) = &self.sheep_player {
			lines.push(format!("{} {name}", Key::Sheep.name()));
		}
		if let Some(name) = &self.tigers_player {
			lines.push(format!("{} {name}", Key::Tigers.name()));
		}
		if let Some(generation) = self.generation {
			lines.push(format!("{} {generation}", Key::Generation.name()));
		}
		if let Some(seed) = self.seed {
			lines.push(format!("{} {seed:016x}", Key::Seed.name()));
		}
		lines.push(format!("{} {}", Key::Start.name(), self.start));
		let mut moves = Key::Moves.name().to_string();
		for mv in &self.moves {
			write!(moves, " {mv}").expect("writing to a String cannot fail");
		}
		lines.push(moves);
		let result = self.result.map_or("*", Outcome::code);
		lines.push(format!("{} {result}", Key::Result.name()));
		let mut text = lines.join("\n");
		text.push('\n');
		text
	}

	/// Reads a record written by [`GameRecord::to_text`], replaying its moves to check them and
	/// its result.
	pub fn from_text(text: &str) -> Result<GameRecord, RecordError> {
		let lines = read::read_lines(text)?;
		let name = |key| lines.get(key).map(|l| l.player_name(key)).transpose();
		let record = GameRecord {
			sheep_player: name(Key::Sheep)?,
			tigers_player: name(Key::Tigers)?,
			generation: lines
				.get(Key::Generation)
				.map(Line::generation)
				.transpose()?,
			seed: lines.get(Key::Seed).map(Line::seed).transpose()?,
			start: lines.required(Key::Start).position()?,
			moves: lines.required(Key::Moves).moves()?,
			result: lines.required(Key::Result).result()?,
		};
		record.check(
			lines.required(Key::Moves).number,
			lines.required(Key::Result).number,
		)?;
		Ok(record)
	}

	/// Replays the moves and compares the result with the replayed game's outcome.
	fn check(&self, moves_line: usize, result_line: usize) -> Result<(), RecordError> {
		let (game, refusal) = self.replay();
		if let Some((index, source)) = refusal {
			return Err(RecordError::RefusedMove {
				line: moves_line,
				number: index + 1,
				mv: self.moves[index],
				source,
			});
		}
		let line = result_line;
		match (self.result, game.outcome()) {
			(None, None) => Ok(()),
			(Some(recorded), Some(actual)) if recorded == actual => Ok(()),
			(None, Some(actual)) => Err(RecordError::OverButUnfinished { line, actual }),
			(Some(recorded), None) => Err(RecordError::FinishedButNotOver { line, recorded }),
			(Some(recorded), Some(actual)) => Err(RecordError::WrongResult {
				line,
				recorded,
				actual,
			}),
		}
	}
}

/// The records in `text`, a file of records written one after another (as a run's game
/// archive holds them): each piece starts at a line that begins like a header
/// (`tigers-and-sheep record `, whatever the version) and runs to the next. Text before the
/// first header is a piece of its own, so that reading it fails rather than vanishing; empty
/// text has no pieces. The pieces are not checked: [`GameRecord::from_text`] reads each.
///
/// ```
/// use tigers_core::record::split_records;
/// let one = "tigers-and-sheep record 1\nstart T...T/...../...../...../T...T s 20\nmoves\nresult *\n";
/// let two = format!("{one}{one}");
/// assert_eq!(split_records(&two).collect::<Vec<_>>(), [one, one]);
/// assert_eq!(split_records("").count(), 0);
/// ```
pub fn split_records(text: &str) -> impl Iterator<Item = &str> {
	let mut rest = text;
	std::iter::from_fn(move || {
		if rest.is_empty() {
			return None;
		}
		// The next header after the first line, if any, ends this piece.
		let mut end = rest.len();
		let mut at = rest.find('\n').map_or(rest.len(), |i| i + 1);
		while at < rest.len() {
			if rest[at..].starts_with(FORMAT_NAME) {
				end = at;
				break;
			}
			at += rest[at..].find('\n').map_or(rest.len() - at, |i| i + 1);
		}
		let (piece, after) = rest.split_at(end);
		rest = after;
		Some(piece)
	})
}

/// The generation a record's text names, read from its `generation` line without reading the
/// rest: for sorting many records cheaply. `None` if no line before `start` names one in
/// canonical decimal; [`GameRecord::from_text`] is the check.
///
/// ```
/// use tigers_core::record::generation_in;
/// assert_eq!(generation_in("tigers-and-sheep record 1\ngeneration 12\nstart ...\n"), Some(12));
/// assert_eq!(generation_in("tigers-and-sheep record 1\nstart ...\n"), None);
/// ```
pub fn generation_in(text: &str) -> Option<u64> {
	let start = format!("{} ", Key::Start.name());
	let prefix = format!("{} ", Key::Generation.name());
	text.lines()
		.take_while(|line| !line.starts_with(&start))
		.find_map(|line| line.strip_prefix(&prefix))
		.filter(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
		.and_then(|digits| digits.parse().ok())
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::board::BoardError;
	use crate::moves::ParseMoveError;
	use crate::moves::Turn;
	use crate::position::PositionError;

	/// Lines: 1 header, 2 sheep, 3 tigers, 4 generation, 5 seed, 6 start, 7 moves, 8 result.
	const GOLDEN: &str = concat!(
		"tigers-and-sheep record 1\n",
		"sheep Ada Lovelace\n",
		"tigers net\n",
		"generation 12\n",
		"seed 00000000deadbeef\n",
		"start TSSST/SSSSS/SS.SS/SSSS./TSSST t 0\n",
		"moves te1e2 sd3c3 te2e1 sc3d3 te1e2 sd3c3 te2e1 sc3d3\n",
		"result draw-by-repetition\n",
	);

	fn moves(texts: &str) -> Vec<Move> {
		texts.split(' ').map(|m| m.parse().unwrap()).collect()
	}

	fn golden_record() -> GameRecord {
		GameRecord {
			sheep_player: Some(PlayerName::new("Ada Lovelace").unwrap()),
			tigers_player: Some(PlayerName::new("net").unwrap()),
			generation: Some(12),
			seed: Some(0xdead_beef),
			start: "TSSST/SSSSS/SS.SS/SSSS./TSSST t 0".parse().unwrap(),
			moves: moves("te1e2 sd3c3 te2e1 sc3d3 te1e2 sd3c3 te2e1 sc3d3"),
			result: Some(Outcome::DrawByRepetition),
		}
	}

	/// Plays from the start to the end, choosing move `(ply * stride + 1) % count` each time.
	fn play_out(stride: usize) -> Game {
		let mut game = Game::default();
		for ply in 0..2000 {
			let legal = game.legal_moves();
			if legal.is_empty() {
				break;
			}
			game.play(legal[(ply * stride + 1) % legal.len()]).unwrap();
		}
		assert!(game.is_over(), "stride {stride} did not end the game");
		game
	}

	/// Reads a text that must be refused on `line`, and checks the message names that line.
	fn refused(text: &str, line: usize) -> RecordError {
		let error = GameRecord::from_text(text).unwrap_err();
		assert_eq!(error.line(), line, "{error}");
		let message = error.to_string();
		assert!(message.starts_with(&format!("line {line}")), "{message}");
		error
	}

	#[test]
	fn a_small_record_writes_the_golden_text() {
		assert_eq!(golden_record().to_text(), GOLDEN);
		assert_eq!(GameRecord::from_text(GOLDEN), Ok(golden_record()));
	}

	#[test]
	fn absent_metadata_and_an_empty_game_leave_lines_out() {
		let text = "tigers-and-sheep record 1\n\
		            start T...T/...../...../...../T...T s 20\n\
		            moves\n\
		            result *\n";
		assert_eq!(GameRecord::default().to_text(), text);
		assert_eq!(GameRecord::from_text(text), Ok(GameRecord::default()));
	}

	#[test]
	fn finished_games_round_trip() {
		for stride in [1, 3, 7] {
			let game = play_out(stride);
			let record = GameRecord::from_game(&game);
			assert_eq!(record.result, game.outcome());
			let text = record.to_text();
			let read = GameRecord::from_text(&text).unwrap();
			assert_eq!(read, record);
			assert_eq!(read.to_text(), text);
			assert_eq!(read.replay(), (game, None));
		}
	}

	#[test]
	fn an_unfinished_game_round_trips() {
		let mut game = Game::default();
		for m in ["sc3", "ta5b4", "sd3"] {
			game.play_text(m).unwrap();
		}
		let mut record = GameRecord::from_game(&game);
		record.seed = Some(u64::MAX);
		record.generation = Some(0);
		let text = record.to_text();
		assert!(text.contains("\nmoves sc3 ta5b4 sd3\nresult *\n"), "{text}");
		assert!(text.contains("\nseed ffffffffffffffff\n"), "{text}");
		assert!(text.contains("\ngeneration 0\n"), "{text}");
		assert_eq!(GameRecord::from_text(&text), Ok(record));
	}

	#[test]
	fn the_same_history_writes_the_same_text() {
		let mut played = Game::default();
		for m in ["sc3", "ta5b4", "sb2", "tb4a5"] {
			played.play_text(m).unwrap();
		}
		// A line taken back leaves no trace in the record.
		played.revert(2);
		played.play_text("sd3").unwrap();
		let (replayed, refusal) = Game::replay(Position::default(), &moves("sc3 ta5b4 sd3"));
		assert_eq!(refusal, None);
		let text = GameRecord::from_game(&played).to_text();
		assert_eq!(text, GameRecord::from_game(&replayed).to_text());
		let (other, _) = Game::replay(Position::default(), &moves("sc3 ta5b4 sd2"));
		assert_ne!(text, GameRecord::from_game(&other).to_text());
	}

	#[test]
	fn replay_reports_the_first_refused_move() {
		let record = GameRecord {
			moves: moves("sc3 ta5b4 sc3 te5d4"),
			..GameRecord::default()
		};
		let c3 = "c3".parse().unwrap();
		let (game, refusal) = record.replay();
		assert_eq!(game.moves(), moves("sc3 ta5b4"));
		assert_eq!(refusal, Some((2, MoveError::Occupied(c3))));
		// The text it writes is refused on its moves line (line 3), at move 3.
		assert_eq!(
			refused(&record.to_text(), 3),
			RecordError::RefusedMove {
				line: 3,
				number: 3,
				mv: Move::Place { to: c3 },
				source: MoveError::Occupied(c3),
			}
		);
	}

	#[test]
	fn names_are_one_trimmed_line() {
		assert_eq!(PlayerName::new(""), Err(PlayerNameError::Empty));
		assert_eq!(
			PlayerName::new("Ada\nLovelace"),
			Err(PlayerNameError::Control('\n'))
		);
		assert_eq!(
			PlayerName::new(" Ada"),
			Err(PlayerNameError::SurroundingSpace(" Ada".into()))
		);
		assert_eq!(
			PlayerName::new("Ada Lovelace").unwrap().to_string(),
			"Ada Lovelace"
		);
	}

	#[test]
	fn structural_errors_name_their_line() {
		use RecordError as E;
		let with = |from: &str, to: &str| GOLDEN.replacen(from, to, 1);
		assert!(matches!(refused("", 1), E::BadHeader { found, .. } if found.is_empty()));
		assert!(matches!(
			refused(&with("tigers-and-sheep record", "tigers record"), 1),
			E::BadHeader { .. }
		));
		assert!(matches!(
			refused(&with("record 1", "record 2"), 1),
			E::UnsupportedVersion { found, .. } if found == "2"
		));
		let unterminated = GOLDEN.strip_suffix('\n').unwrap();
		assert!(matches!(refused(unterminated, 8), E::NoFinalNewline { .. }));
		assert!(matches!(
			refused(&with("tigers net\n", "\n"), 3),
			E::BlankLine { .. }
		));
		assert!(matches!(
			refused(&format!("{GOLDEN}\n"), 9),
			E::BlankLine { .. }
		));
		assert!(matches!(
			refused(&with("tigers net", "tiger net"), 3),
			E::UnknownKey { key, .. } if key == "tiger"
		));
		assert!(matches!(
			refused(
				&with("generation 12\n", "generation 12\ngeneration 13\n"),
				5
			),
			E::DuplicateKey {
				key: "generation",
				first: 4,
				..
			}
		));
		assert!(matches!(
			refused(
				&with("sheep Ada Lovelace\ntigers net", "tigers net\nsheep Ada"),
				3
			),
			E::OutOfOrder {
				key: "sheep",
				after: "tigers",
				..
			}
		));
		assert!(matches!(
			refused(&with("start TSSST/SSSSS/SS.SS/SSSS./TSSST t 0\n", ""), 6),
			E::MissingKey {
				key: "start",
				before: "moves",
				..
			}
		));
		assert!(matches!(
			refused(&with("result draw-by-repetition\n", ""), 8),
			E::Truncated { key: "result", .. }
		));
	}

	#[test]
	fn value_errors_name_their_line() {
		use RecordError as E;
		let with = |from: &str, to: &str| GOLDEN.replacen(from, to, 1);
		assert!(matches!(
			refused(&with("Ada Lovelace", "Ada\tLovelace"), 2),
			E::Name {
				key: "sheep",
				source: PlayerNameError::Control('\t'),
				..
			}
		));
		assert!(matches!(
			refused(&with("tigers net", "tigers "), 3),
			E::Name {
				key: "tigers",
				source: PlayerNameError::Empty,
				..
			}
		));
		for bad in ["012", "-1", "", "18446744073709551616"] {
			let text = with("generation 12", &format!("generation {bad}"));
			assert!(matches!(refused(&text, 4), E::BadGeneration { found, .. } if found == bad));
		}
		for bad in ["00000000DEADBEEF", "deadbeef", "0x000000deadbeef"] {
			let text = with("seed 00000000deadbeef", &format!("seed {bad}"));
			assert!(matches!(refused(&text, 5), E::BadSeed { found, .. } if found == bad));
		}
		assert_eq!(
			refused(&with("TSSST t 0", "SSSST t 0"), 6),
			E::BadPosition {
				line: 6,
				source: PositionError::Board(BoardError::TigerCount(3)),
			}
		);
		assert!(matches!(
			refused(&with("te1e2 sd3c3 te2e1", "te1e2 sd3c3 tz9e1"), 7),
			E::BadMove {
				number: 3,
				source: ParseMoveError::Point { .. },
				..
			}
		));
		assert!(matches!(
			refused(&with("te1e2 sd3c3", "te1e2  sd3c3"), 7),
			E::BadMove {
				number: 2,
				source: ParseMoveError::Empty,
				..
			}
		));
		assert!(matches!(
			refused(&with("draw-by-repetition", "tigers"), 8),
			E::UnknownResult { found, .. } if found == "tigers"
		));
	}

	#[test]
	fn replay_errors_name_their_line() {
		use RecordError as E;
		let with = |from: &str, to: &str| GOLDEN.replacen(from, to, 1);
		assert!(matches!(
			refused(&with("te1e2 sd3c3", "te1e2 te2e1"), 7),
			E::RefusedMove {
				number: 2,
				source: MoveError::NotYourTurn(Turn::Sheep),
				..
			}
		));
		assert!(matches!(
			refused(&with("sc3d3\n", "sc3d3 te1e2\n"), 7),
			E::RefusedMove {
				number: 9,
				source: MoveError::GameOver(Outcome::DrawByRepetition),
				..
			}
		));
		assert!(matches!(
			refused(&with("draw-by-repetition", "*"), 8),
			E::OverButUnfinished {
				actual: Outcome::DrawByRepetition,
				..
			}
		));
		assert!(matches!(
			refused(&with("draw-by-repetition", "sheep-by-trapping"), 8),
			E::WrongResult {
				recorded: Outcome::SheepByTrapping,
				actual: Outcome::DrawByRepetition,
				..
			}
		));
		let unfinished = with(" te2e1 sc3d3\n", "\n");
		assert!(matches!(
			refused(&unfinished, 8),
			E::FinishedButNotOver {
				recorded: Outcome::DrawByRepetition,
				..
			}
		));
	}

	#[test]
	fn records_written_one_after_another_split_back_whole() {
		let other = GameRecord {
			generation: None,
			..golden_record()
		}
		.to_text();
		let file = format!("{GOLDEN}{other}{GOLDEN}");
		let pieces: Vec<&str> = split_records(&file).collect();
		assert_eq!(pieces, [GOLDEN, other.as_str(), GOLDEN]);
		for piece in pieces {
			GameRecord::from_text(piece).unwrap();
		}
		// Text before the first header stays a piece of its own, which does not read.
		let junk_first = format!("junk\n{GOLDEN}");
		let pieces: Vec<&str> = split_records(&junk_first).collect();
		assert_eq!(pieces, ["junk\n", GOLDEN]);
		assert!(GameRecord::from_text(pieces[0]).is_err());
		// A record of a later version is split there too, and then refused by `from_text`.
		let later = GOLDEN.replace(HEADER, "tigers-and-sheep record 2");
		assert_eq!(split_records(&format!("{GOLDEN}{later}")).count(), 2);
		// No final newline: the last piece keeps what there is.
		assert_eq!(split_records(GOLDEN.trim_end()).count(), 1);
	}

	#[test]
	fn the_generation_is_found_without_reading_the_rest() {
		assert_eq!(generation_in(GOLDEN), Some(12));
		let none = GameRecord {
			generation: None,
			..golden_record()
		};
		assert_eq!(generation_in(&none.to_text()), None);
		for generation in [0, 7, u64::MAX] {
			let record = GameRecord {
				generation: Some(generation),
				..golden_record()
			};
			assert_eq!(generation_in(&record.to_text()), Some(generation));
		}
		assert_eq!(generation_in("generation -1\n"), None);
		assert_eq!(generation_in("generation +1\n"), None);
		assert_eq!(generation_in("start x\ngeneration 3\n"), None);
	}
}
