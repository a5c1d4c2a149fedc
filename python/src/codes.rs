//! Positions as 64-bit codes, so that a batch of them is one numpy array of `uint64`.
//!
//! A code is the tigers' mask in bits 0 to 24, the sheep's mask in bits 32 to 56, the sheep in
//! hand in bits 57 to 61, and the side to move in bit 63 (1 for the tigers). Every code read
//! from Python is checked: pieces that no game can reach are refused with the reason and the
//! code's index in its array.

use pyo3::prelude::*;
use tigers_core::board::BOARD_MASK;
use tigers_core::{GameBoard, Position, Turn};

use crate::errors;

/// The side-to-move bit.
const TIGERS_TO_MOVE: u64 = 1 << 63;
/// Where the sheep's mask starts.
const SHEEP_SHIFT: u32 = 32;
/// Where the sheep in hand start.
const IN_HAND_SHIFT: u32 = 57;
/// Bits that no code uses.
const UNUSED: u64 = !(BOARD_MASK as u64
	| (BOARD_MASK as u64) << SHEEP_SHIFT
	| 31 << IN_HAND_SHIFT
	| TIGERS_TO_MOVE);

/// The code of `position`.
pub fn encode(position: Position) -> u64 {
	let board = position.board;
	let turn = match position.turn {
		Turn::Tiger => TIGERS_TO_MOVE,
		Turn::Sheep => 0,
	};
	u64::from(board.tigers())
		| u64::from(board.sheep()) << SHEEP_SHIFT
		| u64::from(board.sheep_in_hand()) << IN_HAND_SHIFT
		| turn
}

/// The position a code stands for, or why it stands for none.
pub fn decode(code: u64) -> Result<Position, String> {
	if code & UNUSED != 0 {
		return Err(format!("{code:#018x} sets bits that no position code uses"));
	}
	let tigers = (code & u64::from(BOARD_MASK)) as u32;
	let sheep = ((code >> SHEEP_SHIFT) & u64::from(BOARD_MASK)) as u32;
	let in_hand = ((code >> IN_HAND_SHIFT) & 31) as u32;
	let turn = if code & TIGERS_TO_MOVE != 0 {
		Turn::Tiger
	} else {
		Turn::Sheep
	};
	let board = GameBoard::new(tigers, sheep, in_hand).map_err(|e| e.to_string())?;
	Position::new(board, turn).map_err(|e| e.to_string())
}

/// Every code of `codes` decoded, or a `PositionError` naming the first bad one.
pub fn decode_all(codes: &[u64]) -> PyResult<Vec<Position>> {
	codes
		.iter()
		.enumerate()
		.map(|(index, &code)| decode_at(index, code))
		.collect()
}

/// One code of an array, or a `PositionError` naming its index.
pub fn decode_at(index: usize, code: u64) -> PyResult<Position> {
	decode(code).map_err(|why| errors::position(format!("position code {index}: {why}")))
}
