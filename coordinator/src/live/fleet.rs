//! The fleet in the live state: `Live`'s events of workers (a join, a session opened or closed,
//! a message, a heartbeat, a flag) and of identities held by another process, and the workers
//! forgotten once gone for long.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tracing::warn;

use crate::clock::unix_now;
use crate::error::ServiceError;
use crate::live::counters::Live;
use crate::live::worker::{Joining, LIVE_SESSION, WorkerInfo};
use crate::store::ledger::WorkerRow;
use crate::text::excerpt;

impl Live {
	/// A worker of the ledger, as it was last seen at `last_heard` (Unix seconds), unconnected.
	pub(crate) fn worker_remembered(&mut self, row: WorkerRow, last_heard: f64) {
		let id = row.worker_id.clone();
		self.workers
			.insert(id, WorkerInfo::remembered(row, last_heard));
	}

	/// A worker joined as `joining` says: listed (again) with its secret, heard from now.
	pub(crate) fn worker_joined(&mut self, worker_id: &str, joining: Joining) {
		self.count_cpu(Instant::now());
		let now = unix_now();
		self.workers
			.entry(worker_id.to_string())
			.or_insert_with(|| WorkerInfo::joining(&joining, now))
			.join(joining, now);
	}

	/// Session `id` of `worker_id`'s process `instance` opened, having presented the secret;
	/// an older session of the same process is told it is `taken_over`. Refused (and the
	/// refusal counted) while another process holds the identity's live session.
	pub(crate) fn session_opened(
		&mut self,
		worker_id: &str,
		instance: String,
		id: u64,
		taken_over: &Arc<Notify>,
	) -> Result<(), ServiceError> {
		self.count_cpu(Instant::now());
		let now = unix_now();
		let Some(worker) = self.workers.get(worker_id) else {
			return Err(not_joined(worker_id));
		};
		if worker.held_by_another(&instance, now) {
			return Err(self.identity_in_use(worker_id, now));
		}
		let Some(worker) = self.workers.get_mut(worker_id) else {
			return Err(not_joined(worker_id));
		};
		// A newer session of the same process takes over: the worker is back after losing
		// its connection, before the old session noticed. Under the lock, so that of two
		// sessions opening at once, one is the newer and the other ends taken over.
		worker.open_session(instance, id, taken_over, unix_now());
		Ok(())
	}

	/// Refuses (and counts) a join of `instance` while another process holds `worker_id`'s
	/// live session.
	pub(crate) fn check_not_held(
		&mut self,
		worker_id: &str,
		instance: &str,
	) -> Result<(), ServiceError> {
		let now = unix_now();
		let held = self
			.workers
			.get(worker_id)
			.is_some_and(|worker| worker.held_by_another(instance, now));
		if held {
			return Err(self.identity_in_use(worker_id, now));
		}
		Ok(())
	}

	/// Counts and makes the refusal of a join or session of another process than the one
	/// holding `worker_id`'s live session.
	fn identity_in_use(&mut self, worker_id: &str, now: f64) -> ServiceError {
		let (host, last_heard) = self
			.workers
			.get(worker_id)
			.map_or((String::new(), now), |w| (w.host.clone(), w.last_heard));
		let refusal = ServiceError::IdentityInUse {
			worker_id: worker_id.to_string(),
			host,
			heard_ago: (now - last_heard).max(0.0),
			retry_after_seconds: LIVE_SESSION.as_secs(),
		};
		self.identity_in_use_refusals += 1;
		self.last_identity_in_use = (refusal.to_string(), now);
		warn!(worker = %excerpt(worker_id), "{refusal}");
		refusal
	}

	/// Session `id` of `worker_id` closed: the worker shows disconnected, unless a newer
	/// session of it is open.
	pub(crate) fn session_closed(&mut self, worker_id: &str, id: u64) {
		self.count_cpu(Instant::now());
		if let Some(worker) = self.workers.get_mut(worker_id) {
			worker.close_session(id);
		}
	}

	/// A message came from `worker_id`'s session.
	pub(crate) fn worker_heard(&mut self, worker_id: &str) {
		if let Some(worker) = self.workers.get_mut(worker_id) {
			worker.last_heard = unix_now();
		}
	}

	/// A heartbeat of `worker_id`: the generation it plays and its rate.
	pub(crate) fn heartbeat(&mut self, worker_id: &str, generation: Option<u64>, rate: f64) {
		if let Some(worker) = self.workers.get_mut(worker_id) {
			worker.generation = generation;
			worker.samples_per_second = rate;
		}
	}

	/// A re-searched sample of `worker_id` disagreed.
	pub(crate) fn worker_flagged(&mut self, worker_id: &str) {
		if let Some(worker) = self.workers.get_mut(worker_id) {
			worker.flagged += 1;
		}
	}

	/// Forgets the workers without a session that were last heard from more than `horizon`
	/// before `now` (Unix seconds); returns how many.
	pub(crate) fn forget_workers(&mut self, now: f64, horizon: Duration) -> usize {
		let before = self.workers.len();
		self.workers
			.retain(|_, worker| worker.connected || worker.heard_ago(now) <= horizon.as_secs_f64());
		before - self.workers.len()
	}

	/// `worker_id`, if listed.
	pub(crate) fn worker(&self, worker_id: &str) -> Option<&WorkerInfo> {
		self.workers.get(worker_id)
	}
}

fn not_joined(worker_id: &str) -> ServiceError {
	ServiceError::NotJoined(worker_id.to_string())
}
