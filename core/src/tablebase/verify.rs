//! Checking a table without trusting its solve: every canonical entry's value must be exactly
//! the best over its moves, recomputed with the game's own move generator and the table's
//! probe, and every other entry must hold its canonical entry's value.
//!
//! That one step suffices: a win's distance must drop by one along the winner's best move and a
//! loss's along the loser's longest defence, so values that pass are the solve's fixed point,
//! and the only one (induction on the distance from the end of the game).

use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::position::Position;
use crate::tablebase::census::position_of;
use crate::tablebase::index::{Layout, POSITIONS, POSITIONS_UP_TO_SYMMETRY};
use crate::tablebase::solve::parallel;
use crate::tablebase::table::Tablebase;
use crate::tablebase::value::{Value, decode_value};

/// How far a verification has got, in entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyProgress {
	/// Entries checked so far.
	pub done: u64,
	/// All entries.
	pub total: u64,
}

/// What a verification checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyReport {
	/// Canonical entries recomputed from their children: the positions up to symmetry.
	pub positions: u64,
	/// Other entries compared with their canonical entry.
	pub copies: u64,
}

/// The first thing found wrong with a table.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum VerifyError {
	/// A value is not the best over the position's moves.
	#[error("{position}: the table says {stored}, but its moves give {expected}")]
	Value {
		/// The position (a canonical entry's).
		position: Position,
		/// The value stored.
		stored: Value,
		/// The value its moves give.
		expected: Value,
	},
	/// A symmetric copy holds another value than its canonical entry.
	#[error("{position}: a symmetric copy says {stored}, its canonical entry {expected}")]
	Copy {
		/// The copy's position.
		position: Position,
		/// The copy's value.
		stored: Value,
		/// The canonical entry's value.
		expected: Value,
	},
	/// The canonical entries are not the movement phase's positions.
	#[error(
		"the table has {up_to_symmetry} positions up to symmetry and {positions} in all, expected {POSITIONS_UP_TO_SYMMETRY} and {POSITIONS}"
	)]
	Counts {
		/// Canonical entries.
		up_to_symmetry: u64,
		/// Positions counting images.
		positions: u64,
	},
}

/// One thread's findings.
#[derive(Default)]
struct Findings {
	positions: u64,
	copies: u64,
	orbit_total: u64,
	first_error: Option<(u32, VerifyError)>,
}

impl Tablebase {
	/// Checks every entry (see the module's documentation) on `threads` threads; reports how
	/// many were checked, or the first wrong entry in table order.
	pub fn verify(
		&self,
		threads: usize,
		progress: &(dyn Fn(VerifyProgress) + Sync),
	) -> Result<VerifyReport, VerifyError> {
		let layout = Layout::get();
		let total = self.values().len() as u64;
		let done = AtomicU64::new(0);
		let findings = parallel(
			threads.max(1),
			self.values().len(),
			|chunk, found: &mut Findings| {
				let step = chunk.len() as u64;
				for index in chunk {
					if let Err(error) = self.check_entry(layout, index as u32, found) {
						let index = index as u32;
						if found.first_error.as_ref().is_none_or(|(at, _)| index < *at) {
							found.first_error = Some((index, error));
						}
					}
				}
				let now = done.fetch_add(step, Ordering::Relaxed) + step;
				progress(VerifyProgress { done: now, total });
			},
		);
		let mut report = VerifyReport {
			positions: 0,
			copies: 0,
		};
		let mut orbit_total = 0;
		let mut first_error: Option<(u32, VerifyError)> = None;
		for found in findings {
			report.positions += found.positions;
			report.copies += found.copies;
			orbit_total += found.orbit_total;
			if let Some((at, error)) = found.first_error
				&& first_error.as_ref().is_none_or(|(best, _)| at < *best)
			{
				first_error = Some((at, error));
			}
		}
		if let Some((_, error)) = first_error {
			return Err(error);
		}
		if report.positions != POSITIONS_UP_TO_SYMMETRY || orbit_total != POSITIONS {
			return Err(VerifyError::Counts {
				up_to_symmetry: report.positions,
				positions: orbit_total,
			});
		}
		Ok(report)
	}

	fn check_entry(
		&self,
		layout: &Layout,
		index: u32,
		found: &mut Findings,
	) -> Result<(), VerifyError> {
		let stored = decode_value(self.values()[index as usize]);
		let entry = layout.decode(index);
		let canonical = layout.canonical_index(entry.tigers, entry.empty, entry.turn);
		if canonical != index {
			found.copies += 1;
			let expected = decode_value(self.values()[canonical as usize]);
			if stored != expected {
				return Err(VerifyError::Copy {
					position: position_of(layout, index),
					stored,
					expected,
				});
			}
			return Ok(());
		}
		found.positions += 1;
		let fixed = layout.stabiliser_size(index).expect("a canonical entry");
		found.orbit_total += u64::from(8 / fixed);
		let position = position_of(layout, index);
		let expected = self.best_over_moves(position);
		if stored != expected {
			return Err(VerifyError::Value {
				position,
				stored,
				expected,
			});
		}
		Ok(())
	}

	/// The value of a movement-phase position from its moves and the table's values of their
	/// results: the quickest win, else a draw, else the slowest loss.
	pub fn best_over_moves(&self, position: Position) -> Value {
		let mut best: Option<Value> = None;
		for &mv in position.board.get_moves(position.turn).iter() {
			let child = position.board.after_move_unchecked(mv);
			let value = match self.probe(child, position.turn.opponent()) {
				Some(value) => value.before_move(),
				// Outside the table after a move only when the fifth sheep was eaten.
				None => Value::Win(1),
			};
			best = Some(best.map_or(value, |best| best.preferred(value)));
		}
		best.unwrap_or(Value::Loss(0))
	}
}
