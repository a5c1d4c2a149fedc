//! The coordinator binary with its stderr on a pipe whose reader has gone, as with
//! `coordinator --headless ... 2>&1 | head -c 100`: the lost log must not crash it, and SIGTERM
//! must still stop it in good order, its last checkpoint complete.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tigers_coordinator::fetch_status;
use tigers_proto::client::ClientSettings;

use crate::common::{free_port, temp_dir};

/// Long enough for a busy machine; a coordinator that takes longer has hung.
const PATIENCE: Duration = Duration::from_secs(60);

#[test]
fn a_closed_stderr_neither_crashes_the_coordinator_nor_keeps_it_from_stopping() {
	let run_dir = temp_dir("closed-stderr");
	let port = free_port();
	let mut child = Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.args([
			"--headless",
			"--no-tablebase",
			"--timed-pairs",
			"0",
			"--listen",
		])
		.arg(format!("127.0.0.1:{port}"))
		.arg("--run-dir")
		.arg(&run_dir)
		.stdin(Stdio::null())
		.stdout(Stdio::null())
		.stderr(Stdio::piped())
		.spawn()
		.expect("the coordinator binary runs");
	drop(child.stderr.take());
	// Serving, after many log lines, and listening for signals.
	let runtime = tokio::runtime::Builder::new_current_thread()
		.enable_all()
		.build()
		.unwrap();
	let url = format!("http://127.0.0.1:{port}");
	let start = Instant::now();
	while runtime
		.block_on(fetch_status(&url, &ClientSettings::default()))
		.is_err()
	{
		assert!(
			child.try_wait().unwrap().is_none(),
			"the coordinator exited before it was asked to"
		);
		assert!(start.elapsed() < PATIENCE, "the coordinator never served");
		std::thread::sleep(Duration::from_millis(100));
	}
	let status = Command::new("kill")
		.args(["-TERM", &child.id().to_string()])
		.status()
		.expect("kill runs");
	assert!(status.success());
	let stopping = Instant::now();
	let status = loop {
		if let Some(status) = child.try_wait().unwrap() {
			break status;
		}
		if stopping.elapsed() > PATIENCE {
			let _ = child.kill();
			panic!("the coordinator did not stop after SIGTERM");
		}
		std::thread::sleep(Duration::from_millis(50));
	};
	assert_eq!(status.code(), Some(0), "{status}");
	assert!(run_dir.join("checkpoint").is_dir());
	assert!(!run_dir.join("checkpoint.tmp").exists());
	let _ = std::fs::remove_dir_all(&run_dir);
}
