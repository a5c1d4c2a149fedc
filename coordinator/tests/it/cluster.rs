//! The built binaries as separate processes: a coordinator and two workers on loopback train and
//! gate; the coordinator is killed with SIGKILL and restarted on the same run directory; the
//! counters resume, the workers reconnect by themselves, and every batch a worker made is in the
//! ledger exactly once, and every game in the game archive once. A second run kills the
//! coordinator ten times in a row.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tigers_coordinator::fetch_status;
use tigers_proto::client::ClientSettings;
use tigers_proto::v1;

use crate::common::{TestDir, free_port, temp_dir};

/// A child process, killed when dropped if it still runs: a failing test leaves none behind.
pub(crate) struct Reaped(pub(crate) Child);

impl Deref for Reaped {
	type Target = Child;

	fn deref(&self) -> &Child {
		&self.0
	}
}

impl DerefMut for Reaped {
	fn deref_mut(&mut self) -> &mut Child {
		&mut self.0
	}
}

impl Drop for Reaped {
	fn drop(&mut self) {
		if let Ok(None) = self.0.try_wait() {
			let _ = self.0.kill();
			let _ = self.0.wait();
		}
	}
}

/// A coordinator and two workers, alpha and beta, on a free port of loopback, with the run
/// directory, the workers' state directories and one log for all under a fresh directory.
struct Cluster {
	dir: TestDir,
	run_dir: PathBuf,
	log: PathBuf,
	port: u16,
	coordinator: Reaped,
	workers: [Reaped; 2],
}

impl Cluster {
	/// Starts the three processes, in a directory named after `tag`.
	fn start(tag: &str) -> Cluster {
		let dir = temp_dir(tag);
		std::fs::create_dir_all(&dir).unwrap();
		let run_dir = dir.join("run");
		let log = dir.join("log.jsonl");
		let port = free_port();
		let coordinator = Reaped(spawn_coordinator(port, &run_dir, &log));
		let workers =
			["alpha", "beta"].map(|name| Reaped(spawn_worker(port, name, &dir.join(name), &log)));
		Cluster {
			dir,
			run_dir,
			log,
			port,
			coordinator,
			workers,
		}
	}
}

pub(crate) fn coordinator_binary() -> PathBuf {
	PathBuf::from(env!("CARGO_BIN_EXE_coordinator"))
}

/// The worker binary beside the coordinator's, built first if this test run has not built it.
pub(crate) fn worker_binary() -> PathBuf {
	let path = coordinator_binary().with_file_name("worker");
	if !path.exists() {
		let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
		let status = Command::new(cargo)
			.args(["build", "-p", "tigers-worker", "--bin", "worker"])
			.status()
			.expect("cargo runs");
		assert!(status.success(), "building the worker binary failed");
	}
	path
}

pub(crate) fn spawn_coordinator(port: u16, run_dir: &Path, log: &Path) -> Child {
	let log = std::fs::OpenOptions::new()
		.create(true)
		.append(true)
		.open(log)
		.unwrap();
	Command::new(coordinator_binary())
		.args([
			"--listen",
			&format!("127.0.0.1:{port}"),
			"--no-tablebase",
			"--timed-pairs",
			"0",
			"--run-dir",
		])
		.arg(run_dir)
		.args([
			"--depth",
			"1",
			"--games-per-batch",
			"2",
			"--batch-size",
			"32",
			"--window",
			"20000",
		])
		.args([
			"--max-uses",
			"2",
			"--steps-per-candidate",
			"40",
			"--gate-max-pairs",
			"2",
		])
		.args(["--gate-min-pairs", "1", "--log-json"])
		.stdout(Stdio::null())
		.stderr(log)
		.spawn()
		.expect("the coordinator starts")
}

pub(crate) fn spawn_worker(port: u16, name: &str, state: &Path, log: &Path) -> Child {
	let log = std::fs::OpenOptions::new()
		.create(true)
		.append(true)
		.open(log)
		.unwrap();
	Command::new(worker_binary())
		.args([
			"--connect",
			&format!("http://127.0.0.1:{port}"),
			"--threads",
			"1",
			"--name",
			name,
		])
		.arg("--state-dir")
		.arg(state)
		.arg("--log-json")
		.stdout(Stdio::null())
		.stderr(log)
		.spawn()
		.expect("the worker starts")
}

pub(crate) fn terminate(child: &mut Child) {
	let pid = child.id().to_string();
	Command::new("kill")
		.args(["-TERM", &pid])
		.status()
		.expect("kill runs");
	wait_until(
		Duration::from_secs(30),
		&format!("process {pid} to stop after SIGTERM"),
		|| child.try_wait().unwrap().is_some(),
	);
}

/// The batches waiting in a worker's spool directory.
fn spooled_batches(spool: &Path) -> Vec<String> {
	std::fs::read_dir(spool)
		.map(|entries| {
			entries
				.map(|e| e.unwrap().file_name().into_string().unwrap())
				.filter(|f| f.ends_with(".batch"))
				.collect()
		})
		.unwrap_or_default()
}

/// Looks every 100 ms until `done` holds, or fails after `limit`. The processes under test run
/// on the real clock, which tokio's paused one cannot drive: what they do can only be watched.
pub(crate) fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
	let deadline = Instant::now() + limit;
	while !done() {
		assert!(Instant::now() < deadline, "timed out waiting for {what}");
		std::thread::sleep(Duration::from_millis(100));
	}
}

/// Polls the status until `done` holds, or fails with the last status after `limit`.
pub(crate) async fn wait_for(
	port: u16,
	limit: Duration,
	what: &str,
	done: impl Fn(&v1::Progress) -> bool,
) -> v1::Progress {
	let url = format!("http://127.0.0.1:{port}");
	let deadline = Instant::now() + limit;
	let mut last = None;
	while Instant::now() < deadline {
		if let Ok(progress) = fetch_status(&url, &ClientSettings::default()).await {
			if done(&progress) {
				return progress;
			}
			last = Some(progress);
		}
		tokio::time::sleep(Duration::from_millis(250)).await;
	}
	panic!("timed out waiting for {what}; last status: {last:?}");
}

fn both_connected(progress: &v1::Progress) -> bool {
	progress.workers.iter().filter(|w| w.connected).count() == 2
}

/// Every worker's sequences in the ledger, sorted.
pub(crate) fn ledger_sequences(run_dir: &Path) -> Vec<(String, Vec<u64>, u64)> {
	let ledger = rusqlite::Connection::open(run_dir.join("ledger.sqlite")).unwrap();
	let mut statement = ledger
		.prepare(
			"SELECT worker_id, sequence, sample_count FROM batches ORDER BY worker_id, sequence",
		)
		.unwrap();
	let rows: Vec<(String, u64, u64)> = statement
		.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
		.unwrap()
		.map(Result::unwrap)
		.collect();
	let mut by_worker: Vec<(String, Vec<u64>, u64)> = Vec::new();
	for (worker, sequence, samples) in rows {
		match by_worker.last_mut() {
			Some((w, sequences, total)) if *w == worker => {
				sequences.push(sequence);
				*total += samples;
			}
			_ => by_worker.push((worker, vec![sequence], samples)),
		}
	}
	by_worker
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_coordinator_resumes_and_nothing_is_lost_or_counted_twice() {
	let Cluster {
		dir,
		run_dir,
		log,
		port,
		mut coordinator,
		mut workers,
	} = Cluster::start("cluster");

	// 1. The run trains and gates at least once beyond the first net's own gate.
	let before = wait_for(port, Duration::from_secs(240), "a candidate's gate", |p| {
		both_connected(p) && p.gates.len() >= 2 && p.samples_total > 0
	})
	.await;
	assert!(before.training_steps >= 40);

	// 2. SIGKILL: no checkpoint, no goodbye. The workers keep playing and spooling: each
	// holds a batch the dead coordinator never acknowledged.
	coordinator.kill().unwrap();
	coordinator.wait().unwrap();
	for name in ["alpha", "beta"] {
		let spool = dir.join(name).join("spool");
		wait_until(
			Duration::from_secs(120),
			&format!("{name} spooling"),
			|| !spooled_batches(&spool).is_empty(),
		);
	}

	// 3. Restarted on the same directory, the run resumes where its disk says it was.
	coordinator = Reaped(spawn_coordinator(port, &run_dir, &log));
	let resumed = wait_for(
		port,
		Duration::from_secs(60),
		"the restarted coordinator",
		|_| true,
	)
	.await;
	assert!(
		resumed.samples_total >= before.samples_total,
		"{} < {}",
		resumed.samples_total,
		before.samples_total
	);
	assert!(resumed.generation >= before.generation);
	assert!(
		resumed.training_steps > 0,
		"the checkpoint's steps were restored"
	);
	assert!(resumed.gates.len() >= before.gates.len());

	// 4. The workers reconnect by themselves and their samples keep arriving.
	let after = wait_for(port, Duration::from_secs(120), "both workers back", |p| {
		both_connected(p) && p.samples_total > resumed.samples_total
	})
	.await;
	assert!(
		after
			.workers
			.iter()
			.all(|w| w.reconnects == 0 || w.connected)
	);

	// 5. The workers stop cleanly, flushing their spools; then the coordinator. A clean stop
	// closes the session in good order: the coordinator logs no session error for it.
	let logged_before = std::fs::read_to_string(&log).unwrap().len();
	for worker in &mut workers {
		terminate(worker);
	}
	let last = wait_for(port, Duration::from_secs(10), "a final status", |_| true).await;
	let stops = std::fs::read_to_string(&log).unwrap()[logged_before..].to_string();
	assert!(
		!stops.contains("session ended with an error"),
		"a clean worker stop was logged as an error:\n{stops}"
	);
	terminate(&mut coordinator);

	// 6. Every batch each worker made is in the ledger once.
	check_exactly_once(&dir, &run_dir, &last);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_kills_in_a_row_lose_and_duplicate_nothing() {
	let Cluster {
		dir,
		run_dir,
		log,
		port,
		mut coordinator,
		mut workers,
	} = Cluster::start("kills");
	let mut samples = 0;
	for kill in 1..=10 {
		// Both workers deliver to this coordinator before it is killed, mid-stream.
		let what = format!("both workers delivering before kill {kill}");
		let live = wait_for(port, Duration::from_secs(120), &what, |p| {
			both_connected(p) && p.samples_total > samples
		})
		.await;
		samples = live.samples_total;
		coordinator.kill().unwrap();
		coordinator.wait().unwrap();
		coordinator = Reaped(spawn_coordinator(port, &run_dir, &log));
	}
	let after = wait_for(port, Duration::from_secs(120), "both workers back", |p| {
		both_connected(p) && p.samples_total > samples
	})
	.await;
	assert!(
		after
			.workers
			.iter()
			.all(|w| w.reconnects >= 1 || w.connected)
	);
	for worker in &mut workers {
		terminate(worker);
	}
	let last = wait_for(port, Duration::from_secs(10), "a final status", |_| true).await;
	assert_eq!(last.batches_rejected, 0, "{:?}", last.rejections);
	terminate(&mut coordinator);
	check_exactly_once(&dir, &run_dir, &last);
}

/// Every batch each worker (state directories `dir/<name>`) made is in the ledger once:
/// sequences 1..=n with no gap, its spool is empty, and its next sequence is n + 1. The
/// ledger's total is the last status's. Every game is kept once: in the archive's files, or
/// in the ledger waiting to be written there.
fn check_exactly_once(dir: &Path, run_dir: &Path, last: &v1::Progress) {
	let ledger = ledger_sequences(run_dir);
	assert_eq!(ledger.len(), 2, "{ledger:?}");
	let mut total = 0;
	for (worker, sequences, samples) in &ledger {
		let n = sequences.len() as u64;
		assert_eq!(
			sequences,
			&(1..=n).collect::<Vec<_>>(),
			"{worker}'s sequences have gaps or repeats"
		);
		total += samples;
		let name = worker.split('-').next().unwrap();
		let spool = dir.join(name).join("spool");
		let pending = spooled_batches(&spool);
		assert!(pending.is_empty(), "{worker} still holds {pending:?}");
		let next: u64 = std::fs::read_to_string(spool.join("next_sequence"))
			.unwrap()
			.trim()
			.parse()
			.unwrap();
		assert_eq!(
			next,
			n + 1,
			"{worker} made {} batches, the ledger has {n}",
			next - 1
		);
	}
	assert_eq!(total, last.samples_total);
	let (archived, pending) = games_kept(run_dir);
	assert_eq!(
		archived + pending,
		last.games_total,
		"{archived} archived, {pending} pending"
	);
	assert_eq!(last.games.unwrap_or_default().kept, last.games_total);
}

/// The games in the run's archive, every one read and replayed, and those stored in the
/// ledger that wait for it.
fn games_kept(run_dir: &Path) -> (u64, u64) {
	let mut archived = 0;
	for entry in std::fs::read_dir(run_dir.join(tigers_proto::games::ARCHIVE_DIR)).unwrap() {
		let path = entry.unwrap().path();
		let name = path.file_name().unwrap().to_str().unwrap();
		let generation = tigers_proto::games::generation_of(name).expect(name);
		let games = tigers_proto::games::read_games(&path).unwrap();
		assert!(
			games.iter().all(|g| g.generation == Some(generation)),
			"{name}"
		);
		archived += games.len() as u64;
	}
	let ledger = rusqlite::Connection::open(run_dir.join("ledger.sqlite")).unwrap();
	let pending: u64 = ledger
		.query_row(
			"SELECT coalesce(sum(game_count), 0) FROM batch_games",
			[],
			|row| row.get(0),
		)
		.unwrap();
	(archived, pending)
}
