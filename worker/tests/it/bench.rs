//! `worker bench` as a user runs it: the report on stdout, and the progress bar only on a
//! terminal, so that a pipe gets the report alone.

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
		stdout.starts_with("4 games at depth 1 on 1 threads"),
		"{stdout}"
	);
	assert!(stdout.contains("samples/s"), "{stdout}");
	// The bar draws to stderr, and not at all when stderr is not a terminal.
	assert!(!stderr.contains("ETA"), "{stderr}");
	assert!(!stdout.contains("ETA"), "{stdout}");
}
