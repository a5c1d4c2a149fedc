//! The tablebase an assignment names: fetched, checked and kept, or found on disk; used to stop
//! self-play games at the first movement-phase position; refused when damaged on the way.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use tigers_core::{GameRecord, Tablebase};
use tigers_proto::convert::sample_from_wire;
use tigers_proto::v1::SampleBatch;

use tigers_worker::{FetchError, fetch_tablebase};

use crate::coordinator::{ServedTablebase, State, TestServer, assignment, net_file};
use crate::{PATIENCE, TempDir, Worker, config};

/// Where the workspace's test binaries share one solved table.
fn table_path() -> PathBuf {
	PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tablebase/tigers-and-sheep.tb")
}

/// The shared table's file and its identity, solved by whichever test binary needs it first.
fn served(damage_piece: Option<usize>) -> ServedTablebase {
	static FILE: OnceLock<(Arc<Vec<u8>>, String)> = OnceLock::new();
	let (bytes, identity) = FILE.get_or_init(|| {
		let (table, _) = Tablebase::load_or_build(&table_path(), 2, &|_| {})
			.expect("the test tablebase loads or builds");
		(Arc::new(table.to_bytes()), table.identity().to_string())
	});
	ServedTablebase {
		bytes: bytes.clone(),
		identity: identity.clone(),
		damage_piece,
	}
}

/// A coordinator whose assignment names the table and asks for adjudication.
fn coordinator_with(table: &ServedTablebase) -> (Arc<State>, TestServer) {
	let net = net_file(1, 0);
	let state = State::new(net.clone(), 1);
	state.serve_tablebase(table.clone());
	state.push_assignment(tigers_proto::v1::Assignment {
		tablebase_sha256: table.identity.clone(),
		adjudicate: true,
		..assignment(&net, 1)
	});
	let server = TestServer::any_port(state.clone());
	(state, server)
}

/// Whether a batch's game stopped at its first movement-phase position, with the samples
/// carrying the table's result there.
fn is_adjudicated(batch: &SampleBatch, table: &Tablebase) -> bool {
	let record = GameRecord::from_text(&batch.game_records[0]).expect("a record");
	let (game, _) = record.replay();
	let Some(value) = table.probe(game.board(), game.turn()) else {
		return false;
	};
	let first = game
		.history()
		.iter()
		.rev()
		.nth(1)
		.is_some_and(|(_, before)| before.sheep_in_hand() > 0);
	let exact = value.sign() as f32 * game.turn().sign();
	first
		&& record.result.is_none()
		&& batch
			.samples
			.iter()
			.enumerate()
			.all(|(i, wire)| sample_from_wire(i, wire).expect("a sample").result == exact)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_table_is_fetched_checked_kept_and_adjudicates_games() {
	let table = served(None);
	let (state, server) = coordinator_with(&table);
	let dir = TempDir::new("tb-fetch");
	let path = dir.path().join("cache/movement-phase.tb");
	let mut config = config(&server.url(), &dir.path().join("state"));
	config.tablebase = Some(path.clone());
	let worker = Worker::start(config);
	let loaded = Tablebase::from_bytes(table.bytes.to_vec()).expect("the served table");
	state
		.wait_for("an adjudicated game", PATIENCE * 3, |r| {
			r.stored.values().any(|b| is_adjudicated(b, &loaded))
		})
		.await;
	assert_eq!(state.record().tablebase_fetches, 1);
	// Kept where told, whole, and nothing half-written left beside it.
	assert_eq!(std::fs::read(&path).unwrap(), *table.bytes);
	assert!(!path.with_extension("partial").exists());
	worker.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_already_on_disk_is_used_without_a_transfer() {
	let table = served(None);
	let (state, server) = coordinator_with(&table);
	let dir = TempDir::new("tb-disk");
	let path = dir.path().join("movement-phase.tb");
	std::fs::write(&path, &*table.bytes).unwrap();
	let mut config = config(&server.url(), &dir.path().join("state"));
	config.tablebase = Some(path);
	let worker = Worker::start(config);
	let loaded = Tablebase::from_bytes(table.bytes.to_vec()).expect("the served table");
	state
		.wait_for("an adjudicated game", PATIENCE * 3, |r| {
			r.stored.values().any(|b| is_adjudicated(b, &loaded))
		})
		.await;
	assert_eq!(state.record().tablebase_fetches, 0);
	worker.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_transfer_leaves_nothing_and_a_whole_one_is_kept() {
	let damaged = served(Some(7));
	let (_state, server) = coordinator_with(&damaged);
	let dir = TempDir::new("tb-damaged");
	let path = dir.path().join("movement-phase.tb");
	let config = config(&server.url(), &dir.path().join("state"));
	let error = fetch_tablebase(&config, &damaged.identity, &path)
		.await
		.unwrap_err();
	assert!(matches!(error, FetchError::Mismatch(_)), "{error}");
	assert!(error.to_string().contains("hashes to"), "{error}");
	// Neither kept nor left half-written.
	assert!(!path.exists());
	assert!(!path.with_extension("partial").exists());
	// Asking for another table than the coordinator's is refused before any byte moves.
	let error = fetch_tablebase(&config, &"0".repeat(64), &path)
		.await
		.unwrap_err();
	assert!(matches!(error, FetchError::Rpc(_)), "{error}");

	let (_state, server) = coordinator_with(&served(None));
	let config = crate::config(&server.url(), &dir.path().join("state"));
	fetch_tablebase(&config, &damaged.identity, &path)
		.await
		.expect("a whole transfer");
	assert_eq!(std::fs::read(&path).unwrap(), *damaged.bytes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_damaged_transfer_self_play_goes_on_without_the_table() {
	let table = served(Some(7));
	let (state, server) = coordinator_with(&table);
	let dir = TempDir::new("tb-goes-on");
	let path = dir.path().join("movement-phase.tb");
	let mut config = config(&server.url(), &dir.path().join("state"));
	config.tablebase = Some(path.clone());
	let worker = Worker::start(config);
	state
		.wait_for("a transfer, then more batches", PATIENCE * 3, |r| {
			r.tablebase_fetches >= 1 && r.stored.len() >= 3
		})
		.await;
	let loaded = Tablebase::from_bytes(served(None).bytes.to_vec()).expect("the table");
	assert!(
		!state
			.record()
			.stored
			.values()
			.any(|b| is_adjudicated(b, &loaded)),
		"no game was adjudicated without the table"
	);
	worker.stop().await.unwrap();
	assert!(!path.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_told_no_tablebase_never_asks_for_one() {
	let table = served(None);
	let (state, server) = coordinator_with(&table);
	let dir = TempDir::new("tb-none");
	let mut config = config(&server.url(), &dir.path().join("state"));
	config.no_tablebase = true;
	let worker = Worker::start(config);
	state
		.wait_for("three batches", PATIENCE, |r| r.stored.len() >= 3)
		.await;
	assert_eq!(state.record().tablebase_fetches, 0);
	worker.stop().await.unwrap();
}
