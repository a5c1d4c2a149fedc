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
mod tests;
