//! Every placement value recomputed from the game's own moves.
//!
//! The solve reads its children through tables that map whole sheep sets at once; the check
//! here takes the other road: it turns each entry back into a [`GameBoard`], plays every legal
//! move with the game's move generator, and looks each child up the way a probe does (its
//! tigers' class and symmetry, its sheep's rank), or in the movement table once the last sheep
//! is placed. A fifth capture wins for the tigers. The best child for the side to move must be
//! the stored value, and every padding code must be padding.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

use crate::board::{GameBoard, TOTAL_SHEEP};
use crate::moves::Turn;
use crate::position::Position;
use crate::tablebase::Tablebase;
use crate::tablebase::index::{Layout, TIGER_CLASSES};
use crate::tablebase::placement::census::is_canonical;
use crate::tablebase::placement::index::{
	LayerId, LayerShape, locate, sets_in_rank_order, sets_of, to_board_mask,
};
use crate::tablebase::placement::verdict::{PAD, Verdict, code_at};

/// What a layer's check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyLayerReport {
	/// Entries checked (every stored image).
	pub entries: u64,
	/// Of those, positions up to symmetry.
	pub up_to_symmetry: u64,
}

/// A value that its moves contradict, or a damaged entry.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PlacementVerifyError {
	/// The stored value is not the best over the position's moves.
	#[error("{position}: stored {stored}, but its moves give {expected}")]
	Value {
		/// The position, in the game's notation.
		position: String,
		/// What the layer holds.
		stored: String,
		/// What the moves give.
		expected: Verdict,
	},
	/// Padding where a position should be, or a position's code in the padding.
	#[error("layer {layer}: byte {byte} holds a wrong padding code")]
	Padding {
		/// The layer's file name.
		layer: String,
		/// The byte, from the layer's start.
		byte: u64,
	},
}

/// Where a verified layer's moves lead.
#[derive(Clone, Copy)]
pub enum VerifyChildren<'a> {
	/// The movement table (the sheep with 19 placed).
	Movement(&'a Tablebase),
	/// The child layer's bytes.
	Layer(&'a [u8]),
}

/// Checks every entry of layer `id` (its `bytes`) against its children on `threads` threads,
/// calling `progress` with (entries done, entries in all).
pub fn verify_layer(
	id: LayerId,
	bytes: &[u8],
	children: VerifyChildren<'_>,
	threads: usize,
	progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<VerifyLayerReport, PlacementVerifyError> {
	let shape = LayerShape::of(id);
	let child_shape = id.child().map(LayerShape::of);
	let blocks: Vec<(u32, usize)> = (0..=id.max_dead())
		.flat_map(|dead| (0..TIGER_CLASSES).map(move |class| (dead, class)))
		.collect();
	let checks = Checks {
		checker: Checker {
			id,
			shape: &shape,
			bytes,
			child_shape: child_shape.as_ref(),
			children,
		},
		blocks,
		next: AtomicU64::new(0),
		done: AtomicU64::new(0),
		total: shape.entries(),
		progress,
		found: Mutex::new(Found::new()),
	};
	std::thread::scope(|scope| {
		for _ in 0..threads.max(1) {
			scope.spawn(|| checks.work());
		}
	});
	let found = checks.found.into_inner().expect("no check panicked");
	match found.first_error {
		Some((_, error)) => Err(error),
		None => Ok(found.report),
	}
}

/// What the threads checking a layer share: the blocks (one per dead count and tiger class),
/// the next one to take, the entries done, and what the checked blocks found.
struct Checks<'a> {
	checker: Checker<'a>,
	blocks: Vec<(u32, usize)>,
	next: AtomicU64,
	done: AtomicU64,
	/// The layer's entries.
	total: u64,
	progress: &'a (dyn Fn(u64, u64) + Sync),
	found: Mutex<Found>,
}

impl Checks<'_> {
	/// One thread's part: takes the next block and checks it, until none is left.
	fn work(&self) {
		loop {
			let at = self.next.fetch_add(1, Ordering::Relaxed) as usize;
			let Some(&(dead, class)) = self.blocks.get(at) else {
				break;
			};
			let outcome = self.checker.block(dead, class);
			let step = u64::from(sets_of(self.checker.id.sheep_on_board(dead)));
			let now = self.done.fetch_add(step, Ordering::Relaxed) + step;
			(self.progress)(now, self.total);
			self.found
				.lock()
				.expect("no check panics holding it")
				.add(at, outcome);
		}
	}
}

/// What the checked blocks of a layer found: their entries, and the error of the first block
/// (in block order) that failed, so that the error is the same on any number of threads.
struct Found {
	report: VerifyLayerReport,
	first_error: Option<(usize, PlacementVerifyError)>,
}

impl Found {
	fn new() -> Found {
		Found {
			report: VerifyLayerReport {
				entries: 0,
				up_to_symmetry: 0,
			},
			first_error: None,
		}
	}

	/// Counts the outcome of block `at`.
	fn add(&mut self, at: usize, outcome: Result<VerifyLayerReport, PlacementVerifyError>) {
		match outcome {
			Ok(report) => {
				self.report.entries += report.entries;
				self.report.up_to_symmetry += report.up_to_symmetry;
			}
			Err(error) => {
				if self
					.first_error
					.as_ref()
					.is_none_or(|(first, _)| at < *first)
				{
					self.first_error = Some((at, error));
				}
			}
		}
	}
}

struct Checker<'a> {
	id: LayerId,
	shape: &'a LayerShape,
	bytes: &'a [u8],
	child_shape: Option<&'a LayerShape>,
	children: VerifyChildren<'a>,
}

impl Checker<'_> {
	fn block(&self, dead: u32, class: usize) -> Result<VerifyLayerReport, PlacementVerifyError> {
		let layout = Layout::get();
		let size = self.id.sheep_on_board(dead);
		let start = self.shape.block_start(dead, class);
		let tigers = layout.class_tigers(class);
		let in_hand = TOTAL_SHEEP - self.id.placed;
		let mut report = VerifyLayerReport {
			entries: 0,
			up_to_symmetry: 0,
		};
		for (rank, set) in sets_in_rank_order(size).enumerate() {
			let rank = rank as u32;
			let sheep = to_board_mask(layout, class, set);
			let board = GameBoard::new(tigers, sheep, in_hand).expect("an entry is a board");
			let stored = code_at(self.bytes, start, rank);
			let expected = self.best_over_moves(board);
			if Verdict::from_code(stored) != Some(expected) {
				let position = Position {
					board,
					turn: self.id.turn,
				};
				return Err(PlacementVerifyError::Value {
					position: position.to_string(),
					stored: Verdict::from_code(stored)
						.map_or_else(|| "padding".to_string(), |v| v.to_string()),
					expected,
				});
			}
			report.entries += 1;
			report.up_to_symmetry += u64::from(is_canonical(layout, class, set, rank));
		}
		let entries = sets_of(size);
		let block = self.shape.block(dead, class);
		for rank in entries..((block.end - block.start) * 4) as u32 {
			if code_at(self.bytes, start, rank) != PAD {
				return Err(PlacementVerifyError::Padding {
					layer: self.id.file_name(),
					byte: start + u64::from(rank / 4),
				});
			}
		}
		Ok(report)
	}

	/// The best value over the moves of `board` for the side to move.
	fn best_over_moves(&self, board: GameBoard) -> Verdict {
		let turn = self.id.turn;
		let mut best: Option<Verdict> = None;
		for &mv in board.get_moves(turn).iter() {
			let child = board.after_move_unchecked(mv);
			let value = self.child_value(child, turn.opponent()).flip();
			best = Some(match best {
				Some(b) if b.sign() >= value.sign() => b,
				_ => value,
			});
			if best == Some(Verdict::Win) {
				break;
			}
		}
		best.unwrap_or(Verdict::Loss)
	}

	/// A child's value for its side to move.
	fn child_value(&self, child: GameBoard, turn: Turn) -> Verdict {
		if child.dead_sheep() >= crate::board::DEAD_SHEEP_TO_WIN {
			// The fifth capture: the side to move (the sheep) has lost.
			return Verdict::Loss;
		}
		match self.children {
			VerifyChildren::Movement(table) => {
				Verdict::of_value(table.probe(child, turn).expect("a movement-phase child"))
			}
			VerifyChildren::Layer(bytes) => {
				let (id, dead, class, rank) = locate(child, turn).expect("a placement child");
				debug_assert_eq!(Some(id), self.id.child());
				let shape = self.child_shape.expect("a placement child layer");
				let code = code_at(bytes, shape.block_start(dead, class), rank);
				Verdict::from_code(code).expect("a child entry, not padding")
			}
		}
	}
}
