//! `coordinator`'s flags reach the run's configuration: the defaults are the library's, each
//! lever lands where it should, and values out of range are refused by clap.

use std::path::PathBuf;
use std::time::Duration;

use tigers_coordinator::config::{CoordinatorConfig, GateMode, RunSettings};
use tigers_core::gate::TableRole;
use tigers_core::network::{Encoding, Shape};
use tigers_core::trainer::schedule::WindowGrowth;

use crate::tests::{assert_refused, parse};

#[test]
fn the_command_lines_defaults_are_the_librarys() {
	let cli = parse(&["coordinator"]);
	let config = cli.serve.into_config();
	let library = CoordinatorConfig::new(
		"127.0.0.1:50051".parse().unwrap(),
		PathBuf::from("runs/default"),
	);
	assert_eq!(config.run, RunSettings::default());
	// The default gate checks a winner against ClaudePlayer beside the incumbent, with a
	// margin of 0.05 points a game.
	assert_eq!(config.run.gate_mode, GateMode::Both);
	assert_eq!(config.run.promotion.claude_margin, 0.05);
	// Every promoted net is graded unless told otherwise.
	assert!(config.run.grade);
	let cli = parse(&["coordinator", "--no-grades"]);
	assert!(!cli.serve.into_config().run.grade);
	assert_eq!(config.limits, library.limits);
	assert_eq!(config.local_workers, library.local_workers);
	assert_eq!(config.local_worker_threads, library.local_worker_threads);
	assert_eq!(config.tablebase, None);
	assert!(!config.no_tablebase);
	assert_eq!(config.gate_threads, library.gate_threads);
	assert_eq!(
		config.gate_threads(),
		std::thread::available_parallelism().unwrap().get()
	);
}

#[test]
fn a_self_play_depth_bound_below_the_depth_keeps_self_play_at_the_depth() {
	let cli = parse(&["coordinator", "--depth", "6"]);
	let config = cli.serve.into_config();
	assert_eq!((config.run.depth, config.run.adapt.max_depth), (6, 6));
	let cli = parse(&[
		"coordinator",
		"--self-play-depth-max",
		"7",
		"--self-play-depth-seconds",
		"20",
	]);
	let config = cli.serve.into_config();
	assert_eq!((config.run.depth, config.run.adapt.max_depth), (3, 7));
	assert_eq!(config.run.adapt.period, Duration::from_secs(20));
}

#[test]
fn the_levers_of_issue_24_reach_the_run_settings() {
	let cli = parse(&[
		"coordinator",
		"--window",
		"250000",
		"--window-beta",
		"0.4",
		"--window-max",
		"3000000",
		"--lr-schedule",
		"cosine:1000000:0.1",
		"--lr-warmup-steps",
		"1000",
		"--weight-average",
		"0.999",
		"--gate",
		"none",
		"--gate-require-h1",
		"--gate-claude-margin",
		"0.02",
		"--stall-alarm-minutes",
		"45",
		"--measure-tablebase",
		"judge",
		"--gate-tablebase",
		"play",
		"--net-shape",
		"128x64",
		"--input-version",
		"2",
	]);
	let run = cli.serve.into_config().run;
	assert_eq!(run.training.window, 250_000);
	assert_eq!(
		run.training.window_growth,
		WindowGrowth {
			alpha: 0.75,
			beta: 0.4,
			max: 3_000_000
		}
	);
	assert_eq!(
		run.training.schedule.shape.to_string(),
		"cosine:1000000:0.1"
	);
	assert_eq!(run.training.schedule.warmup_steps, 1000);
	assert_eq!(run.training.weight_average, 0.999);
	assert_eq!(run.gate_mode, GateMode::None);
	assert!(run.promotion.require_h1);
	assert_eq!(run.promotion.claude_margin, 0.02);
	assert_eq!(run.stall_alarm, Duration::from_secs(45 * 60));
	assert_eq!(run.timed.tablebase, TableRole::Judge);
	assert_eq!(run.gate.table, TableRole::Play);
	assert_eq!(
		run.shape,
		Some(Shape {
			hidden1: 128,
			hidden2: 64
		})
	);
	assert_eq!(run.encoding, Some(Encoding::V2));
}

#[test]
fn a_run_without_an_input_version_starts_at_version_2_and_resumes_as_it_was() {
	let cli = parse(&["coordinator"]);
	let run = cli.serve.into_config().run;
	assert_eq!(run.encoding, None);
	assert_eq!(run.new_run_encoding(), Encoding::V2);
	assert_eq!(run.new_run_encoding().version(), 2);
	let cli = parse(&["coordinator", "--input-version", "1"]);
	let run = cli.serve.into_config().run;
	assert_eq!(run.new_run_encoding(), Encoding::V1);
}

#[test]
fn a_run_without_a_net_shape_starts_at_64x32_and_resumes_as_it_was() {
	let cli = parse(&["coordinator"]);
	let run = cli.serve.into_config().run;
	assert_eq!(run.shape, None);
	assert_eq!(run.shape.unwrap_or_default().to_string(), "64x32");
}

#[test]
fn out_of_range_settings_are_refused_with_the_flag_named() {
	for (flag, value) in [
		("--depth", "0"),
		("--result-weight", "1.5"),
		("--train-threads", "0"),
		("--timed-ms", "0"),
		("--self-play-depth-max", "17"),
		("--gate-threads", "0"),
		("--window-beta", "inf"),
		("--window-alpha", "1.5"),
		("--window-alpha", "0"),
		("--lr-schedule", "step:0:0.5"),
		("--weight-average", "1"),
		("--net-shape", "64x0"),
		("--net-shape", "wide"),
		("--input-version", "3"),
		("--input-version", "0"),
		("--local-worker-threads", "0"),
		("--gate", "sometimes"),
		("--gate-tablebase", "both"),
		("--gate-claude-margin", "some"),
		("--gate-claude-margin", "1.5"),
		("--measure-tablebase", "both"),
		("--tablebase-use", "all"),
		("--timed-ms", "60001"),
		("--gate-threads", "257"),
	] {
		assert_refused(&["coordinator", flag, value], flag);
	}
}
