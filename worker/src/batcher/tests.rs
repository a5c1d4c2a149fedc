//! Batcher tests: batch sizes, the wire's limits, and pausing on a full spool.

use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use tigers_core::GameRecord;
use tigers_proto::convert::sample_from_wire;

use super::*;
use crate::selfplay::Players;
use crate::testing::{TEST_RUN, TempDir, playing};

struct Running {
	games: Option<SyncSender<Played>>,
	spool: Arc<Spool>,
	control: Arc<Control>,
	stats: Arc<Stats>,
	thread: Option<JoinHandle<()>>,
}

fn start(dir: &TempDir, capacity: usize, games_per_batch: u32) -> Running {
	let spool = Arc::new(Spool::open(dir.path(), capacity).unwrap());
	let control = Arc::new(Control::default());
	control.set(playing(5, 1, games_per_batch));
	let stats = Arc::new(Stats::new(Instant::now()));
	let (sender, games) = sync_channel(1);
	let batcher = Batcher {
		games,
		spool: spool.clone(),
		control: control.clone(),
		stats: stats.clone(),
		spooled: Arc::new(Notify::new()),
	};
	Running {
		games: Some(sender),
		spool,
		control,
		stats,
		thread: Some(std::thread::spawn(move || batcher.run())),
	}
}

impl Running {
	fn send(&self, game: SelfPlayGame) {
		self.send_for(TEST_RUN, game);
	}

	fn send_for(&self, run: &str, game: SelfPlayGame) {
		let played = Played {
			run_id: run.into(),
			game,
		};
		self.games.as_ref().unwrap().send(played).unwrap();
	}

	fn stop(&mut self) {
		self.control.stop();
		self.games = None;
		self.thread.take().unwrap().join().unwrap();
	}

	/// Waits (up to 20 s) until `condition` holds. The batcher is a thread on the real clock,
	/// not a task tokio's paused clock could drive, so its progress is watched, not stepped.
	fn wait_for(&self, what: &str, condition: impl Fn(&Running) -> bool) {
		let deadline = Instant::now() + Duration::from_secs(20);
		while !condition(self) {
			assert!(Instant::now() < deadline, "timed out waiting for {what}");
			std::thread::sleep(Duration::from_millis(5));
		}
	}
}

fn games(count: usize) -> Vec<SelfPlayGame> {
	let mut players = Players::new(Arc::new(playing(5, 1, 1)));
	(0..count as u64).map(|seed| players.play(seed)).collect()
}

#[test]
fn batches_hold_games_per_batch_games_and_a_short_last_one_on_stop() {
	let dir = TempDir::new("batcher-sizes");
	let mut running = start(&dir, 10, 2);
	let played = games(5);
	for game in &played {
		running.send(game.clone());
	}
	running.wait_for("two batches", |r| r.spool.len() == 2);
	running.stop();
	let spool = &running.spool;
	assert_eq!(spool.sequences_after(0), [1, 2, 3]);
	let batches: Vec<SampleBatch> = (1..=3).map(|s| spool.read(s).unwrap().unwrap()).collect();
	let sizes: Vec<usize> = batches.iter().map(|b| b.game_records.len()).collect();
	assert_eq!(sizes, [2, 2, 1]);
	let records: Vec<GameRecord> = batches
		.iter()
		.flat_map(|b| &b.game_records)
		.map(|text| GameRecord::from_text(text).unwrap())
		.collect();
	let expected: Vec<&GameRecord> = played.iter().map(|g| &g.record).collect();
	assert_eq!(records.iter().collect::<Vec<_>>(), expected);
	for (batch, pair) in batches.iter().zip(played.chunks(2)) {
		let samples: Vec<_> = batch
			.samples
			.iter()
			.enumerate()
			.map(|(i, s)| sample_from_wire(i, s).unwrap())
			.collect();
		let expected: Vec<_> = pair.iter().flat_map(|g| g.samples.clone()).collect();
		assert_eq!(samples, expected);
	}
	assert_eq!(running.stats.snapshot(Instant::now()).games, 5);
}

#[test]
fn a_full_spool_pauses_the_batcher_without_dropping_games() {
	let dir = TempDir::new("batcher-full");
	let mut running = start(&dir, 1, 1);
	let played = games(3);
	running.send(played[0].clone());
	running.wait_for("the first batch", |r| r.spool.len() == 1);
	running.send(played[1].clone());
	running.wait_for("the second game taken", |r| {
		r.stats.snapshot(Instant::now()).games == 2
	});
	// The channel holds one game; with the batcher waiting for room, a second would not fit:
	// this is what blocks the self-play threads.
	running.send(played[2].clone());
	assert!(
		running
			.games
			.as_ref()
			.unwrap()
			.try_send(Played {
				run_id: TEST_RUN.into(),
				game: played[2].clone(),
			})
			.is_err()
	);
	assert_eq!(running.spool.next_sequence(), 2);
	running.spool.remove(1).unwrap();
	running.wait_for("the second batch", |r| r.spool.sequences_after(0) == [2]);
	running.spool.remove(2).unwrap();
	running.wait_for("the third batch", |r| r.spool.sequences_after(0) == [3]);
	running.stop();
	let third = running.spool.read(3).unwrap().unwrap();
	assert_eq!(third.game_records, [played[2].record.to_text()]);
}

#[test]
fn a_full_disk_pauses_the_batcher_keeping_its_games_until_space_returns() {
	let Some(fs) = tigers_testkit::disk::Tmpfs::mount("spool", 4) else {
		return;
	};
	let spool = Arc::new(Spool::open(fs.dir(), 10).unwrap());
	let control = Arc::new(Control::default());
	control.set(playing(5, 1, 1));
	let stats = Arc::new(Stats::new(Instant::now()));
	let (sender, games_in) = sync_channel(1);
	let batcher = Batcher {
		games: games_in,
		spool: spool.clone(),
		control: control.clone(),
		stats: stats.clone(),
		spooled: Arc::new(Notify::new()),
	};
	let mut running = Running {
		games: Some(sender),
		spool,
		control,
		stats,
		thread: Some(std::thread::spawn(move || batcher.run())),
	};
	let played = games(2);
	let ballast = tigers_testkit::disk::fill(fs.dir(), 0);
	running.send(played[0].clone());
	running.wait_for("the game taken", |r| {
		r.stats.snapshot(Instant::now()).games == 1
	});
	// Nothing can be written: the batch waits in memory, and the next game waits in the
	// channel, which holds the self-play threads.
	running.send(played[1].clone());
	std::thread::sleep(Duration::from_millis(300));
	assert_eq!(running.spool.len(), 0);
	std::fs::remove_file(ballast).unwrap();
	running.wait_for("both batches spooled", |r| r.spool.len() == 2);
	running.stop();
	let records: Vec<String> = (1..=2)
		.flat_map(|s| running.spool.read(s).unwrap().unwrap().game_records)
		.collect();
	let expected: Vec<String> = played.iter().map(|g| g.record.to_text()).collect();
	assert_eq!(records, expected);
}

#[test]
fn batches_are_cut_before_passing_the_wire_limits() {
	let [game] = <[SelfPlayGame; 1]>::try_from(games(1)).unwrap();
	let sample = game.samples[0];
	let huge = SelfPlayGame {
		samples: vec![sample; MAX_BATCH_SAMPLES / 2 + 1],
		..game.clone()
	};
	let mut pending = PendingBatch::default();
	assert!(!pending.would_overflow(&huge, "r"));
	pending.add(TEST_RUN, &huge, "r".into());
	assert!(pending.would_overflow(&huge, "r"));
	assert!(!pending.would_overflow(&game, "r"));

	let mut pending = PendingBatch::default();
	let long_record = "x".repeat(MAX_BATCH_BYTES / 2 + 1);
	pending.add(TEST_RUN, &game, long_record.clone());
	assert!(pending.would_overflow(&game, &long_record));
	let batch = pending.take();
	assert_eq!(batch.game_records.len(), 1);
	assert_eq!(pending.games(), 0);
}

#[test]
fn a_batch_holds_one_runs_games_and_another_runs_are_not_spooled() {
	const OTHER_RUN: &str = "fedcba9876543210fedcba9876543210";
	let dir = TempDir::new("batcher-runs");
	let mut running = start(&dir, 10, 3);
	running.spool.begin_run(TEST_RUN, 0).unwrap();
	let played = games(4);
	running.send(played[0].clone());
	running.send_for(OTHER_RUN, played[1].clone());
	running.send(played[2].clone());
	running.send(played[3].clone());
	running.stop();
	let spool = &running.spool;
	// The first game went out alone when a game of another run came; that game was not kept.
	assert_eq!(spool.sequences_after(0), vec![1, 2]);
	let first = spool.read(1).unwrap().unwrap();
	assert_eq!(first.game_records.len(), 1);
	assert_eq!(first.run_id, TEST_RUN);
	let second = spool.read(2).unwrap().unwrap();
	assert_eq!(second.game_records.len(), 2);
	assert_eq!(second.run_id, TEST_RUN);
	assert_eq!(running.stats.snapshot(Instant::now()).games, 4);
}
