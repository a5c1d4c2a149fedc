//! Move notation, and a move played on a position: a position's text, a newline, then moves.
//! Each move either reads or is refused; one that reads writes back as the same move; playing
//! it either works or says why, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tigers_core::{Game, Move, Position};

fuzz_target!(|text: &str| {
	let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
	let mut moves = Vec::new();
	for word in rest.split_whitespace() {
		if let Ok(mv) = word.parse::<Move>() {
			let again: Move = mv.to_string().parse().expect("a written move reads");
			assert_eq!(again, mv);
			moves.push(mv);
		}
	}
	let start = first.parse::<Position>().unwrap_or_default();
	let (game, refused) = Game::replay(start, &moves);
	if let Some((index, _)) = refused {
		assert!(index < moves.len());
	}
	let _ = game.outcome();
});
