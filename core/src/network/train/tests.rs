//! Training's tests: the gradient against finite differences and a plain reference backward
//! pass, the same on any number of threads; Adam's steps lowering the loss, and weight decay.

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
	fn reference_loss_and_gradient(&self, examples: &[TrainingExample], grads: &mut [f32]) -> f32 {
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
