//! Training: the mean squared error's gradient by backpropagation, and the Adam optimiser.

use crate::board::GameBoard;
use crate::moves::Turn;
use crate::network::{INPUTS, Network, encode};

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

/// Activations of one forward pass, kept for the backward pass.
struct Activations {
	input: [f32; INPUTS],
	hidden1: Vec<f32>,
	hidden2: Vec<f32>,
	output: f32,
}

impl Network {
	fn forward_keeping(&self, board: GameBoard, turn: Turn, act: &mut Activations) {
		let (h1, h2) = (self.shape.hidden1, self.shape.hidden2);
		act.input = encode(board, turn);
		let (w1, b1, w2, b2, w3) = (
			self.tensor(0),
			self.tensor(1),
			self.tensor(2),
			self.tensor(3),
			self.tensor(4),
		);
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

	/// The mean squared error over `examples`, and its gradient (added into `grads`, which must
	/// have one entry per parameter).
	pub fn loss_and_gradient(&self, examples: &[TrainingExample], grads: &mut [f32]) -> f32 {
		assert_eq!(grads.len(), self.params.len());
		let (h1, h2) = (self.shape.hidden1, self.shape.hidden2);
		let layout = self.shape.layout();
		let offset = |tensor: usize| layout[tensor].1;
		let (w2, w3) = (self.tensor(2), self.tensor(4));
		let mut act = Activations {
			input: [0.0; INPUTS],
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
		let mut grads = vec![0.0; self.params.len()];
		let loss = self.loss_and_gradient(batch, &mut grads);
		adam.update(self.params_mut(), &grads);
		loss
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::network::Shape;
	use crate::position::{NAMED_POSITIONS, Position};

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
			input: [0.0; INPUTS],
			hidden1: vec![0.0; hidden1],
			hidden2: vec![0.0; hidden2],
			output: 0.0,
		};
		let mut margin = f32::INFINITY;
		for e in batch {
			net.forward_keeping(e.board, e.turn, &mut act);
			// Recompute the pre-activations (the kept ones are after ReLU).
			let x = encode(e.board, e.turn);
			for j in 0..hidden1 {
				let z: f32 = net.tensor(1)[j]
					+ (0..INPUTS)
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
		let batch = examples();
		let step = 1e-3;
		// Finite differences across a ReLU kink measure no derivative at all, so the check
		// uses the first seed whose units all stay clear of their kinks by more than the
		// largest change a step can make (about ten active inputs times the step).
		let net = (0..200)
			.map(|seed| {
				Network::new(
					Shape {
						hidden1: 6,
						hidden2: 4,
					},
					seed,
				)
			})
			.find(|net| kink_margin(net, &batch) > 20.0 * step)
			.expect("some seed keeps clear of the kinks");
		let mut grads = vec![0.0; net.params().len()];
		let loss = net.loss_and_gradient(&batch, &mut grads);
		assert!((loss - net.loss(&batch)).abs() < 1e-6);
		let mut checked = 0;
		for (index, &analytic) in grads.iter().enumerate() {
			let loss_at = |delta: f32| {
				let mut moved = net.clone();
				moved.params_mut()[index] += delta;
				moved.loss(&batch)
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
