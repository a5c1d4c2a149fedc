//! An exponential running average of the weights in training, which can stand as the
//! candidate instead of the weights themselves: the average smooths out the last steps' noise,
//! as KataGo's running average of its weights does.

use crate::network::Network;

/// Moves `average`'s weights towards `net`'s: each becomes `decay * a + (1 - decay) * w`. Both
/// nets must have the same shape.
pub fn update_average(average: &mut Network, net: &Network, decay: f32) {
	debug_assert_eq!(average.shape(), net.shape());
	for (a, w) in average.params_mut().iter_mut().zip(net.params()) {
		*a = decay * *a + (1.0 - decay) * w;
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::network::Shape;

	#[test]
	fn the_average_moves_towards_the_weights_by_one_minus_the_decay() {
		let shape = Shape {
			hidden1: 4,
			hidden2: 2,
		};
		let net = Network::new(shape, 1);
		let mut average = Network::new(shape, 2);
		let before = average.params().to_vec();
		update_average(&mut average, &net, 0.75);
		for ((a, b), w) in average.params().iter().zip(&before).zip(net.params()) {
			assert!((a - (0.75 * b + 0.25 * w)).abs() < 1e-6);
		}
		// With decay 0 the average is the weights.
		update_average(&mut average, &net, 0.0);
		assert_eq!(average.params(), net.params());
	}
}
