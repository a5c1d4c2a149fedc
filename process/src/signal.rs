//! Stop signals: a future that completes when the process is asked to stop, Ctrl-C or SIGTERM.

use std::time::{Duration, Instant};

/// Signals this soon after the first are the same request delivered twice, not a second one.
///
/// `timeout -s INT` sends its signal to the command and then to the command's whole process
/// group, so a coordinator or worker run under it gets two within a fraction of a millisecond.
/// A person who wants the stop cut short presses again once it has visibly begun; a double tap
/// faster than this counts once, and a third press exits.
pub const SAME_REQUEST: Duration = Duration::from_millis(500);

/// Completes on Ctrl-C or SIGTERM, so that the program can stop in good order. Another one
/// while it stops, more than [`SAME_REQUEST`] after the first, ends the process at once
/// (status 130), for when stopping in good order takes too long or hangs.
pub async fn shutdown_signal() {
	let first = stop_signal().await;
	let first_at = Instant::now();
	tracing::info!("{first}: stopping");
	// A task rather than a thread of its own: the runtime outlives every stop in good order, and
	// a stop that hangs is what this is for.
	tokio::spawn(async move {
		loop {
			let second = stop_signal().await;
			if is_same_request(first_at.elapsed()) {
				tracing::info!(
					"{second} again at once: taken as the same request, still stopping in good order"
				);
				continue;
			}
			tracing::warn!("{second} again: exiting without finishing the stop");
			std::process::exit(130);
		}
	});
}

/// Whether a stop signal `since_first` after the first one is that one delivered again.
fn is_same_request(since_first: Duration) -> bool {
	since_first < SAME_REQUEST
}

/// Completes on the next Ctrl-C or SIGTERM, with its name.
async fn stop_signal() -> &'static str {
	let interrupt = async {
		if let Err(error) = tokio::signal::ctrl_c().await {
			tracing::error!(%error, "cannot listen for Ctrl-C");
			std::future::pending::<()>().await;
		}
	};
	#[cfg(unix)]
	let terminate = async {
		use tokio::signal::unix::{SignalKind, signal};
		match signal(SignalKind::terminate()) {
			Ok(mut terminate) => {
				terminate.recv().await;
			}
			Err(error) => {
				tracing::error!(%error, "cannot listen for SIGTERM");
				std::future::pending::<()>().await;
			}
		}
	};
	#[cfg(not(unix))]
	let terminate = std::future::pending::<()>();
	tokio::select! {
		() = interrupt => "Ctrl-C",
		() = terminate => "SIGTERM",
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	/// Sends SIGINT to this test process.
	#[cfg(unix)]
	fn interrupt_myself() {
		let status = std::process::Command::new("kill")
			.args(["-INT", &std::process::id().to_string()])
			.status()
			.expect("kill runs");
		assert!(status.success());
	}

	/// The stop signal sent again 20 ms after the first, as `timeout -s INT` does to the
	/// process group: before, the process exited with status 130 here, ending this test
	/// binary; now the stop goes on.
	#[cfg(unix)]
	#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
	async fn the_same_signal_again_at_once_does_not_end_the_process() {
		// Tokio's handler, installed before the first signal, so that none ends the process.
		let _installed = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
			.expect("SIGINT can be listened for");
		let mut stop = tokio::spawn(shutdown_signal());
		// Until the stop is seen: its listener may not be there for the first signal.
		let mut tries = 0;
		loop {
			interrupt_myself();
			tries += 1;
			if tokio::time::timeout(Duration::from_millis(200), &mut stop)
				.await
				.is_ok()
			{
				break;
			}
			assert!(tries < 50, "shutdown_signal never saw SIGINT");
		}
		tokio::time::sleep(Duration::from_millis(20)).await;
		interrupt_myself();
		// Time for the repeat to be handled; had it ended the process, this test would not pass.
		tokio::time::sleep(Duration::from_millis(300)).await;
	}

	#[test]
	fn a_signal_within_half_a_second_of_the_first_is_the_same_request() {
		assert!(is_same_request(Duration::from_micros(77)));
		assert!(is_same_request(Duration::from_millis(499)));
		assert!(!is_same_request(SAME_REQUEST));
		assert!(!is_same_request(Duration::from_secs(2)));
	}
}
