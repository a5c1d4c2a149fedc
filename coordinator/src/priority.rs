//! Threads that give way to ingest: training, gating and the spot checks run at a lower
//! scheduling priority than the RPC runtime and the ledger's writer, so that when the cores are
//! short, storing and acknowledging batches comes first, and the rest take what is left (all of
//! it while ingest is idle).

/// How much lower: the `nice` value added to such a thread. At 5, the kernel weighs it at about
/// a third of a normal thread (335 against 1024) when both want a core: ingest comes first
/// without training stopping altogether under a flood of batches.
pub(crate) const LOWER_BY: i32 = 5;

/// Lowers the calling thread's scheduling priority by [`LOWER_BY`] on Linux (where a thread's
/// nice value is its own); elsewhere, does nothing. A failure is logged: the thread runs on at
/// the priority it had.
pub(crate) fn lower_this_thread() {
	#[cfg(target_os = "linux")]
	{
		let thread = rustix::thread::gettid();
		let lowered = rustix::process::getpriority_process(Some(thread))
			.and_then(|now| rustix::process::setpriority_process(Some(thread), now + LOWER_BY));
		if let Err(error) = lowered {
			tracing::warn!(%error, "cannot lower this thread's priority; it competes with ingest");
		}
	}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
	use super::*;

	#[test]
	fn only_the_calling_thread_is_lowered() {
		let before = rustix::process::getpriority_process(None).unwrap();
		let lowered = std::thread::spawn(|| {
			lower_this_thread();
			rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()
		})
		.join()
		.unwrap();
		assert_eq!(lowered, (before + LOWER_BY).min(19));
		assert_eq!(
			rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap(),
			before
		);
	}
}
