//! The search: iterative deepening over a negamax alpha-beta with a transposition table, killer
//! moves, repetition draws and distance-to-win scoring.

use std::time::Instant;

use crate::board::{DEAD_SHEEP_TO_WIN, GameBoard};
use crate::game::REPETITION_DRAW;
use crate::movegen::MoveList;
use crate::moves::{Move, Turn};
use crate::search::{
	CacheEntry, DRAW, EVAL_LIMIT, Evaluator, FORCED, Killers, Reuse, SearchParts, SearchReport,
	SearchSettings, TableKey, TranspositionTable, WIN, exact_score,
};
use crate::tablebase::placement::{PlacementTable, Verdict};
use crate::tablebase::{Tablebase, Value};

/// How many nodes pass between looks at the clock.
const CLOCK_INTERVAL: u64 = 4096;

/// Searches `board` with `turn` to move and returns the best move found, or `None` if `turn` has
/// no legal move. Scores in the report favour tigers.
pub fn search<E: Evaluator>(
	parts: SearchParts<'_, E>,
	settings: &SearchSettings,
	board: GameBoard,
	turn: Turn,
	previous: &[GameBoard],
) -> Option<SearchReport> {
	let mut root_moves = board.get_moves(turn);
	if root_moves.is_empty() {
		return None;
	}
	let started = settings.time_limit.map(|limit| (Instant::now(), limit));
	let mut searcher = Searcher::new(parts, settings, board, previous);
	// With the tablebase, only moves that keep the exact value remain. In a won or lost position
	// they are all equally good (the quickest win, the longest defence): nothing is left to
	// search. In a drawn one the search chooses among them.
	if let Some(value) = searcher.keep_exact_best(board, turn, &mut root_moves)
		&& value != Value::Draw
	{
		return Some(SearchReport {
			mv: root_moves[0],
			depth: 1,
			score: exact_score(value, 0) * turn.sign(),
			nodes: searcher.nodes,
		});
	}
	// With the placement table, the same at a placement root, but without distances every
	// value-keeping move is searched, won and lost roots included.
	searcher.keep_placement_best(board, turn, &mut root_moves);
	searcher.deadline = started.map(|(start, limit)| start + limit);
	let report = searcher.deepen(board, turn, settings.max_depth, started, &mut root_moves);
	Some(match report {
		Some(report) => SearchReport {
			nodes: searcher.nodes,
			..report
		},
		// Not even depth 1 finished: any legal move beats none.
		None => SearchReport {
			mv: root_moves[0],
			depth: 0,
			score: 0.0,
			nodes: searcher.nodes,
		},
	})
}

/// Every legal move with its exact score (tigers' view) from a full-window search of `depth`
/// plies, the move included; for choosing among moves by their scores (exploration). Empty if
/// `turn` has no legal move. Costs about as much as a search without pruning at the root.
pub fn score_moves<E: Evaluator>(
	parts: SearchParts<'_, E>,
	settings: &SearchSettings,
	board: GameBoard,
	turn: Turn,
	previous: &[GameBoard],
) -> Vec<(Move, f32)> {
	let depth = settings.max_depth.clamp(1, super::MAX_DEPTH);
	let mut searcher = Searcher::new(parts, settings, board, previous);
	let mut scored = Vec::new();
	for &mv in board.get_moves(turn).iter() {
		let score = searcher.score_child(board, turn, mv, depth, f32::NEG_INFINITY);
		scored.push((mv, score * turn.sign()));
	}
	scored
}

struct Searcher<'a, E: Evaluator> {
	evaluator: &'a mut E,
	table: Option<&'a mut TranspositionTable>,
	killers: Option<&'a mut Killers>,
	tablebase: Option<&'a Tablebase>,
	placement: Option<&'a PlacementTable>,
	/// The boards since the last irreversible move: the game's, then the search path's. Each
	/// node's board is the last entry while it is searched.
	path: Vec<GameBoard>,
	/// Where the root stands in `path`; later entries are inside the search.
	root_index: usize,
	/// Nodes with less remaining depth than this skip the table (see `Evaluator`).
	table_min_depth: u32,
	nodes: u64,
	deadline: Option<Instant>,
	aborted: bool,
}

impl<'a, E: Evaluator> Searcher<'a, E> {
	fn new(
		parts: SearchParts<'a, E>,
		settings: &SearchSettings,
		root: GameBoard,
		previous: &[GameBoard],
	) -> Searcher<'a, E> {
		// Placements and captures cannot be undone, so only boards since the last of them can
		// come round again.
		let reversible = |b: &&GameBoard| {
			b.sheep_in_hand() == root.sheep_in_hand() && b.sheep_on_board() == root.sheep_on_board()
		};
		let kept = previous.iter().rev().take_while(reversible).count();
		let capacity = kept + 2 + settings.max_depth as usize;
		let mut path = Vec::with_capacity(capacity);
		path.extend_from_slice(&previous[previous.len() - kept..]);
		path.push(root);
		// What earlier searches left in the tables may be used only while it still holds. A
		// fixed-depth search takes nothing, so that its move depends on the position and the
		// game's history alone. With the sheep all placed, a stored score may count on a
		// position not repeating that the game has since repeated, so only the moves are kept.
		// During placement no position can come back, and everything stored still holds.
		let reuse = if settings.time_limit.is_none() {
			Reuse::Nothing
		} else if root.sheep_in_hand() == 0 {
			Reuse::MovesOnly
		} else {
			Reuse::Everything
		};
		let mut table = parts.table;
		if let Some(table) = table.as_deref_mut() {
			table.begin_search(reuse);
		}
		let mut killers = parts.killers;
		if let Some(killers) = killers.as_deref_mut().filter(|_| reuse == Reuse::Nothing) {
			killers.clear();
		}
		Searcher {
			table_min_depth: parts.evaluator.table_min_depth().max(1),
			evaluator: parts.evaluator,
			table,
			killers,
			tablebase: parts.tablebase,
			placement: parts.placement,
			root_index: kept,
			path,
			nodes: 0,
			deadline: None,
			aborted: false,
		}
	}

	/// With a tablebase and a movement-phase root: drops the moves that do not keep the root's
	/// exact value and returns that value. A move to a third repetition counts as a draw.
	fn keep_exact_best(
		&mut self,
		board: GameBoard,
		turn: Turn,
		moves: &mut MoveList,
	) -> Option<Value> {
		let table = self.tablebase?;
		table.probe(board, turn)?;
		let mut values = [Value::Draw; crate::movegen::MAX_MOVES];
		for (slot, &mv) in values.iter_mut().zip(moves.iter()) {
			let child = board.after_move_unchecked(mv);
			self.path.push(child);
			*slot = if child.dead_sheep() >= DEAD_SHEEP_TO_WIN {
				Value::Win(1)
			} else if self.is_repetition(child) {
				Value::Draw
			} else {
				table
					.probe(child, turn.opponent())
					.expect("a move from the movement phase stays in it")
					.before_move()
			};
			self.path.pop();
		}
		self.nodes += moves.len() as u64;
		let values = &values[..moves.len()];
		let best = values.iter().copied().reduce(Value::preferred)?;
		let mut kept = values.iter();
		moves.retain(|_| kept.next() == Some(&best));
		Some(best)
	}

	/// With the placement table and a placement root whose value it knows: drops the moves
	/// that do not keep that value. A child entering the movement phase is valued by the
	/// movement table; without it, or where a layer is missing or unreadable, the moves stay.
	fn keep_placement_best(&mut self, board: GameBoard, turn: Turn, moves: &mut MoveList) {
		let Some(placement) = self.placement.filter(|_| board.sheep_in_hand() > 0) else {
			return;
		};
		let mut verdicts = [Verdict::Draw; crate::movegen::MAX_MOVES];
		for (slot, &mv) in verdicts.iter_mut().zip(moves.iter()) {
			let child = board.after_move_unchecked(mv);
			let value = if child.dead_sheep() >= DEAD_SHEEP_TO_WIN {
				Some(Verdict::Loss)
			} else if child.sheep_in_hand() == 0 {
				self.tablebase
					.and_then(|table| table.probe(child, turn.opponent()))
					.map(Verdict::of_value)
			} else {
				placement.probe(child, turn.opponent()).ok().flatten()
			};
			let Some(value) = value else {
				return;
			};
			*slot = value.flip();
		}
		self.nodes += moves.len() as u64;
		let verdicts = &verdicts[..moves.len()];
		let Some(best) = verdicts.iter().map(|v| v.sign()).max() else {
			return;
		};
		let mut kept = verdicts.iter();
		moves.retain(|_| kept.next().is_some_and(|v| v.sign() == best));
	}

	/// Iterative deepening at the root, to `max_depth` plies at most, on the clock `started`
	/// (when and for how long) if there is one: the report of the last iteration that finished.
	/// Each iteration leaves its best move first in `moves`.
	fn deepen(
		&mut self,
		board: GameBoard,
		turn: Turn,
		max_depth: u32,
		started: Option<(Instant, std::time::Duration)>,
		moves: &mut MoveList,
	) -> Option<SearchReport> {
		let mut report = None;
		for depth in 1..=max_depth.clamp(1, super::MAX_DEPTH) {
			let Some((mv, score)) = self.root(board, turn, depth, moves) else {
				break; // out of time: keep the last finished iteration
			};
			report = Some(SearchReport {
				mv,
				depth,
				score: score * turn.sign(),
				nodes: self.nodes,
			});
			// Search the best move first next time; it is the most likely to stay best.
			let best = moves
				.iter()
				.position(|m| *m == mv)
				.expect("the best move is a root move");
			moves.as_mut_slice()[..=best].rotate_right(1);
			if score.abs() >= FORCED {
				break; // a forced result found at this depth is the quickest one
			}
			if let Some((start, limit)) = started
				&& start.elapsed() >= limit / 2
			{
				break; // the next iteration would likely overrun the limit
			}
		}
		report
	}

	/// One iteration at the root: the best move and its score for `turn`, or `None` if the
	/// clock ran out.
	fn root(
		&mut self,
		board: GameBoard,
		turn: Turn,
		depth: u32,
		moves: &mut MoveList,
	) -> Option<(Move, f32)> {
		self.nodes += 1;
		let mut best = (moves[0], f32::NEG_INFINITY);
		for &mv in moves.iter() {
			let score = self.score_child(board, turn, mv, depth, best.1);
			if self.aborted {
				return None;
			}
			if score > best.1 {
				best = (mv, score);
			}
		}
		Some(best)
	}

	/// The score for `turn` of playing `mv` at the root, searched `depth` plies in all; exact if
	/// above `floor` (scores at or below it only need to be shown not to beat it).
	fn score_child(
		&mut self,
		board: GameBoard,
		turn: Turn,
		mv: Move,
		depth: u32,
		floor: f32,
	) -> f32 {
		let child = board.after_move_unchecked(mv);
		self.path.push(child);
		let score = -self.negamax(
			child,
			turn.opponent(),
			depth - 1,
			1,
			f32::NEG_INFINITY,
			-floor,
		);
		self.path.pop();
		score
	}

	/// The score of `board` for `turn` (the side to move), searched `depth` plies deep, `ply`
	/// plies below the root, within the window `alpha..beta` (fail-soft).
	fn negamax(
		&mut self,
		board: GameBoard,
		turn: Turn,
		depth: u32,
		ply: u32,
		mut alpha: f32,
		beta: f32,
	) -> f32 {
		// 1. Count the node; now and then look at the clock.
		self.nodes += 1;
		if self.nodes.is_multiple_of(CLOCK_INTERVAL)
			&& let Some(deadline) = self.deadline
			&& Instant::now() >= deadline
		{
			self.aborted = true;
		}
		if self.aborted {
			return 0.0;
		}

		// 2. A finished game scores by its distance from the root, so that the search prefers
		//    the quickest win and the slowest loss.
		let lost = -(WIN - ply as f32);
		if board.dead_sheep() >= DEAD_SHEEP_TO_WIN {
			debug_assert_eq!(turn, Turn::Sheep);
			return lost;
		}

		// 3. A position seen before on this path, or for the third time in the game, is a draw.
		if self.is_repetition(board) {
			return DRAW;
		}

		// 4. In the movement phase the tablebase knows a won or lost position's exact result.
		//    Drawn ones are searched on, so that the evaluation still chooses among drawing
		//    moves. At the horizon the evaluation is cheaper than a probe's likely cache miss.
		if depth > 0
			&& let Some(table) = self.tablebase
			&& let Some(value) = table.probe(board, turn)
			&& value != Value::Draw
		{
			return exact_score(value, ply);
		}

		// 5. At the horizon, evaluate. (Extending the search while a tiger can jump won
		//    matches at equal depth but lost them at equal time: see docs/search.md.)
		if depth == 0 {
			if !board.has_legal_move(turn) {
				return lost;
			}
			let score = self.evaluator.evaluate(board, turn);
			debug_assert!(
				score.is_finite() && score.abs() < EVAL_LIMIT,
				"evaluation {score}"
			);
			return score * turn.sign();
		}

		// 6. The table may already know enough to answer, and otherwise gives a move to try first.
		//    Near the leaves a probe can cost more than the evaluations it saves.
		let key = self
			.table
			.as_ref()
			.filter(|_| depth >= self.table_min_depth)
			.map(|_| TableKey::new(board, turn));
		let mut table_move = None;
		if let (Some(table), Some(key)) = (self.table.as_deref(), key)
			&& let Some(entry) = table.lookup(key)
		{
			table_move = entry.best;
			if u32::from(entry.depth) >= depth {
				let lower = from_table(entry.lower, ply);
				let upper = from_table(entry.upper, ply);
				if lower >= beta || lower == upper {
					return lower;
				}
				if upper <= alpha {
					return upper;
				}
			}
		}

		// 7. Generate the moves; having none loses.
		let mut moves = board.get_moves(turn);
		if moves.is_empty() {
			return lost;
		}
		self.order(&mut moves, table_move, depth);

		// 8. Search each move, raising alpha, until one refutes the window.
		let alpha_in = alpha;
		let mut best = (f32::NEG_INFINITY, moves[0]);
		for &mv in moves.iter() {
			let child = board.after_move_unchecked(mv);
			self.path.push(child);
			let score = -self.negamax(child, turn.opponent(), depth - 1, ply + 1, -beta, -alpha);
			self.path.pop();
			if self.aborted {
				return 0.0;
			}
			if score > best.0 {
				best = (score, mv);
				alpha = alpha.max(score);
				if score >= beta {
					if !mv.is_jump()
						&& let Some(killers) = self.killers.as_deref_mut()
					{
						killers.record(depth as usize, mv);
					}
					break;
				}
			}
		}

		// 9. Remember what was learnt: an exact score, or a bound if the window cut it off.
		//    (A score resting on a repetition draw below holds only for this path; keeping such
		//    scores out of the table changed nothing measurable at equal depth and cost up to a
		//    quarter more nodes, so they are stored like any other: docs/search.md.)
		if let (Some(table), Some(key)) = (self.table.as_deref_mut(), key) {
			let score = to_table(best.0, ply);
			let (lower, upper) = if best.0 <= alpha_in {
				(f32::NEG_INFINITY, score)
			} else if best.0 >= beta {
				(score, f32::INFINITY)
			} else {
				(score, score)
			};
			let depth = depth.min(u32::from(u8::MAX)) as u8;
			table.insert(
				key,
				CacheEntry {
					lower,
					upper,
					depth,
					best: Some(best.1),
				},
			);
		}
		best.0
	}

	/// Puts the table's move first and the killers right after the jumps.
	fn order(&self, moves: &mut MoveList, table_move: Option<Move>, depth: u32) {
		let moves = moves.as_mut_slice();
		let mut front = 0;
		if let Some(mv) = table_move
			&& let Some(i) = moves.iter().position(|m| *m == mv)
		{
			moves[..=i].rotate_right(1);
			front = 1;
		}
		let Some(killers) = self.killers.as_deref() else {
			return;
		};
		// Jumps come first from the generator; killers go after them, before other quiet moves.
		front += moves[front..].iter().take_while(|m| m.is_jump()).count();
		for killer in killers.get(depth as usize).into_iter().flatten() {
			if let Some(i) = moves[front..].iter().position(|m| *m == killer) {
				moves[front..=front + i].rotate_right(1);
				front += 1;
			}
		}
	}

	/// Whether the board at the end of the path (never the root) repeats one before it: anywhere on the search
	/// path (the side that can repeat can keep doing so), or twice in the game before the root.
	fn is_repetition(&self, board: GameBoard) -> bool {
		if board.sheep_in_hand() > 0 {
			return false; // placements change the position for good
		}
		let sheep = board.sheep_on_board();
		let mut earlier = 0;
		let mut index = self.path.len() - 1;
		// Only boards an even number of plies back have the same side to move.
		while index >= 2 {
			index -= 2;
			let seen = self.path[index];
			if seen.sheep_on_board() != sheep {
				break; // a capture lies between: nothing earlier can match
			}
			if seen == board {
				if index >= self.root_index {
					return true;
				}
				earlier += 1;
				if earlier >= REPETITION_DRAW {
					return true;
				}
			}
		}
		false
	}
}

/// A score as stored in the table: forced results counted from the node instead of the root.
fn to_table(score: f32, ply: u32) -> f32 {
	if score >= FORCED {
		score + ply as f32
	} else if score <= -FORCED {
		score - ply as f32
	} else {
		score
	}
}

/// A stored score as seen from a node `ply` plies below the root.
fn from_table(score: f32, ply: u32) -> f32 {
	if score >= FORCED {
		score - ply as f32
	} else if score <= -FORCED {
		score + ply as f32
	} else {
		score
	}
}

#[cfg(test)]
mod tests;
