//! `Shared`: the run's live state, read by the gRPC handlers and the dashboards' snapshots and
//! written by the handlers (samples, workers) and the training thread (steps, gates, nets).
//!
//! Ownership: one `Arc<Shared>` for the process. `live` is a mutex held only for short updates
//! and snapshot copies, never across I/O or a search; what is under it, [`Live`]
//! (`counters`), changes only through methods that name what happened. The ledger has its own
//! mutex and is only touched from blocking threads; the committer's thread writes batches and
//! other threads' deferred writes under it, a group at a time. The current assignment is a
//! `watch` channel: the training thread sends a new one on promotion, and every session
//! forwards it to its worker. The published progress snapshot is another `watch` channel,
//! written only by the publisher task (`progress`) and read by every `WatchProgress` stream.
//!
//! The folder holds the parts of the live state: `counters` (`Live`), `fleet` (its workers'
//! events), `snapshot` (`Shared::snapshot`: `Live` and what the process holds apart as one
//! progress message), `worker` (what is known of one worker), its unit tests in `tests`,
//! and the bounded histories the snapshots carry: `series` (thinned charts),
//! `gate_history`, `recent` (samples and games of late), `improvement` (when the net last got
//! stronger) and `ladder` (the promoted nets' matches fitted into ratings). It may call
//! `clock`, `config`, `text`, `error`, `store` and `tablebase`.

pub(crate) mod counters;
pub(crate) mod fleet;
pub(crate) mod gate_history;
pub(crate) mod improvement;
pub(crate) mod ladder;
pub(crate) mod recent;
pub(crate) mod series;
pub(crate) mod snapshot;
#[cfg(test)]
mod tests;
pub(crate) mod worker;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tigers_core::Network;
use tigers_proto::convert::Assignment;
use tigers_proto::v1;
use tokio::sync::watch;

pub(crate) use self::counters::{BatchFigures, Live, Resumed};
pub(crate) use self::worker::Joining;
use crate::clock::unix_now;
use crate::config::RunSettings;
use crate::store::archive::GameArchive;
use crate::store::committer::Committer;
use crate::store::disk::Disk;
use crate::store::ledger::Ledger;
use crate::store::rundir::RunDir;
use crate::tablebase::{PlacementLayers, TablebaseHolder};

/// The net workers should play, with its file.
#[derive(Debug)]
pub(crate) struct Current {
	/// What to tell workers.
	pub assignment: Assignment,
	/// The net itself.
	pub net: Arc<Network>,
}

/// The process-wide state.
pub(crate) struct Shared {
	/// The run's name.
	pub run_name: String,
	/// When this process started.
	pub started: Instant,
	/// The run's settings.
	pub settings: RunSettings,
	/// The run directory.
	pub run_dir: RunDir,
	/// The tablebase, or how it is coming along.
	pub tablebase: TablebaseHolder,
	/// The placement layers judging placement-phase moves, if any were found at start.
	pub placement: PlacementLayers,
	/// The run directory's disk, and whether the run is short of space on it.
	pub disk: Arc<Disk>,
	live: Mutex<Live>,
	ledger: Arc<Mutex<Ledger>>,
	committer: Committer,
	current: watch::Sender<Arc<Current>>,
	closing: watch::Sender<bool>,
	published: watch::Sender<Published>,
	snapshots_built: AtomicU64,
	next_session: AtomicU64,
}

/// The progress snapshot the publisher last built, shared by every progress stream.
#[derive(Clone, Debug, Default)]
pub(crate) struct Published {
	/// The snapshot.
	pub progress: Arc<v1::Progress>,
	/// When it was built; `None` before the first.
	pub built: Option<Instant>,
}

impl Shared {
	/// The state of a run that starts (or resumes) with `current` as the promoted net, judged
	/// by the tables given, keeping `disk_margin` bytes free on the run directory's disk.
	pub(crate) fn new(
		run_dir: RunDir,
		ledger: Ledger,
		settings: RunSettings,
		current: Current,
		live: Live,
		(tablebase, placement): (TablebaseHolder, PlacementLayers),
		disk_margin: u64,
	) -> Result<Arc<Shared>, std::io::Error> {
		let (sender, _) = watch::channel(Arc::new(current));
		let ledger = Arc::new(Mutex::new(ledger));
		let archive = GameArchive::new(
			run_dir.path().join(tigers_proto::games::ARCHIVE_DIR),
			settings.keep_game_generations,
		);
		let disk = Arc::new(Disk::new(run_dir.path(), disk_margin));
		let committer = Committer::start(ledger.clone(), Some(archive), disk.clone())?;
		Ok(Arc::new(Shared {
			run_name: run_dir.name().to_string(),
			started: Instant::now(),
			settings,
			run_dir,
			tablebase,
			placement,
			disk,
			live: Mutex::new(live),
			ledger,
			committer,
			current: sender,
			closing: watch::channel(false).0,
			published: watch::channel(Published::default()).0,
			snapshots_built: AtomicU64::new(0),
			next_session: AtomicU64::new(1),
		}))
	}

	/// A number for a new session, never given before in this process.
	pub(crate) fn next_session_id(&self) -> u64 {
		self.next_session.fetch_add(1, Ordering::Relaxed)
	}

	/// Snapshots built by [`Shared::snapshot`] in this process's life.
	#[cfg(test)]
	pub(crate) fn snapshots_built(&self) -> u64 {
		self.snapshots_built.load(Ordering::Relaxed)
	}

	/// Follows the published snapshots.
	pub(crate) fn published(&self) -> watch::Receiver<Published> {
		self.published.subscribe()
	}

	/// Whether any progress stream follows the published snapshots.
	pub(crate) fn is_watched(&self) -> bool {
		self.published.receiver_count() > 0
	}

	/// Builds a snapshot and publishes it to every progress stream.
	pub(crate) fn publish(&self) {
		let progress = Arc::new(self.snapshot());
		self.published.send_replace(Published {
			progress,
			built: Some(Instant::now()),
		});
	}

	/// The live counters, locked briefly.
	pub(crate) fn live(&self) -> MutexGuard<'_, Live> {
		// A panic while holding the lock leaves plain counters behind, still usable.
		self.live
			.lock()
			.unwrap_or_else(|poisoned| poisoned.into_inner())
	}

	/// The ledger's writer: sample batches, refusals, and the writes of threads that must not
	/// wait for the disk.
	pub(crate) fn committer(&self) -> &Committer {
		&self.committer
	}

	/// The ledger, for blocking threads only, and for rare writes (joins, promotions): the
	/// committer holds it for a whole group at a time.
	pub(crate) fn ledger(&self) -> MutexGuard<'_, Ledger> {
		self.ledger
			.lock()
			.unwrap_or_else(|poisoned| poisoned.into_inner())
	}

	/// The net workers should play now.
	pub(crate) fn current(&self) -> Arc<Current> {
		self.current.borrow().clone()
	}

	/// Follows promotions.
	pub(crate) fn subscribe(&self) -> watch::Receiver<Arc<Current>> {
		self.current.subscribe()
	}

	/// Turns true when the coordinator shuts down: open sessions and progress streams end, so
	/// the server's graceful stop does not wait on long-lived streams.
	pub(crate) fn closing(&self) -> watch::Receiver<bool> {
		self.closing.subscribe()
	}

	/// Ends every open session and progress stream.
	pub(crate) fn close_streams(&self) {
		self.closing.send_replace(true);
	}

	/// Names the best net by the rating ladder in the run directory (`nets/best`) if it changed
	/// since it was last named; on a failed write the next match tries again. Call it after a
	/// match is recorded, never under the live lock: it writes a file.
	pub(crate) fn name_best(&self) {
		let Some(best) = self.live().best_changed() else {
			return;
		};
		if let Err(e) = self.run_dir.point_to_best(best) {
			tracing::error!(%e, generation = best, "could not name the best net");
			self.live().best_not_named();
		}
	}

	/// Makes `net` (whose file hashes to `sha256`) the net to play, at the self-play depth in
	/// force, and tells every session.
	pub(crate) fn promote(&self, net: Arc<Network>, sha256: String) {
		self.live().promoted(net.generation, unix_now());
		self.current.send_modify(|now| {
			// The table is looked at under the channel's lock, so that a solve finishing
			// meanwhile (`reassign_with_tablebase`) is not undone.
			let assignment = self.settings.assignment(
				net.generation,
				sha256,
				self.tablebase.identity(),
				now.assignment.depth,
			);
			*now = Arc::new(Current { assignment, net });
		});
	}

	/// Tells every session the current net's assignment again, as it now stands with the
	/// tablebase (which a solve may finish long after the run started).
	pub(crate) fn reassign_with_tablebase(&self) {
		let identity = self.tablebase.identity();
		// Changed in place under the channel's lock, so that a promotion or a change of depth
		// made meanwhile by the training thread is kept.
		self.current.send_if_modified(|current| {
			let assignment = self.settings.assignment(
				current.assignment.generation,
				current.assignment.sha256.clone(),
				identity,
				current.assignment.depth,
			);
			if assignment == current.assignment {
				return false;
			}
			*current = Arc::new(Current {
				assignment,
				net: current.net.clone(),
			});
			true
		});
	}

	/// The self-play depth workers are asked for now.
	pub(crate) fn selfplay_depth(&self) -> u32 {
		self.current.borrow().assignment.depth
	}

	/// Asks every session's worker to play at `depth` from its next game on, with the same net;
	/// records `work` as the figures behind the decision.
	pub(crate) fn set_selfplay_depth(&self, depth: u32, work: v1::SelfPlayWork) {
		let mut before = None;
		self.current.send_if_modified(|current| {
			if current.assignment.depth == depth {
				return false;
			}
			before = Some(current.assignment.depth);
			// The same net and the table it names, whether or not a solve has finished since:
			// that is `reassign_with_tablebase`'s to tell.
			let was = &current.assignment;
			let assignment = self.settings.assignment(
				was.generation,
				was.sha256.clone(),
				was.tablebase_sha256.as_deref(),
				depth,
			);
			*current = Arc::new(Current {
				assignment,
				net: current.net.clone(),
			});
			true
		});
		self.live().depth_decided(work, before);
	}

	/// The depths samples arriving now may have been searched at: the one in force, and the one
	/// before it while batches played at it may still come in.
	pub(crate) fn selfplay_depths(&self) -> Vec<u32> {
		let now = self.selfplay_depth();
		let before = self.live().depth_before().filter(|d| *d != now);
		std::iter::once(now).chain(before).collect()
	}
}
