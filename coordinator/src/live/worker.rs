//! `WorkerInfo`: what the live state knows of one worker, changed only by `Live`'s events (a
//! join, a session opened or closed, a heartbeat, a batch stored, a flag).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use crate::store::ledger::WorkerRow;

/// How recently an identity's session must have been heard from to hold the identity against
/// a session of another process: three heartbeats at the workers' default 5 s. A worker
/// restarted on its machine waits at most this long for its old session to lapse.
pub(crate) const LIVE_SESSION: Duration = Duration::from_secs(15);

/// What the coordinator knows of one worker.
#[derive(Clone, Debug)]
pub(crate) struct WorkerInfo {
	/// The sha256 of the secret the identity is bound to (from its join).
	pub(super) secret_sha256: Option<String>,
	/// Whether a session has presented the secret since it was handed out.
	pub(super) secret_confirmed: bool,
	/// The open session's number (meaningful while `connected`).
	pub(super) session_id: u64,
	/// Wakes the open session when a newer one of the same worker takes over.
	pub(super) take_over: Option<Arc<Notify>>,
	/// From its join.
	pub(super) name: String,
	/// From its join.
	pub(super) host: String,
	/// From its join.
	pub(super) threads: u32,
	/// Whether a session is open.
	pub(super) connected: bool,
	/// The generation it plays, from its last heartbeat; for a worker not heard from since
	/// this process started, the newest generation of its last stored batch; `None` if
	/// neither is known.
	pub(super) generation: Option<u64>,
	/// Samples durably received from it over the run.
	pub(super) samples: u64,
	/// From the last heartbeat of its open session; 0 without one.
	pub(super) samples_per_second: f64,
	/// When it was last heard from, in Unix seconds: a wall-clock time, as the ledger keeps
	/// it, so that it means the same after a restart (even of the machine, which starts the
	/// monotonic clock over).
	pub(super) last_heard: f64,
	/// Sessions opened in this process's life.
	pub(super) sessions: u32,
	/// Re-searched samples that disagreed.
	pub(super) flagged: u32,
	/// The worker process of the open (or last) session, as its `SessionOpen` named it.
	pub(super) instance: String,
}

/// A join as the live state takes it: what the worker said, and what the ledger holds of it.
#[derive(Clone, Debug)]
pub(crate) struct Joining {
	/// From its join.
	pub name: String,
	/// From its join.
	pub host: String,
	/// From its join.
	pub threads: u32,
	/// Its samples over the run, for a worker the snapshots had forgotten.
	pub samples: u64,
	/// Its flags over the run, likewise.
	pub flagged: u64,
	/// The sha256 of the secret the identity is bound to.
	pub secret_sha256: String,
	/// Whether a session has presented that secret.
	pub secret_confirmed: bool,
}

impl WorkerInfo {
	/// A worker as its join describes it, without a session, last heard at `last_heard` (Unix
	/// seconds).
	pub(super) fn new(name: String, host: String, threads: u32, last_heard: f64) -> WorkerInfo {
		WorkerInfo {
			secret_sha256: None,
			secret_confirmed: false,
			session_id: 0,
			take_over: None,
			name,
			host,
			threads,
			connected: false,
			generation: None,
			samples: 0,
			samples_per_second: 0.0,
			last_heard,
			sessions: 0,
			flagged: 0,
			instance: String::new(),
		}
	}

	/// A worker as the ledger last saw it, unconnected, last heard at `last_heard`.
	pub(super) fn remembered(row: WorkerRow, last_heard: f64) -> WorkerInfo {
		WorkerInfo {
			samples: row.samples,
			flagged: u32::try_from(row.flagged).unwrap_or(u32::MAX),
			generation: row.last_generation,
			..WorkerInfo::new(row.name, row.host, row.threads, last_heard)
		}
	}

	/// A worker as a join of one the live state did not list describes it.
	pub(super) fn joining(joining: &Joining, now: f64) -> WorkerInfo {
		WorkerInfo {
			samples: joining.samples,
			flagged: u32::try_from(joining.flagged).unwrap_or(u32::MAX),
			..WorkerInfo::new(
				joining.name.clone(),
				joining.host.clone(),
				joining.threads,
				now,
			)
		}
	}

	/// Takes in a join at `now` (Unix seconds): what the worker says of itself, and its secret.
	pub(super) fn join(&mut self, joining: Joining, now: f64) {
		self.name = joining.name;
		self.host = joining.host;
		self.threads = joining.threads;
		self.last_heard = now;
		self.secret_sha256 = Some(joining.secret_sha256);
		self.secret_confirmed = joining.secret_confirmed;
	}

	/// Opens session `id` of `instance` at `now` (Unix seconds), which presented the secret;
	/// an older session of the same process is told it is `taken_over`.
	pub(super) fn open_session(
		&mut self,
		instance: String,
		id: u64,
		taken_over: &Arc<Notify>,
		now: f64,
	) {
		if let Some(older) = self.take_over.replace(taken_over.clone()) {
			older.notify_one();
		}
		self.instance = instance;
		self.secret_confirmed = true;
		self.session_id = id;
		self.connected = true;
		self.sessions += 1;
		self.last_heard = now;
	}

	/// Closes session `id`, unless a newer session of the worker is open.
	pub(super) fn close_session(&mut self, id: u64) {
		if self.session_id != id {
			return;
		}
		self.connected = false;
		self.take_over = None;
		// Its last rate is no longer produced for this run: a total of the fleet's rates must
		// not count it.
		self.samples_per_second = 0.0;
	}

	/// The sha256 of the secret the identity is bound to, once it joined in this process's life.
	pub(crate) fn secret_sha256(&self) -> Option<&str> {
		self.secret_sha256.as_deref()
	}

	/// Whether a session has presented the secret since it was handed out.
	pub(crate) fn is_secret_confirmed(&self) -> bool {
		self.secret_confirmed
	}

	/// Whether a session of `instance` must wait at `now` (Unix seconds): a live session of
	/// another process holds the identity.
	pub(super) fn held_by_another(&self, instance: &str, now: f64) -> bool {
		self.connected
			&& self.instance != instance
			&& self.heard_ago(now) < LIVE_SESSION.as_secs_f64()
	}

	/// Seconds from when it was last heard to `now` (Unix seconds); 0 if the wall clock has gone
	/// back since.
	pub(super) fn heard_ago(&self, now: f64) -> f64 {
		(now - self.last_heard).max(0.0)
	}
}
