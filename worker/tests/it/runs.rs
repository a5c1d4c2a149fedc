//! A worker that finds its coordinator serving another run: the old run's batches are set
//! aside, never sent to the new run, and the worker goes on for the new one.

use std::path::{Path, PathBuf};

use tigers_proto::decode_batch;
use tigers_proto::v1::SampleBatch;
use tigers_worker::spool::Spool;

use crate::coordinator::{Mode, RUN, State, TestServer, net_file};
use crate::{PATIENCE, TempDir, Worker, config, is_contiguous_from_one};

const NEW_RUN: &str = "b22b22b22b22b22b22b22b22b22b22b2";

/// The folders under the state directory's `spool-aside/`, by name.
fn set_aside(state_dir: &Path) -> Vec<PathBuf> {
	let mut folders: Vec<PathBuf> = std::fs::read_dir(state_dir.join("spool-aside"))
		.map(|entries| entries.map(|e| e.unwrap().path()).collect())
		.unwrap_or_default();
	folders.sort();
	folders
}

/// The batches in a folder set aside.
fn batches_in(folder: &Path) -> Vec<SampleBatch> {
	std::fs::read_dir(folder)
		.unwrap()
		.map(|e| e.unwrap().path())
		.filter(|path| path.extension().is_some_and(|e| e == "batch"))
		.map(|path| decode_batch(&std::fs::read(path).unwrap()).unwrap())
		.collect()
}

#[tokio::test]
async fn a_coordinator_started_for_a_new_run_gets_none_of_the_old_runs_batches() {
	let old = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(old.clone());
	let address = server.address;
	let dir = TempDir::new("new-run");
	let worker = Worker::start(config(&server.url(), dir.path()));
	old.wait_for("two stored batches", PATIENCE, |r| r.stored.len() >= 2)
		.await;
	// Batches the old run never acknowledges: they wait in the spool when it goes away.
	old.set_mode(Mode::Swallow);
	old.wait_for("three lost batches", PATIENCE, |r| r.swallowed.len() >= 3)
		.await;
	server.kill();

	// A new run on the same address, with a ledger that knows nothing of this worker.
	let new = State::new(net_file(1, 0), 1);
	new.set_run(NEW_RUN);
	let server = TestServer::start(new.clone(), address);
	new.wait_for("two batches of the new run", PATIENCE, |r| {
		r.stored.len() >= 2
	})
	.await;
	worker.stop().await.unwrap();
	drop(server);

	let record = new.record();
	assert!(
		record.other_run.is_empty(),
		"the old run's batches reached the new run: {:?}",
		record.other_run
	);
	assert!(is_contiguous_from_one(record.stored.keys()));
	assert!(record.stored.values().all(|batch| batch.run_id == NEW_RUN));
	// The old spool, set aside whole, holds at least the three lost batches, all of the old run.
	let folders = set_aside(dir.path());
	assert_eq!(folders.len(), 1, "{folders:?}");
	let name = folders[0]
		.file_name()
		.unwrap()
		.to_string_lossy()
		.into_owned();
	assert!(name.ends_with(&format!("-{RUN}")), "{name}");
	let kept = batches_in(&folders[0]);
	assert!(kept.len() >= 3, "{} batches set aside", kept.len());
	assert!(kept.iter().all(|batch| batch.run_id == RUN));
	let spool = Spool::open(&dir.path().join("spool"), 20).unwrap();
	assert_eq!(spool.run_id().as_deref(), Some(NEW_RUN));
}

#[tokio::test]
async fn a_batch_refused_as_another_runs_is_set_aside_and_the_worker_follows_the_new_run() {
	let state = State::new(net_file(1, 0), 1);
	let server = TestServer::any_port(state.clone());
	let dir = TempDir::new("refused-run");
	let worker = Worker::start(config(&server.url(), dir.path()));
	state
		.wait_for("two stored batches", PATIENCE, |r| r.stored.len() >= 2)
		.await;
	// The coordinator changes runs under an open session: the worker's next batch names the
	// old run and is refused without ending the session.
	state.set_run(NEW_RUN);
	state
		.wait_for("a batch of the new run stored", PATIENCE, |r| {
			r.stored.values().any(|batch| batch.run_id == NEW_RUN)
		})
		.await;
	worker.stop().await.unwrap();
	drop(server);

	let record = state.record();
	assert!(!record.other_run.is_empty());
	assert!(record.other_run.iter().all(|(_, run)| run == RUN));
	// Nothing stored names the new run before a batch that names the old one, and the
	// sequence has no gap: the next join numbered the new run's batches after the last stored.
	assert!(is_contiguous_from_one(record.stored.keys()));
	let first_new = record
		.stored
		.values()
		.position(|batch| batch.run_id == NEW_RUN)
		.unwrap();
	assert!(
		record
			.stored
			.values()
			.skip(first_new)
			.all(|batch| batch.run_id == NEW_RUN)
	);
	// The refused batch is among those set aside, never stored.
	let refused = record.other_run[0].0;
	let kept: Vec<SampleBatch> = set_aside(dir.path())
		.iter()
		.flat_map(|folder| batches_in(folder))
		.collect();
	assert!(
		kept.iter().any(|batch| batch.run_id == RUN),
		"the refused batch {refused} is not set aside"
	);
}
