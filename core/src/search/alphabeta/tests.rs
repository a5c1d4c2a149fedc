use super::*;
use crate::claude::ClaudePlayer;
use crate::game::Game;
use crate::position::Position;
use crate::search::MinimaxPlayer;

fn position(text: &str) -> Position {
	text.parse().unwrap()
}

fn best(player: &mut ClaudePlayer, text: &str) -> SearchReport {
	let p = position(text);
	player
		.pick_move(p.board, p.turn, &[])
		.expect("a legal move exists")
}

/// An evaluation that scores every position the same, to test the search's own rules.
struct Constant(f32);

impl Evaluator for Constant {
	fn evaluate(&mut self, _board: GameBoard, _turn: Turn) -> f32 {
		self.0
	}
}

fn search_constant(
	value: f32,
	depth: u32,
	board: GameBoard,
	turn: Turn,
	previous: &[GameBoard],
) -> SearchReport {
	let parts = SearchParts {
		evaluator: &mut Constant(value),
		table: None,
		killers: None,
		tablebase: None,
		placement: None,
	};
	search(
		parts,
		&SearchSettings::fixed_depth(depth),
		board,
		turn,
		previous,
	)
	.unwrap()
}

#[test]
fn takes_a_sheep_in_one() {
	let report = best(
		&mut ClaudePlayer::fixed_depth(1),
		"T...T/.S.../...../...../T...T t 19",
	);
	assert_eq!(report.mv.to_string(), "ta5xc3");
}

#[test]
fn fifth_capture_is_a_forced_win_in_one() {
	let text = "T...T/.S.../...../SSSSS/TSSST t 7";
	for depth in [1, 4] {
		let report = best(&mut ClaudePlayer::fixed_depth(depth), text);
		assert_eq!(report.mv.to_string(), "ta5xc3");
		assert_eq!(report.forced_result(), Some((Turn::Tiger, 1)));
		assert_eq!(report.score, WIN - 1.0);
		assert_eq!(report.depth, 1, "a forced win stops the deepening");
	}
}

#[test]
fn sheep_find_a_trapping_move() {
	// b4 is the last free point next to a tiger; filling it from b3 or c4 traps all four.
	let text = "TSSST/S.SSS/SSSSS/SSSSS/TSSST s 0";
	let report = best(&mut ClaudePlayer::fixed_depth(3), text);
	assert_eq!(report.mv.to(), "b4".parse().unwrap());
	assert_eq!(report.forced_result(), Some((Turn::Sheep, 1)));
	let after = position(text).board.after_move_unchecked(report.mv);
	assert_eq!(
		after.outcome(Turn::Tiger),
		Some(crate::Outcome::SheepByTrapping)
	);
}

#[test]
fn prefers_the_quickest_win() {
	// Both jumps win at once; a deep search must still report a win in one, not a later one.
	let text = "T...T/.S.S./...../SSSSS/TSSST t 6";
	let report = best(&mut ClaudePlayer::fixed_depth(6), text);
	assert!(report.mv.is_jump());
	assert_eq!(report.forced_result(), Some((Turn::Tiger, 1)));
}

#[test]
fn a_loss_is_reported_with_its_distance() {
	// Four sheep dead, placements only, and two jumps threatened onto different points
	// (a5 over b4 onto c3, e5 over d5 onto c5): one placement cannot stop both.
	let report = best(
		&mut ClaudePlayer::fixed_depth(4),
		"T..ST/.S.../...../SSSSS/TSSST s 6",
	);
	assert_eq!(report.forced_result(), Some((Turn::Tiger, 2)));
	assert_eq!(report.score, WIN - 2.0);
}

#[test]
fn a_lost_side_picks_the_slowest_loss() {
	// Four sheep dead and every sheep move loses; some lose at once (sc5, sb4, sd3, ...), the
	// best hold out for four plies. Scoring by distance is what tells them apart.
	let text = "...TS/...T./SST../...S./....T s 12";
	let report = best(&mut ClaudePlayer::fixed_depth(6), text);
	assert_eq!(report.forced_result(), Some((Turn::Tiger, 4)));
	let child = position(text).board.after_move_unchecked(report.mv);
	let reply = ClaudePlayer::fixed_depth(6)
		.pick_move(child, Turn::Tiger, &[])
		.unwrap();
	assert_eq!(
		reply.forced_result(),
		Some((Turn::Tiger, 3)),
		"{} loses sooner",
		report.mv
	);
}

/// Boards of a game that shuffled a tiger and a sheep twice round the same cycle, less the last
/// move: playing `te2e1`... brings the start back a third time.
fn shuffled_game() -> Game {
	let mut game = Game::new(position("TSSST/SSSSS/SS.SS/SSSS./TSSST t 0"));
	let cycle = ["te1e2", "sd3c3", "te2e1", "sc3d3"];
	for text in cycle.iter().chain(cycle.iter()).take(7) {
		game.play_text(text).unwrap();
	}
	game
}

#[test]
fn sheep_claim_a_repetition_draw_when_losing() {
	// Sheep to move after te2e1 ... now sc3d3 would repeat the start a third time. With every
	// position worth +50 to the tigers, a draw is the sheep's best.
	let game = shuffled_game();
	assert_eq!(game.turn(), Turn::Sheep);
	let report = search_constant(50.0, 1, game.board(), game.turn(), &game.previous());
	assert_eq!(report.mv.to_string(), "sc3d3");
	assert_eq!(report.score, DRAW);
}

#[test]
fn tigers_avoid_a_repetition_draw_when_winning() {
	let mut game = shuffled_game();
	game.revert(6);
	// Tigers to move: te2e1 would repeat the position after te1e2's predecessor... only the
	// third occurrence draws, so check the search's choice against the rule directly.
	let report = search_constant(50.0, 1, game.board(), game.turn(), &game.previous());
	let mut after = game.clone();
	after.play(report.mv).unwrap();
	assert_eq!(
		after.outcome(),
		None,
		"tigers chose {} into a draw",
		report.mv
	);
	assert_eq!(report.score, 50.0);
}

#[test]
fn a_repetition_inside_the_search_is_a_draw() {
	let game = shuffled_game();
	let boards: Vec<GameBoard> = game.previous();
	let mut eval = Constant(0.0);
	let parts = SearchParts {
		evaluator: &mut eval,
		table: None,
		killers: None,
		tablebase: None,
		placement: None,
	};
	let settings = SearchSettings::fixed_depth(4);
	// Root at the cycle's start with no history: the path comes back to it four plies down.
	let mut searcher = Searcher::new(parts, &settings, boards[0], &[]);
	searcher.path.extend_from_slice(&boards[1..4]);
	assert!(!searcher.is_repetition(boards[3]));
	searcher.path.push(boards[0]);
	assert!(
		searcher.is_repetition(boards[0]),
		"back at the root inside the search"
	);
}

#[test]
fn one_earlier_occurrence_in_the_game_is_not_yet_a_draw() {
	let game = shuffled_game();
	let boards: Vec<GameBoard> = game.previous();
	let mut eval = Constant(0.0);
	let parts = SearchParts {
		evaluator: &mut eval,
		table: None,
		killers: None,
		tablebase: None,
		placement: None,
	};
	let settings = SearchSettings::fixed_depth(4);
	// Root one ply after the cycle's start, which the game has seen once: coming back to that
	// start inside the search is the in-tree repetition only if it happens after the root.
	let mut searcher = Searcher::new(parts, &settings, boards[1], &boards[..1]);
	searcher.path.extend_from_slice(&boards[2..4]);
	searcher.path.push(boards[4 % 4]);
	assert_eq!(searcher.root_index, 1);
	// boards[0] sits at index 0 (before the root) and once more at the end: one earlier
	// occurrence in the game, so not yet the third.
	assert!(!searcher.is_repetition(boards[0]));
}

/// Plain minimax without pruning, the slow and obviously right reference.
fn minimax(board: GameBoard, turn: Turn, depth: u32, ply: u32) -> f32 {
	if board.dead_sheep() >= DEAD_SHEEP_TO_WIN {
		return -(WIN - ply as f32);
	}
	let moves = board.get_moves(turn);
	if moves.is_empty() {
		return -(WIN - ply as f32);
	}
	if depth == 0 {
		return crate::claude::ClaudeEval.evaluate(board, turn) * turn.sign();
	}
	moves
		.iter()
		.map(|&mv| {
			-minimax(
				board.after_move_unchecked(mv),
				turn.opponent(),
				depth - 1,
				ply + 1,
			)
		})
		.fold(f32::NEG_INFINITY, f32::max)
}

#[test]
fn alpha_beta_agrees_with_plain_minimax() {
	let texts = [
		"T...T/...../...../...../T...T s 20",
		"T...T/.S.../..S../...../T...T t 18",
		"T.S.T/.SSS./..T../S...S/...T. t 12",
		"TSSST/SSSSS/SS.SS/SSSS./TSSST t 0",
		"T...T/.S.S./...../SSSSS/TSSST t 6",
	];
	for text in texts {
		let p = position(text);
		for depth in 1..=3 {
			let expected = minimax(p.board, p.turn, depth, 0) * p.turn.sign();
			let mut eval = crate::claude::ClaudeEval;
			let plain = SearchParts {
				evaluator: &mut eval,
				table: None,
				killers: None,
				tablebase: None,
				placement: None,
			};
			let settings = SearchSettings::fixed_depth(depth);
			let got = search(plain, &settings, p.board, p.turn, &[]).unwrap();
			if got.forced_result().is_none() {
				assert_eq!(got.score, expected, "{text} at depth {depth}");
			}
			let mut player = ClaudePlayer::fixed_depth(depth);
			let with_tables = best(&mut player, text);
			assert_eq!(
				with_tables.score, got.score,
				"{text} at depth {depth} with tables"
			);
		}
	}
}

#[test]
fn scored_moves_are_exact_minimax_scores() {
	// Placement positions: no repetitions, so plain minimax is the exact reference.
	for (text, depth) in [
		("T.S.T/.SSS./..T../S...S/...T. t 12", 4),
		("T...T/.S.../..S../...../T...T s 18", 3),
	] {
		let p = position(text);
		let mut eval = crate::claude::ClaudeEval;
		let parts = SearchParts {
			evaluator: &mut eval,
			table: None,
			killers: None,
			tablebase: None,
			placement: None,
		};
		let scored = score_moves(
			parts,
			&SearchSettings::fixed_depth(depth),
			p.board,
			p.turn,
			&[],
		);
		assert_eq!(scored.len(), p.board.get_moves(p.turn).len());
		for (mv, score) in &scored {
			let child = p.board.after_move_unchecked(*mv);
			let expected =
				minimax(child, p.turn.opponent(), depth - 1, 1) * p.turn.opponent().sign();
			assert_eq!(*score, expected, "{text} {mv}");
		}
		let best = scored
			.iter()
			.map(|(_, s)| s * p.turn.sign())
			.fold(f32::NEG_INFINITY, f32::max);
		let mut eval = crate::claude::ClaudeEval;
		let parts = SearchParts {
			evaluator: &mut eval,
			table: None,
			killers: None,
			tablebase: None,
			placement: None,
		};
		let report = search(
			parts,
			&SearchSettings::fixed_depth(depth),
			p.board,
			p.turn,
			&[],
		)
		.unwrap();
		assert_eq!(report.score * p.turn.sign(), best, "{text}");
		// The player's version, with its table, scores the same moves.
		let with_table = ClaudePlayer::fixed_depth(depth).score_moves(p.board, p.turn, &[]);
		let moves: Vec<Move> = with_table.iter().map(|(mv, _)| *mv).collect();
		assert_eq!(moves, scored.iter().map(|(mv, _)| *mv).collect::<Vec<_>>());
	}
}

#[test]
fn returns_legal_moves_along_a_game() {
	let mut game = Game::default();
	let mut player = ClaudePlayer::fixed_depth(3);
	while !game.is_over() && game.moves().len() < 60 {
		let report = player
			.pick_move(game.board(), game.turn(), &game.previous())
			.unwrap();
		game.play(report.mv)
			.expect("the search returns legal moves");
	}
}

#[test]
fn a_time_limit_still_returns_a_move() {
	let mut player = ClaudePlayer::new(std::time::Duration::from_millis(20));
	let report = best(&mut player, "T...T/...../...../...../T...T s 20");
	assert!(report.depth >= 1);
	assert!(
		GameBoard::default()
			.check_move(report.mv, Turn::Sheep)
			.is_ok()
	);
}

#[test]
fn node_count_signature() {
	// Fixed-depth node counts over named positions from fresh players. They change only when
	// the search's behaviour changes; update them deliberately, with the reason, when it does.
	let cases = [
		("T...T/...../...../...../T...T s 20", 6, 7481),
		("T.S.T/.SSS./..T../S...S/...T. t 12", 6, 10992),
		("TSSST/SSSSS/SS.SS/SSSS./TSSST t 0", 8, 19084),
		("SS.SS/SSSSS/SS.TS/STTTS/SSSSS t 0", 8, 17103),
	];
	let mut got = Vec::new();
	for (text, depth, _) in cases {
		got.push(best(&mut ClaudePlayer::fixed_depth(depth), text).nodes);
	}
	let expected: Vec<u64> = cases.iter().map(|c| c.2).collect();
	assert_eq!(got, expected);
}
