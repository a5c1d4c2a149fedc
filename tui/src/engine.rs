//! `tui engine`: a line protocol on any reader and writer, so that scripts and match runners can
//! drive the search as chess engines are driven by UCI. See `docs/engine-protocol.md`.
//!
//! Every command is one line; every answer is whole lines. A command that cannot be carried out
//! answers exactly one `error ...` line and changes nothing; the engine keeps reading.

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;
use tigers_core::search::{Evaluator, MAX_DEPTH, SearchSettings};
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::{
	ClaudePlayer, Game, MinimaxPlayer, MoveError, NeuralPlayer, ParseMoveError, Position,
	PositionError, SearchPlayer, SearchReport, Tablebase,
};

use tigers_proto::client::ClientSettings;

use crate::net_source::{self, NetSource, NetSourceError};
use crate::screen::player::format_score;

/// The longest `go time` accepted: an hour.
const MAX_TIME_MS: u64 = 3_600_000;
/// `go` without a limit searches this long.
const DEFAULT_TIME_MS: u64 = 2_000;

/// Why a command was refused; the engine answers `error <message>`.
#[derive(Debug, Error)]
pub enum CommandError {
	/// The first word is no command.
	#[error(
		"unknown command {0:?}; the commands are position, legal, go, player, eval, probe, show, \
		 new, isready and quit"
	)]
	Unknown(String),
	/// The command's arguments do not fit it.
	#[error("{command}: {problem}")]
	Usage {
		/// The command.
		command: &'static str,
		/// What was expected.
		problem: String,
	},
	/// The position text is not a position.
	#[error("bad position: {0}")]
	Position(#[from] PositionError),
	/// A move in `position ... moves` is not a move.
	#[error("move {number} ({text}) is not a move: {source}")]
	MoveText {
		/// Its place in the list, from 1.
		number: usize,
		/// The text.
		text: String,
		/// What is wrong with it.
		source: ParseMoveError,
	},
	/// A move in `position ... moves` is illegal.
	#[error("move {number} ({text}) is illegal: {source}")]
	Illegal {
		/// Its place in the list, from 1.
		number: usize,
		/// The text.
		text: String,
		/// Why the rules refuse it.
		source: MoveError,
	},
	/// `go` in a finished game.
	#[error("{0}")]
	GameOver(MoveError),
	/// `player net` could not load the net.
	#[error(transparent)]
	Net(#[from] NetSourceError),
}

/// The evaluation the engine searches with.
enum Searcher {
	Claude(ClaudePlayer),
	Net(Box<NeuralPlayer>),
}

impl Searcher {
	fn search(&mut self, settings: SearchSettings, game: &Game) -> Option<SearchReport> {
		match self {
			Searcher::Claude(player) => search_with(player, settings, game),
			Searcher::Net(player) => search_with(player, settings, game),
		}
	}

	fn evaluate(&mut self, game: &Game) -> f32 {
		match self {
			Searcher::Claude(player) => player.evaluate(game.board(), game.turn()),
			Searcher::Net(player) => player.evaluate(game.board(), game.turn()),
		}
	}

	fn clear(&mut self) {
		match self {
			Searcher::Claude(player) => player.clear(),
			Searcher::Net(player) => player.clear(),
		}
	}

	fn set_tablebase(&mut self, table: Option<Arc<Tablebase>>) {
		match self {
			Searcher::Claude(player) => player.set_tablebase(table),
			Searcher::Net(player) => player.set_tablebase(table),
		}
	}
}

/// Runs one search with `settings`. A search without a clock starts from empty tables, so that
/// `go depth N` answers the same whatever was searched before.
fn search_with<E: Evaluator>(
	player: &mut SearchPlayer<E>,
	settings: SearchSettings,
	game: &Game,
) -> Option<SearchReport> {
	player.max_depth = settings.max_depth;
	player.time_limit = settings.time_limit;
	if settings.time_limit.is_none() {
		player.clear();
	}
	MinimaxPlayer::pick_move(player, game.board(), game.turn(), &game.previous())
}

/// What a command asks of the loop after its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
	/// The lines to write.
	pub lines: Vec<String>,
	/// Whether to stop reading.
	pub quit: bool,
}

impl Answer {
	fn lines(lines: Vec<String>) -> Answer {
		Answer { lines, quit: false }
	}
}

/// The engine's state: the game (position and history) and the searcher.
pub struct Engine {
	game: Game,
	searcher: Searcher,
	client: ClientSettings,
	tablebase: Option<Arc<Tablebase>>,
	/// Why there is no tablebase, until `probe` has said it once.
	no_tablebase_note: Option<String>,
	/// The solved placement phase, for `probe` before the last sheep is placed and for
	/// `player perfect`.
	placement: Option<Arc<PlacementTable>>,
}

impl Engine {
	/// An engine at the start position, searching with `ClaudePlayer`; `client` is used by
	/// `player net URL`.
	pub fn new(client: ClientSettings) -> Engine {
		Engine {
			game: Game::default(),
			searcher: Searcher::Claude(ClaudePlayer::fixed_depth(1)),
			client,
			tablebase: None,
			no_tablebase_note: None,
			placement: None,
		}
	}

	/// Probes the placement phase with `placement` too, and offers `player perfect`.
	#[must_use]
	pub fn with_placement(mut self, placement: Option<Arc<PlacementTable>>) -> Engine {
		self.placement = placement;
		self
	}

	/// Searches and probes with `table`; without one, `note` says why, once, at the first
	/// `probe`.
	#[must_use]
	pub fn with_tablebase(mut self, table: Option<Arc<Tablebase>>, note: Option<String>) -> Engine {
		self.searcher.set_tablebase(table.clone());
		self.tablebase = table;
		self.no_tablebase_note = note;
		self
	}

	/// Carries out one command line.
	pub fn execute(&mut self, line: &str) -> Answer {
		let words: Vec<&str> = line.split_whitespace().collect();
		let Some((&command, args)) = words.split_first() else {
			return Answer::lines(Vec::new());
		};
		let result = match command {
			"quit" => {
				return Answer {
					lines: Vec::new(),
					quit: true,
				};
			}
			"isready" => Ok(vec!["readyok".to_string()]),
			"new" => {
				self.game = Game::default();
				self.searcher.clear();
				Ok(Vec::new())
			}
			"position" => self.position(args).map(|()| Vec::new()),
			"legal" => Ok(vec![self.legal()]),
			"go" => self.go(args),
			"player" => self.player(args),
			"eval" => Ok(vec![format!(
				"eval {}",
				format_score(self.searcher.evaluate(&self.game))
			)]),
			"probe" => Ok(self.probe()),
			"show" => Ok(self.show()),
			other => Err(CommandError::Unknown(other.to_string())),
		};
		Answer::lines(result.unwrap_or_else(|error| vec![format!("error {error}")]))
	}

	/// `position startpos|<notation> [moves m1 m2 ...]`: replaces the game if all of it is
	/// good, else changes nothing.
	fn position(&mut self, args: &[&str]) -> Result<(), CommandError> {
		let usage = |problem: &str| CommandError::Usage {
			command: "position",
			problem: problem.to_string(),
		};
		let split = args.iter().position(|w| *w == "moves");
		let (setup, moves) = match split {
			Some(at) => (&args[..at], &args[at + 1..]),
			None => (args, &[][..]),
		};
		let start = match setup {
			[] => {
				return Err(usage(
					"give startpos or a position such as T...T/...../...../...../T...T s 20",
				));
			}
			["startpos"] => Position::default(),
			words => words.join(" ").parse()?,
		};
		let mut game = Game::new(start);
		for (index, text) in moves.iter().enumerate() {
			let number = index + 1;
			let mv = text.parse().map_err(|source| CommandError::MoveText {
				number,
				text: text.to_string(),
				source,
			})?;
			game.play(mv).map_err(|source| CommandError::Illegal {
				number,
				text: text.to_string(),
				source,
			})?;
		}
		self.game = game;
		Ok(())
	}

	fn legal(&self) -> String {
		let mut line = "legal".to_string();
		for mv in self.game.legal_moves().iter() {
			line.push(' ');
			line.push_str(&mv.to_string());
		}
		line
	}

	/// `go depth N | go time MS | go`: `info` with the search's figures, then `bestmove`.
	fn go(&mut self, args: &[&str]) -> Result<Vec<String>, CommandError> {
		let usage = |problem: String| CommandError::Usage {
			command: "go",
			problem,
		};
		let settings = match args {
			[] => time_settings(DEFAULT_TIME_MS),
			["depth", n] => match n.parse::<u32>() {
				Ok(depth) if (1..=MAX_DEPTH).contains(&depth) => SearchSettings::fixed_depth(depth),
				_ => {
					return Err(usage(format!(
						"depth is a number from 1 to {MAX_DEPTH}, not {n:?}"
					)));
				}
			},
			["time", ms] => match ms.parse::<u64>() {
				Ok(ms) if (1..=MAX_TIME_MS).contains(&ms) => time_settings(ms),
				_ => {
					return Err(usage(format!(
						"time is milliseconds from 1 to {MAX_TIME_MS}, not {ms:?}"
					)));
				}
			},
			_ => return Err(usage("use `go depth N` or `go time MS`".to_string())),
		};
		if let Some(outcome) = self.game.outcome() {
			return Err(CommandError::GameOver(MoveError::GameOver(outcome)));
		}
		let report = self
			.searcher
			.search(settings, &self.game)
			.expect("a game that is not over has a legal move");
		let mut info = format!(
			"info depth {} score {} nodes {}",
			report.depth,
			format_score(report.score),
			report.nodes
		);
		if let Some((winner, plies)) = report.forced_result() {
			info.push_str(&format!(" forced win for {winner} in {plies}"));
		}
		Ok(vec![info, format!("bestmove {}", report.mv)])
	}

	/// `player claude | player net PATH|URL`.
	fn player(&mut self, args: &[&str]) -> Result<Vec<String>, CommandError> {
		match args {
			["claude"] => {
				self.searcher = Searcher::Claude(ClaudePlayer::fixed_depth(1));
				self.searcher.set_tablebase(self.tablebase.clone());
				Ok(vec!["info player Claude".to_string()])
			}
			["perfect"] => {
				let complete = self.placement.as_ref().is_some_and(|p| p.is_complete());
				if self.tablebase.is_none() || !complete {
					return Err(CommandError::Usage {
						command: "player",
						problem: "`player perfect` needs the movement table and every placement \
						          layer (`tui tablebase build`, then `tui tablebase build --placement`)"
							.to_string(),
					});
				}
				let mut player = ClaudePlayer::fixed_depth(1);
				player.set_tablebase(self.tablebase.clone());
				player.set_placement(self.placement.clone());
				self.searcher = Searcher::Claude(player);
				Ok(vec!["info player Perfect".to_string()])
			}
			["net", source] => {
				let loaded = net_source::load(&NetSource::parse(source), &self.client)?;
				let generation = loaded.net.generation;
				let player = NeuralPlayer::with_net(
					loaded.net,
					SearchSettings::fixed_depth(1),
					tigers_core::claude::DEFAULT_TABLE_BITS,
				);
				self.searcher = Searcher::Net(Box::new(player));
				self.searcher.set_tablebase(self.tablebase.clone());
				Ok(vec![format!(
					"info player Net {generation} from {}",
					loaded.origin
				)])
			}
			_ => Err(CommandError::Usage {
				command: "player",
				problem: "use `player claude`, `player perfect` or `player net PATH|URL`"
					.to_string(),
			}),
		}
	}

	/// `probe`: the position's exact value for the side to move (`probe win 17`, `probe draw`,
	/// `probe loss 8` in the movement phase; `probe win`, `probe draw`, `probe loss` without a
	/// distance in the placement phase, from its layers), or `probe none` where no table knows
	/// it, in a finished game, or without a table (then saying why, the first time).
	fn probe(&mut self) -> Vec<String> {
		if !self.game.is_over()
			&& self.game.board().sheep_in_hand() > 0
			&& let Some(placement) = &self.placement
		{
			return vec![match placement.probe(self.game.board(), self.game.turn()) {
				Ok(Some(verdict)) => format!("probe {verdict}"),
				Ok(None) => "probe none".to_string(),
				Err(error) => format!("error {error}"),
			}];
		}
		let mut lines = Vec::new();
		let value = match &self.tablebase {
			Some(table) if !self.game.is_over() => table.probe(self.game.board(), self.game.turn()),
			Some(_) => None,
			None => {
				if let Some(note) = self.no_tablebase_note.take() {
					lines.push(format!("info {note}"));
				}
				None
			}
		};
		lines.push(match value {
			Some(value) => format!("probe {value}"),
			None => "probe none".to_string(),
		});
		lines
	}

	/// The board, a line on the game, and the position as a `position` command.
	fn show(&self) -> Vec<String> {
		let board = self.game.board();
		let mut lines: Vec<String> = board.to_string().lines().map(str::to_string).collect();
		let state = match self.game.outcome() {
			Some(outcome) => format!("game over: {outcome}"),
			None => format!("{} to move", self.game.turn()),
		};
		lines.push(format!(
			"{state}; {} in hand, {} dead; ply {}",
			board.sheep_in_hand(),
			board.dead_sheep(),
			self.game.history().len()
		));
		lines.push(format!("position {}", self.game.position()));
		lines
	}
}

fn time_settings(ms: u64) -> SearchSettings {
	SearchSettings {
		max_depth: MAX_DEPTH,
		time_limit: Some(Duration::from_millis(ms)),
	}
}

/// Reads commands from `input` until `quit` or the end of input, answering on `output`, which
/// is flushed after every answer. A line that is not UTF-8 text is answered with an error, like
/// any other bad command.
pub fn run(mut input: impl BufRead, mut output: impl Write, mut engine: Engine) -> io::Result<()> {
	let mut bytes = Vec::new();
	loop {
		bytes.clear();
		if input.read_until(b'\n', &mut bytes)? == 0 {
			break;
		}
		let answer = match std::str::from_utf8(&bytes) {
			Ok(line) => engine.execute(line.trim_end_matches(['\n', '\r'])),
			Err(_) => Answer::lines(vec![
				"error the line is not UTF-8 text; commands are plain ASCII words".to_string(),
			]),
		};
		for text in &answer.lines {
			writeln!(output, "{text}")?;
		}
		output.flush()?;
		if answer.quit {
			break;
		}
	}
	Ok(())
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn the_perfect_player_needs_both_solved_phases() {
		let mut engine = Engine::new(ClientSettings::default());
		let answer = ask(&mut engine, "player perfect");
		assert_eq!(answer.len(), 1);
		assert!(answer[0].starts_with("error "), "{answer:?}");
		assert!(answer[0].contains("placement"), "{answer:?}");
		// Without the placement layers a placement position probes as unknown.
		assert_eq!(ask(&mut engine, "probe").last().unwrap(), "probe none");
	}

	fn ask(engine: &mut Engine, line: &str) -> Vec<String> {
		engine.execute(line).lines
	}

	#[test]
	fn a_bad_move_list_leaves_the_position_alone() {
		let mut engine = Engine::new(ClientSettings::default());
		assert_eq!(
			ask(&mut engine, "position startpos moves sc3"),
			Vec::<String>::new()
		);
		let answer = ask(&mut engine, "position startpos moves sc3 ta5b4 sc3");
		assert_eq!(
			answer,
			vec!["error move 3 (sc3) is illegal: c3 is not empty"]
		);
		let shown = ask(&mut engine, "show");
		assert_eq!(
			shown.last().map(String::as_str),
			Some("position T...T/...../..S../...../T...T t 19")
		);
	}

	#[test]
	fn go_refuses_a_finished_game() {
		let mut engine = Engine::new(ClientSettings::default());
		ask(
			&mut engine,
			"position T...T/.S.../...../SSSSS/TSSST t 7 moves ta5xc3",
		);
		let answer = ask(&mut engine, "go depth 2");
		assert_eq!(
			answer,
			vec!["error the game is over (tigers win: five sheep captured)"]
		);
		assert_eq!(ask(&mut engine, "legal"), vec!["legal"]);
	}

	mod lines {
		use proptest::prelude::*;

		use super::*;

		/// A line a script might send: a command word (or any word) and arguments drawn from
		/// what the commands take, or any text at all.
		fn line() -> impl Strategy<Value = String> {
			let word = prop_oneof![
				Just("position"),
				Just("legal"),
				Just("go"),
				Just("player"),
				Just("eval"),
				Just("show"),
				Just("new"),
				Just("isready"),
				Just("startpos"),
				Just("moves"),
				Just("depth"),
				Just("claude"),
				Just("sc3"),
				Just("ta5b4"),
				Just("ta5xc3"),
				Just("T...T/...../...../...../T...T"),
				Just("s"),
				Just("t"),
				Just("20"),
				Just("1"),
				Just("2"),
				Just("0"),
				Just("99999999999999999999"),
			];
			prop_oneof![
				prop::collection::vec(word, 0..8).prop_map(|words| words.join(" ")),
				any::<String>(),
				"[a-z0-9 ./T-]{0,40}",
			]
		}

		/// Whether a line may run a search for long: `go` by time, or without a limit (two
		/// seconds); and `player net`, which reads files or dials out.
		fn is_slow(line: &str) -> bool {
			let words: Vec<&str> = line.split_whitespace().collect();
			match words.as_slice() {
				["go"] | ["go", "time", ..] | ["player", "net", ..] => true,
				["go", "depth", n] => n.parse::<u32>().is_ok_and(|d| d > 3),
				_ => false,
			}
		}

		proptest! {
			#![proptest_config(ProptestConfig::with_cases(256))]

			/// Any sequence of lines gets whole answers, never a panic; a refusal is one
			/// `error` line and leaves the position as it was.
			#[test]
			fn any_lines_are_answered_without_panicking(lines in prop::collection::vec(line(), 1..12)) {
				let mut engine = Engine::new(ClientSettings::default());
				for line in lines.iter().filter(|l| !is_slow(l)) {
					let before = engine.game.position();
					let answer = engine.execute(line);
					prop_assert!(answer.lines.iter().all(|l| !l.contains('\n')));
					if answer.lines.first().is_some_and(|l| l.starts_with("error ")) {
						prop_assert_eq!(answer.lines.len(), 1);
						prop_assert_eq!(engine.game.position(), before);
					}
				}
			}
		}
	}
}
