//! The helper threads of one [`Trainer::train`] call: started when the call begins, ended when
//! it returns, and in between taking the chunks of each step's batch as they come.
//!
//! Who owns what: the calling thread alone draws batches, sums the chunks' gradients and updates
//! the net. It publishes a step by writing the batch and raising `step` (release); every thread,
//! the caller included, then takes chunks by raising `next_chunk` until none are left, computes
//! each into that chunk's own buffer and counts it in `chunks_done`. While the helpers start on
//! a step, the caller draws the next batch (drawing does not read the net), then joins them. The
//! caller takes the net's lock for writing only once every chunk is counted, after which no
//! helper reads the net until the next step is published; so the lock is never contended. Since
//! each chunk has its own buffer and the buffers are added in chunk order, which thread computed
//! which chunk changes nothing in the result.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};

use crate::network::Network;
use crate::network::train::{Adam, Partial, TrainingExample, add_partials, chunk_count};
use crate::trainer::{Trainer, TrainingSettings};

/// Spins before each `yield_now` while waiting. A wait lasts about as long as the caller takes to
/// sum a step's gradients and update the net (microseconds); waking a sleeping thread cost 35 µs
/// or more on the development machine, so the threads never sleep.
const SPINS: u32 = 1000;

/// What the caller and its helpers share during one call.
struct Crew<'a> {
	/// The number of the step whose batch is ready; 0 before the first.
	step: AtomicU64,
	/// The next chunk of the current batch that nobody has taken.
	next_chunk: AtomicUsize,
	/// Chunks of the current batch computed.
	chunks_done: AtomicUsize,
	/// Set when the call ends.
	stop: AtomicBool,
	batch: RwLock<Vec<TrainingExample>>,
	net: RwLock<&'a mut Network>,
	/// One buffer per chunk of a batch.
	partials: Vec<Mutex<Partial>>,
}

impl<'a> Crew<'a> {
	/// A crew training `net`, of `parameters` parameters, with a buffer for each chunk of a
	/// `batch_size` batch.
	fn new(net: &'a mut Network, parameters: usize, batch_size: usize) -> Crew<'a> {
		Crew {
			step: AtomicU64::new(0),
			next_chunk: AtomicUsize::new(0),
			chunks_done: AtomicUsize::new(0),
			stop: AtomicBool::new(false),
			batch: RwLock::new(Vec::new()),
			net: RwLock::new(net),
			partials: (0..chunk_count(batch_size))
				.map(|_| Mutex::new(Partial::new(parameters)))
				.collect(),
		}
	}

	/// The caller's part in publishing step `step`: hands out `batch`, its chunks all untaken.
	fn publish(&self, step: u64, batch: Vec<TrainingExample>) {
		*self.batch.write().unwrap_or_else(PoisonError::into_inner) = batch;
		self.next_chunk.store(0, Ordering::Relaxed);
		self.chunks_done.store(0, Ordering::Relaxed);
		self.step.store(step, Ordering::Release);
	}

	/// The caller's part in a step's chunks: works on them, then waits until all `chunks` are
	/// computed; false if the call ended first.
	fn finish_step(&self, chunks: usize) -> bool {
		self.work();
		let done = || (self.chunks_done.load(Ordering::Acquire) == chunks).then_some(());
		self.wait(done).is_some()
	}

	/// Sums the first `chunks` buffers into `grads` (zeroed first), in chunk order; returns
	/// the sum of their losses.
	fn sum_gradients(&self, chunks: usize, grads: &mut [f32]) -> f32 {
		grads.fill(0.0);
		let mut total = 0.0;
		for partial in &self.partials[..chunks] {
			let partial = partial.lock().unwrap_or_else(PoisonError::into_inner);
			add_partials(std::slice::from_ref(&partial), grads, &mut total);
		}
		total
	}

	/// Takes and computes chunks of the current batch until none are left.
	fn work(&self) {
		let batch = self.batch.read().unwrap_or_else(PoisonError::into_inner);
		let net = self.net.read().unwrap_or_else(PoisonError::into_inner);
		let chunks = chunk_count(batch.len());
		loop {
			let chunk = self.next_chunk.fetch_add(1, Ordering::Relaxed);
			if chunk >= chunks {
				break;
			}
			let mut partial = self.partials[chunk]
				.lock()
				.unwrap_or_else(PoisonError::into_inner);
			net.chunk_gradients(&batch, chunk, std::slice::from_mut(&mut partial));
			self.chunks_done.fetch_add(1, Ordering::Release);
		}
	}

	/// A helper's life: wait for each step and work on it.
	fn help(&self) {
		// A helper that panics stops the call, so that the caller does not wait for its chunks
		// for ever; the scope then passes the panic on.
		let _stop = StopOnDrop(&self.stop);
		let mut seen = 0;
		while let Some(step) = self.wait(|| {
			let step = self.step.load(Ordering::Acquire);
			(step != seen).then_some(step)
		}) {
			seen = step;
			self.work();
		}
	}

	/// Spins (and yields) until `ready` gives something; `None` once the call has ended.
	fn wait<T>(&self, ready: impl Fn() -> Option<T>) -> Option<T> {
		let mut spins = 0;
		loop {
			if let Some(value) = ready() {
				return Some(value);
			}
			if self.stop.load(Ordering::Relaxed) {
				return None;
			}
			spins += 1;
			if spins < SPINS {
				std::hint::spin_loop();
			} else {
				spins = 0;
				std::thread::yield_now();
			}
		}
	}
}

/// Ends the call when dropped: for the helpers when the caller leaves (a panic included), so
/// that the scope can join them; for everyone when a helper leaves, which it does only when the
/// call has ended or it panicked.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
	fn drop(&mut self) {
		self.0.store(true, Ordering::Relaxed);
	}
}

/// [`Trainer::train`] on `trainer.settings.threads` threads (two or more).
pub(super) fn train(trainer: &mut Trainer, max_steps: usize) -> Vec<f32> {
	let threads = trainer.settings.threads;
	let parameters = trainer.net.params().len();
	let mut next = trainer.draw();
	let Trainer {
		net,
		adam,
		window,
		settings,
		tablebase,
		average,
		rng,
	} = trainer;
	let crew = Crew::new(net, parameters, settings.batch_size);
	let mut losses = Vec::with_capacity(max_steps.min(1 << 16));
	let mut grads = vec![0.0; parameters];
	std::thread::scope(|scope| {
		let _stop = StopOnDrop(&crew.stop);
		for _ in 1..threads {
			scope.spawn(|| crew.help());
		}
		for step in 1..=max_steps as u64 {
			let Some(batch) = next.take() else {
				break;
			};
			let examples = batch.len();
			crew.publish(step, batch);
			if step < max_steps as u64 {
				next = window.draw_batch(
					settings.batch_size,
					&settings.targets,
					tablebase.as_deref(),
					rng,
				);
			}
			let chunks = chunk_count(examples);
			if !crew.finish_step(chunks) {
				break;
			}
			let total = crew.sum_gradients(chunks, &mut grads);
			let mut net = crew.net.write().unwrap_or_else(PoisonError::into_inner);
			update(&mut net, adam, settings, average.as_mut(), &grads);
			losses.push(total / examples.max(1) as f32);
		}
	});
	losses
}

/// The step's update of `net` by the summed gradients: Adam at the schedule's rate, then the
/// running average, if one is kept.
fn update(
	net: &mut Network,
	adam: &mut Adam,
	settings: &TrainingSettings,
	average: Option<&mut Network>,
	grads: &[f32],
) {
	adam.settings.learning_rate = settings
		.schedule
		.rate(settings.adam.learning_rate, adam.steps());
	adam.update(net.params_mut(), grads);
	if let Some(average) = average {
		super::average::update_average(average, net, settings.weight_average);
	}
}
