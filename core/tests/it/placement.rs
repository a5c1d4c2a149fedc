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

/// The layers from 18 placed up, solved once for the tests that only read them: first those
/// with 19 placed, then, as a stopped build resumes, the two with 18. Test runners may run each
/// test in a process of its own, so the processes take turns under a file lock, and the first
/// of each build of the tests solves them (the note beside the layers names that build).
fn solved() -> &'static Path {
	static DIR: OnceLock<PathBuf> = OnceLock::new();
	DIR.get_or_init(|| {
		let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
		let dir = target.join("placement-from-18");
		std::fs::create_dir_all(&target).expect("the target's temporary directory");
		let lock = std::fs::File::create(target.join("placement-from-18.lock"))
			.expect("the lock file is writable");
		lock.lock().expect("the lock");
		let note = target.join("placement-from-18.solved-by");
		let this_build = this_build();
		if std::fs::read_to_string(&note).ok().as_deref() != Some(this_build.as_str()) {
			let _ = std::fs::remove_dir_all(&dir);
			let first =
				placement::build(&dir, table(), 19, 2, &|_| {}).expect("the last layers solve");
			assert_eq!(first.solved.len(), 2);
			let resumed =
				placement::build(&dir, table(), 18, 2, &|_| {}).expect("the build resumes");
			assert_eq!(resumed.kept, first.solved, "the finished layers are kept");
			assert_eq!(resumed.solved.len(), 2);
			std::fs::write(&note, &this_build).expect("the note is writable");
		}
		dir
	})
}

/// This test binary's path and modification time: the same for every test of one build.
fn this_build() -> String {
	let exe = std::env::current_exe().expect("the test binary's path");
	let modified = std::fs::metadata(&exe).and_then(|m| m.modified()).ok();
	format!("{} {modified:?}", exe.display())
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
	// On threads, block by block, the same counts.
	let threaded = placement::count_layer_on(LayerId::new(19, Turn::Tiger).unwrap(), &t19, 3);
	assert_eq!(threaded.by_dead, count.by_dead);
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
fn one_thread_writes_the_same_bytes_and_a_damaged_layer_is_refused() {
	let one = scratch("one-thread");
	let report = placement::build(&one, table(), 19, 1, &|_| {}).unwrap();
	assert_eq!(report.solved.len(), 2);
	for id in LayerId::solve_order(19) {
		let a = std::fs::read(one.join(id.file_name())).unwrap();
		let b = std::fs::read(solved().join(id.file_name())).unwrap();
		assert!(
			a == b,
			"{} differs between one thread and two",
			id.file_name()
		);
	}
	let id = LayerId::new(19, Turn::Tiger).unwrap();
	let damaged = one.join(id.file_name());
	let mut bytes = std::fs::read(&damaged).unwrap();
	let last = bytes.len() - 1;
	bytes[last] ^= 0xff;
	std::fs::write(&damaged, &bytes).unwrap();
	let error = placement::read_layer(&one, id, None).expect_err("a damaged layer is refused");
	assert!(
		error.to_string().contains("placed-19-tigers.tbp"),
		"{error}"
	);
	assert!(
		error.to_string().contains("damaged") || error.to_string().contains("sha256"),
		"{error}"
	);
	std::fs::remove_dir_all(&one).unwrap();
}

#[test]
fn a_layer_that_finds_no_room_says_so_leaves_nothing_and_is_written_on_the_next_try() {
	let id = LayerId::new(19, Turn::Tiger).unwrap();
	let bytes = placement::read_layer(solved(), id, None).unwrap();
	let dir = scratch("no-room");
	std::fs::create_dir_all(&dir).unwrap();
	// The file being written is /dev/full, where every write fails for lack of space.
	let tmp = dir.join(id.file_name()).with_extension("tmp");
	std::os::unix::fs::symlink("/dev/full", &tmp).unwrap();
	let error = placement::write_layer(&dir, id, &bytes, table()).expect_err("no room");
	let said = error.to_string();
	assert!(
		matches!(error, placement::PlacementError::NoSpace { .. }),
		"{said}"
	);
	assert!(said.contains(&dir.display().to_string()), "{said}");
	assert!(said.contains("placed-19-tigers.tbp"), "{said}");
	assert!(
		said.contains("MiB") && said.contains("run the same command again"),
		"{said}"
	);
	assert!(!tmp.exists() && std::fs::symlink_metadata(&tmp).is_err());
	assert!(!dir.join(id.file_name()).exists());
	// With room, the same write goes through and the layer reads back whole.
	placement::write_layer(&dir, id, &bytes, table()).unwrap();
	assert_eq!(placement::read_layer(&dir, id, None).unwrap(), bytes);
	std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn with_both_tables_a_player_keeps_every_placement_value() {
	use std::sync::Arc;
	use tigers_core::{ClaudePlayer, MinimaxPlayer};
	let probe = Arc::new(PlacementTable::open(solved()).expect("the layers open"));
	let mut perfect = ClaudePlayer::fixed_depth(2);
	perfect.set_tablebase(Some(Arc::clone(table())));
	perfect.set_placement(Some(Arc::clone(&probe)));
	let mut plain = ClaudePlayer::fixed_depth(2);
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
	let mut plain_slips = 0;
	for placed in [18, 19] {
		for turn in [Turn::Sheep, Turn::Tiger] {
			let id = LayerId::new(placed, turn).unwrap();
			for _ in 0..40 {
				let dead = rng.random_range(0..=4);
				let board = random_position(&mut rng, id, dead);
				if board.get_moves(turn).is_empty() {
					continue; // trapped tigers: nothing to choose
				}
				let before = probe.probe(board, turn).unwrap().unwrap();
				let kept = |player: &mut ClaudePlayer| {
					let mv = player.pick_move(board, turn, &[]).expect("a legal move").mv;
					by_search(board.after_move_unchecked(mv), turn.opponent()).flip() == before
				};
				assert!(
					kept(&mut perfect),
					"{board:?} {turn:?}: the perfect player slipped"
				);
				plain_slips += u32::from(!kept(&mut plain));
			}
		}
	}
	// The same search without the table does slip: the filter is what keeps the values.
	assert!(plain_slips > 0);
}

#[test]
fn a_layer_resumes_from_its_kept_slices() {
	use std::collections::HashMap;
	use std::sync::Mutex;
	use tigers_core::tablebase::placement::{Children, NoSlices, Slice, SliceStore, solve_layer};

	/// Slices in memory: every one saved, and those named in `serve` handed back.
	struct Kept {
		saved: Mutex<HashMap<String, Vec<u8>>>,
		serve: HashMap<String, Vec<u8>>,
	}
	impl SliceStore for Kept {
		fn load(&self, slice: Slice, length: usize) -> Option<Vec<u8>> {
			self.serve
				.get(&slice.name())
				.filter(|b| b.len() == length)
				.cloned()
		}
		fn save(&self, slice: Slice, bytes: &[u8]) {
			self.saved
				.lock()
				.unwrap()
				.insert(slice.name(), bytes.to_vec());
		}
	}

	let id = LayerId::new(19, Turn::Sheep).unwrap();
	let children = Children::Movement(table());
	let whole = solve_layer(id, children, 2, &NoSlices, &|_| {});
	let first = Kept {
		saved: Mutex::new(HashMap::new()),
		serve: HashMap::new(),
	};
	assert_eq!(solve_layer(id, children, 2, &first, &|_| {}), whole);
	let saved = first.saved.into_inner().unwrap();
	let slices = Slice::all(id);
	assert_eq!(saved.len(), slices.len());
	// Stopped half way: every other slice kept. One of them is marked, to show it is taken as
	// kept rather than solved again.
	let mut serve: HashMap<String, Vec<u8>> = slices
		.iter()
		.step_by(2)
		.map(|slice| (slice.name(), saved[&slice.name()].clone()))
		.collect();
	let marked = &slices[2];
	serve.get_mut(&marked.name()).unwrap()[0] ^= 0b11;
	let resumed = Kept {
		saved: Mutex::new(HashMap::new()),
		serve,
	};
	let bytes = solve_layer(id, children, 2, &resumed, &|_| {});
	assert_eq!(resumed.saved.into_inner().unwrap().len(), slices.len() / 2);
	let shape = placement::LayerShape::of(id);
	let at = marked.bytes(&shape).start as usize;
	assert_eq!(bytes[at], whole[at] ^ 0b11);
	assert_eq!(bytes[..at], whole[..at]);
	assert_eq!(bytes[at + 1..], whole[at + 1..]);
}

#[test]
fn whole_game_accuracy_counts_each_phase_and_the_values_given_away() {
	use std::sync::Arc;
	use tigers_core::tablebase::placement::WholeGameAccuracy;
	use tigers_core::{ClaudePlayer, Game, MinimaxPlayer, Position};
	let probe = Arc::new(PlacementTable::open(solved()).expect("the layers open"));
	let mut perfect = ClaudePlayer::fixed_depth(1);
	perfect.set_tablebase(Some(Arc::clone(table())));
	perfect.set_placement(Some(Arc::clone(&probe)));
	let mut plain = ClaudePlayer::fixed_depth(1);
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
	let (mut sheep, mut tigers) = (WholeGameAccuracy::default(), WholeGameAccuracy::default());
	for _ in 0..12 {
		let id = LayerId::new(18, Turn::Sheep).unwrap();
		let dead = rng.random_range(0..=1);
		let board = random_position(&mut rng, id, dead);
		let mut game = Game::new(Position::new(board, Turn::Sheep).unwrap());
		// The perfect player takes the sheep, Claude without tables the tigers, 12 plies.
		for _ in 0..12 {
			if game.is_over() {
				break;
			}
			let player = if game.turn() == Turn::Sheep {
				&mut perfect
			} else {
				&mut plain
			};
			let mv = player
				.pick_move(game.board(), game.turn(), &game.previous())
				.unwrap()
				.mv;
			game.play(mv).unwrap();
		}
		sheep = sheep.plus(WholeGameAccuracy::of_game(
			&probe,
			table(),
			&game,
			Turn::Sheep,
		));
		tigers = tigers.plus(WholeGameAccuracy::of_game(
			&probe,
			table(),
			&game,
			Turn::Tiger,
		));
		// Leaving out the first two plies leaves out the sheep's first move and the tigers'.
		let whole = WholeGameAccuracy::of_game(&probe, table(), &game, Turn::Sheep);
		let after = WholeGameAccuracy::of_game_from(&probe, table(), &game, Turn::Sheep, 2);
		if game.history().len() >= 2 {
			assert_eq!(after.whole().moves + 1, whole.whole().moves);
		}
		let none = game.history().len();
		let left = WholeGameAccuracy::of_game_from(&probe, table(), &game, Turn::Tiger, none);
		assert_eq!(left, WholeGameAccuracy::default());
	}
	// Both sides placed and moved on; the perfect side gave nothing away.
	assert!(
		sheep.placement.moves > 0 && sheep.movement.moves > 0,
		"{sheep:?}"
	);
	assert!(tigers.placement.moves > 0, "{tigers:?}");
	assert_eq!(sheep.value_losing_moves(), 0, "{sheep:?}");
	assert_eq!(
		sheep.whole().moves,
		sheep.placement.moves + sheep.movement.moves
	);
}

#[test]
fn a_layer_in_format_1_is_probed_alike_and_rewritten_by_a_build() {
	let dir = scratch("format-1");
	std::fs::create_dir_all(&dir).unwrap();
	for id in LayerId::solve_order(19) {
		std::fs::copy(solved().join(id.file_name()), dir.join(id.file_name())).unwrap();
	}
	let id = LayerId::new(19, Turn::Tiger).unwrap();
	let today = std::fs::read(dir.join(id.file_name())).unwrap();
	assert_eq!(
		today[8..12],
		placement::PLACEMENT_FORMAT_VERSION.to_le_bytes()
	);
	let entries = placement::read_layer(&dir, id, None).unwrap();
	// Format 1: the same header with version 1 and no block length, then the entries as
	// they are.
	let mut old = today[..placement::store::HEADER_BYTES].to_vec();
	old[8..12].copy_from_slice(&1u32.to_le_bytes());
	old[28..32].copy_from_slice(&0u32.to_le_bytes());
	old.extend_from_slice(&entries);
	assert!(
		old.len() > today.len(),
		"the blocks are smaller than the entries"
	);
	std::fs::write(dir.join(id.file_name()), &old).unwrap();

	assert_eq!(placement::read_layer(&dir, id, None).unwrap(), entries);
	let old_table = PlacementTable::open(&dir).unwrap();
	let new_table = PlacementTable::open(solved()).unwrap();
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
	for dead in 0..=4 {
		for _ in 0..200 {
			let board = random_position(&mut rng, id, dead);
			assert_eq!(
				old_table.probe(board, Turn::Tiger).unwrap(),
				new_table.probe(board, Turn::Tiger).unwrap(),
				"{board:?}"
			);
		}
	}
	drop(old_table);

	let report = placement::build(&dir, table(), 19, 2, &|_| {}).unwrap();
	assert_eq!((report.solved.len(), report.converted), (0, vec![id]));
	assert!(
		std::fs::read(dir.join(id.file_name())).unwrap() == today,
		"the rewritten layer is today's file, byte for byte"
	);
	std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_suite_drawn_from_the_last_layers_is_exact_reproducible_and_grades_a_net() {
	use tigers_core::grade::{self, ExactTables, SuiteShape};
	use tigers_core::network::Shape;
	use tigers_core::{Network, SearchSettings};

	let placement = PlacementTable::open(solved()).expect("the layers open");
	let tables = ExactTables {
		movement: table(),
		placement: &placement,
	};
	let shape = SuiteShape {
		seed: 5,
		placement: 6,
		movement: 6,
	};
	let suite = grade::draw_suite(&tables, shape);
	assert_eq!(
		suite,
		grade::draw_suite(&tables, shape),
		"the same seed, the same suite"
	);
	let in_hand = suite
		.iter()
		.filter(|e| e.position.board.sheep_in_hand() > 0)
		.count();
	assert_eq!((in_hand, suite.len()), (6, 12));
	for entry in &suite {
		let (board, turn) = (entry.position.board, entry.position.turn);
		assert_eq!(
			tables.verdict(board, turn),
			Some(entry.value),
			"{}",
			entry.position
		);
		let legal = board.get_moves(turn).len();
		assert!(
			!entry.keeping.is_empty() && entry.keeping.len() < legal,
			"{}",
			entry.position
		);
		// Every kept move reaches a position the opponent cannot do better in.
		for &mv in &entry.keeping {
			let after = board.after_move_unchecked(mv);
			if after.dead_sheep() < DEAD_SHEEP_TO_WIN {
				let reached = tables
					.verdict(after, turn.opponent())
					.expect("known")
					.flip();
				assert_eq!(reached, entry.value, "{} {mv}", entry.position);
			}
		}
	}
	let text = grade::write_suite(&suite, &["drawn for a test".into()]);
	assert_eq!(
		grade::read_suite(&text).expect("the suite reads back"),
		suite
	);
	let net = std::sync::Arc::new(Network::new(Shape::default(), 9));
	let settings = SearchSettings::fixed_depth(2);
	let grades = grade::grade(&net, &suite, settings);
	assert_eq!(
		(grades.placement.positions, grades.movement.positions),
		(6, 6)
	);
	assert!(grades.whole().class_right <= 12 && grades.whole().moves_kept <= 12);
	assert_eq!(
		grades,
		grade::grade(&net, &suite, settings),
		"grading is deterministic"
	);
}
