//! Integration tests: real workers ([`tigers_worker::run`]) against a small in-test coordinator
//! on 127.0.0.1, over real gRPC.

mod bench;
mod command_line;
mod coordinator;
mod help;
mod identity;
mod metrics;
mod pipes;
mod refusal;
mod restart;
mod runs;
mod session;
mod tablebase;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tigers_core::GameRecord;
use tigers_proto::convert::sample_from_wire;
use tigers_proto::v1::SampleBatch;
use tigers_worker::{BackoffSettings, WorkerConfig, WorkerError};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long any awaited condition may take before the test fails. Generous: conditions are met
/// in well under a second on an idle machine, and a busy CI machine must not fail the test.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A fresh directory under Cargo's temporary directory for tests, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
	/// A new, empty directory whose name starts with `label`.
	pub fn new(label: &str) -> TempDir {
		static COUNTER: AtomicU64 = AtomicU64::new(0);
		let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
		let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
			.join(format!("worker-it-{label}-{}-{unique}", std::process::id()));
		let _ = std::fs::remove_dir_all(&path);
		std::fs::create_dir_all(&path).unwrap();
		TempDir(path)
	}

	/// Its path.
	pub fn path(&self) -> &Path {
		&self.0
	}
}

impl Drop for TempDir {
	fn drop(&mut self) {
		let _ = std::fs::remove_dir_all(&self.0);
	}
}

/// One self-play thread, quick heartbeats and short backoff, so the tests run in seconds.
pub fn config(url: &str, state_dir: &Path) -> WorkerConfig {
	let mut config = WorkerConfig::new(url);
	config.threads = 1;
	config.name = "it-worker".into();
	config.token = Some(coordinator::TOKEN.into());
	config.state_dir = state_dir.to_path_buf();
	config.spool_capacity = 20;
	config.heartbeat_interval = Duration::from_millis(100);
	config.backoff = BackoffSettings {
		initial: Duration::from_millis(50),
		max: Duration::from_millis(400),
	};
	config.shutdown_grace = Duration::from_secs(2);
	config.connect_timeout = Duration::from_secs(2);
	config
}

/// A worker running on the test's runtime.
pub struct Worker {
	stop: Option<oneshot::Sender<()>>,
	handle: JoinHandle<Result<(), WorkerError>>,
}

impl Worker {
	/// Runs a worker with `config` until [`Worker::stop`].
	pub fn start(config: WorkerConfig) -> Worker {
		let (stop, stopped) = oneshot::channel::<()>();
		let shutdown = async move {
			let _ = stopped.await;
		};
		Worker {
			stop: Some(stop),
			handle: tokio::spawn(tigers_worker::run(config, shutdown)),
		}
	}

	/// Asks the worker to stop and returns what `run` returned.
	pub async fn stop(mut self) -> Result<(), WorkerError> {
		if let Some(stop) = self.stop.take() {
			let _ = stop.send(());
		}
		self.finished().await
	}

	/// Waits for `run` to return by itself.
	pub async fn finished(self) -> Result<(), WorkerError> {
		tokio::time::timeout(PATIENCE, self.handle)
			.await
			.expect("the worker returns in time")
			.expect("the worker's task does not panic")
	}
}

/// Checks what a worker sent: every sample converts back and carries a generation the test
/// served, every record parses, and the batch has at least one game.
pub fn check_batch(batch: &SampleBatch, generations: &[u64]) {
	assert!(!batch.game_records.is_empty());
	assert!(!batch.samples.is_empty());
	for (index, wire) in batch.samples.iter().enumerate() {
		let sample = sample_from_wire(index, wire).expect("the sample converts");
		assert!(generations.contains(&sample.generation), "{sample:?}");
	}
	for text in &batch.game_records {
		let record = GameRecord::from_text(text).expect("the record parses");
		assert!(record.seed.is_some());
		assert!(generations.contains(&record.generation.unwrap()));
	}
}

/// Whether the stored sequences are exactly 1, 2, ..., n.
pub fn is_contiguous_from_one<'a>(sequences: impl Iterator<Item = &'a u64>) -> bool {
	sequences
		.zip(1..)
		.all(|(sequence, expected)| *sequence == expected)
}
