//! `worker bench` as a user runs it: the report on stdout, and the progress bar only on a
//! terminal, so that a pipe gets the report alone; a net of a new run's input encoding unless
//! told another.

use std::process::Command;

#[test]
fn bench_through_a_pipe_prints_the_report_and_no_progress_bar() {
	let output = Command::new(env!("CARGO_BIN_EXE_worker"))
		.args(["bench", "--games", "4", "--threads", "1", "--depth", "1"])
		.output()
		.expect("the worker binary runs");
	let stdout = String::from_utf8_lossy(&output.stdout);
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert!(output.status.success(), "{stderr}");
	assert!(
		stdout.starts_with("4 games at depth 1 with a 64x32 net of input encoding 2 on 1 threads"),
		"{stdout}"
	);
	assert!(stdout.contains("samples/s"), "{stdout}");
	// The bar draws to stderr, and not at all when stderr is not a terminal.
	assert!(!stderr.contains("ETA"), "{stderr}");
	assert!(!stdout.contains("ETA"), "{stdout}");
}

#[test]
fn bench_plays_the_net_shape_it_is_given_and_refuses_a_malformed_one() {
	let run = |shape: &str| {
		Command::new(env!("CARGO_BIN_EXE_worker"))
			.args(["bench", "--games", "2", "--threads", "1", "--depth", "1"])
			.args(["--net-shape", shape])
			.output()
			.expect("the worker binary runs")
	};
	let output = run("32x16");
	let stdout = String::from_utf8_lossy(&output.stdout);
	assert!(
		output.status.success(),
		"{}",
		String::from_utf8_lossy(&output.stderr)
	);
	assert!(stdout.contains("with a 32x16 net"), "{stdout}");
	let output = run("32x0");
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(2), "{stderr}");
	assert!(stderr.contains("e.g. 128x64"), "{stderr}");
}

#[test]
fn bench_plays_a_new_runs_encoding_unless_told_another() {
	let run = |extra: &[&str]| {
		let output = Command::new(env!("CARGO_BIN_EXE_worker"))
			.args(["bench", "--games", "2", "--threads", "1", "--depth", "1"])
			.args(extra)
			.output()
			.expect("the worker binary runs");
		let stderr = String::from_utf8_lossy(&output.stderr);
		assert!(output.status.success(), "{stderr}");
		String::from_utf8_lossy(&output.stdout).into_owned()
	};
	// 2, as `RunSettings::NEW_RUN_ENCODING` (which the coordinator's tests hold to the bench's
	// default): a fleet sized with encoding 1 would be overstated by about 1.4 times.
	let default = run(&[]);
	assert!(default.contains("net of input encoding 2 on"), "{default}");
	let older = run(&["--input-version", "1"]);
	assert!(older.contains("net of input encoding 1 on"), "{older}");
}
