//! A worker binary older or newer than its coordinator's protocol is told which side to upgrade
//! and stops for good with exit status 76, instead of retrying; with `--on-version-refused
//! wait` it stays up, idle, until a stop signal.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::cluster::worker_binary;
use crate::common::{start, temp_dir, test_config};

/// The worker's exit status when its version is refused.
const EXIT_VERSION_REFUSED: i32 = 76;

fn spawn_worker(address: std::net::SocketAddr, dir: &Path, protocol: u32, extra: &[&str]) -> Child {
	Command::new(worker_binary())
		.arg("--connect")
		.arg(format!("http://{address}"))
		.args(["--threads", "1", "--name", "versioned", "--no-tablebase"])
		.arg("--state-dir")
		.arg(dir.join("state"))
		.arg("--protocol-version")
		.arg(protocol.to_string())
		.args(extra)
		.stdout(Stdio::null())
		.stderr(std::fs::File::create(dir.join("stderr")).unwrap())
		.spawn()
		.expect("the worker starts")
}

/// Waits up to a minute for `child` to exit; its exit code.
fn exit_code(child: &mut Child) -> i32 {
	let deadline = Instant::now() + Duration::from_secs(60);
	loop {
		if let Some(status) = child.try_wait().unwrap() {
			return status.code().expect("an exit code, not a signal");
		}
		assert!(Instant::now() < deadline, "the worker did not stop");
		std::thread::sleep(Duration::from_millis(50));
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_of_another_protocol_is_told_who_upgrades_and_stops_for_good() {
	let temp = temp_dir("versions");
	let running = start(test_config(temp.join("run"), None)).await;
	let newer = tigers_proto::PROTOCOL_VERSION + 1;
	for (protocol, says) in [
		(0, "upgrade the worker to build"),
		(newer, "upgrade the coordinator, or run workers of build"),
	] {
		let dir = temp.join(format!("worker-{protocol}"));
		std::fs::create_dir_all(&dir).unwrap();
		let mut worker = spawn_worker(running.address, &dir, protocol, &[]);
		let code = tokio::task::spawn_blocking(move || exit_code(&mut worker))
			.await
			.unwrap();
		let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap();
		assert_eq!(code, EXIT_VERSION_REFUSED, "{stderr}");
		assert_eq!(stderr.matches(says).count(), 1, "said once: {stderr}");
	}

	// Waiting instead: still running a while after the refusal, then 76 on SIGTERM.
	let dir = temp.join("worker-waits");
	std::fs::create_dir_all(&dir).unwrap();
	let mut worker = spawn_worker(running.address, &dir, 0, &["--on-version-refused", "wait"]);
	let stderr = dir.join("stderr");
	let deadline = Instant::now() + Duration::from_secs(60);
	while !std::fs::read_to_string(&stderr)
		.unwrap()
		.contains("waiting for a stop signal")
	{
		assert!(Instant::now() < deadline, "no refusal logged");
		tokio::time::sleep(Duration::from_millis(50)).await;
	}
	tokio::time::sleep(Duration::from_secs(1)).await;
	assert!(worker.try_wait().unwrap().is_none(), "the worker waits");
	let status = Command::new("kill")
		.args(["-TERM", &worker.id().to_string()])
		.status()
		.unwrap();
	assert!(status.success());
	let code = tokio::task::spawn_blocking(move || exit_code(&mut worker))
		.await
		.unwrap();
	assert_eq!(code, EXIT_VERSION_REFUSED);
	running.stop().await;
}
