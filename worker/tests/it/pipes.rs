//! The worker binary with its stderr on a pipe whose reader has gone, as with `worker ... 2>&1 |
//! tee worker.log` once `tee` is stopped: the lost log must neither crash nor hang the worker,
//! and SIGTERM must still stop it in good order.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{PATIENCE, TempDir};

/// Sends SIGTERM to `child`.
fn terminate(child: &Child) {
	let status = Command::new("kill")
		.args(["-TERM", &child.id().to_string()])
		.status()
		.expect("kill runs");
	assert!(status.success(), "kill -TERM {}", child.id());
}

/// Waits for `child` to exit by itself, killing it (and failing) if it has not within
/// [`PATIENCE`]: a hang, not a slow exit.
fn exit_status(child: &mut Child, what: &str) -> std::process::ExitStatus {
	let start = Instant::now();
	loop {
		if let Some(status) = child.try_wait().expect("the child can be waited for") {
			return status;
		}
		if start.elapsed() > PATIENCE {
			let _ = child.kill();
			let _ = child.wait();
			panic!("{what}: the worker did not exit");
		}
		std::thread::sleep(Duration::from_millis(50));
	}
}

#[test]
fn a_closed_stderr_neither_crashes_the_worker_nor_keeps_it_from_stopping() {
	let dir = TempDir::new("closed-stderr");
	// Port 1 answers nobody: the worker retries, and logs a warning each time.
	let mut child = Command::new(env!("CARGO_BIN_EXE_worker"))
		.args(["--connect", "http://127.0.0.1:1", "--threads", "1"])
		.arg("--state-dir")
		.arg(dir.path())
		.stdin(Stdio::null())
		.stdout(Stdio::null())
		.stderr(Stdio::piped())
		.spawn()
		.expect("the worker binary runs");
	drop(child.stderr.take());
	// The spool is opened just before the first log line; the first retry's warning follows
	// within the backoff's first delay (half a second).
	let spool = dir.path().join("spool");
	let start = Instant::now();
	while !spool.exists() {
		assert!(
			start.elapsed() < PATIENCE,
			"the worker never opened its spool"
		);
		assert!(
			child.try_wait().unwrap().is_none(),
			"the worker exited before it was asked to"
		);
		std::thread::sleep(Duration::from_millis(50));
	}
	std::thread::sleep(Duration::from_secs(2));
	assert!(
		child.try_wait().unwrap().is_none(),
		"the worker exited by itself (a panic?) with its stderr closed"
	);
	terminate(&child);
	let status = exit_status(&mut child, "after SIGTERM");
	assert_eq!(status.code(), Some(0), "{status}");
}
