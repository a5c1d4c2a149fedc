//! The training thread, as a run uses it.

use std::time::Duration;

use tigers_coordinator::config::GateMode;
use tigers_core::Network;
use tigers_core::network::{Encoding, Shape};
use tigers_proto::v1;

use crate::common::{client, join_request, start, status, temp_dir, test_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn training_on_two_threads_takes_steps_and_offers_candidates() {
	let temp = temp_dir("train-threads");
	let mut config = test_config(temp.to_path_buf(), None);
	config.run.training.threads = 2;
	config.run.training.batch_size = 64;
	config.run.steps_per_candidate = 20;
	config.local_workers = 1;
	let running = start(config).await;
	let mut asker = client(running.address, None).await;
	let progress = tokio::time::timeout(Duration::from_secs(120), async {
		loop {
			let progress = asker
				.observe
				.status(v1::StatusRequest {})
				.await
				.expect("status")
				.into_inner();
			if progress.training_steps >= 40 && progress.gates.iter().any(|g| !g.measurement) {
				return progress;
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	})
	.await
	.expect("steps and a candidate's gate within two minutes");
	assert!(progress.loss.is_finite(), "{}", progress.loss);
	assert!(progress.loss_history.is_empty() || progress.loss_history[0].loss.is_finite());
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_gate_against_the_incumbent_candidates_play_it_and_measurements_claude() {
	let temp = temp_dir("gate-incumbent");
	let mut config = test_config(temp.to_path_buf(), None);
	config.run.gate_mode = GateMode::Incumbent;
	config.run.training.batch_size = 64;
	config.run.steps_per_candidate = 20;
	config.local_workers = 1;
	let running = start(config).await;
	let mut asker = client(running.address, None).await;
	let progress = tokio::time::timeout(Duration::from_secs(120), async {
		loop {
			let progress = status(&mut asker).await;
			if progress.gates.iter().filter(|g| !g.measurement).count() >= 2 {
				return progress;
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	})
	.await
	.expect("two candidates' gates within two minutes");
	// The ladder rates ClaudePlayer (0) and generation 0 from its measurement; with a few games
	// a match no net is named the best, and asking for the best gives the latest.
	let ladder = progress
		.ladder
		.clone()
		.expect("a training coordinator fits a ladder");
	assert_eq!(ladder.ratings[0].generation, None, "{ladder:?}");
	assert_eq!(
		(ladder.ratings[0].rating, ladder.ratings[0].games > 0),
		(0.0, true)
	);
	let first = ladder
		.ratings
		.iter()
		.find(|r| r.generation == Some(0))
		.expect("generation 0");
	assert!(
		first.low <= first.rating && first.rating <= first.high,
		"{first:?}"
	);
	assert_eq!(ladder.best_generation, None, "{ladder:?}");
	let best = asker
		.fetch_net(v1::FetchNetRequest {
			generation: 0,
			latest: false,
			best: true,
		})
		.await
		.expect("the best net, or the latest")
		.into_inner();
	assert!(
		best.generation >= progress.generation,
		"{} {}",
		best.generation,
		progress.generation
	);
	running.stop().await;
	let gates = progress.gates;
	for gate in &gates {
		if gate.measurement {
			assert_eq!(gate.opponent_generation, None, "{gate:?}");
		} else {
			// A candidate would be the next generation; it played the one before it.
			assert_eq!(
				gate.opponent_generation,
				Some(gate.generation - 1),
				"{gate:?}"
			);
			assert!(
				gate.reason.contains("against the incumbent"),
				"{}",
				gate.reason
			);
		}
	}
	assert!(gates[0].measurement, "generation 0 is measured first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_default_gate_a_winner_is_checked_against_claude_beside_the_incumbent() {
	let temp = temp_dir("gate-both");
	let mut config = test_config(temp.to_path_buf(), None);
	assert_eq!(config.run.gate_mode, GateMode::Both, "the default gate");
	config.run.training.batch_size = 64;
	config.run.steps_per_candidate = 20;
	config.local_workers = 1;
	let running = start(config).await;
	let mut asker = client(running.address, None).await;
	// A check is recorded once its candidate has won head to head: three rows, which a
	// snapshot taken while they are being added may show only in part, so wait for all three.
	let progress = tokio::time::timeout(Duration::from_secs(240), async {
		loop {
			let progress = status(&mut asker).await;
			let at = progress
				.gates
				.iter()
				.position(|g| g.reason.contains("check openings"));
			if at.is_some_and(|at| progress.gates.len() >= at + 3) {
				return progress;
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	})
	.await
	.expect("a candidate that won against the incumbent, checked within four minutes");
	running.stop().await;
	let gates = progress.gates;
	let at = gates
		.iter()
		.position(|g| g.reason.contains("check openings"))
		.expect("the incumbent's half of the check");
	let (incumbent, head_to_head, check) = (&gates[at], &gates[at + 1], &gates[at + 2]);
	// The incumbent's half is a measurement of it, on the check's openings.
	assert!(incumbent.measurement && incumbent.promoted, "{incumbent:?}");
	assert_eq!(incumbent.opponent_generation, None);
	// The candidate won against the incumbent, and its row says what the check then decided.
	assert_eq!(
		head_to_head.opponent_generation,
		Some(incumbent.generation),
		"{head_to_head:?}"
	);
	assert_eq!(head_to_head.generation, incumbent.generation + 1);
	assert!(
		head_to_head.reason.starts_with("promote: ") && head_to_head.reason.contains("; then "),
		"{}",
		head_to_head.reason
	);
	// The check: the candidate against ClaudePlayer on the same openings, all pairs.
	assert!(!check.measurement, "{check:?}");
	assert_eq!(check.opponent_generation, None);
	assert_eq!(check.generation, head_to_head.generation);
	assert_eq!(check.promoted, head_to_head.promoted);
	let games = |g: &v1::GateSummary| {
		let (t, s) = (g.as_tigers.unwrap(), g.as_sheep.unwrap());
		t.wins + t.draws + t.losses + s.wins + s.draws + s.losses
	};
	assert_eq!(
		games(check),
		games(incumbent),
		"the same openings, every pair"
	);
	assert!(
		check.reason.contains("against ClaudePlayer on the same"),
		"{}",
		check.reason
	);
	assert!(head_to_head.reason.ends_with(&check.reason));
	// Only a check that passed promoted, and then the new net is measured on fresh openings.
	if check.promoted {
		assert!(progress.generation >= check.generation);
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_keeps_the_net_shape_it_started_with() {
	let temp = temp_dir("net-shape");
	let narrow = Shape {
		hidden1: 16,
		hidden2: 8,
	};
	let mut config = test_config(temp.to_path_buf(), None);
	config.run.shape = Some(narrow);
	start(config).await.stop().await;
	let first = Network::load(&temp.join("nets/gen-000000.safetensors")).expect("generation 0");
	assert_eq!(first.shape(), narrow);
	// Resumed with another shape: refused with both shapes named, and the run is unchanged.
	let output = std::process::Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.args(["--listen", "127.0.0.1:0", "--headless", "--no-tablebase"])
		.args(["--net-shape", "64x32", "--run-dir"])
		.arg(&*temp)
		.output()
		.expect("the coordinator runs");
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(1), "{stderr}");
	assert!(
		stderr.contains("--net-shape 64x32") && stderr.contains("are 16x8"),
		"{stderr}"
	);
	// Resumed without one (or with its own): the run goes on with its shape.
	for shape in [None, Some(narrow)] {
		let mut config = test_config(temp.to_path_buf(), None);
		config.run.shape = shape;
		let running = start(config).await;
		let mut asker = client(running.address, None).await;
		let progress = asker
			.observe
			.status(v1::StatusRequest {})
			.await
			.expect("status")
			.into_inner();
		assert_eq!(progress.generation, 0);
		running.stop().await;
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_of_input_encoding_2_starts_with_it_plays_it_and_keeps_it() {
	let temp = temp_dir("input-version");
	let mut config = test_config(temp.to_path_buf(), None);
	config.run.encoding = Some(Encoding::V2);
	config.local_workers = 1;
	let running = start(config).await;
	// Once it answers, the run is open and generation 0 written.
	let mut asker = client(running.address, None).await;
	assert_eq!(status(&mut asker).await.generation, 0);
	let first = Network::load(&temp.join("nets/gen-000000.safetensors")).expect("generation 0");
	assert_eq!(first.encoding(), Encoding::V2);
	// A worker that reads encoding 1 only (a build from before version 2) is refused, told both
	// versions; the local worker reads it, plays it, and its samples are trained on.
	let old_reader = v1::JoinRequest {
		input_version: 1,
		..join_request("reads-version-1")
	};
	let refusal = asker.join(old_reader).await.unwrap_err();
	assert_eq!(refusal.code(), tonic::Code::FailedPrecondition, "{refusal}");
	assert!(
		refusal.message().contains("read input encoding 2")
			&& refusal.message().contains("up to version 1 only"),
		"{}",
		refusal.message()
	);
	tokio::time::timeout(Duration::from_secs(120), async {
		loop {
			let progress = status(&mut asker).await;
			if progress.samples_total > 0 && progress.training_steps > 0 {
				return;
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	})
	.await
	.expect("samples from the local worker, and training steps, within two minutes");
	running.stop().await;
	// Resumed with the other version: refused with both named, and the run is unchanged.
	let output = std::process::Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.args(["--listen", "127.0.0.1:0", "--headless", "--no-tablebase"])
		.args(["--input-version", "1", "--run-dir"])
		.arg(&*temp)
		.output()
		.expect("the coordinator runs");
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(1), "{stderr}");
	assert!(
		stderr.contains("--input-version 1") && stderr.contains("read input encoding 2"),
		"{stderr}"
	);
	// Resumed without one: the checkpoint's net and optimiser state, of encoding 2, go on.
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let progress = status(&mut client(running.address, None).await).await;
	assert!(progress.training_steps > 0, "{}", progress.training_steps);
	running.stop().await;
	let first = Network::load(&temp.join("nets/gen-000000.safetensors")).expect("generation 0");
	assert_eq!(first.encoding(), Encoding::V2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promoted_nets_are_graded_on_the_suite_and_the_grades_outlive_a_restart() {
	let temp = temp_dir("grades");
	let mut config = test_config(temp.to_path_buf(), None);
	config.run.grade = true;
	let running = start(config.clone()).await;
	let mut asker = client(running.address, None).await;
	let graded = tokio::time::timeout(Duration::from_secs(300), async {
		loop {
			let progress = status(&mut asker).await;
			if let Some(grade) = progress.grades.first() {
				return *grade;
			}
			tokio::time::sleep(Duration::from_millis(200)).await;
		}
	})
	.await
	.expect("generation 0 graded within five minutes");
	running.stop().await;
	assert_eq!(graded.generation, 0);
	assert_eq!(graded.depth, config.run.gate.search.max_depth);
	let (placement, movement) = (graded.placement.unwrap(), graded.movement.unwrap());
	assert_eq!((placement.positions, movement.positions), (500, 500));
	assert!(placement.moves_kept <= 500 && movement.class_right <= 500);
	// A random net's search keeps some values and gives others away.
	assert!(placement.moves_kept + movement.moves_kept > 0, "{graded:?}");
	assert!(
		placement.moves_kept + movement.moves_kept < 1000,
		"{graded:?}"
	);
	// The grades were in the ledger: a restart shows them without grading again.
	config.run.grade = false;
	let running = start(config).await;
	let mut asker = client(running.address, None).await;
	let progress = status(&mut asker).await;
	running.stop().await;
	assert_eq!(progress.grades.first(), Some(&graded));
}
