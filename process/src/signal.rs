//! Stop signals: a future that completes when the process is asked to stop, Ctrl-C or SIGTERM.

/// Completes on Ctrl-C or SIGTERM, so that the program can stop in good order. A second one
/// while it stops ends the process at once (status 130), for when stopping in good order takes
/// too long or hangs.
pub async fn shutdown_signal() {
	let first = stop_signal().await;
	tracing::info!("{first}: stopping");
	// A task rather than a thread of its own: the runtime outlives every stop in good order, and
	// a stop that hangs is what this is for.
	tokio::spawn(async {
		let second = stop_signal().await;
		tracing::warn!("{second} again: exiting without finishing the stop");
		std::process::exit(130);
	});
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
