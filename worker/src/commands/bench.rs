//! `bench`: this machine's self-play speed with the default settings, to size a fleet.
//!
//! Game `i` is played from seed `i` with a fresh net from seed 1 and fixed-depth searches whose
//! tables start empty every game, so the games, their samples and their node counts are the same
//! on every machine and for any number of threads: only the times differ.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::ThreadPoolBuilder;
use tigers_core::Network;
use tigers_core::network::{Encoding, Shape};
use tigers_core::selfplay::SelfPlaySettings;
use tigers_proto::convert::Assignment;

use crate::config::default_threads;
use crate::error::WorkerError;
use crate::selfplay::{Players, Playing};

/// Games per thread a bench plays unless told otherwise: at depth 3 a thread plays about 100
/// a second (measured on the two-core development machine), so some five seconds, long enough
/// to smooth over the spread of game lengths.
pub const DEFAULT_GAMES_PER_THREAD: u64 = 500;

/// The input encoding a bench's net reads unless told otherwise: a new run's (the coordinator's
/// `RunSettings::NEW_RUN_ENCODING`, which a test there holds this to), so that a fleet is sized
/// by what it will play: encoding 2's plane makes a search about 30% slower than encoding 1's
/// (docs/benchmarks.md), so a machine benched with encoding 1 looks about 1.4 times faster
/// than it plays in a run of the default.
pub const DEFAULT_ENCODING: Encoding = Encoding::V2;

/// What to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchSettings {
	/// Games to play.
	pub games: u64,
	/// Threads to play them on.
	pub threads: usize,
	/// Search depth in plies.
	pub depth: u32,
	/// Hidden widths of the fresh net that plays: a wider net evaluates more slowly, so its
	/// nodes per second say what a run with it would play at.
	pub shape: Shape,
	/// The input encoding of that net: encoding 2's plane costs a little per evaluation, which
	/// the nodes per second show.
	pub encoding: Encoding,
}

impl Default for BenchSettings {
	/// [`DEFAULT_GAMES_PER_THREAD`] games per core at depth 3, the default self-play depth, with
	/// a net of the default shape and [`DEFAULT_ENCODING`].
	fn default() -> BenchSettings {
		let threads = default_threads();
		BenchSettings {
			games: DEFAULT_GAMES_PER_THREAD * threads as u64,
			threads,
			depth: 3,
			shape: Shape::default(),
			encoding: DEFAULT_ENCODING,
		}
	}
}

impl BenchSettings {
	/// An error for settings a bench cannot run with.
	fn validate(&self) -> Result<(), WorkerError> {
		let refuse = |what: String| Err(WorkerError::Config(what));
		if self.games == 0 {
			return refuse("the bench needs at least 1 game".into());
		}
		if self.threads == 0 {
			return refuse("the bench needs at least 1 thread".into());
		}
		if !(1..=64).contains(&self.depth) {
			return refuse(format!("the depth must be 1 to 64, not {}", self.depth));
		}
		if !self.shape.is_valid() {
			return refuse(format!("the net shape {} is not valid", self.shape));
		}
		Ok(())
	}
}

/// What a bench measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
	/// The settings it ran with.
	pub settings: BenchSettings,
	/// Samples the games gave.
	pub samples: u64,
	/// Positions the searches visited.
	pub nodes: u64,
	/// Wall-clock seconds for all the games.
	pub seconds: f64,
	/// Seconds the threads spent in games, added up.
	pub thread_seconds: f64,
}

impl BenchReport {
	/// Games per second for the whole machine.
	pub fn games_per_second(&self) -> f64 {
		self.settings.games as f64 / self.seconds
	}

	/// Samples per second for the whole machine: what a coordinator receives from it.
	pub fn samples_per_second(&self) -> f64 {
		self.samples as f64 / self.seconds
	}

	/// Search nodes per second on one thread while it plays.
	pub fn nodes_per_second_per_thread(&self) -> f64 {
		self.nodes as f64 / self.thread_seconds
	}
}

impl fmt::Display for BenchReport {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		let s = &self.settings;
		// The encoding always: figures of the two differ by about 30%, and the default changed.
		writeln!(
			f,
			"{} games at depth {} with a {} net of input encoding {} on {} threads in {:.2} s: \
			 {} samples, {} nodes",
			s.games,
			s.depth,
			s.shape,
			s.encoding,
			s.threads,
			self.seconds,
			self.samples,
			self.nodes
		)?;
		writeln!(f, "games/s            {:.2}", self.games_per_second())?;
		writeln!(f, "samples/s          {:.0}", self.samples_per_second())?;
		write!(
			f,
			"nodes/s per thread {:.0}",
			self.nodes_per_second_per_thread()
		)
	}
}

/// What the bench's games are played with: a fresh net from seed 1 at the settings' depth,
/// with the default self-play settings.
fn bench_playing(settings: &BenchSettings) -> Arc<Playing> {
	let net = Network::with_encoding(settings.shape, settings.encoding, 1);
	Arc::new(Playing {
		// The bench sends nothing anywhere: no run.
		run_id: "".into(),
		assignment: Assignment {
			generation: 0,
			sha256: net.sha256(),
			depth: settings.depth,
			selfplay: SelfPlaySettings::default(),
			games_per_batch: 1,
			tablebase_sha256: None,
			adjudicate: false,
			play_out_share: 0.0,
		},
		net: Arc::new(net),
		tablebase: None,
	})
}

/// Plays `settings.games` self-play games with the default settings and measures them.
pub fn bench(settings: &BenchSettings) -> Result<BenchReport, WorkerError> {
	bench_with_progress(settings, |_| {})
}

/// [`bench()`], calling `finished` with the number of games finished so far after each game (from
/// the playing threads, so it should be quick): for a progress bar.
pub fn bench_with_progress(
	settings: &BenchSettings,
	finished: impl Fn(u64) + Sync,
) -> Result<BenchReport, WorkerError> {
	settings.validate()?;
	let playing = bench_playing(settings);
	let pool = ThreadPoolBuilder::new()
		.num_threads(settings.threads)
		.thread_name(|index| format!("bench-{index}"))
		.build()?;
	let next_game = AtomicU64::new(0);
	let games_done = AtomicU64::new(0);
	let totals = Mutex::new((0u64, 0u64, 0.0f64));
	let start = Instant::now();
	pool.broadcast(|_| {
		let mut players = Players::new(playing.clone());
		loop {
			let seed = next_game.fetch_add(1, Ordering::Relaxed);
			if seed >= settings.games {
				break;
			}
			let game_start = Instant::now();
			let game = players.play(seed);
			let seconds = game_start.elapsed().as_secs_f64();
			let mut totals = totals
				.lock()
				.unwrap_or_else(std::sync::PoisonError::into_inner);
			totals.0 += game.samples.len() as u64;
			totals.1 += game.nodes;
			totals.2 += seconds;
			drop(totals);
			finished(games_done.fetch_add(1, Ordering::Relaxed) + 1);
		}
	});
	let seconds = start.elapsed().as_secs_f64();
	let (samples, nodes, thread_seconds) = totals
		.into_inner()
		.unwrap_or_else(std::sync::PoisonError::into_inner);
	Ok(BenchReport {
		settings: *settings,
		samples,
		nodes,
		seconds,
		thread_seconds,
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn the_games_are_the_same_on_any_number_of_threads() {
		let settings = |threads| BenchSettings {
			games: 4,
			threads,
			depth: 1,
			shape: Shape::default(),
			encoding: Encoding::V1,
		};
		let one = bench(&settings(1)).unwrap();
		let two = bench(&settings(2)).unwrap();
		assert!(one.samples > 0 && one.nodes > 0, "{one:?}");
		assert_eq!((one.samples, one.nodes), (two.samples, two.nodes));
		assert!(one.games_per_second() > 0.0 && one.nodes_per_second_per_thread() > 0.0);
		let text = one.to_string();
		assert!(
			text.contains("games/s") && text.contains("nodes/s per thread"),
			"{text}"
		);
	}

	#[test]
	fn progress_counts_every_game_once() {
		let settings = BenchSettings {
			games: 6,
			threads: 2,
			depth: 1,
			shape: Shape::default(),
			encoding: Encoding::V1,
		};
		let seen = Mutex::new(Vec::new());
		bench_with_progress(&settings, |done| seen.lock().unwrap().push(done)).unwrap();
		let mut seen = seen.into_inner().unwrap();
		seen.sort_unstable();
		assert_eq!(seen, [1, 2, 3, 4, 5, 6]);
	}

	#[test]
	fn nonsense_settings_are_refused() {
		let zero = BenchSettings {
			games: 0,
			..BenchSettings::default()
		};
		assert!(bench(&zero).is_err());
		let flat = BenchSettings {
			shape: Shape {
				hidden1: 0,
				hidden2: 8,
			},
			..BenchSettings::default()
		};
		assert!(bench(&flat).is_err());
	}

	#[test]
	fn a_wider_net_plays_the_same_number_of_games() {
		let wide = BenchSettings {
			games: 2,
			threads: 1,
			depth: 1,
			shape: Shape {
				hidden1: 128,
				hidden2: 64,
			},
			encoding: Encoding::V1,
		};
		let report = bench(&wide).unwrap();
		assert!(report.samples > 0 && report.nodes > 0, "{report:?}");
		assert!(report.to_string().contains("with a 128x64 net"), "{report}");
	}

	#[test]
	fn a_net_of_encoding_2_plays_and_says_so() {
		let settings = BenchSettings {
			games: 2,
			threads: 1,
			depth: 1,
			shape: Shape::default(),
			encoding: Encoding::V2,
		};
		assert_eq!(bench_playing(&settings).net.encoding(), Encoding::V2);
		let report = bench(&settings).unwrap();
		assert!(report.samples > 0 && report.nodes > 0, "{report:?}");
		assert!(
			report.to_string().contains("of input encoding 2"),
			"{report}"
		);
	}
}
