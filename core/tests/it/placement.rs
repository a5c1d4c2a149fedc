//! The placement phase's last layers: solved from the movement table, checked against a plain
//! search down to the movement phase, resumed after a stop, and the same on one thread or two.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tigers_core::board::DEAD_SHEEP_TO_WIN;
use tigers_core::tablebase::placement::{
	self, LayerId, PlacementTable, Verdict, VerifyChildren, count_layer, count_up_to_symmetry,
};
use tigers_core::{GameBoard, Turn};

use crate::tablebase::table;

/// A scratch directory under the target's temporary directory, emptied first.
fn scratch(name: &str) -> PathBuf {
	let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("placement-{name}"));
	let _ = std::fs::remove_dir_all(&dir);
	dir
}

/// The layers from 18 placed up, solved once for the tests that only read them.
fn solved() -> &'static Path {
	static DIR: OnceLock<PathBuf> = OnceLock::new();
	DIR.get_or_init(|| {
		let dir = scratch("from-18");
		placement::build(&dir, table(), 18, 2, &|_| {}).expect("the last layers solve");
		dir
	})
}

/// The value for `turn` by plain negamax over the game's moves down to the movement phase,
/// where the movement table answers: no index, no layer files.
fn by_search(board: GameBoard, turn: Turn) -> Verdict {
	if board.dead_sheep() >= DEAD_SHEEP_TO_WIN {
		return Verdict::Loss; // only ever the sheep, after the fifth capture
	}
	if board.sheep_in_hand() == 0 {
		let value = table()
			.probe(board, turn)
			.expect("a movement-phase position");
		return Verdict::of_value(value);
	}
	let mut best = Verdict::Loss;
	for &mv in board.get_moves(turn).iter() {
		let value = by_search(board.after_move_unchecked(mv), turn.opponent()).flip();
		if value.sign() > best.sign() {
			best = value;
		}
		if best == Verdict::Win {
			break;
		}
	}
	best
}

/// A random position of layer `id` with `dead` dead: random tigers, random sheep around them.
fn random_position(rng: &mut Xoshiro256PlusPlus, id: LayerId, dead: u32) -> GameBoard {
	loop {
		let mut tigers = 0u32;
		while tigers.count_ones() < 4 {
			tigers |= 1 << rng.random_range(0..25);
		}
		let mut sheep = 0u32;
		while sheep.count_ones() < id.sheep_on_board(dead) {
			let point = 1 << rng.random_range(0..25);
			if point & tigers == 0 {
				sheep |= point;
			}
		}
		if let Ok(board) = GameBoard::new(tigers, sheep, 20 - id.placed) {
			return board;
		}
	}
}

#[test]
fn the_last_layers_agree_with_a_plain_search() {
	let probe = PlacementTable::open(solved()).expect("the layers open");
	assert_eq!(probe.layers().count(), 4);
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
	let mut seen = [0u32; 3];
	for placed in [18, 19] {
		for turn in [Turn::Sheep, Turn::Tiger] {
			let id = LayerId::new(placed, turn).unwrap();
			for dead in 0..=4 {
				for _ in 0..60 {
					let board = random_position(&mut rng, id, dead);
					let stored = probe.probe(board, turn).unwrap().expect("a solved layer");
					assert_eq!(stored, by_search(board, turn), "{board:?} {turn:?}");
					seen[(stored.sign() + 1) as usize] += 1;
				}
			}
		}
	}
	// The sample reaches wins, draws and losses alike.
	assert!(seen.iter().all(|&n| n > 10), "{seen:?}");
}

#[test]
fn every_value_of_the_last_layers_verifies() {
	let dir = solved();
	let s19 = placement::read_layer(dir, LayerId::new(19, Turn::Sheep).unwrap(), None).unwrap();
	let t19 = placement::read_layer(dir, LayerId::new(19, Turn::Tiger).unwrap(), None).unwrap();
	let movement = VerifyChildren::Movement(table());
	let report = placement::verify_layer(
		LayerId::new(19, Turn::Sheep).unwrap(),
		&s19,
		movement,
		2,
		&|_, _| {},
	)
	.expect("the sheep's layer verifies");
	assert_eq!(
		report.entries,
		LayerId::new(19, Turn::Sheep)
			.map(|id| placement::LayerShape::of(id).entries())
			.unwrap()
	);
	let children = VerifyChildren::Layer(&s19);
	placement::verify_layer(
		LayerId::new(19, Turn::Tiger).unwrap(),
		&t19,
		children,
		2,
		&|_, _| {},
	)
	.expect("the tigers' layer verifies");
	let count = count_layer(LayerId::new(19, Turn::Tiger).unwrap(), &t19);
	let expected: u64 = (0..=4).map(|dead| count_up_to_symmetry(19 - dead)).sum();
	assert_eq!(count.up_to_symmetry(), expected);
	assert_eq!(report.up_to_symmetry, expected);
}

#[test]
fn a_wrong_value_is_caught() {
	let dir = solved();
	let id = LayerId::new(19, Turn::Tiger).unwrap();
	let s19 = placement::read_layer(dir, LayerId::new(19, Turn::Sheep).unwrap(), None).unwrap();
	let mut t19 = placement::read_layer(dir, id, None).unwrap();
	// Flip the first entry's code between win and loss (or draw to win).
	t19[0] ^= 0b01;
	let error = placement::verify_layer(id, &t19, VerifyChildren::Layer(&s19), 1, &|_, _| {})
		.expect_err("a flipped entry fails");
	assert!(error.to_string().contains("its moves give"), "{error}");
}

#[test]
fn a_stopped_solve_resumes_and_threads_do_not_change_the_bytes() {
	let one = scratch("one-thread");
	let first = placement::build(&one, table(), 19, 1, &|_| {}).unwrap();
	assert_eq!(first.solved.len(), 2);
	// Resumed: the two layers with 19 placed are kept, the two with 18 solved.
	let again = placement::build(&one, table(), 18, 1, &|_| {}).unwrap();
	assert_eq!(again.kept.len(), 2);
	assert_eq!(again.solved.len(), 2);
	for id in LayerId::solve_order(18) {
		let a = std::fs::read(one.join(id.file_name())).unwrap();
		let b = std::fs::read(solved().join(id.file_name())).unwrap();
		assert!(
			a == b,
			"{} differs between one thread and two",
			id.file_name()
		);
	}
	// A damaged layer is refused by name, and a build solves it again.
	let damaged = one.join(LayerId::new(18, Turn::Tiger).unwrap().file_name());
	let mut bytes = std::fs::read(&damaged).unwrap();
	let last = bytes.len() - 1;
	bytes[last] ^= 0xff;
	std::fs::write(&damaged, &bytes).unwrap();
	let error = placement::read_layer(&one, LayerId::new(18, Turn::Tiger).unwrap(), None)
		.expect_err("a damaged layer is refused");
	assert!(
		error.to_string().contains("placed-18-tigers.tbp"),
		"{error}"
	);
	std::fs::remove_dir_all(&one).unwrap();
}
