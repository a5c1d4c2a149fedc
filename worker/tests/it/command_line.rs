//! The worker binary's answers to a user's mistakes: a usage error names the option and exits
//! 2; any other error is one line, each cause once, exit 1, and no backtrace even when the
//! shell sets RUST_BACKTRACE.

use std::process::{Command, Output};

fn worker(args: &[&str]) -> Output {
	Command::new(env!("CARGO_BIN_EXE_worker"))
		.args(args)
		.env("RUST_BACKTRACE", "1")
		.output()
		.expect("the worker binary runs")
}

#[test]
fn zero_threads_is_a_usage_error_that_names_the_option() {
	for args in [
		&["--connect", "http://127.0.0.1:1", "--threads", "0"][..],
		&["bench", "--threads", "0"][..],
	] {
		let output = worker(args);
		let stderr = String::from_utf8_lossy(&output.stderr);
		assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
		assert!(stderr.contains("--threads"), "{stderr}");
		assert!(
			!stderr.contains("stopped") && !stderr.contains("Settings {"),
			"{stderr}"
		);
	}
}

#[test]
fn an_error_is_one_line_with_each_cause_once() {
	let dir = crate::TempDir::new("one-line-error");
	let missing = dir.path().join("missing.pem");
	let output = worker(&[
		"--connect",
		"https://127.0.0.1:1",
		"--tls-ca",
		missing.to_str().unwrap(),
		"--state-dir",
		dir.path().to_str().unwrap(),
	]);
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(1), "{stderr}");
	assert_eq!(stderr.lines().count(), 1, "{stderr}");
	assert!(stderr.starts_with("worker: "), "{stderr}");
	assert!(stderr.contains("missing.pem"), "{stderr}");
	assert_eq!(stderr.matches("No such file").count(), 1, "{stderr}");
}
