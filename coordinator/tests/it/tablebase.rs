//! The coordinator's tablebase: loaded at start, refused when damaged, solved (or waited for)
//! while the run goes on, named in assignments, sent to workers, used by the gate and by
//! adjudicated self-play.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tigers_coordinator::GameEnding;
use tigers_coordinator::config::{CoordinatorConfig, TablebaseUse};
use tigers_core::network::file::hex;
use tigers_core::tablebase::Value;
use tigers_core::{GameRecord, Tablebase};
use tigers_proto::v1;
use tigers_proto::v1::coordinator_message::Body as ToWorker;
use tigers_testkit::tables as test_tables;
use tonic::Code;

use crate::common::{WAIT, client, join, session, start, status, temp_dir, test_config};

/// Where the workspace's test binaries share one solved table.
pub(crate) fn table_path() -> PathBuf {
	test_tables::movement_path(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// The shared table, solved by whichever test binary needs it first.
pub(crate) fn table() -> &'static Arc<Tablebase> {
	test_tables::movement(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// The placement layers from 19 placed (the last two), solved once and kept.
pub(crate) fn last_layers() -> &'static PathBuf {
	test_tables::last_layers(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

fn with_table(run_dir: PathBuf, path: PathBuf, using: TablebaseUse) -> CoordinatorConfig {
	let mut config = test_config(run_dir, None);
	config.no_tablebase = false;
	config.tablebase = Some(path);
	config.run.tablebase_use = using;
	config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loaded_table_is_named_in_assignments_and_sent_whole_to_workers() {
	let identity = table().identity().to_string();
	let temp = temp_dir("tb-loaded");
	let config = with_table(temp.to_path_buf(), table_path(), TablebaseUse::Adjudicate);
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let shown = status(&mut client)
		.await
		.tablebase
		.expect("a tablebase status");
	assert_eq!(
		(shown.state.as_str(), shown.sha256.as_str()),
		("ready", identity.as_str())
	);

	let secret = join(&mut client, "w1").await;
	let (_sender, _inbound, assignment) = session(&mut client, "w1", &secret).await;
	assert_eq!(assignment.tablebase_sha256, identity);
	assert!(assignment.adjudicate);

	// The whole file, in order, in pieces of at most a mebibyte, hashing to its identity.
	let mut pieces = client
		.fetch_tablebase(v1::FetchTablebaseRequest {
			sha256: identity.clone(),
		})
		.await
		.expect("the transfer starts")
		.into_inner();
	let mut bytes = Vec::new();
	while let Some(piece) = pieces.message().await.expect("every piece arrives") {
		assert_eq!(piece.offset, bytes.len() as u64);
		assert_eq!(piece.sha256, identity);
		assert_eq!(piece.total_bytes, table().file_len());
		assert!(piece.data.len() <= 1 << 20);
		bytes.extend_from_slice(&piece.data);
	}
	assert_eq!(bytes.len() as u64, table().file_len());
	assert_eq!(hex(&Sha256::digest(&bytes)), identity);
	assert_eq!(bytes, std::fs::read(table_path()).unwrap());

	let other = client
		.fetch_tablebase(v1::FetchTablebaseRequest {
			sha256: "0".repeat(64),
		})
		.await
		.map(|_| ())
		.unwrap_err();
	assert_eq!(other.code(), Code::FailedPrecondition);
	assert!(
		other.message().contains("not \"0000"),
		"{}",
		other.message()
	);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_table_none_is_named_or_sent_and_the_status_says_why() {
	let temp = temp_dir("tb-off");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let shown = status(&mut client)
		.await
		.tablebase
		.expect("a tablebase status");
	assert_eq!(shown.state, "off");
	assert!(shown.detail.contains("--no-tablebase"), "{}", shown.detail);
	let secret = join(&mut client, "w1").await;
	let (_sender, _inbound, assignment) = session(&mut client, "w1", &secret).await;
	assert_eq!(
		(assignment.tablebase_sha256.as_str(), assignment.adjudicate),
		("", false)
	);
	let refused = client
		.fetch_tablebase(v1::FetchTablebaseRequest {
			sha256: table().identity().to_string(),
		})
		.await
		.map(|_| ())
		.unwrap_err();
	assert_eq!(refused.code(), Code::FailedPrecondition);
	assert!(
		refused.message().contains("no tablebase"),
		"{}",
		refused.message()
	);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_table_file_stops_the_coordinator_with_the_reason() {
	let dir = temp_dir("tb-damaged");
	std::fs::create_dir_all(&dir).unwrap();
	let junk = dir.join("junk.tb");
	std::fs::write(&junk, vec![b'x'; 1000]).unwrap();
	let config = with_table(dir.join("run"), junk.clone(), TablebaseUse::Rescore);
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
	let error = tigers_coordinator::server::run(config, listener, std::future::pending())
		.await
		.unwrap_err()
		.to_string();
	assert!(error.contains(&junk.display().to_string()), "{error}");
	assert!(
		error.contains("not a Tigers and Sheep tablebase"),
		"{error}"
	);
	// Refused, not replaced, and refused before a run directory was made.
	assert_eq!(std::fs::read(&junk).unwrap(), vec![b'x'; 1000]);
	assert!(!dir.join("run").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placement_layers_named_but_missing_or_damaged_stop_the_coordinator() {
	let dir = temp_dir("tb-placement-bad");
	std::fs::create_dir_all(&dir).unwrap();
	let refused = |placement: PathBuf| {
		let dir = dir.to_path_buf();
		async move {
			let mut config = with_table(dir.join("run"), table_path(), TablebaseUse::Adjudicate);
			config.placement = Some(placement);
			let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
			tigers_coordinator::server::run(config, listener, std::future::pending())
				.await
				.unwrap_err()
				.to_string()
		}
	};
	let missing = dir.join("no-layers-here");
	let error = refused(missing.clone()).await;
	assert!(error.contains(&missing.display().to_string()), "{error}");
	assert!(error.contains("no such directory"), "{error}");
	let empty = dir.join("empty");
	std::fs::create_dir_all(&empty).unwrap();
	let error = refused(empty).await;
	assert!(error.contains("no placement layer there"), "{error}");
	// A layer file that is not one is refused, and left as it was.
	let damaged = dir.join("damaged");
	std::fs::create_dir_all(&damaged).unwrap();
	let junk = damaged.join("placed-19-sheep.tbp");
	std::fs::write(&junk, vec![b'x'; 200]).unwrap();
	let error = refused(damaged).await;
	assert!(error.contains("cannot be used"), "{error}");
	assert_eq!(std::fs::read(&junk).unwrap(), vec![b'x'; 200]);
	assert!(!dir.join("run").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_placement_layers_the_status_says_where_it_looked() {
	let temp = temp_dir("tb-no-placement");
	let config = with_table(temp.to_path_buf(), table_path(), TablebaseUse::Adjudicate);
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let layers = status(&mut client)
		.await
		.placement
		.expect("the placement layers' status");
	assert_eq!((layers.state.as_str(), layers.layers), ("off", 0));
	// Looked for beside the table, where `tui tablebase build --placement` would put them.
	let beside = table_path().with_file_name("placement-f1-r1");
	assert!(
		layers.detail.contains(&beside.display().to_string()),
		"{layers:?}"
	);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_that_arrives_after_the_start_is_announced_to_open_sessions() {
	// Another process is solving the table (it holds the lock beside the file), so the
	// coordinator shows it as building and waits for that solve rather than starting its own.
	let dir = temp_dir("tb-later");
	std::fs::create_dir_all(&dir).unwrap();
	let path = dir.join("movement-phase.tb");
	let lock = std::fs::File::create(path.with_extension("lock")).unwrap();
	lock.lock().unwrap();
	let running = start(with_table(
		dir.join("run"),
		path.clone(),
		TablebaseUse::Rescore,
	))
	.await;
	let mut client = client(running.address, None).await;
	let shown = status(&mut client)
		.await
		.tablebase
		.expect("a tablebase status");
	assert_eq!(shown.state, "building");
	let secret = join(&mut client, "w1").await;
	let (_sender, mut inbound, first) = session(&mut client, "w1", &secret).await;
	assert_eq!(first.tablebase_sha256, "");

	std::fs::copy(table_path(), &path).unwrap();
	drop(lock);
	let renamed = tokio::time::timeout(WAIT, async {
		loop {
			let message = inbound
				.message()
				.await
				.unwrap()
				.expect("the session stays open");
			if let Some(ToWorker::Assignment(assignment)) = message.body {
				return assignment;
			}
		}
	})
	.await
	.expect("a new assignment once the table is there");
	assert_eq!(renamed.tablebase_sha256, table().identity());
	assert_eq!(
		(renamed.generation, renamed.sha256),
		(first.generation, first.sha256)
	);
	assert!(!renamed.adjudicate);
	let shown = status(&mut client)
		.await
		.tablebase
		.expect("a tablebase status");
	assert_eq!(
		(shown.state.as_str(), shown.sha256.as_str()),
		("ready", table().identity())
	);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_workers_adjudicate_and_the_gate_judges_exact_accuracy() {
	let temp = temp_dir("tb-play");
	let mut config = with_table(temp.to_path_buf(), table_path(), TablebaseUse::Adjudicate);
	config.placement = Some(last_layers().clone());
	config.local_workers = 1;
	// Every game adjudicated: the one looked at below stopped at the movement phase.
	config.run.play_out_share = 0.0;
	config.run.gate.max_plies = 120;
	// Every position is searched again: the worker searched with the table, and its exact
	// scores must not count against it.
	config.run.research_fraction = 1.0;
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	// Wait for a gate, and for a game that did not end by the rules: self-play stops games
	// at their first movement-phase position (a game over during placement ends by the rules).
	let seen = tokio::time::timeout(Duration::from_secs(120), async {
		loop {
			let progress = status(&mut client).await;
			let stopped = GameRecord::from_text(&progress.last_game)
				.is_ok_and(|record| record.result.is_none());
			if stopped && !progress.gates.is_empty() {
				return progress;
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	})
	.await
	.expect("a gate, and a game stopped by adjudication, within two minutes");

	// The first gate measured generation 0, its movement-phase moves judged by the table.
	let gate = &seen.gates[0];
	let candidate = gate
		.candidate_exact
		.expect("the candidate's exact accuracy");
	let reference = gate
		.reference_exact
		.expect("the reference's exact accuracy");
	assert!(
		candidate.moves > 0 && candidate.kept <= candidate.moves,
		"{candidate:?}"
	);
	assert!(
		reference.moves > 0 && reference.kept <= reference.moves,
		"{reference:?}"
	);
	// The placement layers found judged both players' moves in the positions they hold.
	let layers = seen
		.placement
		.clone()
		.expect("the placement layers' status");
	assert_eq!(
		(layers.state.as_str(), layers.layers, layers.layers_total),
		("judging", 2, 39),
		"{layers:?}"
	);
	for accuracy in [gate.candidate_placement, gate.reference_placement] {
		let accuracy = accuracy.expect("placement-phase exact accuracy");
		assert!(
			accuracy.moves > 0 && accuracy.kept <= accuracy.moves,
			"{accuracy:?}"
		);
	}
	// As `coordinator status` prints them.
	let json = tigers_coordinator::progress_json(&seen);
	assert_eq!(json["placement_layers"]["state"], "judging");
	assert!(
		json["gates"][0]["placement_accuracy"]["candidate"]["moves"].as_u64() > Some(0),
		"{json}"
	);

	// The stopped game stopped at its first movement-phase position, which the table holds.
	let record = GameRecord::from_text(&seen.last_game).expect("a game record");
	let (game, _) = record.replay();
	assert_eq!(game.board().sheep_in_hand(), 0, "{}", seen.last_game);
	let (_, before_last) = game.history().iter().rev().nth(1).expect("moves");
	assert!(before_last.sheep_in_hand() > 0, "{}", seen.last_game);
	assert!(table().probe(game.board(), game.turn()).is_some());

	// An honest worker that played with the table is never flagged by the re-searches.
	tokio::time::sleep(Duration::from_secs(2)).await;
	let progress = status(&mut client).await;
	assert!(!progress.workers.is_empty());
	for worker in &progress.workers {
		assert_eq!(worker.flagged, 0, "{} was flagged", worker.worker_id);
	}
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_play_out_share_of_one_adjudicated_self_play_plays_every_game_to_its_end() {
	let temp = temp_dir("tb-play-out");
	let mut config = with_table(temp.to_path_buf(), table_path(), TablebaseUse::Adjudicate);
	config.run.play_out_share = 1.0;
	config.local_workers = 1;
	let max_plies = config.run.selfplay.max_plies as usize;
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	// The share travels in the assignment, beside adjudication.
	let secret = join(&mut client, "w1").await;
	let (_sender, _inbound, assignment) = session(&mut client, "w1", &secret).await;
	assert!(assignment.adjudicate);
	assert_eq!(assignment.play_out_share, 1.0);

	// The local worker's games go on past their first movement-phase position: a move is
	// played from a position with no sheep in hand, and no game stops short of the ply cap
	// without a result.
	let played_out = tokio::time::timeout(Duration::from_secs(120), async {
		loop {
			let progress = status(&mut client).await;
			if let Ok(record) = GameRecord::from_text(&progress.last_game) {
				let (game, refused) = record.replay();
				assert!(refused.is_none(), "{}", progress.last_game);
				assert!(
					record.result.is_some() || game.history().len() >= max_plies,
					"stopped short: {}",
					progress.last_game
				);
				if game
					.history()
					.iter()
					.any(|(_, before)| before.sheep_in_hand() == 0)
				{
					return progress.last_game;
				}
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	})
	.await
	.expect("a game played on into the movement phase within two minutes");
	assert!(!played_out.is_empty());
	running.stop().await;
}

#[test]
fn a_stopped_game_counts_by_its_exact_result() {
	let table = table();
	let (position, _) = (0..table.len())
		.step_by(11)
		.map(|i| table.entry(i))
		.find(|(p, v)| p.turn == tigers_core::Turn::Sheep && *v == Value::Loss(6))
		.expect("a position the sheep lose");
	let stopped = GameEnding::Stopped(position);
	assert_eq!(stopped.winner(Some(table)), Some(tigers_core::Turn::Tiger));
	// Without a table nobody can say: a draw, as for games cut off at the ply cap.
	assert_eq!(stopped.winner(None), None);
	let over = GameEnding::Over(tigers_core::Outcome::SheepByTrapping);
	assert_eq!(over.winner(Some(table)), Some(tigers_core::Turn::Sheep));
}

#[test]
fn a_worker_that_searched_with_the_table_is_not_flagged_for_exact_scores() {
	use tigers_coordinator::disagreement;
	use tigers_core::search::{MinimaxPlayer, SearchSettings, score_to_value};
	use tigers_core::selfplay::Sample;
	use tigers_core::{GameBoard, Network, NeuralPlayer, Turn};

	let table = table();
	// A last placement that wins: take a movement-phase position the tigers lose, with the
	// tigers to move, and lift one of its sheep back into the hand.
	let board = (0..table.len())
		.step_by(7)
		.map(|i| table.entry(i))
		.filter(|(p, v)| p.turn == Turn::Tiger && matches!(v, Value::Loss(_)))
		.find_map(|(p, _)| {
			let sheep = p.board.sheep();
			let lifted = sheep & sheep.wrapping_neg();
			GameBoard::new(p.board.tigers(), sheep & !lifted, 1).ok()
		})
		.expect("a position the tigers have lost");
	let net = Arc::new(Network::new(Default::default(), 5));
	// Two plies: the table is consulted below the root but not at the horizon.
	let search = SearchSettings::fixed_depth(2);
	let mut worker = NeuralPlayer::with_net(net.clone(), search, 16);
	worker.set_tablebase(Some(table.clone()));
	let report = worker.pick_move(board, Turn::Sheep, &[]).expect("a move");
	let honest = Sample {
		board,
		turn: Turn::Sheep,
		score: score_to_value(report.score),
		result: 0.0,
		ply: 39,
		generation: 0,
	};
	assert!(honest.score < -0.9, "the sheep win: {}", honest.score);

	let mut checker = NeuralPlayer::with_net(net, search, 16);
	// Without the table, the fresh net cannot see the win: the exact score looks wrong.
	assert!(disagreement(&mut checker, &honest, None).is_some());
	// With it, the worker's score is confirmed...
	assert_eq!(
		disagreement(&mut checker, &honest, Some(table.clone())),
		None
	);
	// ...and a score that claims the opposite is still caught.
	let lying = Sample {
		score: 1.0,
		..honest
	};
	assert!(disagreement(&mut checker, &lying, Some(table.clone())).is_some());
}
