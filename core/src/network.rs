//! `Network`: a small multilayer perceptron that scores positions, its input encoding, and a
//! forward pass without allocation.
//!
//! - [`encoding`]: the input encodings by version, [`Encoding`];
//! - [`file`](mod@file): the safetensors file format for nets and optimizer state;
//! - [`quantized`]: the net in integers, with an incrementally updated first layer, for the
//!   search;
//! - [`train`]: gradients by backpropagation and the Adam optimiser.
//!
//! The net maps a position to a value in `-1..1`, positive favouring tigers:
//!
//! ```text
//! input (54 or 79) --W1,b1--> ReLU (hidden1) --W2,b2--> ReLU (hidden2) --W3,b3--> tanh (1)
//! ```
//!
//! Every layer computes `y = x W + b` with `W` stored input-major (`[inputs, outputs]`), so the
//! first layer can add up the rows of the few inputs that are set instead of multiplying by a
//! mostly-zero vector.

pub mod encoding;
pub mod file;
pub mod quantized;
pub mod train;

pub(crate) use encoding::JUMP_INPUTS;
pub use encoding::{Encoding, EncodingError, INPUTS, MAX_INPUTS};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::board::{DEAD_SHEEP_TO_WIN, GameBoard, TOTAL_SHEEP, each_point};
use crate::moves::Turn;

// Inputs, in this order ([`Encoding::V1`]; [`Encoding::V2`] adds 25 after them):
//
// | index | input |
// |---|---|
// | 0..25 | 1 if a tiger stands on point `i` (index `x + 5y`, `a5` = 0) |
// | 25..50 | 1 if a sheep stands on point `i - 25` |
// | 50 | sheep in hand / 20 |
// | 51 | dead sheep / 5 |
// | 52 | 1 if the tigers are to move |
// | 53 | 1 while sheep remain in hand (the placement phase) |
// | 54..79 | version 2 only: 1 if the sheep on point `i - 54` could be jumped now by a tiger |
const TIGER_INPUTS: usize = 0;
const SHEEP_INPUTS: usize = 25;
const IN_HAND_INPUT: usize = 50;
const DEAD_INPUT: usize = 51;
const TIGER_TO_MOVE_INPUT: usize = 52;
const PLACEMENT_INPUT: usize = 53;

/// The widest hidden layer the forward pass has stack room for.
pub const MAX_HIDDEN: usize = 256;

/// Hidden layer widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
	/// Width of the first hidden layer (1..=256).
	pub hidden1: usize,
	/// Width of the second hidden layer (1..=256).
	pub hidden2: usize,
}

impl Default for Shape {
	/// 64 and 32: enough to learn this game's patterns, small enough that a search with the
	/// net still visits over a million positions a second (see docs/benchmarks.md).
	fn default() -> Shape {
		Shape {
			hidden1: 64,
			hidden2: 32,
		}
	}
}

impl Shape {
	/// The number of parameters of a net of this shape reading `encoding`: weights and biases
	/// of all three layers.
	pub const fn parameters(self, encoding: Encoding) -> usize {
		encoding.inputs() * self.hidden1
			+ self.hidden1
			+ self.hidden1 * self.hidden2
			+ self.hidden2
			+ self.hidden2
			+ 1
	}

	/// Whether both widths are within `1..=MAX_HIDDEN`.
	pub const fn is_valid(self) -> bool {
		self.hidden1 >= 1
			&& self.hidden1 <= MAX_HIDDEN
			&& self.hidden2 >= 1
			&& self.hidden2 <= MAX_HIDDEN
	}

	/// Where each tensor starts in the flat parameter vector of a net reading `encoding`, in
	/// file order.
	pub(crate) fn layout(self, encoding: Encoding) -> [(&'static str, usize, [usize; 2]); 6] {
		let (h1, h2) = (self.hidden1, self.hidden2);
		let inputs = encoding.inputs();
		let w1 = 0;
		let b1 = w1 + inputs * h1;
		let w2 = b1 + h1;
		let b2 = w2 + h1 * h2;
		let w3 = b2 + h2;
		let b3 = w3 + h2;
		[
			("layer1.weight", w1, [inputs, h1]),
			("layer1.bias", b1, [h1, 0]),
			("layer2.weight", w2, [h1, h2]),
			("layer2.bias", b2, [h2, 0]),
			("output.weight", w3, [h2, 1]),
			("output.bias", b3, [1, 0]),
		]
	}
}

/// The text of a shape as settings take it: the two widths joined by `x`, e.g. `64x32`.
impl std::fmt::Display for Shape {
	fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
		write!(f, "{}x{}", self.hidden1, self.hidden2)
	}
}

/// Why a shape's text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
	"{0:?} is not a net shape: write the two hidden widths joined by x, each 1 to {MAX_HIDDEN}, \
	 e.g. 128x64"
)]
pub struct ShapeError(pub String);

impl std::str::FromStr for Shape {
	type Err = ShapeError;

	fn from_str(text: &str) -> Result<Shape, ShapeError> {
		let refuse = || ShapeError(text.to_string());
		let (first, second) = text.split_once(['x', 'X']).ok_or_else(refuse)?;
		let width = |part: &str| part.trim().parse::<usize>().map_err(|_| refuse());
		let shape = Shape {
			hidden1: width(first)?,
			hidden2: width(second)?,
		};
		if shape.is_valid() {
			Ok(shape)
		} else {
			Err(refuse())
		}
	}
}

/// A value network: weights, shape, input encoding and the generation that produced it.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
	shape: Shape,
	/// The inputs the first layer reads, one row of weights each.
	encoding: Encoding,
	/// All weights and biases, tensor after tensor as in [`Shape::layout`].
	params: Vec<f32>,
	/// How many promotions led to this net; 0 for a fresh one.
	pub generation: u64,
}

impl Network {
	/// A fresh net reading [`Encoding::V1`], with weights drawn from `seed`: see
	/// [`Network::with_encoding`].
	///
	/// # Panics
	///
	/// If the shape is not valid (a programming error: shapes come from settings checked first).
	pub fn new(shape: Shape, seed: u64) -> Network {
		Network::with_encoding(shape, Encoding::V1, seed)
	}

	/// A fresh net reading `encoding`, with weights drawn from `seed`: He-uniform for the ReLU
	/// layers, small for the output so a new net starts near 0 everywhere. The same seed gives
	/// the same net.
	///
	/// # Panics
	///
	/// If the shape is not valid (a programming error: shapes come from settings checked first).
	pub fn with_encoding(shape: Shape, encoding: Encoding, seed: u64) -> Network {
		assert!(
			shape.is_valid(),
			"hidden widths must be 1..={MAX_HIDDEN}: {shape:?}"
		);
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
		let mut params = vec![0.0; shape.parameters(encoding)];
		let layout = shape.layout(encoding);
		let mut fill = |tensor: usize, fan_in: usize, scale: f32| {
			let (_, start, [rows, cols]) = layout[tensor];
			let limit = scale * (6.0 / fan_in as f32).sqrt();
			for p in &mut params[start..start + rows * cols.max(1)] {
				*p = rng.random_range(-limit..limit);
			}
		};
		// The inputs are sparse (about 10 of 54 set, a few more of version 2's 79), so the first
		// layer's fan-in is taken as the typical number of active inputs rather than all of them.
		fill(0, 12, 1.0);
		fill(2, shape.hidden1, 1.0);
		fill(4, shape.hidden2, 0.1);
		Network {
			shape,
			encoding,
			params,
			generation: 0,
		}
	}

	/// The hidden layer widths.
	pub fn shape(&self) -> Shape {
		self.shape
	}

	/// The inputs the net reads.
	pub fn encoding(&self) -> Encoding {
		self.encoding
	}

	/// Where each tensor starts in the parameters, in file order.
	pub(crate) fn layout(&self) -> [(&'static str, usize, [usize; 2]); 6] {
		self.shape.layout(self.encoding)
	}

	/// All parameters, in file order.
	pub fn params(&self) -> &[f32] {
		&self.params
	}

	/// All parameters, for the optimiser.
	pub(crate) fn params_mut(&mut self) -> &mut [f32] {
		&mut self.params
	}

	/// A net from a shape, an encoding and parameters (as read from a file); `params` must
	/// have the size the two need.
	pub(crate) fn from_parts(
		shape: Shape,
		encoding: Encoding,
		params: Vec<f32>,
		generation: u64,
	) -> Network {
		debug_assert_eq!(params.len(), shape.parameters(encoding));
		Network {
			shape,
			encoding,
			params,
			generation,
		}
	}

	fn tensor(&self, index: usize) -> &[f32] {
		let (_, start, [rows, cols]) = self.layout()[index];
		&self.params[start..start + rows * cols.max(1)]
	}

	/// The six tensors by name, borrowed from the parameters.
	pub(crate) fn tensors(&self) -> Tensors<'_> {
		Tensors {
			w1: self.tensor(0),
			b1: self.tensor(1),
			w2: self.tensor(2),
			b2: self.tensor(3),
			w3: self.tensor(4),
			b3: self.tensor(5)[0],
		}
	}

	/// The value of a position, in `-1..1`, positive favouring tigers.
	///
	/// The board is evaluated as given, in `f32`: the reference for the training code and for
	/// the quantised copy the search evaluates with ([`quantized::QuantizedNet`]).
	pub fn forward(&self, board: GameBoard, turn: Turn) -> f32 {
		let (h1, h2) = (self.shape.hidden1, self.shape.hidden2);
		let Tensors {
			w1,
			b1,
			w2,
			b2,
			w3,
			b3,
		} = self.tensors();
		let row = |input: usize| &w1[input * h1..(input + 1) * h1];

		// Layer 1: add the rows of the inputs that are set (or scaled, for the counts).
		let mut hidden1 = [0.0f32; MAX_HIDDEN];
		let hidden1 = &mut hidden1[..h1];
		hidden1.copy_from_slice(b1);
		for point in each_point(board.tigers()) {
			add_scaled(hidden1, row(TIGER_INPUTS + point.index()), 1.0);
		}
		for point in each_point(board.sheep()) {
			add_scaled(hidden1, row(SHEEP_INPUTS + point.index()), 1.0);
		}
		for (input, value) in scalar_inputs(board, turn) {
			if value != 0.0 {
				add_scaled(hidden1, row(input), value);
			}
		}
		if self.encoding.has_jump_plane() {
			for point in each_point(board.capturable_sheep()) {
				add_scaled(hidden1, row(JUMP_INPUTS + point.index()), 1.0);
			}
		}
		relu(hidden1);

		// Layer 2: a weighted sum of rows again, skipping the units ReLU switched off.
		let mut hidden2 = [0.0f32; MAX_HIDDEN];
		let hidden2 = &mut hidden2[..h2];
		hidden2.copy_from_slice(b2);
		for (j, &activation) in hidden1.iter().enumerate() {
			if activation > 0.0 {
				add_scaled(hidden2, &w2[j * h2..(j + 1) * h2], activation);
			}
		}
		relu(hidden2);

		let out: f32 = hidden2.iter().zip(w3).map(|(a, w)| a * w).sum::<f32>() + b3;
		out.tanh()
	}
}

/// A net's six tensors by name: each layer's weights (row by row, one row per input of the
/// layer) and biases, the output layer's one bias as a number.
pub(crate) struct Tensors<'a> {
	/// The first layer's weights, one row of `hidden1` per input of the net's encoding.
	pub(crate) w1: &'a [f32],
	/// The first layer's biases.
	pub(crate) b1: &'a [f32],
	/// The second layer's weights, `hidden1` rows of `hidden2`.
	pub(crate) w2: &'a [f32],
	/// The second layer's biases.
	pub(crate) b2: &'a [f32],
	/// The output's weights, one per second-layer unit.
	pub(crate) w3: &'a [f32],
	/// The output's bias.
	pub(crate) b3: f32,
}

/// The inputs that are not piece points, with their values.
fn scalar_inputs(board: GameBoard, turn: Turn) -> [(usize, f32); 4] {
	scalar_inputs_of(u32::from(board.sheep_in_hand()), board.dead_sheep(), turn)
}

/// The inputs that are not piece points, from the counts they read.
fn scalar_inputs_of(in_hand: u32, dead: u32, turn: Turn) -> [(usize, f32); 4] {
	[
		(IN_HAND_INPUT, in_hand as f32 / TOTAL_SHEEP as f32),
		(DEAD_INPUT, dead as f32 / DEAD_SHEEP_TO_WIN as f32),
		(
			TIGER_TO_MOVE_INPUT,
			if turn == Turn::Tiger { 1.0 } else { 0.0 },
		),
		(PLACEMENT_INPUT, if in_hand > 0 { 1.0 } else { 0.0 }),
	]
}

/// The input vector of a position in [`Encoding::V1`], dense (for tools and tests).
pub fn encode(board: GameBoard, turn: Turn) -> [f32; INPUTS] {
	let input = encode_as(Encoding::V1, board, turn);
	std::array::from_fn(|i| input[i])
}

/// The input vector of a position in `encoding`, dense: its first `encoding.inputs()` entries,
/// the rest 0.
pub fn encode_as(encoding: Encoding, board: GameBoard, turn: Turn) -> [f32; MAX_INPUTS] {
	let mut input = [0.0; MAX_INPUTS];
	for point in each_point(board.tigers()) {
		input[TIGER_INPUTS + point.index()] = 1.0;
	}
	for point in each_point(board.sheep()) {
		input[SHEEP_INPUTS + point.index()] = 1.0;
	}
	for (index, value) in scalar_inputs(board, turn) {
		input[index] = value;
	}
	if encoding.has_jump_plane() {
		for point in each_point(board.capturable_sheep()) {
			input[JUMP_INPUTS + point.index()] = 1.0;
		}
	}
	input
}

#[inline]
fn add_scaled(acc: &mut [f32], row: &[f32], scale: f32) {
	for (a, w) in acc.iter_mut().zip(row) {
		*a += w * scale;
	}
}

#[inline]
fn relu(values: &mut [f32]) {
	for v in values {
		*v = v.max(0.0);
	}
}

/// The forward pass written the slow way: dense matrix products over the encoded input.
#[cfg(test)]
pub(crate) fn forward_dense(net: &Network, board: GameBoard, turn: Turn) -> f32 {
	let Shape { hidden1, hidden2 } = net.shape();
	let x = encode_as(net.encoding(), board, turn);
	let x = &x[..net.encoding().inputs()];
	let layer = |x: &[f32], w: &[f32], b: &[f32], outputs: usize| -> Vec<f32> {
		(0..outputs)
			.map(|o| {
				b[o] + x
					.iter()
					.enumerate()
					.map(|(i, xi)| xi * w[i * outputs + o])
					.sum::<f32>()
			})
			.collect()
	};
	let h1: Vec<f32> = layer(x, net.tensor(0), net.tensor(1), hidden1)
		.into_iter()
		.map(|v| v.max(0.0))
		.collect();
	let h2: Vec<f32> = layer(&h1, net.tensor(2), net.tensor(3), hidden2)
		.into_iter()
		.map(|v| v.max(0.0))
		.collect();
	layer(&h2, net.tensor(4), net.tensor(5), 1)[0].tanh()
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::position::{NAMED_POSITIONS, Position};

	#[test]
	fn sparse_forward_matches_dense_products() {
		let net = Network::new(Shape::default(), 3);
		for (_, text) in NAMED_POSITIONS {
			let p: Position = text.parse().unwrap();
			let fast = net.forward(p.board, p.turn);
			let slow = forward_dense(&net, p.board, p.turn);
			assert!((fast - slow).abs() < 1e-5, "{text}: {fast} vs {slow}");
			assert!(fast > -1.0 && fast < 1.0);
		}
	}

	#[test]
	fn seeds_reproduce_and_differ() {
		assert_eq!(
			Network::new(Shape::default(), 7),
			Network::new(Shape::default(), 7)
		);
		assert_ne!(
			Network::new(Shape::default(), 7),
			Network::new(Shape::default(), 8)
		);
	}

	#[test]
	fn encoding_marks_pieces_and_counts() {
		let p: Position = "T.S.T/.SSS./..T../S...S/...T. t 12".parse().unwrap();
		let x = encode(p.board, p.turn);
		assert_eq!(x[..25].iter().sum::<f32>(), 4.0);
		assert_eq!(x[25..50].iter().sum::<f32>(), 6.0);
		assert_eq!(x[SHEEP_INPUTS + 2], 1.0, "c5 holds a sheep");
		assert_eq!(x[IN_HAND_INPUT], 12.0 / 20.0);
		assert_eq!(x[DEAD_INPUT], 2.0 / 5.0);
		assert_eq!(x[TIGER_TO_MOVE_INPUT], 1.0);
		assert_eq!(x[PLACEMENT_INPUT], 1.0);
	}

	#[test]
	fn encoding_2_adds_the_capturable_sheep_after_version_1s_inputs() {
		// The tiger on c3 can jump the sheep on c2 (onto c1) and d2 (onto e1), not b4 (a5 is
		// taken); the tigers' turn or not.
		for text in [
			"S..TT/.S.../..T../..SS./T.... t 16",
			"S..TT/.S.../..T../..SS./T.... s 16",
		] {
			let p: Position = text.parse().unwrap();
			let version_1 = encode(p.board, p.turn);
			let version_2 = encode_as(Encoding::V2, p.board, p.turn);
			assert_eq!(version_2[..INPUTS], version_1);
			let plane: Vec<usize> = (0..25)
				.filter(|i| version_2[JUMP_INPUTS + i] == 1.0)
				.collect();
			assert_eq!(plane, [17, 18], "c2 and d2 (x + 5y)");
			assert_eq!(version_2[JUMP_INPUTS..].iter().sum::<f32>(), 2.0);
			assert!(
				encode_as(Encoding::V1, p.board, p.turn)[INPUTS..]
					.iter()
					.all(|x| *x == 0.0)
			);
		}
	}

	#[test]
	fn shapes_read_and_print_as_widths_joined_by_x() {
		assert_eq!(Shape::default().to_string(), "64x32");
		assert_eq!("64x32".parse::<Shape>(), Ok(Shape::default()));
		assert_eq!(
			"128X64".parse::<Shape>(),
			Ok(Shape {
				hidden1: 128,
				hidden2: 64
			})
		);
		for bad in [
			"", "64", "64x", "x32", "0x32", "64x257", "64x32x16", "-1x3", "a x b",
		] {
			let error = bad.parse::<Shape>().expect_err(bad);
			assert!(error.to_string().contains("e.g. 128x64"), "{error}");
		}
	}

	#[test]
	fn parameter_count_matches_layout() {
		let shape = Shape {
			hidden1: 8,
			hidden2: 4,
		};
		let layout = shape.layout(Encoding::V1);
		let (_, last_start, _) = layout[5];
		assert_eq!(last_start + 1, shape.parameters(Encoding::V1));
		assert_eq!(
			shape.parameters(Encoding::V1),
			54 * 8 + 8 + 8 * 4 + 4 + 4 + 1
		);
		let (_, last_start, _) = shape.layout(Encoding::V2)[5];
		assert_eq!(last_start + 1, shape.parameters(Encoding::V2));
		assert_eq!(
			shape.parameters(Encoding::V2),
			79 * 8 + 8 + 8 * 4 + 4 + 4 + 1
		);
	}
}
