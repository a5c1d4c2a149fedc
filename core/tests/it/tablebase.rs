//! The movement-phase tablebase: its counts, its values against a full-width search, its file.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sha2::{Digest, Sha256};
use tigers_core::gate::{GateSettings, TableRole, gate_openings, play_gate_pair, run_gate};
use tigers_core::network::Shape;
use tigers_core::neural::SELF_PLAY_TABLE_BITS;
use tigers_core::replay::{ReplayWindow, TargetSettings};
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{Sample, SelfPlaySettings, play_self_play_game_with};
use tigers_core::stats::GatePolicy;
use tigers_core::tablebase::Accuracy;
use tigers_core::tablebase::file::HEADER_BYTES;
use tigers_core::tablebase::{
	POSITIONS, POSITIONS_UP_TO_SYMMETRY, TablebaseFileError, Value, VerifyError,
};
use tigers_core::versus::{openings, play_game};
use tigers_core::{
	ClaudePlayer, MinimaxPlayer, Network, NeuralPlayer, Outcome, Position, Symmetry, Tablebase,
	Turn,
};

/// Where the test binaries of the workspace share one solved table.
pub fn table_path() -> PathBuf {
	PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tablebase/tigers-and-sheep.tb")
}

/// The table, solved on first use by whichever test binary gets there first.
pub fn table() -> &'static Arc<Tablebase> {
	static TABLE: OnceLock<Arc<Tablebase>> = OnceLock::new();
	TABLE.get_or_init(|| {
		let (table, _) = Tablebase::load_or_build(&table_path(), 2, &|_| {})
			.expect("the test table loads or builds");
		Arc::new(table)
	})
}

/// Every `stride`-th entry of the table with its position and value.
fn sample(stride: u32) -> impl Iterator<Item = (Position, Value)> {
	let table = table();
	(0..table.len())
		.step_by(stride as usize)
		.map(|index| table.entry(index))
}

#[test]
fn the_table_holds_exactly_the_movement_phase() {
	let census = table().census();
	assert_eq!(census.positions_up_to_symmetry, POSITIONS_UP_TO_SYMMETRY);
	assert_eq!(census.positions, POSITIONS);
	let sum: u64 = census
		.layers
		.iter()
		.map(|l| l.sheep_to_move.total() + l.tigers_to_move.total())
		.sum();
	assert_eq!(sum, POSITIONS_UP_TO_SYMMETRY);
	// With four dead and the tigers to move, a capture ends the game: most of them win.
	assert!(census.layers[4].tigers_to_move.wins > census.layers[4].tigers_to_move.draws);
	let (longest, position) = census.longest_win.expect("some position is won");
	assert_eq!(longest, 137, "the longest win, found in {position}");
	assert_eq!(
		table().probe(position.board, position.turn),
		Some(Value::Win(137))
	);
}

#[test]
fn the_solve_is_reproducible() {
	// The identity of the file the solve gives: any change to the solve, the index or the format
	// shows here first.
	assert_eq!(
		table().identity(),
		"ab1a5088a4eee5f0f53014a342dfe0d38f4b0b310e922db2d7bb3812a9d86b43"
	);
}

#[test]
fn short_results_agree_with_a_full_width_search() {
	// A forced result within six plies is one a fixed-depth search without the table finds too,
	// with the same distance, whichever side wins.
	let mut checked = [0u32; 7];
	for (position, value) in sample(4999) {
		let distance = match value {
			Value::Win(n) | Value::Loss(n) if n <= 6 => n,
			_ => continue,
		};
		if distance == 0 {
			assert!(position.board.get_moves(position.turn).is_empty());
			continue;
		}
		let mut searcher = ClaudePlayer::with_settings(SearchSettings::fixed_depth(distance));
		let report = searcher
			.pick_move(position.board, position.turn, &[])
			.expect("a position not lost at once has a move");
		let winner = match value {
			Value::Win(_) => position.turn,
			_ => position.turn.opponent(),
		};
		assert_eq!(
			report.forced_result(),
			Some((winner, distance)),
			"{position}: the table says {value}"
		);
		checked[distance as usize] += 1;
	}
	assert!(checked[1..].iter().all(|n| *n > 0), "checked {checked:?}");
}

#[test]
fn longer_results_are_beyond_a_shallower_search() {
	// A win in n is not found by a search of fewer plies: the distance is the shortest one.
	let mut checked = 0;
	for (position, value) in sample(7919) {
		let Value::Win(n @ 3..=7) = value else {
			continue;
		};
		let mut searcher = ClaudePlayer::with_settings(SearchSettings::fixed_depth(n - 2));
		let report = searcher.pick_move(position.board, position.turn, &[]);
		assert_ne!(
			report.and_then(|r| r.forced_result()),
			Some((position.turn, n - 2)),
			"{position}"
		);
		assert!(
			report
				.and_then(|r| r.forced_result())
				.is_none_or(|(winner, _)| winner != position.turn),
			"{position}: the table's win in {n} is not the shortest"
		);
		checked += 1;
	}
	assert!(checked > 50, "checked {checked}");
}

#[test]
fn symmetric_images_have_the_same_value() {
	for (position, value) in sample(100_003) {
		for sym in Symmetry::ALL {
			let image = sym.apply_board(position.board);
			assert_eq!(
				table().probe(image, position.turn),
				Some(value),
				"{position}"
			);
		}
	}
}

#[test]
fn positions_outside_the_movement_phase_are_not_in_the_table() {
	let placing: Position = "T.S.T/.SSS./..T../S...S/...T. t 12".parse().unwrap();
	assert_eq!(table().probe(placing.board, placing.turn), None);
	let five_dead: Position = "TSSST/SSSSS/SST../SS.../SSS.T s 0".parse().unwrap();
	assert_eq!(five_dead.board.dead_sheep(), 5);
	assert_eq!(table().probe(five_dead.board, five_dead.turn), None);
	// Trapped tigers to move have lost; the sheep to move there have won in one.
	let trapped: Position = "TSSST/SSSSS/S.SSS/SSSSS/TSSST t 0".parse().unwrap();
	assert_eq!(
		table().probe(trapped.board, Turn::Tiger),
		Some(Value::Loss(0))
	);
}

#[test]
fn a_file_round_trips_and_a_damaged_one_is_refused() {
	let bytes = table().to_bytes();
	let again = Tablebase::from_bytes(bytes.clone()).expect("the table's own bytes");
	assert_eq!(again.identity(), table().identity());

	let truncated = bytes[..bytes.len() - 1000].to_vec();
	assert!(matches!(
		Tablebase::from_bytes(truncated),
		Err(TablebaseFileError::Length { .. })
	));
	assert!(matches!(
		Tablebase::from_bytes(bytes[..40].to_vec()),
		Err(TablebaseFileError::TooShort(40))
	));
	let mut flipped = bytes.clone();
	flipped[HEADER_BYTES + 12_345] ^= 1;
	let error = Tablebase::from_bytes(flipped).unwrap_err();
	assert!(matches!(error, TablebaseFileError::Digest { .. }));
	assert!(error.to_string().contains("corrupt"), "{error}");

	let mut foreign = b"{\"__metadata__\":{}}".to_vec();
	foreign.resize(200, b' ');
	assert!(matches!(
		Tablebase::from_bytes(foreign),
		Err(TablebaseFileError::Magic(_))
	));
	let mut newer = bytes[..HEADER_BYTES].to_vec();
	newer[8] = 2;
	assert!(matches!(
		Tablebase::from_bytes(newer),
		Err(TablebaseFileError::FormatVersion(2))
	));
	let mut other_rules = bytes[..HEADER_BYTES].to_vec();
	other_rules[12] = 9;
	assert!(matches!(
		Tablebase::from_bytes(other_rules),
		Err(TablebaseFileError::RulesVersion(9))
	));
}

#[test]
fn verify_finds_a_wrong_value() {
	let table = table();
	// A win in 3, changed to a win in 5 in a file whose digest is made to match.
	let index = (0..table.len())
		.step_by(101)
		.find(|&i| table.entry(i).1 == Value::Win(3))
		.expect("some win in 3");
	let mut bytes = table.to_bytes();
	bytes[HEADER_BYTES + index as usize] = 6;
	let digest = Sha256::digest(&bytes[HEADER_BYTES..]);
	bytes[48..80].copy_from_slice(&digest);
	let damaged = Tablebase::from_bytes(bytes).expect("the digest matches");
	let (position, _) = table.entry(index);
	assert_eq!(damaged.entry(index).1, Value::Win(5));
	assert_eq!(damaged.best_over_moves(position), Value::Win(3));
	// The first error in table order is this entry, a symmetric copy of it, or a parent whose
	// value relied on it.
	let error = damaged.verify(2, &|_| {}).unwrap_err();
	assert!(
		matches!(error, VerifyError::Value { .. } | VerifyError::Copy { .. }),
		"{error}"
	);
}

#[test]
fn players_with_the_table_keep_the_exact_value() {
	let table = table().clone();
	let mut claude = ClaudePlayer::fixed_depth(2);
	claude.set_tablebase(Some(table.clone()));
	let net = Arc::new(Network::new(Shape::default(), 7));
	let mut neural = NeuralPlayer::with_net(net, SearchSettings::fixed_depth(2), 12);
	neural.set_tablebase(Some(table.clone()));
	let mut kinds = [0u32; 3];
	for (position, value) in sample(30_011) {
		if value == Value::Loss(0) {
			continue; // no move to make
		}
		kinds[(value.sign() + 1) as usize] += 1;
		let claude_move = claude.pick_move(position.board, position.turn, &[]);
		let neural_move = neural.pick_move(position.board, position.turn, &[]);
		for (who, report) in [("claude", claude_move), ("net", neural_move)] {
			let mv = report.expect("a move").mv;
			let child = position.board.after_move_unchecked(mv);
			let kept = table
				.probe(child, position.turn.opponent())
				.map_or(Value::Win(1), Value::before_move);
			assert_eq!(kept, value, "{who} played {mv} in {position}");
		}
		if let Value::Win(n) | Value::Loss(n) = value {
			let report = claude_move.expect("a move");
			let winner = if value.sign() > 0 {
				position.turn
			} else {
				position.turn.opponent()
			};
			assert_eq!(report.forced_result(), Some((winner, n)), "{position}");
		}
	}
	assert!(
		kinds.iter().all(|n| *n > 20),
		"losses, draws, wins: {kinds:?}"
	);
}

#[test]
fn adjudicated_self_play_stops_at_the_movement_phase_with_the_exact_result() {
	let table = table();
	let settings = SelfPlaySettings::default();
	let mut adjudicated = 0;
	for seed in 0..6 {
		let mut sheep = ClaudePlayer::fixed_depth(2);
		let mut tigers = ClaudePlayer::fixed_depth(2);
		let game =
			play_self_play_game_with(&mut sheep, &mut tigers, &settings, seed, 3, Some(table));
		let (replayed, refused) = game.record.replay();
		assert!(refused.is_none());
		let (board, turn) = (replayed.board(), replayed.turn());
		match table.probe(board, turn) {
			Some(value) => {
				// It stopped at its first movement-phase position, unfinished.
				adjudicated += 1;
				assert_eq!(game.record.result, None);
				assert_eq!(board.sheep_in_hand(), 0);
				// The board before the last move still had a sheep to place.
				let (_, before_last) = replayed.history().iter().rev().nth(1).expect("moves");
				assert!(before_last.sheep_in_hand() > 0);
				let exact = value.sign() as f32 * turn.sign();
				assert!(game.samples.iter().all(|s| s.result == exact));
				assert!(game.samples.iter().all(|s| s.board.sheep_in_hand() > 0));
			}
			// Over before the movement phase (five captured during placement).
			None => assert!(replayed.is_over(), "{}", game.record.to_text()),
		}
	}
	assert!(adjudicated > 0);
}

#[test]
fn rescoring_puts_the_exact_result_in_place_of_movement_phase_targets() {
	let table = table();
	let (won, value) = (0..table.len())
		.step_by(17)
		.map(|i| table.entry(i))
		.find(|(p, v)| p.turn == Turn::Sheep && matches!(v, Value::Win(_)))
		.expect("a position the sheep win");
	assert!(value.sign() > 0);
	let sample = Sample {
		board: won.board,
		turn: won.turn,
		score: 0.3,
		result: 1.0,
		ply: 80,
		generation: 0,
	};
	// The sheep win: -1 from the tigers' side, whatever the game and the search said.
	assert_eq!(sample.target_with(0.5, Some(table)), -1.0);
	assert_eq!(sample.target_with(0.5, None), 0.65);
	let placing = Sample {
		board: Position::default().board,
		turn: Turn::Sheep,
		..sample
	};
	assert_eq!(placing.target_with(0.5, Some(table)), 0.65);

	let mut window = ReplayWindow::new(4, 10);
	window.push(sample);
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
	let rescore = TargetSettings {
		rescore: true,
		..TargetSettings::default()
	};
	let batch = window
		.draw_batch(2, &rescore, Some(table), &mut rng)
		.unwrap();
	assert!(batch.iter().all(|e| e.target == -1.0));
	let plain = TargetSettings {
		rescore: false,
		..rescore
	};
	let batch = window.draw_batch(2, &plain, Some(table), &mut rng).unwrap();
	assert!(batch.iter().all(|e| e.target == 0.65));
}

#[test]
fn gate_accuracy_counts_movement_phase_moves_of_each_player() {
	let table = table();
	let settings = GateSettings {
		search: SearchSettings::fixed_depth(2),
		policy: GatePolicy {
			min_pairs: 2,
			max_pairs: 2,
			..GateSettings::default().policy
		},
		max_plies: 200,
		..GateSettings::default()
	};
	let net = Arc::new(Network::new(Shape::default(), 3));
	let tally = run_gate(&net, &settings, Some(table));
	let (candidate, reference) = (tally.candidate_accuracy, tally.reference_accuracy);
	assert!(candidate.kept <= candidate.moves && reference.kept <= reference.moves);
	assert!(candidate.moves + reference.moves > 0, "{tally:?}");
	// The same match judged again counts the same; without a judge, nothing.
	assert_eq!(run_gate(&net, &settings, Some(table)), tally);
	assert_eq!(
		run_gate(&net, &settings, None).candidate_accuracy,
		Accuracy::default()
	);
}

#[test]
fn with_the_table_in_play_a_game_is_decided_where_the_movement_phase_begins() {
	let table = table();
	let judged = GateSettings {
		search: SearchSettings::fixed_depth(2),
		policy: GatePolicy {
			min_pairs: 3,
			max_pairs: 3,
			..GateSettings::default().policy
		},
		max_plies: 300,
		..GateSettings::default()
	};
	let played = GateSettings {
		table: TableRole::Play,
		..judged
	};
	let net = Arc::new(Network::new(Shape::default(), 3));
	let openings = gate_openings(&played);
	for opening in &openings {
		let pair = play_gate_pair(&net, &played, opening, Some(table));
		// Stopped at the first movement-phase position: no movement-phase move is judged.
		assert_eq!(pair.candidate_accuracy, Accuracy::default(), "{pair:?}");
		assert_eq!(pair.reference_accuracy, Accuracy::default(), "{pair:?}");
		// Played out with the table in both searches, each game ends as the table said there.
		let player = || {
			let mut player =
				NeuralPlayer::with_net(net.clone(), played.search, SELF_PLAY_TABLE_BITS);
			player.set_tablebase(Some(table.clone()));
			player
		};
		let claude = || {
			let mut claude = ClaudePlayer::with_settings(played.search);
			claude.set_tablebase(Some(table.clone()));
			claude
		};
		let as_sheep = play_game(&mut player(), &mut claude(), opening, 300);
		let as_tigers = play_game(&mut claude(), &mut player(), opening, 300);
		assert_eq!(
			pair.as_sheep,
			as_sheep.outcome().and_then(Outcome::winner),
			"{:?}",
			as_sheep.moves()
		);
		assert_eq!(
			pair.as_tigers,
			as_tigers.outcome().and_then(Outcome::winner),
			"{:?}",
			as_tigers.moves()
		);
	}
	// Judging alone, the games are played out and an untrained net gives some results away.
	let judged = run_gate(&net, &judged, Some(table)).candidate_accuracy;
	assert!(judged.kept < judged.moves, "{judged:?}");
}

#[test]
fn a_player_with_the_table_keeps_every_result() {
	// ClaudePlayer with the table against one without: every movement-phase move of the first
	// keeps its result, so its accuracy is 1.
	let table = table();
	let mut with = ClaudePlayer::fixed_depth(2);
	with.set_tablebase(Some(table.clone()));
	let mut without = ClaudePlayer::fixed_depth(2);
	for opening in openings(5, 3, 4) {
		let game = play_game(&mut with, &mut without, &opening, 300);
		let accuracy = Accuracy::of_game(table, &game, Turn::Sheep);
		assert_eq!(accuracy.kept, accuracy.moves, "{accuracy:?}");
	}
}
