//! The grading suite: its positions drawn from games with a seed, and its text, one position a
//! line: `POSITION | VALUE | MOVES`, the value for the side to move (`win`, `draw` or `loss`)
//! and the moves that keep it, in the project's notation; lines starting with `#` are notes.

use std::collections::HashSet;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use thiserror::Error;

use super::exact::ExactTables;
use crate::board::DEAD_SHEEP_TO_WIN;
use crate::search::MinimaxPlayer;
use crate::tablebase::placement::Verdict;
use crate::{ClaudePlayer, GameBoard, Move, Position, Turn};

/// One graded position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteEntry {
	/// The position.
	pub position: Position,
	/// Its exact value for the side to move.
	pub value: Verdict,
	/// The legal moves that keep that value (never all of them: such a position grades
	/// nothing, and is not drawn; so neither is a lost position, where every move keeps it).
	pub keeping: Vec<Move>,
}

/// How many positions of each phase a suite holds, and the seed of the games it is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuiteShape {
	/// The seed of the games.
	pub seed: u64,
	/// Positions with sheep in hand.
	pub placement: usize,
	/// Positions with every sheep placed.
	pub movement: usize,
}

/// A line of a suite's text that does not read.
#[derive(Debug, Error)]
pub enum SuiteError {
	/// The line is not three fields joined by ` | `.
	#[error("line {line}: a suite line is `POSITION | VALUE | MOVES`, not {text:?}")]
	Fields {
		/// The line's number, from 1.
		line: usize,
		/// The line.
		text: String,
	},
	/// The position, a value or a move does not read.
	#[error("line {line}: {why}")]
	Field {
		/// The line's number, from 1.
		line: usize,
		/// What is wrong.
		why: String,
	},
}

/// Plies a game of the draw may last; longer games (the players circling) are cut there.
const MAX_PLIES: u32 = 240;

/// The share of moves in a drawn game played at random rather than by `ClaudePlayer`: enough
/// to reach positions a strong player would avoid, few enough that games still look like play.
const RANDOM_SHARE: f64 = 0.2;

/// Games a suite's draw may play for each position it wants before it gives up: a game with
/// the tables complete yields about one of each phase.
pub const GAMES_PER_POSITION: usize = 20;

/// The share of positions of a game looked at for the suite, so that one game does not fill it.
const TAKE_SHARE: f64 = 0.15;

/// Draws a suite from games between varied players: each game `ClaudePlayer` at a depth from 1
/// to 3 on both sides after an opening of 0 to 12 random plies, a fifth of later moves random.
/// A position joins if the tables know its value and every move's, some move gives the value
/// away, and it is not a symmetry of one already in; the same `shape` gives the same suite.
/// With tables that know too few positions (some placement layers missing) the draw stops
/// after [`GAMES_PER_POSITION`] games a position wanted, with fewer positions than asked.
pub fn draw_suite(tables: &ExactTables<'_>, shape: SuiteShape) -> Vec<SuiteEntry> {
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(shape.seed);
	let mut seen = HashSet::new();
	let (mut placement, mut movement) = (Vec::new(), Vec::new());
	let most_games = GAMES_PER_POSITION * (shape.placement + shape.movement) + 100;
	for _ in 0..most_games {
		if placement.len() >= shape.placement && movement.len() >= shape.movement {
			break;
		}
		let depth = rng.random_range(1..=3u32);
		let mut player = ClaudePlayer::fixed_depth(depth);
		let opening = rng.random_range(0..=12u32);
		let (mut board, mut turn) = (GameBoard::default(), Turn::Sheep);
		let mut previous = Vec::new();
		for ply in 0..MAX_PLIES {
			let moves = board.get_moves(turn);
			if moves.is_empty() || board.dead_sheep() >= DEAD_SHEEP_TO_WIN {
				break;
			}
			let wanted = if board.sheep_in_hand() > 0 {
				placement.len() < shape.placement
			} else {
				movement.len() < shape.movement
			};
			if ply >= opening && wanted && rng.random_bool(TAKE_SHARE) {
				let key = (board.canonical().0, turn);
				if let Some((value, keeping)) = tables.keeping_moves(board, turn)
					&& keeping.len() < moves.len()
					&& seen.insert(key)
				{
					let position = Position { board, turn };
					let entry = SuiteEntry {
						position,
						value,
						keeping,
					};
					let phase = if board.sheep_in_hand() > 0 {
						&mut placement
					} else {
						&mut movement
					};
					phase.push(entry);
				}
			}
			let mv = if ply < opening || rng.random_bool(RANDOM_SHARE) {
				moves[rng.random_range(0..moves.len())]
			} else {
				match player.pick_move(board, turn, &previous) {
					Some(report) => report.mv,
					None => break,
				}
			};
			previous.push(board);
			board = board.after_move_unchecked(mv);
			turn = turn.opponent();
		}
	}
	placement.extend(movement);
	placement
}

/// The suite as text: a note of where it came from, then one position a line.
pub fn write_suite(entries: &[SuiteEntry], notes: &[String]) -> String {
	let mut text = String::new();
	for note in notes {
		text.push_str(&format!("# {note}\n"));
	}
	text.push_str("# position | value for the side to move | the moves that keep it\n");
	for entry in entries {
		let moves: Vec<String> = entry.keeping.iter().map(Move::to_string).collect();
		text.push_str(&format!(
			"{} | {} | {}\n",
			entry.position,
			value_word(entry.value),
			moves.join(" ")
		));
	}
	text
}

/// Reads a suite's text; a line that does not read is refused with its number and why.
pub fn read_suite(text: &str) -> Result<Vec<SuiteEntry>, SuiteError> {
	let mut entries = Vec::new();
	for (at, line) in text.lines().enumerate() {
		let line_number = at + 1;
		if line.trim().is_empty() || line.starts_with('#') {
			continue;
		}
		let fields: Vec<&str> = line.split(" | ").collect();
		let [position, value, moves] = fields[..] else {
			return Err(SuiteError::Fields {
				line: line_number,
				text: line.to_string(),
			});
		};
		let field = |why: String| SuiteError::Field {
			line: line_number,
			why,
		};
		let position: Position = position.parse().map_err(|e| field(format!("{e}")))?;
		let value = match value {
			"win" => Verdict::Win,
			"draw" => Verdict::Draw,
			"loss" => Verdict::Loss,
			other => {
				return Err(field(format!(
					"the value is win, draw or loss, not {other:?}"
				)));
			}
		};
		let legal = position.board.get_moves(position.turn);
		let mut keeping = Vec::new();
		for word in moves.split_whitespace() {
			let mv: Move = word.parse().map_err(|e| field(format!("{e}")))?;
			if !legal.contains(&mv) {
				return Err(field(format!("{mv} is not a legal move in {position}")));
			}
			keeping.push(mv);
		}
		if keeping.is_empty() {
			return Err(field(
				"a position keeps its value by one move at least".into(),
			));
		}
		entries.push(SuiteEntry {
			position,
			value,
			keeping,
		});
	}
	Ok(entries)
}

fn value_word(value: Verdict) -> &'static str {
	match value {
		Verdict::Win => "win",
		Verdict::Draw => "draw",
		Verdict::Loss => "loss",
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn entry(text: &str, value: Verdict, moves: &[&str]) -> SuiteEntry {
		SuiteEntry {
			position: text.parse().unwrap(),
			value,
			keeping: moves.iter().map(|m| m.parse().unwrap()).collect(),
		}
	}

	#[test]
	fn a_suite_reads_back_as_written() {
		let start = Position {
			board: GameBoard::default(),
			turn: Turn::Sheep,
		};
		let some_move = start.board.get_moves(Turn::Sheep)[0].to_string();
		let entries = vec![entry(&start.to_string(), Verdict::Draw, &[&some_move])];
		let text = write_suite(&entries, &["drawn with seed 1".into()]);
		assert!(text.starts_with("# drawn with seed 1\n"), "{text}");
		assert_eq!(read_suite(&text).unwrap(), entries);
	}

	#[test]
	fn bad_lines_are_refused_with_their_number() {
		let start = Position {
			board: GameBoard::default(),
			turn: Turn::Sheep,
		};
		let good = start.board.get_moves(Turn::Sheep)[0].to_string();
		let cases = [
			(format!("{start} | draw"), "line 2: a suite line is"),
			(
				format!("{start} | even | {good}"),
				"line 2: the value is win, draw or loss",
			),
			(
				format!("{start} | draw | "),
				"line 2: a position keeps its value",
			),
			(format!("{start} | draw | t1-2"), "line 2:"),
			(format!("nonsense | draw | {good}"), "line 2:"),
		];
		for (line, expected) in cases {
			let text = format!("# a note\n{line}\n");
			let error = read_suite(&text).unwrap_err().to_string();
			assert!(error.starts_with(expected), "{line:?}: {error}");
		}
	}
}
