//! The figures' tests: every figure appears in the scrape, and those of gates, measurements,
//! the tablebase and the game archive only once there are any.

use tigers_proto::v1;

use super::*;
use crate::live::Resumed;

fn gate(promoted: bool, measurement: bool, score: f64, elo: f64) -> v1::GateSummary {
	v1::GateSummary {
		promoted,
		measurement,
		score,
		elo,
		..v1::GateSummary::default()
	}
}

fn judged(gate: v1::GateSummary, candidate: (u32, u32), reference: (u32, u32)) -> v1::GateSummary {
	let exact = |(moves, kept)| Some(v1::ExactAccuracy { moves, kept });
	v1::GateSummary {
		candidate_exact: exact(candidate),
		reference_exact: exact(reference),
		..gate
	}
}

/// The figures of a small run, rendered as a scrape would see them.
fn rendered(live: &mut Live) -> String {
	rendered_with(live, None)
}

fn rendered_with(live: &mut Live, tablebase: Option<f64>) -> String {
	let start = Instant::now();
	let figures = Figures::read(live, start + Duration::from_secs(30), start, tablebase);
	let recorder = super::super::builder().unwrap().build_recorder();
	::metrics::with_local_recorder(&recorder, || {
		describe();
		figures.publish();
	});
	recorder.handle().render()
}

#[test]
fn every_figure_appears_in_the_scrape() {
	let mut live = Live::resumed(Resumed {
		samples_total: 1234,
		games_total: 17,
		training_steps: 500,
		generation: 2,
		window_samples: 1000,
		window_capacity: 200_000,
		..Resumed::default()
	});
	for _ in 0..3 {
		live.batch_duplicate();
	}
	live.samples_dropped(9);
	for (n, g) in [
		gate(true, true, 0.30, -147.0),
		gate(true, false, 0.62, 85.0),
		gate(true, true, 0.58, 56.0),
		gate(false, false, 0.48, -14.0),
	]
	.into_iter()
	.enumerate()
	{
		// Each candidate taken at its own training step, as a run's are.
		live.record_gate(v1::GateSummary {
			training_steps: 100 * n as u64,
			..g
		});
	}
	live.push_loss(0.25);
	live.push_loss(0.75);
	live.count_rejection(RejectReason::Sample);
	let text = rendered(&mut live);
	for line in [
		"tigers_samples_total 1234",
		"tigers_games_total 17",
		"tigers_training_steps_total 500",
		"tigers_batches_rejected_total{reason=\"sample\"} 1",
		"tigers_batches_rejected_total{reason=\"sequence\"} 0",
		"tigers_batches_rejected_total{reason=\"game_record\"} 0",
		"tigers_batches_duplicate_total 3",
		"tigers_samples_dropped_untrained_total 9",
		"tigers_gates_total{result=\"promoted\"} 1",
		"tigers_gates_total{result=\"refused\"} 1",
		"tigers_gates_total{result=\"measured\"} 2",
		"tigers_generation 2",
		"tigers_training_loss 0.5",
		"tigers_window_samples 1000",
		"tigers_window_capacity_samples 200000",
		"tigers_workers_connected 0",
		"tigers_seconds_since_samples 30",
		"tigers_gate_score 0.48",
		"tigers_gate_elo -14",
		"tigers_incumbent_elo 56",
	] {
		assert!(
			text.lines().any(|l| l == line),
			"{line:?} missing from\n{text}"
		);
	}
	assert!(text.contains("# HELP tigers_samples_total Samples durably stored"));
}

#[test]
fn the_game_archive_appears_once_there_is_one() {
	let start = Instant::now();
	let render = |games_archive| {
		let mut figures = Figures::read(&mut Live::default(), start, start, None);
		figures.games_archive = games_archive;
		let recorder = super::super::builder().unwrap().build_recorder();
		::metrics::with_local_recorder(&recorder, || {
			describe();
			figures.publish();
		});
		recorder.handle().render()
	};
	assert!(!render(None).contains("tigers_games_kept"));
	let text = render(Some(v1::GameArchive {
		kept: 900,
		pending: 16,
		pruned: 100,
		files: 3,
		bytes: 123_456,
		keep_generations: 3,
	}));
	for line in [
		"tigers_games_kept 900",
		"tigers_games_pending 16",
		"tigers_games_pruned_total 100",
		"tigers_game_archive_bytes 123456",
	] {
		assert!(
			text.lines().any(|l| l == line),
			"{line:?} missing from\n{text}"
		);
	}
}

#[test]
fn exact_accuracy_and_the_tablebase_appear_once_there_are_any() {
	let mut live = Live::default();
	live.record_gate(judged(gate(true, true, 0.5, 0.0), (200, 190), (100, 99)));
	live.record_gate(judged(gate(false, false, 0.4, -70.0), (80, 60), (40, 40)));
	let exact = |moves, kept| Some(v1::ExactAccuracy { moves, kept });
	for (generation, score) in [(3, 0.625), (1, 0.25)] {
		live.record_timed(v1::TimedMeasurement {
			generation,
			score,
			elo: 88.0,
			candidate_exact: exact(400, 396),
			reference_exact: exact(100, 98),
			..v1::TimedMeasurement::default()
		});
	}
	live.timed_started(v1::TimedRunning {
		generation: 4,
		pairs_done: 7,
		pairs: 100,
		..v1::TimedRunning::default()
	});
	let text = rendered_with(&mut live, Some(1.0));
	for line in [
		"tigers_timed_score 0.625",
		"tigers_timed_elo 88",
		"tigers_timed_generation 3",
		"tigers_timed_exact_accuracy{player=\"candidate\"} 0.99",
		"tigers_timed_exact_accuracy{player=\"reference\"} 0.98",
		"tigers_timed_pairs_done 7",
		"tigers_gate_exact_accuracy{player=\"candidate\"} 0.75",
		"tigers_gate_exact_accuracy{player=\"reference\"} 1",
		"tigers_incumbent_exact_accuracy 0.95",
		"tigers_tablebase_ready 1",
		"tigers_tablebase_solve_progress 1",
	] {
		assert!(
			text.lines().any(|l| l == line),
			"{line:?} missing from\n{text}"
		);
	}
	let text = rendered_with(&mut Live::default(), Some(0.25));
	assert!(text.contains("tigers_tablebase_ready 0"), "{text}");
	assert!(
		text.contains("tigers_tablebase_solve_progress 0.25"),
		"{text}"
	);
	assert!(!text.contains("tigers_gate_exact_accuracy{"), "{text}");
}

#[test]
fn placement_accuracy_appears_only_where_the_layers_judged() {
	let exact = |moves, kept| Some(v1::ExactAccuracy { moves, kept });
	let mut live = Live::default();
	live.record_gate(v1::GateSummary {
		candidate_placement: exact(40, 30),
		reference_placement: exact(50, 45),
		..judged(gate(true, true, 0.5, 0.0), (200, 190), (100, 99))
	});
	live.record_gate(judged(gate(false, false, 0.4, -70.0), (80, 60), (40, 40)));
	live.record_timed(v1::TimedMeasurement {
		generation: 1,
		candidate_placement: exact(100, 80),
		reference_placement: exact(100, 90),
		..v1::TimedMeasurement::default()
	});
	let text = rendered_with(&mut live, Some(1.0));
	for line in [
		"tigers_incumbent_placement_accuracy 0.75",
		"tigers_timed_placement_accuracy{player=\"candidate\"} 0.8",
		"tigers_timed_placement_accuracy{player=\"reference\"} 0.9",
	] {
		assert!(
			text.lines().any(|l| l == line),
			"{line:?} missing from\n{text}"
		);
	}
	// The latest candidate's gate had no layers: its placement figure is not made up.
	assert!(!text.contains("tigers_gate_placement_accuracy{"), "{text}");
}

#[test]
fn the_self_play_depth_and_the_share_trained_on_appear() {
	let mut live = Live::default();
	let work = v1::SelfPlayWork {
		depth: 4,
		depth_min: 3,
		depth_max: 5,
		arriving_per_second: 14_000.0,
		trainable_per_second: 12_500.0,
		trained_share: Some(0.75),
		mean_uses: Some(2.5),
	};
	live.depth_decided(work, None);
	let text = rendered(&mut live);
	for line in [
		"tigers_selfplay_depth 4",
		"tigers_selfplay_depth_bound{bound=\"min\"} 3",
		"tigers_selfplay_depth_bound{bound=\"max\"} 5",
		"tigers_samples_arriving_per_second 14000",
		"tigers_trainer_capacity_samples_per_second 12500",
		"tigers_samples_trained_share 0.75",
		"tigers_samples_mean_uses 2.5",
	] {
		assert!(
			text.lines().any(|l| l == line),
			"{line:?} missing from\n{text}"
		);
	}
	let text = rendered(&mut Live::default());
	for absent in [TRAINED_SHARE, MEAN_USES] {
		assert!(
			!text.lines().any(|l| l.starts_with(absent)),
			"{absent} in\n{text}"
		);
	}
}

#[test]
fn a_new_run_has_no_loss_or_gate_figures() {
	let text = rendered(&mut Live::default());
	assert!(text.contains("tigers_samples_total 0"), "{text}");
	for absent in [LOSS, GATE_SCORE, GATE_ELO, INCUMBENT_ELO] {
		assert!(
			!text.lines().any(|l| l.starts_with(absent)),
			"{absent} in\n{text}"
		);
	}
}
