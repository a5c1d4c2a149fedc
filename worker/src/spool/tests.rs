//! Spool tests, on real files.

use std::sync::Arc;
use std::time::Duration;

use tigers_proto::v1::SampleBatch;

use super::*;
use crate::testing::TempDir;

fn batch(tag: &str) -> SampleBatch {
	SampleBatch {
		sequence: 0,
		samples: Vec::new(),
		game_records: vec![tag.to_string()],
		run_id: String::new(),
	}
}

const RUN_A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const RUN_B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn batch_of(run: &str, tag: &str) -> SampleBatch {
	SampleBatch {
		run_id: run.to_string(),
		..batch(tag)
	}
}

fn tag(batch: &SampleBatch) -> &str {
	&batch.game_records[0]
}

#[test]
fn batches_get_consecutive_sequences_from_one_and_read_back() {
	let dir = TempDir::new("spool-order");
	let spool = Spool::open(dir.path(), 10).unwrap();
	assert!(spool.is_empty());
	assert_eq!(spool.next_sequence(), 1);
	for (i, name) in ["a", "b", "c"].iter().enumerate() {
		assert_eq!(spool.push(&mut batch(name)).unwrap(), i as u64 + 1);
	}
	assert_eq!(spool.sequences_after(0), [1, 2, 3]);
	assert_eq!(spool.sequences_after(1), [2, 3]);
	let second = spool.read(2).unwrap().unwrap();
	assert_eq!((second.sequence, tag(&second)), (2, "b"));
	assert_eq!(spool.read(7).unwrap(), None);
}

#[test]
fn a_reopened_spool_has_the_same_batches_in_order_and_its_counter() {
	let dir = TempDir::new("spool-reopen");
	{
		let spool = Spool::open(dir.path(), 10).unwrap();
		for name in ["a", "b", "c", "d"] {
			spool.push(&mut batch(name)).unwrap();
		}
		assert!(spool.remove(2).unwrap());
	}
	let spool = Spool::open(dir.path(), 10).unwrap();
	assert_eq!(spool.sequences_after(0), [1, 3, 4]);
	let tags: Vec<String> = spool
		.sequences_after(0)
		.into_iter()
		.map(|s| tag(&spool.read(s).unwrap().unwrap()).to_string())
		.collect();
	assert_eq!(tags, ["a", "c", "d"]);
	assert_eq!(spool.push(&mut batch("e")).unwrap(), 5);
}

#[test]
fn the_next_sequence_survives_reopening_an_empty_spool() {
	let dir = TempDir::new("spool-counter");
	{
		let spool = Spool::open(dir.path(), 10).unwrap();
		for name in ["a", "b", "c"] {
			spool.push(&mut batch(name)).unwrap();
		}
		for sequence in 1..=3 {
			assert!(spool.remove(sequence).unwrap());
		}
		assert!(spool.is_empty());
	}
	let spool = Spool::open(dir.path(), 10).unwrap();
	assert!(spool.is_empty());
	assert_eq!(spool.next_sequence(), 4);
	assert_eq!(spool.push(&mut batch("d")).unwrap(), 4);
}

#[test]
fn a_lost_counter_update_neither_reuses_nor_skips_a_number() {
	let dir = TempDir::new("spool-stale-counter");
	{
		let spool = Spool::open(dir.path(), 10).unwrap();
		spool.push(&mut batch("a")).unwrap();
		spool.push(&mut batch("b")).unwrap();
	}
	// As if the worker died between writing batch 2 and the counter.
	fs::write(dir.path().join(COUNTER_FILE), "2\n").unwrap();
	let spool = Spool::open(dir.path(), 10).unwrap();
	assert_eq!(spool.next_sequence(), 3);
}

#[test]
fn unfinished_writes_are_discarded_on_opening() {
	let dir = TempDir::new("spool-tmp");
	{
		let spool = Spool::open(dir.path(), 10).unwrap();
		spool.push(&mut batch("a")).unwrap();
	}
	let torn = dir.path().join(format!("{:020}.tmp", 2));
	fs::write(&torn, b"half a batch").unwrap();
	let spool = Spool::open(dir.path(), 10).unwrap();
	assert_eq!(spool.sequences_after(0), [1]);
	assert!(!torn.exists());
	assert_eq!(spool.push(&mut batch("b")).unwrap(), 2);
}

#[test]
fn removing_deletes_the_file_and_only_once() {
	let dir = TempDir::new("spool-remove");
	let spool = Spool::open(dir.path(), 10).unwrap();
	spool.push(&mut batch("a")).unwrap();
	let path = spool.batch_path(1);
	assert!(path.exists());
	assert!(spool.remove(1).unwrap());
	assert!(!path.exists());
	assert!(!spool.remove(1).unwrap());
	assert_eq!(spool.read(1).unwrap(), None);
}

#[test]
fn acknowledging_through_a_sequence_deletes_it_and_below_and_skips_the_counter_ahead() {
	let dir = TempDir::new("spool-ack-through");
	let spool = Spool::open(dir.path(), 10).unwrap();
	for name in ["a", "b", "c", "d"] {
		spool.push(&mut batch(name)).unwrap();
	}
	assert_eq!(spool.acknowledge_through(2).unwrap().deleted, 2);
	assert_eq!(spool.sequences_after(0), [3, 4]);
	assert!(!spool.batch_path(2).exists());
	assert_eq!(spool.next_sequence(), 5);
	assert_eq!(spool.acknowledge_through(4).unwrap().deleted, 2);
	// With nothing waiting, a coordinator that already has batches up to 9 must not see 5
	// again: nothing can be lost by numbering new batches above its last.
	assert_eq!(
		spool.acknowledge_through(9).unwrap(),
		Acknowledged::default()
	);
	assert_eq!(spool.next_sequence(), 10);
	drop(spool);
	assert_eq!(Spool::open(dir.path(), 10).unwrap().next_sequence(), 10);
}

#[test]
fn a_coordinator_claiming_more_than_was_numbered_deletes_nothing() {
	let dir = TempDir::new("spool-ahead");
	let spool = Spool::open(dir.path(), 10).unwrap();
	for name in ["a", "b", "c"] {
		spool.push(&mut batch(name)).unwrap();
	}
	for claim in [4, 1000, i64::MAX as u64, u64::MAX] {
		let error = spool.acknowledge_through(claim).unwrap_err();
		assert!(
			matches!(
				error,
				SpoolError::CoordinatorAhead {
					numbered: 3,
					spooled: 3,
					..
				}
			),
			"{error}"
		);
	}
	assert_eq!(spool.sequences_after(0), [1, 2, 3]);
	assert!(spool.batch_path(1).exists());
	assert_eq!(spool.next_sequence(), 4);
}

#[test]
fn batches_that_leave_a_gap_are_renumbered_to_follow_on() {
	let dir = TempDir::new("spool-gap");
	let spool = Spool::open(dir.path(), 10).unwrap();
	for name in ["a", "b", "c", "d", "e"] {
		spool.push(&mut batch(name)).unwrap();
	}
	// Batch 2 is lost (set aside as corrupt, say): 3, 4, 5 would leave a gap after 1.
	fs::write(spool.batch_path(2), b"\xff\xff not protobuf").unwrap();
	assert!(spool.read(2).is_err());
	let done = spool.acknowledge_through(1).unwrap();
	assert_eq!(
		done,
		Acknowledged {
			deleted: 1,
			renumbered: 3
		}
	);
	assert_eq!(spool.sequences_after(0), [2, 3, 4]);
	let read: Vec<(u64, String)> = [2, 3, 4]
		.map(|s| spool.read(s).unwrap().unwrap())
		.iter()
		.map(|b| (b.sequence, tag(b).to_string()))
		.collect();
	assert_eq!(read, [(2, "c".into()), (3, "d".into()), (4, "e".into())]);
	assert_eq!(spool.push(&mut batch("f")).unwrap(), 5);
	drop(spool);
	let spool = Spool::open(dir.path(), 10).unwrap();
	assert_eq!(spool.sequences_after(0), [2, 3, 4, 5]);
	assert_eq!(spool.next_sequence(), 6);
	// In step already: nothing moves.
	assert_eq!(
		spool.acknowledge_through(1).unwrap(),
		Acknowledged::default()
	);
	// Nothing waiting and the counter ahead of the coordinator: new batches follow on.
	let empty = TempDir::new("spool-gap-empty");
	let spool = Spool::open(empty.path(), 10).unwrap();
	for name in ["a", "b", "c"] {
		spool.push(&mut batch(name)).unwrap();
	}
	spool.remove(3).unwrap();
	spool.acknowledge_through(2).unwrap();
	assert_eq!(spool.next_sequence(), 3);
}

#[test]
fn a_full_spool_refuses_batches_until_one_is_acknowledged() {
	let dir = TempDir::new("spool-bound");
	let spool = Arc::new(Spool::open(dir.path(), 2).unwrap());
	spool.push(&mut batch("a")).unwrap();
	spool.push(&mut batch("b")).unwrap();
	assert!(!spool.has_room());
	assert!(matches!(
		spool.push(&mut batch("c")),
		Err(SpoolError::Full { capacity: 2 })
	));
	assert!(!spool.wait_for_room(Duration::from_millis(20)));
	let waiter = {
		let spool = spool.clone();
		std::thread::spawn(move || spool.wait_for_room(Duration::from_secs(10)))
	};
	spool.remove(1).unwrap();
	assert!(waiter.join().unwrap());
	// The refused batch did not use up a number.
	assert_eq!(spool.push(&mut batch("c")).unwrap(), 3);
	assert_eq!(spool.capacity(), 2);
}

#[test]
fn a_batch_that_does_not_decode_is_set_aside() {
	let dir = TempDir::new("spool-corrupt");
	let spool = Spool::open(dir.path(), 10).unwrap();
	spool.push(&mut batch("a")).unwrap();
	spool.push(&mut batch("b")).unwrap();
	fs::write(spool.batch_path(1), b"\xff\xff\xff not protobuf").unwrap();
	assert!(matches!(spool.read(1), Err(SpoolError::Corrupt { .. })));
	assert_eq!(spool.sequences_after(0), [2]);
	assert!(spool.batch_path(1).with_extension("corrupt").exists());
	drop(spool);
	assert_eq!(Spool::open(dir.path(), 10).unwrap().sequences_after(0), [2]);
}

mod decoding {
	use proptest::prelude::*;

	use super::*;

	proptest! {
		// Each case writes and reads real files: fewer cases than the pure decoders get.
		#![proptest_config(ProptestConfig::with_cases(64))]

		/// Whatever the spool directory holds, opening and reading it never panics: a damaged
		/// batch is set aside and reported, a bad name or counter is an error.
		#[test]
		fn arbitrary_spool_files_never_panic(
			contents in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 1..4),
			name in prop_oneof!["[0-9]{1,22}", "[0-9a-z.]{1,12}"],
			counter in prop_oneof!["[0-9]{0,22}\n?", any::<String>()],
		) {
			let dir = TempDir::new("spool-fuzz");
			{
				let spool = Spool::open(dir.path(), 10).unwrap();
				for bytes in &contents {
					spool.push(&mut batch("a")).unwrap();
					let last = spool.next_sequence() - 1;
					fs::write(spool.batch_path(last), bytes).unwrap();
				}
			}
			fs::write(dir.path().join(format!("{name}.batch")), b"x").unwrap();
			fs::write(dir.path().join(COUNTER_FILE), &counter).unwrap();
			if let Ok(spool) = Spool::open(dir.path(), 10) {
				for sequence in spool.sequences_after(0) {
					match spool.read(sequence) {
						Ok(Some(batch)) => prop_assert_eq!(batch.sequence, sequence),
						Ok(None) | Err(SpoolError::Corrupt { .. }) => {}
						Err(error) => prop_assert!(false, "{error}"),
					}
				}
				let _ = spool.acknowledge_through(1);
			}
		}
	}
}

#[test]
fn a_spool_adopts_its_first_run_and_refuses_batches_of_another() {
	let dir = TempDir::new("spool-adopt");
	let path = dir.path().join("spool");
	{
		// Batches spooled before run ids name none, and join the first run.
		let spool = Spool::open(&path, 10).unwrap();
		assert_eq!(spool.run_id(), None);
		spool.push(&mut batch("old")).unwrap();
		assert_eq!(spool.begin_run(RUN_A, 0).unwrap(), None);
		assert_eq!(spool.run_id().as_deref(), Some(RUN_A));
		assert_eq!(spool.read(1).unwrap().unwrap().run_id, RUN_A);
		let error = spool.push(&mut batch_of(RUN_B, "b")).unwrap_err();
		assert!(matches!(error, SpoolError::OtherRun { .. }), "{error}");
		assert_eq!(spool.push(&mut batch_of(RUN_A, "a")).unwrap(), 2);
		// The same run again changes nothing.
		assert_eq!(spool.begin_run(RUN_A, 0).unwrap(), None);
		assert_eq!(spool.len(), 2);
	}
	let spool = Spool::open(&path, 10).unwrap();
	assert_eq!(spool.run_id().as_deref(), Some(RUN_A));
	assert!(!dir.path().join("spool-aside").exists());
}

#[test]
fn a_spool_of_another_run_is_set_aside_whole_and_numbering_follows_the_new_run() {
	let dir = TempDir::new("spool-set-aside");
	let path = dir.path().join("spool");
	let spool = Spool::open(&path, 3).unwrap();
	spool.begin_run(RUN_A, 0).unwrap();
	for name in ["a", "b", "c"] {
		spool.push(&mut batch_of(RUN_A, name)).unwrap();
	}
	assert!(!spool.has_room());
	let aside = spool.begin_run(RUN_B, 7).unwrap().unwrap();
	assert_eq!((aside.run.as_str(), aside.batches), (RUN_A, 3));
	assert!(aside.path.starts_with(dir.path().join("spool-aside")));
	let name = aside
		.path
		.file_name()
		.unwrap()
		.to_str()
		.unwrap()
		.to_string();
	assert!(name.ends_with(&format!("-{RUN_A}")), "{name}");
	// The old spool is there as it was, with its own run file; the new one is empty.
	let mut kept: Vec<String> = fs::read_dir(&aside.path)
		.unwrap()
		.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
		.collect();
	kept.sort();
	assert_eq!(kept[..3].len(), 3);
	assert!(kept.contains(&"run".to_string()) && kept.contains(&"next_sequence".to_string()));
	assert_eq!(
		fs::read_to_string(aside.path.join("run")).unwrap().trim(),
		RUN_A
	);
	assert!(spool.is_empty() && spool.has_room());
	assert_eq!(spool.run_id().as_deref(), Some(RUN_B));
	assert_eq!(spool.next_sequence(), 8);
	assert!(matches!(
		spool.push(&mut batch_of(RUN_A, "late")),
		Err(SpoolError::OtherRun { .. })
	));
	assert_eq!(spool.push(&mut batch_of(RUN_B, "new")).unwrap(), 8);
	drop(spool);
	let spool = Spool::open(&path, 3).unwrap();
	assert_eq!(spool.run_id().as_deref(), Some(RUN_B));
	assert_eq!(spool.sequences_after(0), [8]);
	assert_eq!(tag(&spool.read(8).unwrap().unwrap()), "new");
}

#[test]
fn a_refused_batch_is_moved_aside_and_leaves_a_gap() {
	let dir = TempDir::new("spool-refused");
	let path = dir.path().join("spool");
	let spool = Spool::open(&path, 10).unwrap();
	spool.begin_run(RUN_A, 0).unwrap();
	for name in ["a", "b", "c"] {
		spool.push(&mut batch_of(RUN_A, name)).unwrap();
	}
	let moved = spool.set_aside(2).unwrap().unwrap();
	assert!(
		moved.starts_with(dir.path().join("spool-aside")),
		"{}",
		moved.display()
	);
	assert!(
		moved
			.parent()
			.unwrap()
			.to_str()
			.unwrap()
			.ends_with("-refused")
	);
	assert_eq!(tag(&decode_batch(&fs::read(&moved).unwrap()).unwrap()), "b");
	assert_eq!(spool.set_aside(2).unwrap(), None);
	assert_eq!(spool.sequences_after(0), [1, 3]);
	// The next join closes the gap.
	spool.acknowledge_through(1).unwrap();
	assert_eq!(spool.sequences_after(0), [2]);
	assert_eq!(tag(&spool.read(2).unwrap().unwrap()), "c");
}

#[test]
fn batches_set_aside_are_deleted_after_the_time_they_are_kept() {
	let dir = TempDir::new("spool-aside-prune");
	let root = dir.path().join("spool-aside");
	let now = 2_000_000_000;
	let keep = KEEP_SET_ASIDE.as_secs();
	for name in [
		format!("{}-{RUN_A}", now - keep - 1),
		format!("{}-refused", now - keep + 10),
		"notes".to_string(),
	] {
		fs::create_dir_all(root.join(name).join("x")).unwrap();
	}
	assert_eq!(aside::prune(&root, now, KEEP_SET_ASIDE), 1);
	let mut left: Vec<String> = fs::read_dir(&root)
		.unwrap()
		.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
		.collect();
	left.sort();
	assert_eq!(
		left,
		[format!("{}-refused", now - keep + 10), "notes".to_string()]
	);
}

#[test]
fn a_run_file_that_is_no_run_id_is_an_error() {
	let dir = TempDir::new("spool-bad-run");
	let path = dir.path().join("spool");
	fs::create_dir_all(&path).unwrap();
	fs::write(path.join("run"), "nonsense\n").unwrap();
	let error = Spool::open(&path, 10).unwrap_err().to_string();
	assert!(error.contains("is not a run id"), "{error}");
}
