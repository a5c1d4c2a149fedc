//! Invariants that hold at every ply of random games, checked with proptest.
//!
//! A game is drawn as a list of numbers; each picks one of the legal moves (modulo their count)
//! until the list runs out or the game ends. Long lists reach the movement phase, which starts
//! after ply 39.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tigers_core::board::{TIGERS, TOTAL_SHEEP};
use tigers_core::reference::{is_over_slow, legal_moves_slow, play_slow};
use tigers_core::{Game, GameBoard, Move, Outcome, Pos, Position, Symmetry, Turn};

/// Plies per drawn game at most: enough to reach the movement phase and most game ends.
const MAX_PLIES: usize = 120;

fn choices() -> impl Strategy<Value = Vec<usize>> {
	prop::collection::vec(any::<usize>(), 0..MAX_PLIES)
}

/// Plays the game the choices describe from the start, calling `check` on every position
/// reached, the start included.
fn for_each_position(
	choices: &[usize],
	mut check: impl FnMut(&Game) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
	let mut game = Game::default();
	check(&game)?;
	for &choice in choices {
		let moves = game.legal_moves();
		if moves.is_empty() {
			break;
		}
		let mv = moves[choice % moves.len()];
		prop_assert_eq!(
			game.play(mv),
			Ok(()),
			"{} refused in {}",
			mv,
			game.position()
		);
		check(&game)?;
	}
	Ok(())
}

/// Every move that could be written down: placements on all points, and steps and jumps of
/// both kinds between every pair of points (most of them illegal anywhere).
fn every_candidate_move() -> Vec<Move> {
	let mut moves: Vec<Move> = Pos::all().map(|to| Move::Place { to }).collect();
	for from in Pos::all() {
		for to in Pos::all() {
			moves.push(Move::SheepStep { from, to });
			moves.push(Move::TigerStep { from, to });
			moves.push(Move::TigerJump { from, to });
		}
	}
	moves
}

fn move_set(board: GameBoard, turn: Turn) -> HashSet<Move> {
	board.get_moves(turn).iter().copied().collect()
}

fn check_counts(board: GameBoard) -> Result<(), TestCaseError> {
	prop_assert_eq!(board.tigers().count_ones(), TIGERS);
	prop_assert_eq!(board.tigers() & board.sheep(), 0);
	let in_hand = u32::from(board.sheep_in_hand());
	prop_assert_eq!(
		board.sheep_on_board() + in_hand + board.dead_sheep(),
		TOTAL_SHEEP
	);
	prop_assert!(board.dead_sheep() <= 5, "{:?}", board);
	Ok(())
}

fn check_text(game: &Game) -> Result<(), TestCaseError> {
	let position = game.position();
	let text = position.to_string();
	let parsed: Position = text
		.parse()
		.map_err(|e| TestCaseError::fail(format!("{text:?} does not parse: {e}")))?;
	prop_assert_eq!(parsed, position);
	prop_assert_eq!(&parsed.to_string(), &text);
	let picture = position.board.to_string();
	prop_assert_eq!(picture.lines().count(), 6);
	prop_assert_eq!(picture.matches('T').count(), 4);
	prop_assert_eq!(
		picture.matches('S').count() as u32,
		position.board.sheep_on_board()
	);
	let debug = format!("{:?}", position.board);
	prop_assert!(debug.contains(text.split(' ').next().unwrap_or_default()));
	for mv in game.board().get_moves(game.turn()).iter() {
		prop_assert_eq!(mv.to_string().parse::<Move>(), Ok(*mv));
	}
	Ok(())
}

fn check_symmetries(board: GameBoard, turn: Turn) -> Result<(), TestCaseError> {
	let moves = board.get_moves(turn);
	let canonical = board.canonical();
	prop_assert_eq!(canonical.1.apply_board(board), canonical.0);
	for sym in Symmetry::ALL {
		let image = sym.apply_board(board);
		prop_assert_eq!(image.sheep_in_hand(), board.sheep_in_hand());
		prop_assert_eq!(image.outcome(turn), board.outcome(turn));
		prop_assert_eq!(image.canonical().0, canonical.0);
		let mapped: HashSet<Move> = moves.iter().map(|&m| sym.apply_move(m)).collect();
		prop_assert_eq!(move_set(image, turn), mapped, "{:?} under {:?}", board, sym);
		for &mv in moves.iter() {
			prop_assert_eq!(
				sym.apply_board(board.after_move_unchecked(mv)),
				image.after_move_unchecked(sym.apply_move(mv)),
				"{} on {:?} under {:?}",
				mv,
				board,
				sym
			);
		}
	}
	Ok(())
}

fn check_legality(board: GameBoard, turn: Turn, candidates: &[Move]) -> Result<(), TestCaseError> {
	let legal = move_set(board, turn);
	let mut accepted = 0;
	for &mv in candidates {
		let mut copy = board;
		match board.check_move(mv, turn) {
			Ok(()) => {
				accepted += 1;
				prop_assert!(legal.contains(&mv), "{} accepted but not generated", mv);
				prop_assert_eq!(copy.make_move(mv, turn), Ok(()));
				prop_assert_eq!(copy, board.after_move_unchecked(mv));
				prop_assert_eq!(copy, play_slow(board, mv));
			}
			Err(error) => {
				prop_assert!(
					!legal.contains(&mv),
					"{} generated but refused: {}",
					mv,
					error
				);
				prop_assert_eq!(copy.make_move(mv, turn), Err(error));
				prop_assert_eq!(copy, board, "a refused {} changed the board", mv);
			}
		}
	}
	prop_assert_eq!(accepted, legal.len());
	prop_assert_eq!(board.count_moves(turn) as usize, legal.len());
	Ok(())
}

fn check_outcome(game: &Game) -> Result<(), TestCaseError> {
	let (board, turn) = (game.board(), game.turn());
	if game.repetitions() >= 2 {
		prop_assert_eq!(game.outcome(), Some(Outcome::DrawByRepetition));
		return Ok(());
	}
	let outcome = game.outcome();
	prop_assert_eq!(
		outcome.is_some(),
		is_over_slow(board, turn),
		"{}",
		game.position()
	);
	let expected = if board.dead_sheep() >= 5 {
		Some(Outcome::TigersByCaptures)
	} else if legal_moves_slow(board, turn).is_empty() {
		Some(match turn {
			Turn::Sheep => Outcome::TigersBySheepBlocked,
			Turn::Tiger => Outcome::SheepByTrapping,
		})
	} else {
		None
	};
	prop_assert_eq!(outcome, expected, "{}", game.position());
	if outcome.is_some() {
		prop_assert!(game.legal_moves().is_empty());
		let mut copy = game.clone();
		let any_move = Move::Place {
			to: Pos::from_index(12).expect("12 is a point"),
		};
		prop_assert!(copy.play(any_move).is_err());
		prop_assert_eq!(&copy, game);
	}
	Ok(())
}

proptest! {
	#[test]
	fn pieces_are_accounted_for_and_text_round_trips(choices in choices()) {
		for_each_position(&choices, |game| {
			check_counts(game.board())?;
			check_text(game)
		})?;
	}

	#[test]
	fn symmetries_commute_with_moves(choices in choices()) {
		for_each_position(&choices, |game| check_symmetries(game.board(), game.turn()))?;
	}

	#[test]
	fn a_move_is_accepted_iff_it_is_generated(choices in choices()) {
		let candidates = every_candidate_move();
		for_each_position(&choices, |game| {
			check_legality(game.board(), game.turn(), &candidates)
		})?;
	}

	#[test]
	fn outcome_agrees_with_the_reference(choices in choices()) {
		for_each_position(&choices, check_outcome)?;
	}
}

#[test]
fn every_candidate_move_text_round_trips() {
	let candidates = every_candidate_move();
	assert_eq!(candidates.len(), 25 + 3 * 25 * 25);
	let texts: HashSet<String> = candidates.iter().map(Move::to_string).collect();
	assert_eq!(texts.len(), candidates.len(), "two moves share a text");
	for mv in candidates {
		assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
	}
}
