//! Progress snapshots for dashboards: the publisher builds one snapshot per period, while
//! anyone watches, and every `WatchProgress` stream sends the latest at its own interval. So a
//! snapshot is built once per period however many dashboards follow the run, and each stream
//! holds at most one in flight, shared with the publisher until it is encoded. The publisher
//! also forgets workers that have been gone for long.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tigers_proto::v1;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

use crate::clock::unix_now;
use crate::live::Shared;

/// How often the publisher builds a snapshot while some stream follows the run: the shortest
/// interval a dashboard may ask for.
pub(crate) const PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// How often the publisher looks for workers to forget.
const FORGET_EVERY: Duration = Duration::from_secs(60);

/// Publishes snapshots every [`PUBLISH_EVERY`] while some stream follows them, and forgets
/// workers gone for longer than `forget_after`. Runs until dropped.
pub(crate) async fn publish_every(shared: Arc<Shared>, forget_after: Duration) {
	let mut ticks = tokio::time::interval(PUBLISH_EVERY);
	ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
	let mut forgotten_at = Instant::now();
	loop {
		ticks.tick().await;
		if forgotten_at.elapsed() >= FORGET_EVERY {
			forgotten_at = Instant::now();
			let forgotten = shared.live().forget_workers(unix_now(), forget_after);
			if forgotten > 0 {
				tracing::info!(forgotten, "forgot workers gone for long");
			}
		}
		if shared.is_watched() {
			shared.publish();
		}
	}
}

/// Sends the latest published snapshot to `sender` every `interval` until the receiver goes
/// away or the coordinator shuts down. Waits for a fresh snapshot first, so a new stream never
/// starts with one the publisher built before anyone watched.
///
/// The snapshot travels as the publisher's own `Arc`, and the follower takes it only once the
/// channel has room: a dashboard that stops reading (or a client that opens streams and never
/// reads them) holds one shared snapshot in its channel and no copy of its own, and when it
/// reads again its next message is the newest snapshot, not a backlog.
pub(crate) async fn follow(
	shared: &Shared,
	interval: Duration,
	sender: &mpsc::Sender<Arc<v1::Progress>>,
) {
	let mut published = shared.published();
	let mut closing = shared.closing();
	let subscribed = Instant::now();
	let is_fresh = |built: Option<Instant>| built.is_some_and(|built| built >= subscribed);
	while !is_fresh(published.borrow_and_update().built) {
		tokio::select! {
			_ = closing.changed() => return,
			() = sender.closed() => return,
			changed = published.changed() => if changed.is_err() { return },
		}
	}
	let mut ticks = tokio::time::interval(interval);
	// A stream that was stalled resumes at its interval, not with a burst of missed ticks.
	ticks.set_missed_tick_behavior(MissedTickBehavior::Skip);
	loop {
		tokio::select! {
			_ = closing.changed() => break,
			// The dashboard went away: its slot among the streams is free at once, not at the
			// next tick.
			() = sender.closed() => break,
			_ = ticks.tick() => {
				// Waits for room without holding a snapshot, then takes the newest.
				tokio::select! {
					_ = closing.changed() => break,
					permit = sender.reserve() => {
						let Ok(permit) = permit else {
							break; // the dashboard went away
						};
						permit.send(published.borrow_and_update().progress.clone());
					}
				}
			}
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::test_support::{TestDir, shared_for_tests};

	#[tokio::test(start_paused = true)]
	async fn one_snapshot_per_period_serves_every_stream() {
		let dir = TestDir::new("progress-shared");
		let shared = shared_for_tests(dir.path());
		let publisher = tokio::spawn(publish_every(shared.clone(), Duration::from_secs(3600)));
		let watchers = 20;
		let mut streams = Vec::new();
		let mut followers = Vec::new();
		for _ in 0..watchers {
			let (sender, receiver) = mpsc::channel(1);
			let shared = shared.clone();
			followers.push(tokio::spawn(async move {
				follow(&shared, PUBLISH_EVERY, &sender).await;
			}));
			streams.push(receiver);
		}
		let mut received = 0;
		for _ in 0..10 {
			for stream in &mut streams {
				let progress = stream.recv().await.unwrap();
				assert_eq!(progress.run_name, shared.run_name);
				received += 1;
			}
		}
		let built = shared.snapshots_built();
		// Ten rounds of 100 ms: about ten snapshots, not one per stream and round.
		assert_eq!(received, 10 * watchers);
		assert!(built <= 12, "{built} snapshots for {received} messages");
		publisher.abort();
		for follower in followers {
			follower.abort();
			let _ = follower.await;
		}
		let _ = publisher.await;
		// The run's threads stop with the last handle, before its directory is removed.
		drop(shared);
	}

	#[tokio::test(start_paused = true)]
	async fn a_stalled_stream_holds_no_copy_and_resumes_with_the_newest_snapshot() {
		let dir = TestDir::new("progress-stalled");
		let shared = shared_for_tests(dir.path());
		let publisher = tokio::spawn(publish_every(shared.clone(), Duration::from_secs(3600)));
		let (sender, mut receiver) = mpsc::channel(1);
		let follower = {
			let shared = shared.clone();
			tokio::spawn(async move { follow(&shared, PUBLISH_EVERY, &sender).await })
		};
		let first = receiver.recv().await.unwrap();
		// Nobody reads for five seconds: some fifty snapshots are published meanwhile.
		tokio::time::sleep(Duration::from_secs(5)).await;
		assert!(
			shared.snapshots_built() >= 40,
			"{}",
			shared.snapshots_built()
		);
		// One message waited in the channel, the publisher's own snapshot, not a copy.
		let waiting = receiver.recv().await.unwrap();
		assert!(!Arc::ptr_eq(&waiting, &first));
		assert!(
			Arc::strong_count(&waiting) <= 2,
			"{}",
			Arc::strong_count(&waiting)
		);
		// The next is the newest published, not the next of a backlog.
		let next = receiver.recv().await.unwrap();
		let newest = shared.published().borrow().progress.clone();
		assert!(Arc::ptr_eq(&next, &newest));
		follower.abort();
		publisher.abort();
		let _ = follower.await;
		let _ = publisher.await;
		// The run's threads stop with the last handle, before its directory is removed.
		drop(shared);
	}

	#[tokio::test(start_paused = true)]
	async fn nothing_is_built_while_nobody_watches() {
		let dir = TestDir::new("progress-idle");
		let shared = shared_for_tests(dir.path());
		let publisher = tokio::spawn(publish_every(shared.clone(), Duration::from_secs(3600)));
		tokio::time::sleep(Duration::from_secs(5)).await;
		assert_eq!(shared.snapshots_built(), 0);
		publisher.abort();
		let _ = publisher.await;
		// The run's threads stop with the last handle, before its directory is removed.
		drop(shared);
	}
}
