//! Perft counts from `tests/data/perft.txt`, which the slow reference generator produced.
//!
//! The fast generator must reproduce every count of at most [`FAST_LIMIT`] paths: with bulk
//! counting even the largest entries take well under a second in the test profile. The
//! cross-checked slow count ([`perft_checked`]) costs a few microseconds per path, so here it
//! runs only on entries of at most [`CHECKED_LIMIT`] paths; the deeper ones are checked by hand
//! with the example, as the data file's header says:
//!
//! ```text
//! cargo run --release -p tigers-core --example perft -- 6 --slow
//! ```

use tigers_core::perft::{perft, perft_checked};
use tigers_core::position::START_TEXT;
use tigers_core::{Game, GameBoard, Move, Position, Turn};

const DATA: &str = include_str!("../data/perft.txt");

/// Largest count checked with the fast generator (every entry in the file today).
const FAST_LIMIT: u64 = 500_000_000;
/// Largest count checked with the slow, cross-checked generator: about 0.2 s each in release.
const CHECKED_LIMIT: u64 = 100_000;

/// One position of the data file with its counts.
struct Table {
	position: Position,
	/// The moves that reach the position from the start, if the file gives them.
	moves: Option<Vec<Move>>,
	/// `(depth, count)` pairs in file order.
	counts: Vec<(u32, u64)>,
}

fn tables() -> Vec<Table> {
	let mut tables: Vec<Table> = Vec::new();
	for (number, line) in DATA.lines().enumerate() {
		let line = line.trim();
		let at = || format!("perft.txt line {}: {line:?}", number + 1);
		if line.is_empty() || line.starts_with('#') {
			continue;
		}
		if let Some(text) = line.strip_prefix("position ") {
			tables.push(Table {
				position: text.parse().unwrap_or_else(|e| panic!("{}: {e}", at())),
				moves: None,
				counts: Vec::new(),
			});
			continue;
		}
		let table = tables
			.last_mut()
			.unwrap_or_else(|| panic!("{}: no position yet", at()));
		if let Some(moves) = line.strip_prefix("moves ") {
			let moves = moves
				.split(' ')
				.map(|m| m.parse().unwrap_or_else(|e| panic!("{}: {e}", at())));
			table.moves = Some(moves.collect());
			continue;
		}
		let (depth, count) = line.split_once(' ').unwrap_or_else(|| panic!("{}", at()));
		let entry = (depth.parse(), count.parse());
		let (Ok(depth), Ok(count)) = entry else {
			panic!("{}: expected `depth count`", at());
		};
		table.counts.push((depth, count));
	}
	tables
}

#[test]
fn the_file_starts_with_the_start_and_names_three_more_positions() {
	let tables = tables();
	assert_eq!(tables.len(), 4);
	assert_eq!(tables[0].position.to_string(), START_TEXT);
	assert_eq!(tables[0].counts[..2], [(1, 21), (2, 252)]);
	for table in &tables {
		let depths: Vec<u32> = table.counts.iter().map(|&(d, _)| d).collect();
		let expected: Vec<u32> = (1..=depths.len() as u32).collect();
		assert_eq!(depths, expected, "depths of {}", table.position);
		assert!(depths.len() >= 6, "{} is too shallow", table.position);
	}
}

#[test]
fn named_positions_are_reached_by_their_moves() {
	let mut replayed = 0;
	for table in tables() {
		let Some(moves) = table.moves else { continue };
		let (game, refusal) = Game::replay(Position::default(), &moves);
		assert_eq!(refusal, None, "replaying towards {}", table.position);
		assert_eq!(game.position(), table.position);
		assert_eq!(game.outcome(), None);
		replayed += 1;
	}
	assert_eq!(replayed, 3);
}

#[test]
fn fast_perft_matches_the_table() {
	let mut checked = 0;
	for table in tables() {
		let Position { board, turn } = table.position;
		for &(depth, count) in table.counts.iter().filter(|(_, c)| *c <= FAST_LIMIT) {
			assert_eq!(
				perft(board, turn, depth),
				count,
				"perft({depth}) of {}",
				table.position
			);
			checked += 1;
		}
	}
	assert!(checked >= 24, "only {checked} entries checked");
}

#[test]
fn checked_perft_matches_the_table_at_shallow_depths() {
	let mut checked = 0;
	for table in tables() {
		let Position { board, turn } = table.position;
		for &(depth, count) in table.counts.iter().filter(|(_, c)| *c <= CHECKED_LIMIT) {
			let found = perft_checked(board, turn, depth);
			assert_eq!(found, count, "perft_checked({depth}) of {}", table.position);
			checked += 1;
		}
	}
	assert!(checked >= 16, "only {checked} entries checked");
}

#[test]
fn perft_stops_at_finished_games() {
	// Five sheep dead: the game is over, so no path goes on, though the sheep could move.
	let captured: Position = "T...T/SSSSS/SSSSS/SSSSS/T...T s 0".parse().expect("valid");
	assert_eq!(perft(captured.board, Turn::Sheep, 0), 1);
	assert!(captured.board.count_moves(Turn::Sheep) > 0);
	for depth in 1..4 {
		assert_eq!(perft(captured.board, Turn::Sheep, depth), 0);
		assert_eq!(perft_checked(captured.board, Turn::Sheep, depth), 0);
	}
	// Four dead and three jumps available: those paths end at ply 1, the others go on.
	let near: Position = "..TS./TSSSS/TS..S/SSTSS/SSSSS t 0".parse().expect("valid");
	let moves = near.board.get_moves(Turn::Tiger);
	let ending = moves.iter().filter(|m| m.is_jump()).count() as u64;
	assert_eq!(ending, 3);
	let expected: u64 = moves
		.iter()
		.filter(|m| !m.is_jump())
		.map(|&m| u64::from(near.board.after_move_unchecked(m).count_moves(Turn::Sheep)))
		.sum();
	assert_eq!(perft(near.board, Turn::Tiger, 1), moves.len() as u64);
	assert_eq!(perft(near.board, Turn::Tiger, 2), expected);
	assert_eq!(perft_checked(near.board, Turn::Tiger, 2), expected);
	let start = GameBoard::default();
	assert_eq!(perft(start, Turn::Sheep, 0), 1);
}
