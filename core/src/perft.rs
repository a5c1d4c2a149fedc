//! Perft: counting the move paths of a given length, to check move generation.
//!
//! A path stops early at a finished game (five sheep dead, or no legal move); repetitions are not
//! tracked, since they need a history. Counting with the fast generator uses bulk counting: at the
//! last ply it counts moves instead of playing them.

use crate::board::GameBoard;
use crate::moves::Turn;
use crate::reference::{is_over_slow, legal_moves_slow, play_slow};

/// The number of move paths of length `depth` from this position, with the fast generator.
pub fn perft(board: GameBoard, turn: Turn, depth: u32) -> u64 {
	if depth == 0 {
		return 1;
	}
	if board.dead_sheep() >= crate::board::DEAD_SHEEP_TO_WIN {
		return 0;
	}
	if depth == 1 {
		return u64::from(board.count_moves(turn));
	}
	board
		.get_moves(turn)
		.iter()
		.map(|&mv| perft(board.after_move_unchecked(mv), turn.opponent(), depth - 1))
		.sum()
}

/// Like [`perft`], with the slow reference generator, checking at every node that the fast
/// generator gives the same moves, the same boards and the same end of game.
///
/// # Panics
///
/// Panics, naming the position, at the first disagreement.
pub fn perft_checked(board: GameBoard, turn: Turn, depth: u32) -> u64 {
	let slow = legal_moves_slow(board, turn);
	let mut fast: Vec<_> = board.get_moves(turn).to_vec();
	fast.sort_by_cached_key(|m| m.to_string());
	assert_eq!(
		fast, slow,
		"move lists differ at {board:?} with {turn} to move"
	);
	assert_eq!(
		board.count_moves(turn) as usize,
		slow.len(),
		"move count differs at {board:?}"
	);
	assert_eq!(
		board.check_win(turn),
		is_over_slow(board, turn),
		"end of game differs at {board:?} with {turn} to move"
	);
	if depth == 0 {
		return 1;
	}
	if board.dead_sheep() >= crate::board::DEAD_SHEEP_TO_WIN {
		return 0;
	}
	let mut total = 0;
	for mv in slow {
		let next = play_slow(board, mv);
		assert_eq!(
			board.after_move_unchecked(mv),
			next,
			"{mv} plays differently at {board:?}"
		);
		assert!(
			board.check_move(mv, turn).is_ok(),
			"{mv} refused at {board:?}"
		);
		total += perft_checked(next, turn.opponent(), depth - 1);
	}
	total
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn first_plies_from_the_start() {
		let start = GameBoard::default();
		assert_eq!(perft(start, Turn::Sheep, 0), 1);
		assert_eq!(perft(start, Turn::Sheep, 1), 21);
		assert_eq!(
			perft_checked(start, Turn::Sheep, 3),
			perft(start, Turn::Sheep, 3)
		);
	}
}
