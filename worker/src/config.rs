//! `WorkerConfig`: what a worker connects to, who it is, and how it paces itself.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::backoff::BackoffSettings;
use crate::error::WorkerError;

/// Spooled batches at most by default. At the default 8 games a batch that is some 16,000
/// games, hours of a large machine's output: enough to ride out a long coordinator outage, and
/// at a few hundred kilobytes a batch well under a gigabyte of disk.
pub const DEFAULT_SPOOL_CAPACITY: usize = 2000;

/// The longest worker name the coordinator accepts.
pub const MAX_NAME_CHARS: usize = 128;

/// How long a stopping worker goes on sending and waiting for acknowledgements by default.
pub const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(20);

/// Everything a worker needs to run. Build it with [`WorkerConfig::new`] and change the fields
/// that matter; the rest are sensible defaults.
#[derive(Clone)]
pub struct WorkerConfig {
	/// The coordinator, `http://host:port` or `https://host:port`; a bare `host:port` is
	/// taken as http.
	pub url: String,
	/// Self-play threads (1 to 4096); by default the machine's cores.
	pub threads: usize,
	/// The name shown on the dashboard (1 to 128 characters); by default the host name.
	pub name: String,
	/// The run's token, sent as `authorization: Bearer <token>` on every call.
	pub token: Option<String>,
	/// Where the worker keeps its identity, next sequence number and spool; by default
	/// `worker/<host name>` in the platform's state directory (see
	/// [`WorkerConfig::default_state_dir`]). Each worker needs its own.
	pub state_dir: PathBuf,
	/// A PEM certificate to trust for an https coordinator (its own self-signed one, or the
	/// CA that signed it). Needed for https: this build has no built-in root certificates.
	pub tls_ca: Option<PathBuf>,
	/// Batches kept on disk at most while they wait for an acknowledgement; self-play pauses
	/// when this many wait.
	pub spool_capacity: usize,
	/// How often the worker reports on its session.
	pub heartbeat_interval: Duration,
	/// Reconnection delays.
	pub backoff: BackoffSettings,
	/// How long a stopping worker goes on sending its spooled batches and waiting for their
	/// acknowledgements, once self-play has stopped (20 s: within the 30 s that the systemd
	/// unit and the Kubernetes manifest give a worker to stop).
	pub shutdown_grace: Duration,
	/// How long to wait for a connection (TCP and TLS) to the coordinator.
	pub connect_timeout: Duration,
	/// Where to serve Prometheus metrics, if anywhere. At most one worker per process.
	pub metrics_listen: Option<SocketAddr>,
	/// Where to keep the tablebase the coordinator names, fetching it if missing; by default
	/// the platform's cache directory, shared with `tui` and a coordinator on the machine.
	pub tablebase: Option<PathBuf>,
	/// Play without the tablebase even if the coordinator names one.
	pub no_tablebase: bool,
	/// The protocol version `Join` claims: this build's, except in tests of how a coordinator
	/// refuses a worker of another.
	pub protocol_version: u32,
}

impl WorkerConfig {
	/// A worker for the coordinator at `url`, with every other setting at its default.
	pub fn new(url: impl Into<String>) -> WorkerConfig {
		let name = host_name();
		WorkerConfig {
			url: url.into(),
			threads: default_threads(),
			state_dir: WorkerConfig::default_state_dir(&name),
			name,
			token: None,
			tls_ca: None,
			spool_capacity: DEFAULT_SPOOL_CAPACITY,
			// Every 5 s: the dashboard's rates stay fresh and a silent worker shows up
			// within seconds, at a cost of a few bytes.
			heartbeat_interval: Duration::from_secs(5),
			backoff: BackoffSettings::default(),
			shutdown_grace: DEFAULT_STOP_GRACE,
			connect_timeout: Duration::from_secs(10),
			metrics_listen: None,
			tablebase: None,
			no_tablebase: false,
			protocol_version: tigers_proto::PROTOCOL_VERSION,
		}
	}

	/// The state directory of a worker called `name` unless told otherwise: `worker/<name>`
	/// (the name made safe for a path) in the platform's state directory, e.g.
	/// `~/.local/state/tigers-and-sheep/worker/<name>` on Linux (see
	/// [`tigers_process::locations::state_dir`]). On a system that tells no home directory,
	/// `worker-state/<name>` under the current directory.
	pub fn default_state_dir(name: &str) -> PathBuf {
		let name = path_safe(name);
		tigers_process::locations::worker_state_dir(&name)
			.unwrap_or_else(|_| PathBuf::from("worker-state").join(name))
	}

	/// Checks the settings a user can get wrong.
	pub fn validate(&self) -> Result<(), WorkerError> {
		let fail = |text: String| Err(WorkerError::Config(text));
		if !(1..=4096).contains(&self.threads) {
			return fail(format!("threads is {}, outside 1..=4096", self.threads));
		}
		let chars = self.name.chars().count();
		if chars == 0 || chars > MAX_NAME_CHARS || self.name.chars().any(char::is_control) {
			return fail(format!(
				"the name {:?} must be 1 to {MAX_NAME_CHARS} characters without control \
				 characters",
				self.name
			));
		}
		if self.spool_capacity == 0 {
			return fail("the spool capacity must be at least 1 batch".into());
		}
		if self.heartbeat_interval.is_zero() {
			return fail("the heartbeat interval must be above 0".into());
		}
		if self.backoff.initial.is_zero() || self.backoff.max < self.backoff.initial {
			return fail(format!(
				"the backoff must start above 0 and end at or above its start: {:?}",
				self.backoff
			));
		}
		Ok(())
	}
}

impl fmt::Debug for WorkerConfig {
	/// Every field but the token, which must not end up in logs.
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		f.debug_struct("WorkerConfig")
			.field("url", &self.url)
			.field("threads", &self.threads)
			.field("name", &self.name)
			.field("token", &self.token.as_ref().map(|_| "<hidden>"))
			.field("state_dir", &self.state_dir)
			.field("tls_ca", &self.tls_ca)
			.field("spool_capacity", &self.spool_capacity)
			.field("heartbeat_interval", &self.heartbeat_interval)
			.field("backoff", &self.backoff)
			.field("shutdown_grace", &self.shutdown_grace)
			.field("connect_timeout", &self.connect_timeout)
			.field("metrics_listen", &self.metrics_listen)
			.field("tablebase", &self.tablebase)
			.field("no_tablebase", &self.no_tablebase)
			.finish()
	}
}

/// The machine's cores, or 1 if they cannot be counted.
pub fn default_threads() -> usize {
	std::thread::available_parallelism().map_or(1, usize::from)
}

/// The machine's host name: `/proc/sys/kernel/hostname`, else `$HOSTNAME`, else `unknown`;
/// at most 255 characters, as the coordinator accepts.
pub fn host_name() -> String {
	let from_proc = std::fs::read_to_string("/proc/sys/kernel/hostname").ok();
	let name = from_proc
		.or_else(|| std::env::var("HOSTNAME").ok())
		.map(|name| name.trim().to_string())
		.filter(|name| !name.is_empty())
		.unwrap_or_else(|| "unknown".to_string());
	name.chars().take(255).collect()
}

/// `name` with everything but ASCII letters, digits, `.`, `_` and `-` replaced by `_`, so it
/// makes one path component (and a readable worker id).
pub(crate) fn path_safe(name: &str) -> String {
	let safe: String = name
		.chars()
		.map(|c| {
			if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
				c
			} else {
				'_'
			}
		})
		.collect();
	// "." and ".." would name the directory itself or its parent.
	if safe.chars().all(|c| c == '.') {
		safe.replace('.', "_")
	} else {
		safe
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn defaults_are_valid_and_the_state_dir_follows_the_name() {
		let config = WorkerConfig::new("http://127.0.0.1:50051");
		assert!(config.validate().is_ok());
		// docs/deploy.md and the supervisors' stop timeouts (30 s) count on this.
		assert_eq!(config.shutdown_grace, Duration::from_secs(20));
		assert!(config.threads >= 1);
		assert!(!config.name.is_empty());
		assert_eq!(
			config.state_dir,
			WorkerConfig::default_state_dir(&config.name)
		);
		let unsafe_name = WorkerConfig::default_state_dir("box 7/../x");
		assert!(
			unsafe_name.ends_with("worker/box_7_.._x"),
			"{unsafe_name:?}"
		);
		// In the platform's state directory, never under the working directory.
		assert!(unsafe_name.is_absolute(), "{unsafe_name:?}");
	}

	#[test]
	fn bad_settings_are_refused_with_a_reason() {
		let base = WorkerConfig::new("http://127.0.0.1:1");
		let cases: Vec<(WorkerConfig, &str)> = vec![
			(
				WorkerConfig {
					threads: 0,
					..base.clone()
				},
				"threads",
			),
			(
				WorkerConfig {
					name: String::new(),
					..base.clone()
				},
				"name",
			),
			(
				WorkerConfig {
					name: "x".repeat(129),
					..base.clone()
				},
				"name",
			),
			(
				WorkerConfig {
					spool_capacity: 0,
					..base.clone()
				},
				"spool",
			),
		];
		for (config, expected) in cases {
			let error = config.validate().unwrap_err().to_string();
			assert!(error.contains(expected), "{error}");
		}
	}

	#[test]
	fn the_token_stays_out_of_debug_output() {
		let mut config = WorkerConfig::new("http://127.0.0.1:1");
		config.token = Some("s3cret".into());
		let text = format!("{config:?}");
		assert!(
			!text.contains("s3cret") && text.contains("<hidden>"),
			"{text}"
		);
	}

	#[test]
	fn path_safe_names_are_one_component() {
		assert_eq!(path_safe("gpu-box.lan_2"), "gpu-box.lan_2");
		assert_eq!(path_safe(".."), "__");
		assert_eq!(path_safe("a/b c"), "a_b_c");
	}
}
