//! Thousands of seeded random games played to the end, the fast rules checked against the
//! reference at every ply.
//!
//! Moves are picked from the reference's list, which is sorted by notation, so the games depend
//! only on the rules and the seed, not on the order the fast generator happens to use. That makes
//! the tally of results a signature of the rules: it changes only if the rules do.

use std::collections::BTreeMap;

use tigers_core::reference::{legal_moves_slow, play_slow};
use tigers_core::{Game, Move, MoveError, Outcome};

const GAMES: u64 = 2000;
/// Plies after which a game is given up; random play rarely gets near it.
const MAX_PLIES: usize = 500;

/// SplitMix64: a small, well-mixed deterministic generator, enough to pick moves.
struct SplitMix(u64);

impl SplitMix {
	fn below(&mut self, n: usize) -> usize {
		self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
		let mut z = self.0;
		z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
		z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
		z ^= z >> 31;
		(z % n as u64) as usize
	}
}

/// Checks the fast rules against the reference in the game's current position.
fn check_ply(game: &Game) -> Vec<Move> {
	let (board, turn) = (game.board(), game.turn());
	let slow = legal_moves_slow(board, turn);
	let mut fast = game.legal_moves().to_vec();
	fast.sort_by_cached_key(Move::to_string);
	assert_eq!(fast, slow, "move lists differ in {}", game.position());
	for &mv in &slow {
		assert_eq!(
			board.after_move_unchecked(mv),
			play_slow(board, mv),
			"{mv} plays differently in {}",
			game.position()
		);
	}
	slow
}

/// Plays one game from the seed; returns its outcome (`None` if it hit the cap) and length.
fn play_game(seed: u64) -> (Option<Outcome>, usize) {
	let mut rng = SplitMix(seed);
	let mut game = Game::default();
	while game.moves().len() < MAX_PLIES {
		if let Some(outcome) = game.outcome() {
			assert_eq!(game.legal_moves().len(), 0);
			let refused = game.play(Move::Place {
				to: "c3".parse().expect("c3 is a point"),
			});
			assert_eq!(refused, Err(MoveError::GameOver(outcome)));
			return (Some(outcome), game.moves().len());
		}
		let moves = check_ply(&game);
		assert!(
			!moves.is_empty(),
			"no moves but no outcome in {}",
			game.position()
		);
		let mv = moves[rng.below(moves.len())];
		game.play(mv)
			.unwrap_or_else(|e| panic!("{mv} refused in {}: {e}", game.position()));
	}
	(game.outcome(), game.moves().len())
}

#[test]
fn random_games_agree_with_the_reference_and_end() {
	let mut tally: BTreeMap<&str, u64> = BTreeMap::new();
	let mut total_plies = 0;
	for seed in 0..GAMES {
		let (outcome, plies) = play_game(seed);
		*tally
			.entry(outcome.map_or("capped", Outcome::code))
			.or_default() += 1;
		total_plies += plies;
	}
	// Every game ends well before the cap: none is "capped". Random tigers capture far more often
	// than random sheep trap them, and a few games shuffle into a third repetition.
	let expected = BTreeMap::from([
		("draw-by-repetition", 8),
		("sheep-by-trapping", 37),
		("tigers-by-captures", 1955),
	]);
	assert_eq!(tally, expected, "after {total_plies} plies");
	assert_eq!(total_plies, 100_453);
}
