//! The game archive's tests: every stored game lands once in its generation's file, across
//! failed commits, crashes between the sync and the commit, files deleted by hand and the keep
//! setting.

use tigers_core::{Game, GameRecord};
use tigers_proto::games::read_games;

use super::*;
use crate::store::ledger::GenerationRow;
use crate::test_support::TestDir;

/// A finished-looking record of generation `generation`, told apart by its `seed`.
fn record(generation: u64, seed: u64) -> String {
	let mut game = Game::default();
	game.play("sc3".parse().unwrap()).unwrap();
	GameRecord {
		generation: Some(generation),
		seed: Some(seed),
		..GameRecord::from_game(&game)
	}
	.to_text()
}

struct Run {
	dir: TestDir,
	ledger: Mutex<Ledger>,
	next_sequence: u64,
}

impl Run {
	fn new(label: &str) -> Run {
		let dir = TestDir::new(label);
		let ledger = Mutex::new(Ledger::open(&dir.path().join("ledger.sqlite")).unwrap());
		Run {
			dir,
			ledger,
			next_sequence: 1,
		}
	}

	fn archive(&self, keep: u64) -> GameArchive {
		GameArchive::new(self.dir.path().join("games"), keep)
	}

	/// Stores a batch of games (generation, seed) as a session would.
	fn store(&mut self, games: &[(u64, u64)]) {
		let records: Vec<String> = games.iter().map(|&(g, s)| record(g, s)).collect();
		let sequence = self.next_sequence;
		self.next_sequence += 1;
		let samples = crate::test_support::varied_samples();
		self.ledger
			.lock()
			.unwrap()
			.insert_batch("w", sequence, &samples, &records)
			.unwrap();
	}

	fn promote(&self, generation: u64) {
		self.ledger
			.lock()
			.unwrap()
			.record_generation(&GenerationRow {
				generation,
				sha256: format!("{generation:064x}"),
				training_steps: 0,
				promoted_at: 0.0,
				samples_at_promotion: 0,
			})
			.unwrap();
	}

	/// The seeds in generation `generation`'s file, in order.
	fn seeds(&self, generation: u64) -> Vec<u64> {
		let path = self.dir.path().join("games").join(file_name(generation));
		read_games(&path)
			.unwrap()
			.iter()
			.map(|game| {
				assert_eq!(game.generation, Some(generation));
				game.seed.unwrap()
			})
			.collect()
	}

	fn exists(&self, generation: u64) -> bool {
		self.dir
			.path()
			.join("games")
			.join(file_name(generation))
			.exists()
	}
}

fn summary(archive: &GameArchive) -> v1::GameArchive {
	archive.counts().summary(archive.keep_generations())
}

#[test]
fn every_stored_game_lands_once_in_its_generations_file() {
	let mut run = Run::new("archive-once");
	run.store(&[(0, 1), (0, 2)]);
	// A batch that straddles a promotion sends each game to its own generation's file.
	run.store(&[(0, 3), (1, 4)]);
	let mut archive = run.archive(0);
	assert_eq!(
		archive.work(&run.ledger, 1).unwrap(),
		1,
		"one batch a round"
	);
	assert_eq!(summary(&archive).pending, 2);
	assert_eq!(archive.work(&run.ledger, 10).unwrap(), 1);
	assert_eq!(
		archive.work(&run.ledger, 10).unwrap(),
		0,
		"nothing is written twice"
	);
	assert_eq!(run.seeds(0), [1, 2, 3]);
	assert_eq!(run.seeds(1), [4]);
	let counts = summary(&archive);
	assert_eq!((counts.kept, counts.pending, counts.files), (4, 0, 2));
	assert!(counts.bytes > 0);
	let ledger = run.ledger.lock().unwrap();
	assert_eq!(ledger.pending_game_count().unwrap(), 0);
	let rows = ledger.game_files().unwrap();
	assert_eq!(rows.iter().map(|r| r.games).collect::<Vec<_>>(), [3, 1]);
}

#[test]
fn a_batch_of_one_generation_is_appended_as_it_was_stored() {
	let mut run = Run::new("archive-as-stored");
	run.store(&[(2, 1), (2, 2)]);
	run.store(&[(2, 3)]);
	let stored = run.ledger.lock().unwrap().pending_games(0, 10).unwrap();
	run.archive(0).work(&run.ledger, 10).unwrap();
	let file = std::fs::read(run.dir.path().join("games").join(file_name(2))).unwrap();
	assert_eq!(
		file,
		[stored[0].games.clone(), stored[1].games.clone()].concat()
	);
	assert_eq!(run.seeds(2), [1, 2, 3]);
}

#[test]
fn games_written_but_never_committed_are_cut_back_and_written_again() {
	let mut run = Run::new("archive-crash");
	run.store(&[(0, 1)]);
	let mut archive = run.archive(0);
	archive.work(&run.ledger, 10).unwrap();
	run.store(&[(0, 2), (1, 3)]);
	// A crash after the files were appended to and synced, before the commit: the
	// first file has more than its row says, the second has no row at all.
	let pending = run.ledger.lock().unwrap().pending_games(0, 10).unwrap();
	let texts = decompressed(&pending);
	archive
		.append(&sort_by_generation(&pending, &texts), None)
		.unwrap();
	drop(archive);
	assert_eq!(run.seeds(0), [1, 2]);
	assert!(run.exists(1));
	// The next start cuts back, then writes the batch's games again, once.
	let mut archive = run.archive(0);
	archive.work(&run.ledger, 10).unwrap();
	assert_eq!(run.seeds(0), [1, 2]);
	assert_eq!(run.seeds(1), [3]);
	assert_eq!(summary(&archive).kept, 3);
}

#[test]
fn a_failed_commit_cuts_the_files_back() {
	let mut run = Run::new("archive-failed-commit");
	run.store(&[(0, 1)]);
	let mut archive = run.archive(0);
	archive.work(&run.ledger, 10).unwrap();
	run.store(&[(0, 2), (5, 3)]);
	// Another connection holds the write lock past the busy timeout's reach: simulated by
	// a transaction this test leaves open on a second connection.
	let other = rusqlite::Connection::open(run.dir.path().join("ledger.sqlite")).unwrap();
	other.busy_timeout(Duration::ZERO).unwrap();
	other.execute_batch("BEGIN IMMEDIATE").unwrap();
	run.ledger
		.lock()
		.unwrap()
		.set_busy_timeout(Duration::ZERO)
		.unwrap();
	assert!(archive.work(&run.ledger, 10).is_err());
	assert_eq!(run.seeds(0), [1], "cut back to what the ledger holds");
	assert!(!run.exists(5), "a file without a row is gone");
	other.execute_batch("ROLLBACK").unwrap();
	archive.work(&run.ledger, 10).unwrap();
	assert_eq!(run.seeds(0), [1, 2]);
	assert_eq!(run.seeds(5), [3]);
}

#[test]
fn the_keep_setting_prunes_old_generations_and_late_games() {
	let mut run = Run::new("archive-prune");
	for generation in 0..4 {
		run.store(&[
			(generation, generation * 10),
			(generation, generation * 10 + 1),
		]);
	}
	run.promote(0);
	run.promote(3);
	let mut archive = run.archive(2);
	archive.work(&run.ledger, 10).unwrap();
	// Generations 2 and 3 are kept; 0 and 1 are two or more below the newest.
	assert!(!run.exists(0) && !run.exists(1));
	assert_eq!(run.seeds(2), [20, 21]);
	assert_eq!(run.seeds(3), [30, 31]);
	let counts = summary(&archive);
	assert_eq!((counts.kept, counts.pruned, counts.files), (4, 4, 2));
	// A worker still on generation 1 sends a game: counted, not written.
	run.store(&[(1, 99)]);
	archive.work(&run.ledger, 10).unwrap();
	assert!(!run.exists(1));
	assert_eq!(summary(&archive).pruned, 5);
	// Promotion moves the window on, and a restart finds the same counts.
	run.promote(4);
	archive.work(&run.ledger, 10).unwrap();
	assert!(!run.exists(2) && run.exists(3));
	let mut reopened = run.archive(2);
	reopened.work(&run.ledger, 10).unwrap();
	let counts = summary(&reopened);
	assert_eq!((counts.kept, counts.pruned, counts.files), (2, 7, 1));
}

#[test]
fn a_file_deleted_by_hand_is_counted_as_pruned() {
	let mut run = Run::new("archive-missing");
	run.store(&[(0, 1), (1, 2)]);
	run.archive(0).work(&run.ledger, 10).unwrap();
	std::fs::remove_file(run.dir.path().join("games").join(file_name(0))).unwrap();
	let mut archive = run.archive(0);
	archive.work(&run.ledger, 10).unwrap();
	let counts = summary(&archive);
	assert_eq!((counts.kept, counts.pruned, counts.files), (1, 1, 1));
	// Its generation stays pruned: a late game of it is not written.
	run.store(&[(0, 3)]);
	archive.work(&run.ledger, 10).unwrap();
	assert!(!run.exists(0));
}

#[test]
fn keeping_is_counted_from_the_newest_generation() {
	assert!(!is_past_keeping(0, Some(100), 0), "0 keeps everything");
	assert!(!is_past_keeping(0, None, 1));
	assert!(!is_past_keeping(5, Some(5), 1));
	assert!(is_past_keeping(4, Some(5), 1));
	assert!(!is_past_keeping(3, Some(5), 3));
	assert!(is_past_keeping(2, Some(5), 3));
	assert!(!is_past_keeping(u64::MAX, Some(5), u64::MAX));
}
