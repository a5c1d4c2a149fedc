//! Training: the mean squared error's gradient by backpropagation, and the Adam optimiser.

use crate::board::{GameBoard, each_point};
use crate::moves::Turn;
use crate::network::{
	Encoding, JUMP_INPUTS, MAX_HIDDEN, Network, SHEEP_INPUTS, TIGER_INPUTS, Tensors, scalar_inputs,
};

/// One position with the value the net should learn for it (tigers' view, `-1..=1`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainingExample {
	/// The board.
	pub board: GameBoard,
	/// The side to move.
	pub turn: Turn,
	/// The value to learn.
	pub target: f32,
}

/// Adam's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamSettings {
	/// Step size.
	pub learning_rate: f32,
	/// Decay of the first moment (the running mean of gradients).
	pub beta1: f32,
	/// Decay of the second moment (the running mean of squared gradients).
	pub beta2: f32,
	/// Added to the root of the second moment so steps stay finite.
	pub epsilon: f32,
	/// Decoupled weight decay per step, as a fraction of the learning rate (AdamW); 0 for none.
	pub weight_decay: f32,
}

impl Default for AdamSettings {
	/// The usual Adam constants; a learning rate of 1e-3 trained our nets steadily in the
	/// experiments of docs/training.md.
	fn default() -> AdamSettings {
		AdamSettings {
			learning_rate: 1e-3,
			beta1: 0.9,
			beta2: 0.999,
			epsilon: 1e-8,
			weight_decay: 0.0,
		}
	}
}

/// Adam's state: the two moments per parameter and the step count.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
	/// The settings; they may change between steps (e.g. a lower learning rate).
	pub settings: AdamSettings,
	pub(crate) step: u64,
	pub(crate) first: Vec<f32>,
	pub(crate) second: Vec<f32>,
}

impl Adam {
	/// Fresh state for a net with `parameters` parameters.
	pub fn new(settings: AdamSettings, parameters: usize) -> Adam {
		Adam {
			settings,
			step: 0,
			first: vec![0.0; parameters],
			second: vec![0.0; parameters],
		}
	}

	/// How many updates have been made.
	pub fn steps(&self) -> u64 {
		self.step
	}

	/// One update of `params` against the gradient `grads`.
	pub fn update(&mut self, params: &mut [f32], grads: &[f32]) {
		assert_eq!(
			params.len(),
			self.first.len(),
			"optimizer state is for another net shape"
		);
		assert_eq!(grads.len(), params.len());
		self.step += 1;
		let AdamSettings {
			learning_rate,
			beta1,
			beta2,
			epsilon,
			weight_decay,
		} = self.settings;
		// Bias corrections undo the moments' start at zero.
		let correction1 = 1.0 - beta1.powf(self.step as f32);
		let correction2 = 1.0 - beta2.powf(self.step as f32);
		for (((p, g), m), v) in params
			.iter_mut()
			.zip(grads)
			.zip(&mut self.first)
			.zip(&mut self.second)
		{
			*m = beta1 * *m + (1.0 - beta1) * g;
			*v = beta2 * *v + (1.0 - beta2) * g * g;
			let m_hat = *m / correction1;
			let v_hat = *v / correction2;
			*p -= learning_rate * (m_hat / (v_hat.sqrt() + epsilon) + weight_decay * *p);
		}
	}
}

/// Examples whose gradients are summed together, on one thread, before the chunks are added up
/// in order. The cut does not depend on the number of threads, so neither does the result: a
/// step gives the same bits on one thread or eight. 32 lets a batch of 256 use eight threads;
/// the chunks' buffers cost about 5 µs a step (train-bench, docs/benchmarks.md).
pub const GRADIENT_CHUNK: usize = 32;

/// How many chunks `examples` examples make.
pub(crate) fn chunk_count(examples: usize) -> usize {
	examples.div_ceil(GRADIENT_CHUNK)
}

/// One chunk's summed squared error and gradient.
#[derive(Clone, Debug)]
pub(crate) struct Partial {
	pub(crate) loss: f32,
	pub(crate) grads: Vec<f32>,
}

impl Partial {
	pub(crate) fn new(parameters: usize) -> Partial {
		Partial {
			loss: 0.0,
			grads: vec![0.0; parameters],
		}
	}
}

/// Adds the chunks' gradients into `grads` and their squared errors into `total`, in chunk
/// order (the same additions in the same order on any number of threads).
pub(crate) fn add_partials(partials: &[Partial], grads: &mut [f32], total: &mut f32) {
	for partial in partials {
		*total += partial.loss;
		for (g, p) in grads.iter_mut().zip(&partial.grads) {
			*g += p;
		}
	}
}

/// The inputs of a position that are not 0: the pieces' and encoding 2's plane's (all 1), and
/// the scalars' (with their values). At most 24 pieces stand on the board, at most 20 sheep can
/// be set in the plane, and there are four scalars.
struct SetInputs {
	pieces: [usize; 50],
	piece_count: usize,
	scalars: [(usize, f32); 4],
	scalar_count: usize,
}

impl SetInputs {
	fn new(encoding: Encoding, board: GameBoard, turn: Turn) -> SetInputs {
		let mut set = SetInputs {
			pieces: [0; 50],
			piece_count: 0,
			scalars: [(0, 0.0); 4],
			scalar_count: 0,
		};
		let tigers = each_point(board.tigers()).map(|p| TIGER_INPUTS + p.index());
		let sheep = each_point(board.sheep()).map(|p| SHEEP_INPUTS + p.index());
		let plane = if encoding.has_jump_plane() {
			board.capturable_sheep()
		} else {
			0
		};
		let plane = each_point(plane).map(|p| JUMP_INPUTS + p.index());
		for input in tigers.chain(sheep).chain(plane) {
			set.pieces[set.piece_count] = input;
			set.piece_count += 1;
		}
		for (input, value) in scalar_inputs(board, turn) {
			set.scalars[set.scalar_count] = (input, value);
			set.scalar_count += usize::from(value != 0.0);
		}
		set
	}

	fn pieces(&self) -> &[usize] {
		&self.pieces[..self.piece_count]
	}

	fn scalars(&self) -> &[(usize, f32)] {
		&self.scalars[..self.scalar_count]
	}
}

/// `acc += row`, element by element.
#[inline]
fn add(acc: &mut [f32], row: &[f32]) {
	for (a, w) in acc.iter_mut().zip(row) {
		*a += w;
	}
}

/// `acc += row * scale`, element by element.
#[inline]
fn add_scaled(acc: &mut [f32], row: &[f32], scale: f32) {
	for (a, w) in acc.iter_mut().zip(row) {
		*a += w * scale;
	}
}

/// The dot product, summed in eight lanes so that the loop vectorises (a single running sum
/// is a chain of dependent additions the compiler may not reorder).
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
	let mut lanes = [0.0f32; 8];
	let (a_chunks, a_rest) = a.as_chunks::<8>();
	let (b_chunks, b_rest) = b.as_chunks::<8>();
	for (x, y) in a_chunks.iter().zip(b_chunks) {
		for lane in 0..8 {
			lanes[lane] += x[lane] * y[lane];
		}
	}
	let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
	// Halves, then pairs: a fixed order that takes two vector additions and two shuffles
	// rather than seven dependent scalar additions.
	let half: [f32; 4] = std::array::from_fn(|lane| lanes[lane] + lanes[lane + 4]);
	((half[0] + half[2]) + (half[1] + half[3])) + tail
}

impl Network {
	/// The mean squared error over `examples`, and its gradient (added into `grads`, which must
	/// have one entry per parameter), on one thread.
	pub fn loss_and_gradient(&self, examples: &[TrainingExample], grads: &mut [f32]) -> f32 {
		self.loss_and_gradient_on(examples, grads, 1)
	}

	/// The same on up to `threads` scoped threads (this one included), each taking whole
	/// [`GRADIENT_CHUNK`]s; the result does not depend on `threads`. The threads are started
	/// for this call: [`crate::trainer::Trainer::train`] keeps its own for many steps.
	pub fn loss_and_gradient_on(
		&self,
		examples: &[TrainingExample],
		grads: &mut [f32],
		threads: usize,
	) -> f32 {
		assert_eq!(grads.len(), self.params.len());
		let chunks = chunk_count(examples.len());
		let mut partials: Vec<Partial> = (0..chunks).map(|_| Partial::new(grads.len())).collect();
		let threads = threads.clamp(1, chunks.max(1));
		let share = chunks.div_ceil(threads).max(1);
		if threads == 1 {
			self.chunk_gradients(examples, 0, &mut partials);
		} else {
			std::thread::scope(|scope| {
				let mut shares = partials.chunks_mut(share).enumerate();
				let own = shares.next();
				for (index, partials) in shares {
					scope.spawn(move || self.chunk_gradients(examples, index * share, partials));
				}
				if let Some((_, partials)) = own {
					self.chunk_gradients(examples, 0, partials);
				}
			});
		}
		let mut total = 0.0;
		add_partials(&partials, grads, &mut total);
		total / examples.len().max(1) as f32
	}

	/// Computes chunks `first..first + partials.len()` of `examples` into `partials`, the
	/// gradient of each of the mean squared error over all of `examples` (so that their sum is
	/// the whole gradient).
	pub(crate) fn chunk_gradients(
		&self,
		examples: &[TrainingExample],
		first: usize,
		partials: &mut [Partial],
	) {
		let scale = 1.0 / examples.len().max(1) as f32;
		let chunks = examples.chunks(GRADIENT_CHUNK).skip(first);
		for (chunk, partial) in chunks.zip(partials) {
			partial.grads.fill(0.0);
			partial.loss = self.chunk_gradient(chunk, scale, &mut partial.grads);
		}
	}

	/// Adds the gradient of `scale` times the squared error of each example into `grads`;
	/// returns the squared errors' sum.
	///
	/// The second layer's loops run over the first layer's units that ReLU left on only: the
	/// others add nothing to its gradient and pass nothing back. (A copy of these loops with the
	/// default widths known to the compiler, which unrolls them, was a third slower; split into a
	/// forward and a backward pass over a struct of the buffers, as the style's limit on a
	/// function's length would have it, it trained 2 to 4% fewer samples a second in
	/// `train-bench`, alternated with this one: the training's hot path stays whole.)
	fn chunk_gradient(&self, examples: &[TrainingExample], scale: f32, grads: &mut [f32]) -> f32 {
		let (h1, h2) = (self.shape.hidden1, self.shape.hidden2);
		let Tensors {
			w1,
			b1,
			w2,
			b2,
			w3,
			b3,
		} = self.tensors();
		let (grad_w1, rest) = grads.split_at_mut(self.encoding.inputs() * h1);
		let (grad_b1, rest) = rest.split_at_mut(h1);
		let (grad_w2, rest) = rest.split_at_mut(h1 * h2);
		let (grad_b2, rest) = rest.split_at_mut(h2);
		let (grad_w3, grad_b3) = rest.split_at_mut(h2);
		let mut buffers = [[0.0f32; MAX_HIDDEN]; 4];
		let [hidden1, hidden2, delta1, delta2] = &mut buffers;
		let (hidden1, delta1) = (&mut hidden1[..h1], &mut delta1[..h1]);
		let (hidden2, delta2) = (&mut hidden2[..h2], &mut delta2[..h2]);
		let mut on = [0usize; MAX_HIDDEN];
		let mut total = 0.0;
		for example in examples {
			// Forward: the first layer adds the rows of the inputs that are set.
			let inputs = SetInputs::new(self.encoding, example.board, example.turn);
			hidden1.copy_from_slice(b1);
			for &i in inputs.pieces() {
				add(hidden1, &w1[i * h1..][..h1]);
			}
			for &(i, x) in inputs.scalars() {
				add_scaled(hidden1, &w1[i * h1..][..h1], x);
			}
			// ReLU, listing the units left on (without a branch per unit).
			hidden1.iter_mut().for_each(|a| *a = a.max(0.0));
			let mut active = 0;
			for (j, a) in hidden1.iter().enumerate() {
				on[active] = j;
				active += usize::from(*a > 0.0);
			}
			let on = &on[..active];
			hidden2.copy_from_slice(b2);
			for &j in on {
				add_scaled(hidden2, &w2[j * h2..][..h2], hidden1[j]);
			}
			hidden2.iter_mut().for_each(|a| *a = a.max(0.0));
			let output = (dot(hidden2, w3) + b3).tanh();

			// Backward. d(loss)/d(pre-tanh output): 2 (y - t) (1 - y^2), averaged over the batch.
			let error = output - example.target;
			total += error * error;
			let delta3 = 2.0 * error * (1.0 - output * output) * scale;
			add_scaled(grad_w3, hidden2, delta3);
			grad_b3[0] += delta3;
			for ((d, &a), &w) in delta2.iter_mut().zip(&*hidden2).zip(w3) {
				*d = if a > 0.0 { delta3 * w } else { 0.0 };
			}
			add(grad_b2, delta2);
			delta1.fill(0.0);
			for &j in on {
				add_scaled(&mut grad_w2[j * h2..][..h2], delta2, hidden1[j]);
				delta1[j] = dot(&w2[j * h2..][..h2], delta2);
			}
			add(grad_b1, delta1);
			for &i in inputs.pieces() {
				add(&mut grad_w1[i * h1..][..h1], delta1);
			}
			for &(i, x) in inputs.scalars() {
				add_scaled(&mut grad_w1[i * h1..][..h1], delta1, x);
			}
		}
		total
	}

	/// The mean squared error over `examples`.
	pub fn loss(&self, examples: &[TrainingExample]) -> f32 {
		let total: f32 = examples
			.iter()
			.map(|e| {
				let error = self.forward(e.board, e.turn) - e.target;
				error * error
			})
			.sum();
		total / examples.len().max(1) as f32
	}

	/// One optimiser step on a mini-batch; returns the batch's loss before the step.
	pub fn train_step(&mut self, adam: &mut Adam, batch: &[TrainingExample]) -> f32 {
		self.train_step_on(adam, batch, 1)
	}

	/// The same with the gradient computed on up to `threads` threads (the same result).
	pub fn train_step_on(
		&mut self,
		adam: &mut Adam,
		batch: &[TrainingExample],
		threads: usize,
	) -> f32 {
		let mut grads = vec![0.0; self.params.len()];
		let loss = self.loss_and_gradient_on(batch, &mut grads, threads);
		adam.update(self.params_mut(), &grads);
		loss
	}
}

#[cfg(test)]
mod tests {
	use rand::{RngExt, SeedableRng};
	use rand_xoshiro::Xoshiro256PlusPlus;

	use super::*;
	use crate::network::{MAX_INPUTS, Shape, encode_as};
	use crate::position::{NAMED_POSITIONS, Position};

	/// Activations of one forward pass, kept for the backward pass.
	struct Activations {
		input: [f32; MAX_INPUTS],
		hidden1: Vec<f32>,
		hidden2: Vec<f32>,
		output: f32,
	}

	impl Network {
		fn forward_keeping(&self, board: GameBoard, turn: Turn, act: &mut Activations) {
			let (h1, h2) = (self.shape.hidden1, self.shape.hidden2);
			act.input = encode_as(self.encoding, board, turn);
			let Tensors {
				w1, b1, w2, b2, w3, ..
			} = self.tensors();
			act.hidden1.copy_from_slice(b1);
			for (i, &x) in act.input.iter().enumerate() {
				if x != 0.0 {
					for (a, w) in act.hidden1.iter_mut().zip(&w1[i * h1..(i + 1) * h1]) {
						*a += x * w;
					}
				}
			}
			act.hidden1.iter_mut().for_each(|v| *v = v.max(0.0));
			act.hidden2.copy_from_slice(b2);
			for (j, &a1) in act.hidden1.iter().enumerate() {
				for (a, w) in act.hidden2.iter_mut().zip(&w2[j * h2..(j + 1) * h2]) {
					*a += a1 * w;
				}
			}
			act.hidden2.iter_mut().for_each(|v| *v = v.max(0.0));
			let z: f32 =
				act.hidden2.iter().zip(w3).map(|(a, w)| a * w).sum::<f32>() + self.tensor(5)[0];
			act.output = z.tanh();
		}

		/// The gradient as it was computed before the chunked, vectorisable version: one example
		/// after another into one sum, every unit visited.
		fn reference_loss_and_gradient(
			&self,
			examples: &[TrainingExample],
			grads: &mut [f32],
		) -> f32 {
			assert_eq!(grads.len(), self.params.len());
			let (h1, h2) = (self.shape.hidden1, self.shape.hidden2);
			let layout = self.layout();
			let offset = |tensor: usize| layout[tensor].1;
			let (w2, w3) = (self.tensor(2), self.tensor(4));
			let mut act = Activations {
				input: [0.0; MAX_INPUTS],
				hidden1: vec![0.0; h1],
				hidden2: vec![0.0; h2],
				output: 0.0,
			};
			let (mut delta1, mut delta2) = (vec![0.0f32; h1], vec![0.0f32; h2]);
			let scale = 1.0 / examples.len().max(1) as f32;
			let mut total = 0.0;
			for example in examples {
				self.forward_keeping(example.board, example.turn, &mut act);
				let error = act.output - example.target;
				total += error * error;
				// d(loss)/d(pre-tanh output): 2 (y - t) (1 - y^2), averaged over the batch.
				let delta3 = 2.0 * error * (1.0 - act.output * act.output) * scale;
				for (k, &a2) in act.hidden2.iter().enumerate() {
					grads[offset(4) + k] += delta3 * a2;
					delta2[k] = if a2 > 0.0 { delta3 * w3[k] } else { 0.0 };
				}
				grads[offset(5)] += delta3;
				for (j, &a1) in act.hidden1.iter().enumerate() {
					let row = &w2[j * h2..(j + 1) * h2];
					let grad_row = &mut grads[offset(2) + j * h2..offset(2) + (j + 1) * h2];
					let mut back = 0.0;
					for ((g, w), d) in grad_row.iter_mut().zip(row).zip(&delta2) {
						*g += a1 * d;
						back += w * d;
					}
					delta1[j] = if a1 > 0.0 { back } else { 0.0 };
				}
				for (k, d) in delta2.iter().enumerate() {
					grads[offset(3) + k] += d;
				}
				for (i, &x) in act.input.iter().enumerate() {
					if x != 0.0 {
						let grad_row = &mut grads[offset(0) + i * h1..offset(0) + (i + 1) * h1];
						for (g, d) in grad_row.iter_mut().zip(&delta1) {
							*g += x * d;
						}
					}
				}
				for (j, d) in delta1.iter().enumerate() {
					grads[offset(1) + j] += d;
				}
			}
			total * scale
		}
	}

	fn examples() -> Vec<TrainingExample> {
		NAMED_POSITIONS
			.iter()
			.zip([0.5, -0.25, 0.9, -0.8])
			.map(|((_, text), target)| {
				let p: Position = text.parse().unwrap();
				TrainingExample {
					board: p.board,
					turn: p.turn,
					target,
				}
			})
			.collect()
	}

	/// The smallest distance of any hidden unit's input from ReLU's kink at 0, over a batch.
	fn kink_margin(net: &Network, batch: &[TrainingExample]) -> f32 {
		let Shape { hidden1, hidden2 } = net.shape();
		let mut act = Activations {
			input: [0.0; MAX_INPUTS],
			hidden1: vec![0.0; hidden1],
			hidden2: vec![0.0; hidden2],
			output: 0.0,
		};
		let mut margin = f32::INFINITY;
		for e in batch {
			net.forward_keeping(e.board, e.turn, &mut act);
			// Recompute the pre-activations (the kept ones are after ReLU).
			let x = encode_as(net.encoding(), e.board, e.turn);
			for j in 0..hidden1 {
				let z: f32 = net.tensor(1)[j]
					+ (0..net.encoding().inputs())
						.map(|i| x[i] * net.tensor(0)[i * hidden1 + j])
						.sum::<f32>();
				margin = margin.min(z.abs());
			}
			for k in 0..hidden2 {
				let z: f32 = net.tensor(3)[k]
					+ (0..hidden1)
						.map(|j| act.hidden1[j] * net.tensor(2)[j * hidden2 + k])
						.sum::<f32>();
				margin = margin.min(z.abs());
			}
		}
		margin
	}

	#[test]
	fn gradient_matches_finite_differences() {
		check_gradient(Encoding::V1, &examples());
	}

	/// Encoding 2's plane rows get their gradient as the piece rows do: the batch holds two
	/// random positions with two captures or more on offer beside the named ones.
	#[test]
	fn gradient_of_encoding_2_matches_finite_differences() {
		let mut batch = examples();
		batch.extend(
			random_examples(200, 7)
				.into_iter()
				.filter(|e| e.board.capturable_sheep().count_ones() >= 2)
				.take(2),
		);
		let plane_points = batch
			.iter()
			.map(|e| e.board.capturable_sheep())
			.fold(0, |all, mask| all | mask);
		assert!(plane_points.count_ones() >= 3, "{plane_points:b}");
		let grads = check_gradient(Encoding::V2, &batch);
		let hidden1 = 6;
		let plane = &grads[JUMP_INPUTS * hidden1..][..25 * hidden1];
		let moved = plane.iter().filter(|g| **g != 0.0).count();
		assert!(moved > 6, "{moved} of the plane's gradients are not 0");
	}

	/// Compares every parameter's gradient for a small net of `encoding` with central finite
	/// differences over `batch`; the gradient.
	fn check_gradient(encoding: Encoding, batch: &[TrainingExample]) -> Vec<f32> {
		let step = 1e-3;
		// Finite differences across a ReLU kink measure no derivative at all, so the check
		// uses the first seed whose units all stay clear of their kinks by more than the
		// largest change a step can make (about ten active inputs times the step).
		let net = (0..200)
			.map(|seed| {
				Network::with_encoding(
					Shape {
						hidden1: 6,
						hidden2: 4,
					},
					encoding,
					seed,
				)
			})
			.find(|net| kink_margin(net, batch) > 20.0 * step)
			.expect("some seed keeps clear of the kinks");
		let mut grads = vec![0.0; net.params().len()];
		let loss = net.loss_and_gradient(batch, &mut grads);
		assert!((loss - net.loss(batch)).abs() < 1e-6);
		let mut checked = 0;
		for (index, &analytic) in grads.iter().enumerate() {
			let loss_at = |delta: f32| {
				let mut moved = net.clone();
				moved.params_mut()[index] += delta;
				moved.loss(batch)
			};
			let numeric = (loss_at(step) - loss_at(-step)) / (2.0 * step);
			let tolerance = 1e-3 + 0.02 * analytic.abs();
			assert!(
				(numeric - analytic).abs() < tolerance,
				"param {index}: {numeric} vs {analytic}"
			);
			checked += usize::from(analytic != 0.0);
		}
		assert!(
			checked > 50,
			"only {checked} non-zero gradients were checked"
		);
		grads
	}

	/// Positions from seeded random games, with targets that vary.
	fn random_examples(count: usize, seed: u64) -> Vec<TrainingExample> {
		let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
		let mut examples = Vec::with_capacity(count);
		while examples.len() < count {
			let (mut board, mut turn) = (GameBoard::default(), Turn::Sheep);
			for _ in 0..rng.random_range(0..50) {
				let moves = board.get_moves(turn);
				if moves.is_empty() || board.outcome(turn).is_some() {
					break;
				}
				board.make_move_unchecked(moves[rng.random_range(0..moves.len())]);
				turn = turn.opponent();
			}
			let target = rng.random_range(-1.0..1.0);
			examples.push(TrainingExample {
				board,
				turn,
				target,
			});
		}
		examples
	}

	#[test]
	fn the_gradient_is_the_reference_gradient() {
		for (shape, encoding, seed) in [
			(Shape::default(), Encoding::V1, 1),
			(Shape::default(), Encoding::V1, 2),
			(
				Shape {
					hidden1: 13,
					hidden2: 5,
				},
				Encoding::V1,
				3,
			),
			(Shape::default(), Encoding::V2, 4),
		] {
			let net = Network::with_encoding(shape, encoding, seed);
			// 300 examples: nine whole chunks and a partial one.
			let batch = random_examples(300, seed);
			let mut fast = vec![0.0; net.params().len()];
			let mut slow = vec![0.0; net.params().len()];
			let loss = net.loss_and_gradient(&batch, &mut fast);
			let reference = net.reference_loss_and_gradient(&batch, &mut slow);
			assert!(
				(loss - reference).abs() <= 1e-6 * reference,
				"{loss} vs {reference}"
			);
			// Only the order of additions differs: within a few units in the last place of the
			// largest gradient.
			let largest = slow.iter().fold(0.0f32, |m, g| m.max(g.abs()));
			for (index, (f, s)) in fast.iter().zip(&slow).enumerate() {
				assert!((f - s).abs() <= 1e-5 * largest, "param {index}: {f} vs {s}");
			}
			let moved = slow.iter().filter(|g| **g != 0.0).count();
			assert!(moved > net.params().len() / 2, "{moved} gradients not 0");
		}
	}

	#[test]
	fn the_gradient_is_the_same_on_any_number_of_threads() {
		let net = Network::new(Shape::default(), 4);
		let batch = random_examples(256, 4);
		let mut one = vec![0.0; net.params().len()];
		let loss = net.loss_and_gradient(&batch, &mut one);
		for threads in [2, 3, 8, 50] {
			let mut many = vec![0.0; net.params().len()];
			assert_eq!(net.loss_and_gradient_on(&batch, &mut many, threads), loss);
			assert_eq!(many, one, "{threads} threads");
		}
	}

	#[test]
	fn adam_steps_lower_the_loss_on_a_fixed_batch() {
		let mut net = Network::new(Shape::default(), 5);
		let batch = examples();
		let mut adam = Adam::new(AdamSettings::default(), net.params().len());
		let before = net.loss(&batch);
		for _ in 0..200 {
			net.train_step(&mut adam, &batch);
		}
		assert!(
			net.loss(&batch) < before * 0.1,
			"{before} -> {}",
			net.loss(&batch)
		);
		assert_eq!(adam.steps(), 200);
	}

	#[test]
	fn weight_decay_shrinks_weights_without_gradient() {
		let mut params = vec![1.0f32, -2.0];
		let settings = AdamSettings {
			weight_decay: 0.5,
			learning_rate: 0.1,
			..AdamSettings::default()
		};
		let mut adam = Adam::new(settings, 2);
		adam.update(&mut params, &[0.0, 0.0]);
		assert!(
			(params[0] - 0.95).abs() < 1e-6 && (params[1] + 1.9).abs() < 1e-6,
			"{params:?}"
		);
	}
}
