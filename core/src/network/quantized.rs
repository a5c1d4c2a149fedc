//! `QuantizedNet`: a net's weights as integers for the search, and the `Accumulator` that keeps
//! its first layer up to date from one board to the next.
//!
//! The search evaluates millions of boards a second, and consecutive ones are usually siblings
//! that differ in two or three points. So the first layer's sum over the piece inputs is kept
//! between evaluations and changed only by the rows of the points that changed, as NNUE engines
//! do. It is kept in 32-bit integers: integer addition undoes exactly, so a sum reached by any
//! sequence of updates is bit for bit the sum computed from scratch, and a board's value never
//! depends on what was evaluated before it. Floating-point sums would drift with the history.
//! The sums carry eight more bits than the activations, which are rounded once from them, so
//! the rounding of the twenty-odd weights added up stays out of the result.
//!
//! The scalar inputs (sheep in hand, dead sheep, side to move, placement) take few values, so
//! their contribution and the bias are one precomputed row per combination. Input encoding 2's
//! plane of sheep the tigers could capture changes at points where no piece moved, so it is not
//! kept: each evaluation computes its mask from the board and adds its rows to a copy of the
//! combination's row. The second layer multiplies the activations, rounded to 16 bits, by
//! 16-bit weights with `pmaddwd` (two products summed into 32 bits, eight products per
//! instruction on SSE2) through the `wide` crate, which was faster than loops left to the
//! compiler (docs/benchmarks.md); the output layer is in `f32`.
//!
//! Scales are chosen per net so that no sum can overflow for any board a game can reach (see
//! [`QuantizedNet::new`]); the value then differs from [`Network::forward`] only by rounding.

use wide::{f32x4, i16x8, i32x4, i32x8};

use crate::board::{DEAD_SHEEP_TO_WIN, GameBoard, TIGERS, TOTAL_SHEEP, each_point};
use crate::moves::Turn;
use crate::network::{
	DEAD_INPUT, Encoding, IN_HAND_INPUT, INPUTS, JUMP_INPUTS, MAX_HIDDEN, Network, PLACEMENT_INPUT,
	SHEEP_INPUTS, TIGER_INPUTS, TIGER_TO_MOVE_INPUT, scalar_inputs_of,
};
use crate::pos::POINTS;

/// Units in a vector: eight 16-bit activations, or eight 32-bit sums.
const LANES: usize = 8;
/// The first layer's sums are kept 2^8 times finer than its activations.
const FINE_BITS: u32 = 8;
/// Second-layer outputs computed together: eight vectors of four 32-bit sums, which stay in
/// registers (x86-64 has sixteen) while the first layer's activations stream past.
const BLOCK: usize = 32;
/// Vectors of four sums in a block.
const GROUPS: usize = BLOCK / 4;
/// Piece inputs: a tiger or a sheep on each of the 25 points.
const PIECE_INPUTS: usize = SHEEP_INPUTS + 25;
/// Scalar combinations: sheep in hand (0..=20), dead sheep (0..=5), side to move.
const CONTEXTS: usize = (TOTAL_SHEEP as usize + 1) * (DEAD_SHEEP_TO_WIN as usize + 1) * 2;

/// A net's weights, quantised for evaluation in the search.
#[derive(Clone, Debug)]
pub struct QuantizedNet {
	/// First-layer width in vectors of eight (padded with zero weights).
	hidden1_vectors: usize,
	/// One row of `hidden1_vectors` per piece input, scaled by the first layer's fine scale.
	piece_rows: Vec<i32x8>,
	/// One row per point of encoding 2's plane of sheep the tigers could capture, at the same
	/// scale; empty for a net of encoding 1.
	jump_rows: Vec<i32x8>,
	/// One row per scalar combination ([`context_index`]): the bias plus the scalar inputs,
	/// plus half an activation unit so that the shift to activations rounds to nearest.
	context_rows: Vec<i32x8>,
	/// The second layer's weights, per block of [`BLOCK`] outputs, per pair of first-layer
	/// units: for each group of four outputs, the two units' weights interleaved
	/// (`w[2p][k], w[2p+1][k], w[2p][k+1], ...`), as `pmaddwd` pairs them.
	layer2: Vec<[i16x8; GROUPS]>,
	/// Turn the second layer's sums back into floats: 1 / (first scale * second scale), per
	/// output.
	layer2_scale: Vec<f32x4>,
	/// The second layer's bias, padded to whole blocks with zeros.
	layer2_bias: Vec<f32x4>,
	/// The output layer's weights, padded with zeros.
	output_weights: Vec<f32x4>,
	output_bias: f32,
}

/// The first layer's sum over the piece inputs of one board, for one [`QuantizedNet`].
///
/// [`QuantizedNet::value`] brings it from the board it last saw to the next one; a fresh
/// accumulator stands for an empty board.
#[derive(Clone, Debug)]
pub struct Accumulator {
	tigers: u32,
	sheep: u32,
	sums: [i32x8; MAX_HIDDEN / LANES],
}

impl Default for Accumulator {
	fn default() -> Accumulator {
		Accumulator {
			tigers: 0,
			sheep: 0,
			sums: [i32x8::ZERO; MAX_HIDDEN / LANES],
		}
	}
}

/// Where a board's scalar inputs find their row in `context_rows`.
#[inline]
fn context_index(board: GameBoard, turn: Turn) -> usize {
	context_index_of(
		usize::from(board.sheep_in_hand()),
		board.dead_sheep() as usize,
		turn,
	)
}

#[inline]
fn context_index_of(in_hand: usize, dead: usize, turn: Turn) -> usize {
	debug_assert!(in_hand <= TOTAL_SHEEP as usize && dead <= DEAD_SHEEP_TO_WIN as usize);
	((in_hand * (DEAD_SHEEP_TO_WIN as usize + 1) + dead) << 1) | usize::from(turn == Turn::Tiger)
}

/// The scalar inputs of every combination a game can reach, with its index.
fn contexts() -> impl Iterator<Item = (usize, [(usize, f32); 4])> {
	(0..=TOTAL_SHEEP).flat_map(|in_hand| {
		(0..=DEAD_SHEEP_TO_WIN.min(TOTAL_SHEEP - in_hand)).flat_map(move |dead| {
			[Turn::Sheep, Turn::Tiger].map(|turn| {
				let index = context_index_of(in_hand as usize, dead as usize, turn);
				(index, scalar_inputs_of(in_hand, dead, turn))
			})
		})
	})
}

impl QuantizedNet {
	/// Quantises `net`.
	///
	/// The first layer's scale makes the largest activation any reachable board can give fit
	/// in 16 bits: the bias, the scalar inputs at whichever end adds more, the four largest
	/// positive tiger weights and the twenty largest positive sheep weights (ReLU clips the
	/// rest to 0); in encoding 2 each sheep's weight with its point's plane weight added when
	/// that is positive, since the plane is set only where a sheep stands. The second layer's
	/// makes each weight fit in 16 bits and each output's sum of products, with every activation
	/// at its largest, fit in 32. So nothing overflows or saturates, and only rounding separates
	/// the result from the float net's.
	pub fn new(net: &Network) -> QuantizedNet {
		let shape = net.shape();
		let tensors = net.tensors();
		let first = FirstLayer {
			weights: tensors.w1,
			bias: tensors.b1,
			units: shape.hidden1,
			encoding: net.encoding(),
		};
		let (highest, scale1) = first.scale();
		let hidden1_vectors = shape.hidden1.div_ceil(LANES);
		let fine = scale1 * f64::from(1 << FINE_BITS);
		let second = SecondLayer {
			weights: tensors.w2,
			inputs: shape.hidden1,
			outputs: shape.hidden2,
		};
		// Rounding adds at most one unit to an activation.
		let activation_bounds: Vec<f64> = highest.iter().map(|h| h * scale1 + 1.0).collect();
		let scales2 = second.scales(&activation_bounds);
		let hidden2_padded = shape.hidden2.div_ceil(BLOCK) * BLOCK;
		let padded = |values: &[f32]| -> Vec<f32x4> {
			(0..hidden2_padded / 4)
				.map(|g| {
					f32x4::new(std::array::from_fn(|l| {
						*values.get(4 * g + l).unwrap_or(&0.0)
					}))
				})
				.collect()
		};
		let unscale2: Vec<f32> = scales2
			.iter()
			.map(|s| (1.0 / (scale1 * s)) as f32)
			.collect();
		QuantizedNet {
			hidden1_vectors,
			piece_rows: first.rows(0..PIECE_INPUTS, fine, hidden1_vectors),
			jump_rows: if net.encoding().has_jump_plane() {
				first.rows(JUMP_INPUTS..JUMP_INPUTS + POINTS, fine, hidden1_vectors)
			} else {
				Vec::new()
			},
			context_rows: first.context_rows(fine, hidden1_vectors),
			layer2: second.blocks(&scales2, hidden1_vectors, hidden2_padded),
			layer2_scale: padded(&unscale2),
			layer2_bias: padded(tensors.b2),
			output_weights: padded(tensors.w3),
			output_bias: tensors.b3,
		}
	}

	/// The value of a position, in `-1..1`, positive favouring tigers, with `accumulator`
	/// brought up to `board` on the way (by the points that changed, or from scratch when more
	/// changed than the board has pieces). The value does not depend on the accumulator's
	/// earlier board.
	#[inline]
	pub fn value(&self, accumulator: &mut Accumulator, board: GameBoard, turn: Turn) -> f32 {
		self.update(accumulator, board);
		let n = self.hidden1_vectors;
		let context = &self.context_rows[context_index(board, turn) * n..][..n];
		let sum = if self.jump_rows.is_empty() {
			self.output_sum(&accumulator.sums[..n], context)
		} else {
			let mut with_jumps = [i32x8::ZERO; MAX_HIDDEN / LANES];
			let with_jumps = &mut with_jumps[..n];
			with_jumps.copy_from_slice(context);
			for point in each_point(board.capturable_sheep()) {
				let row = &self.jump_rows[point.index() * n..][..n];
				with_jumps.iter_mut().zip(row).for_each(|(s, w)| *s += *w);
			}
			self.output_sum(&accumulator.sums[..n], with_jumps)
		};
		tanh(sum + self.output_bias)
	}

	/// Brings `accumulator` from its board to `board`.
	#[inline]
	fn update(&self, accumulator: &mut Accumulator, board: GameBoard) {
		let (tigers, sheep) = (board.tigers(), board.sheep());
		let changed =
			(tigers ^ accumulator.tigers).count_ones() + (sheep ^ accumulator.sheep).count_ones();
		if changed > tigers.count_ones() + sheep.count_ones() {
			accumulator.sums = [i32x8::ZERO; MAX_HIDDEN / LANES];
			accumulator.tigers = 0;
			accumulator.sheep = 0;
		}
		let gone = [
			(accumulator.tigers & !tigers, TIGER_INPUTS),
			(accumulator.sheep & !sheep, SHEEP_INPUTS),
		];
		let came = [
			(tigers & !accumulator.tigers, TIGER_INPUTS),
			(sheep & !accumulator.sheep, SHEEP_INPUTS),
		];
		let n = self.hidden1_vectors;
		let sums = &mut accumulator.sums[..n];
		for (mask, first) in gone {
			for point in each_point(mask) {
				let row = &self.piece_rows[(first + point.index()) * n..][..n];
				sums.iter_mut().zip(row).for_each(|(s, w)| *s -= *w);
			}
		}
		for (mask, first) in came {
			for point in each_point(mask) {
				let row = &self.piece_rows[(first + point.index()) * n..][..n];
				sums.iter_mut().zip(row).for_each(|(s, w)| *s += *w);
			}
		}
		accumulator.tigers = tigers;
		accumulator.sheep = sheep;
	}

	/// The output before its bias and tanh, from the first layer's sums over the pieces and
	/// over the scalar inputs: their activations are rounded to 16 bits as they are used.
	#[inline]
	fn output_sum(&self, pieces: &[i32x8], context: &[i32x8]) -> f32 {
		let pairs = pieces.len() * LANES / 2;
		let mut total = f32x4::ZERO;
		for block in 0..self.layer2_bias.len() / GROUPS {
			let mut weights = self.layer2[block * pairs..][..pairs].iter();
			let mut sums = [i32x4::ZERO; GROUPS];
			for (p, c) in pieces.iter().zip(context) {
				let activations = i16x8::from_i32x8_saturate((*p + *c) >> FINE_BITS);
				let activations = activations.max(i16x8::ZERO).to_array();
				for (pair, weights) in activations.chunks_exact(2).zip(weights.by_ref()) {
					let (x0, x1) = (pair[0], pair[1]);
					let x = i16x8::new([x0, x1, x0, x1, x0, x1, x0, x1]);
					for (sum, w) in sums.iter_mut().zip(weights) {
						*sum += x.dot(*w);
					}
				}
			}
			let scale = &self.layer2_scale[block * GROUPS..][..GROUPS];
			let bias = &self.layer2_bias[block * GROUPS..][..GROUPS];
			let out = &self.output_weights[block * GROUPS..][..GROUPS];
			for (((sum, s), b), w) in sums.iter().zip(scale).zip(bias).zip(out) {
				let hidden = (sum.round_float() * *s + *b).fast_max(f32x4::ZERO);
				total += hidden * *w;
			}
		}
		total.reduce_add()
	}
}

/// tanh as a rational function (odd numerator of degree 13 over even denominator of degree
/// 6, clamped where tanh rounds to ±1 in `f32`).
#[inline]
fn tanh(x: f32) -> f32 {
	let x = x.clamp(-7.905_311, 7.905_311);
	let x2 = x * x;
	let p = x2 * -2.760_768_5e-16 + 2.000_188e-13;
	let p = x2 * p + -8.604_672e-11;
	let p = x2 * p + 5.122_297e-8;
	let p = x2 * p + 1.485_722_4e-5;
	let p = x2 * p + 6.372_619_3e-4;
	let p = x2 * p + 4.893_524_6e-3;
	let q = x2 * 1.198_258_4e-6 + 1.185_347_1e-4;
	let q = x2 * q + 2.268_434_6e-3;
	let q = x2 * q + 4.893_525e-3;
	x * p / q
}

/// The float net's first layer, to be quantised.
struct FirstLayer<'a> {
	/// `encoding.inputs()` rows of `units`.
	weights: &'a [f32],
	bias: &'a [f32],
	units: usize,
	encoding: Encoding,
}

impl FirstLayer<'_> {
	fn weight(&self, input: usize, unit: usize) -> f64 {
		f64::from(self.weights[input * self.units + unit])
	}

	/// Unit `unit`'s scalar weights and its largest piece weights, each mapped by `part`
	/// first: four tigers and twenty sheep at most are on the board.
	///
	/// In encoding 2 a point's plane input is set only while a sheep stands there, so a sheep
	/// point adds its sheep weight, or that and its plane weight: at most `part(sheep weight)`
	/// plus `part(plane weight)` for both maps used (the positive part, and the magnitude),
	/// whichever the plane's input. Summing the twenty largest of those bounds every board.
	fn sum_of_largest(&self, unit: usize, part: &dyn Fn(f64) -> f64) -> f64 {
		let largest = |values: &mut Vec<f64>, count: usize| {
			values.sort_by(|a, b| b.total_cmp(a));
			values.iter().take(count).sum::<f64>()
		};
		let parts = |inputs: std::ops::Range<usize>| -> Vec<f64> {
			inputs.map(|i| part(self.weight(i, unit))).collect()
		};
		let mut sheep = parts(SHEEP_INPUTS..PIECE_INPUTS);
		if self.encoding.has_jump_plane() {
			let plane = parts(JUMP_INPUTS..JUMP_INPUTS + POINTS);
			sheep.iter_mut().zip(plane).for_each(|(s, p)| *s += p);
		}
		let scalars: f64 = [
			IN_HAND_INPUT,
			DEAD_INPUT,
			TIGER_TO_MOVE_INPUT,
			PLACEMENT_INPUT,
		]
		.iter()
		.map(|&i| part(self.weight(i, unit)))
		.sum();
		scalars
			+ largest(&mut parts(TIGER_INPUTS..SHEEP_INPUTS), TIGERS as usize)
			+ largest(&mut sheep, TOTAL_SHEEP as usize)
	}

	/// Each unit's largest activation over every reachable board, and the scale that fits the
	/// largest in 16 bits (two units of headroom for rounding) while no sum of the weights'
	/// magnitudes reaches 2^30 at the fine scale.
	fn scale(&self) -> (Vec<f64>, f64) {
		let highest: Vec<f64> = (0..self.units)
			.map(|j| (f64::from(self.bias[j]) + self.sum_of_largest(j, &|w| w.max(0.0))).max(0.0))
			.collect();
		let magnitude = (0..self.units)
			.map(|j| f64::from(self.bias[j]).abs() + self.sum_of_largest(j, &f64::abs))
			.fold(0.0, f64::max);
		let scale = scale_for(highest.iter().copied().fold(0.0, f64::max), 32_765.0)
			.min(scale_for(magnitude, f64::from(1 << (30 - FINE_BITS))));
		(highest, scale)
	}

	/// One row of the units' values at the fine scale, padded to whole vectors with zeros.
	fn row(&self, fine: f64, vectors: usize, values: &dyn Fn(usize) -> f64) -> Vec<i32x8> {
		(0..vectors)
			.map(|v| {
				i32x8::new(std::array::from_fn(|lane| {
					let unit = v * LANES + lane;
					if unit < self.units {
						(values(unit) * fine).round() as i32
					} else {
						0
					}
				}))
			})
			.collect()
	}

	/// A row per input of `inputs` (piece or plane inputs, all 0 or 1), in input order.
	fn rows(&self, inputs: std::ops::Range<usize>, fine: f64, vectors: usize) -> Vec<i32x8> {
		inputs
			.flat_map(|input| self.row(fine, vectors, &|unit| self.weight(input, unit)))
			.collect()
	}

	/// A row per combination of scalar inputs: the bias and the scalars' contribution, plus
	/// half a fine unit so that the shift back to the coarse scale rounds.
	fn context_rows(&self, fine: f64, vectors: usize) -> Vec<i32x8> {
		let half = i32x8::splat(1 << (FINE_BITS - 1));
		let mut rows = vec![i32x8::ZERO; CONTEXTS * vectors];
		for (index, scalars) in contexts() {
			let values = self.row(fine, vectors, &|unit| {
				f64::from(self.bias[unit])
					+ scalars
						.iter()
						.map(|&(input, x)| f64::from(x) * self.weight(input, unit))
						.sum::<f64>()
			});
			for (slot, value) in rows[index * vectors..].iter_mut().zip(values) {
				*slot = value + half;
			}
		}
		rows
	}
}

/// The float net's second layer, to be quantised.
struct SecondLayer<'a> {
	/// `inputs` rows of `outputs`.
	weights: &'a [f32],
	inputs: usize,
	outputs: usize,
}

impl SecondLayer<'_> {
	/// One scale per output: its weights within 16 bits, and its sum of products (each
	/// activation at most its bound, in first-layer units) within 32 bits with room for the
	/// rounding of every activation.
	fn scales(&self, activation_bounds: &[f64]) -> Vec<f64> {
		let rounding: f64 = activation_bounds.iter().map(|bound| 0.5 * bound).sum();
		(0..self.outputs)
			.map(|k| {
				let column =
					(0..self.inputs).map(|j| f64::from(self.weights[j * self.outputs + k]).abs());
				let sum = column
					.clone()
					.zip(activation_bounds)
					.map(|(w, bound)| bound * w)
					.sum::<f64>();
				scale_for(sum, f64::from(i32::MAX) - rounding)
					.min(scale_for(column.fold(0.0, f64::max), 32_767.0))
			})
			.collect()
	}

	/// The weights in 16 bits, laid out for the search's inner loop: by blocks of `BLOCK`
	/// outputs, then by pairs of inputs, each vector holding two inputs for four outputs.
	fn blocks(
		&self,
		scales: &[f64],
		hidden1_vectors: usize,
		padded_outputs: usize,
	) -> Vec<[i16x8; GROUPS]> {
		let weight = |j: usize, k: usize| -> i16 {
			if j < self.inputs && k < self.outputs {
				(f64::from(self.weights[j * self.outputs + k]) * scales[k]).round() as i16
			} else {
				0
			}
		};
		let pairs = hidden1_vectors * LANES / 2;
		let mut blocks = Vec::with_capacity(padded_outputs / BLOCK * pairs);
		for block in 0..padded_outputs / BLOCK {
			for pair in 0..pairs {
				blocks.push(std::array::from_fn(|group| {
					i16x8::new(std::array::from_fn(|lane| {
						let output = block * BLOCK + group * 4 + lane / 2;
						weight(2 * pair + lane % 2, output)
					}))
				}));
			}
		}
		blocks
	}
}

/// The scale that maps `largest` to `limit` (1 when there is nothing to scale).
fn scale_for(largest: f64, limit: f64) -> f64 {
	if largest > 0.0 { limit / largest } else { 1.0 }
}

const _: () = assert!(INPUTS == PIECE_INPUTS + 4);

#[cfg(test)]
mod tests {
	use rand::{RngExt, SeedableRng};
	use rand_xoshiro::Xoshiro256PlusPlus;

	use super::*;
	use crate::network::{Shape, forward_dense};

	/// The positions of seeded random games, in the order they were played.
	fn random_game_positions(games: u64) -> Vec<(GameBoard, Turn)> {
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(games);
		let mut positions = Vec::new();
		for _ in 0..games {
			let (mut board, mut turn) = (GameBoard::default(), Turn::Sheep);
			for _ in 0..120 {
				positions.push((board, turn));
				let moves = board.get_moves(turn);
				if moves.is_empty() || board.outcome(turn).is_some() {
					break;
				}
				board.make_move_unchecked(moves[rng.random_range(0..moves.len())]);
				turn = turn.opponent();
			}
		}
		positions
	}

	/// Fresh nets reading `encoding`, and fresh nets with every layer scaled up so that
	/// activations and the output range are as large as a trained net's (whose output reaches
	/// ±0.9).
	fn nets(encoding: Encoding) -> Vec<Network> {
		let mut nets = Vec::new();
		for seed in 0..4 {
			let net = Network::with_encoding(Shape::default(), encoding, seed);
			let mut params = net.params().to_vec();
			let layout = net.layout();
			for (tensor, factor) in [(0, 2.0), (2, 1.5), (4, 8.0)] {
				let (_, start, [rows, cols]) = layout[tensor];
				params[start..start + rows * cols]
					.iter_mut()
					.for_each(|w| *w *= factor);
			}
			nets.push(Network::from_parts(net.shape(), encoding, params, 0));
			nets.push(net);
		}
		nets.push(Network::with_encoding(
			Shape {
				hidden1: 13,
				hidden2: 5,
			},
			encoding,
			9,
		));
		nets
	}

	/// The largest difference between the quantised and the dense float values of `nets` over
	/// `positions`; each net must say something (values beyond ±0.01).
	fn largest_difference(nets: &[Network], positions: &[(GameBoard, Turn)]) -> f32 {
		let mut largest = 0.0f32;
		for net in nets {
			let quantized = QuantizedNet::new(net);
			let mut accumulator = Accumulator::default();
			let mut spread = 0.0f32;
			for &(board, turn) in positions {
				let fast = quantized.value(&mut accumulator, board, turn);
				let dense = forward_dense(net, board, turn);
				largest = largest.max((fast - dense).abs());
				spread = spread.max(dense.abs());
			}
			assert!(spread > 0.01, "the net says something: {spread}");
		}
		largest
	}

	#[test]
	fn every_context_has_its_own_row() {
		let mut seen = vec![false; CONTEXTS];
		for (index, _) in contexts() {
			assert!(!seen[index], "context {index} twice");
			seen[index] = true;
		}
		// In hand and dead add up to at most 20: all but the 15 rows with 16..=20 in hand and
		// more dead than 20 - in hand, on either side to move.
		assert_eq!(seen.iter().filter(|s| **s).count(), CONTEXTS - 2 * 15);
	}

	#[test]
	fn tanh_is_within_a_millionth() {
		let mut worst = 0.0f64;
		for i in -120_000..=120_000 {
			let x = i as f32 * 1e-4;
			worst = worst.max((f64::from(tanh(x)) - f64::from(x).tanh()).abs());
		}
		assert!(worst < 1e-6, "{worst}");
		assert_eq!(tanh(1e9), tanh(7.905_311));
		assert!(tanh(-1e9) >= -1.0 && tanh(1e9) <= 1.0);
	}

	/// Quantisation changes a value by rounding only. The largest differences seen here were
	/// 1.4e-4 for the fresh nets and 2.3e-3 for the scaled ones, whose outputs reach ±1 where
	/// tanh is steepest for their large output weights; the tolerance leaves twice that.
	#[test]
	fn values_agree_with_the_dense_float_net() {
		let positions = random_game_positions(60);
		assert!(positions.len() > 2000, "{}", positions.len());
		let largest = largest_difference(&nets(Encoding::V1), &positions);
		assert!(largest < 5e-3, "largest difference {largest}");
	}

	/// The same for nets reading encoding 2, whose plane is added per evaluation; the random
	/// games' positions offer the tigers captures often enough to test it.
	#[test]
	fn values_of_encoding_2_agree_with_the_dense_float_net() {
		let positions = random_game_positions(60);
		let with_captures = positions
			.iter()
			.filter(|(board, _)| board.capturable_sheep() != 0)
			.count();
		assert!(with_captures > 500, "{with_captures}");
		let largest = largest_difference(&nets(Encoding::V2), &positions);
		assert!(largest < 5e-3, "largest difference {largest}");
	}

	/// A net of encoding 2 whose plane weights alone are large: the values follow the plane
	/// (a net blind to it would say the same for boards that differ only there), and the
	/// bound on the sums keeps them from overflowing.
	#[test]
	fn the_plane_moves_the_quantised_value_as_it_moves_the_float_one() {
		let net = Network::with_encoding(Shape::default(), Encoding::V2, 3);
		let mut params = net.params().to_vec();
		let (_, start, [_, hidden1]) = net.layout()[0];
		params[start + JUMP_INPUTS * hidden1..][..POINTS * hidden1]
			.iter_mut()
			.for_each(|w| *w *= 40.0);
		let net = Network::from_parts(net.shape(), Encoding::V2, params, 0);
		let positions = random_game_positions(20);
		assert!(largest_difference(std::slice::from_ref(&net), &positions) < 5e-3);
		let blind = QuantizedNet::new(&Network::from_parts(
			net.shape(),
			Encoding::V1,
			net.params()[..INPUTS * hidden1]
				.iter()
				.chain(&net.params()[(INPUTS + POINTS) * hidden1..])
				.copied()
				.collect(),
			0,
		));
		let seeing = QuantizedNet::new(&net);
		let moved = positions
			.iter()
			.filter(|(board, turn)| {
				let [a, b] =
					[&seeing, &blind].map(|q| q.value(&mut Accumulator::default(), *board, *turn));
				board.capturable_sheep() != 0 && (a - b).abs() > 0.01
			})
			.count();
		assert!(moved > 50, "{moved}");
	}

	/// The first layer's sums reached by updates are the sums from scratch, bit for bit, after
	/// any history: whole games move by move, and jumps between unrelated positions.
	#[test]
	fn incremental_values_are_the_values_from_scratch() {
		let positions = random_game_positions(40);
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
		let nets = [nets(Encoding::V1), nets(Encoding::V2)].concat();
		for net in nets {
			let quantized = QuantizedNet::new(&net);
			let mut accumulator = Accumulator::default();
			for step in 0..positions.len() * 2 {
				// In order, then in random order.
				let (board, turn) = if step < positions.len() {
					positions[step]
				} else {
					positions[rng.random_range(0..positions.len())]
				};
				let updated = quantized.value(&mut accumulator, board, turn);
				let fresh = quantized.value(&mut Accumulator::default(), board, turn);
				assert_eq!(updated.to_bits(), fresh.to_bits(), "step {step}");
				let mut scratch = Accumulator::default();
				quantized.update(&mut scratch, board);
				assert_eq!(
					accumulator.sums.map(|v| v.to_array()),
					scratch.sums.map(|v| v.to_array())
				);
			}
		}
	}

	#[test]
	fn a_net_of_zeros_says_zero() {
		let shape = Shape::default();
		let net = Network::from_parts(
			shape,
			Encoding::V1,
			vec![0.0; shape.parameters(Encoding::V1)],
			0,
		);
		let value = QuantizedNet::new(&net).value(
			&mut Accumulator::default(),
			GameBoard::default(),
			Turn::Sheep,
		);
		assert_eq!(value, 0.0);
	}
}
