//! `coordinator`'s flags for the service itself: where it listens and with what token and
//! certificate, the limits on peers, the local workers, the metrics and web endpoints, the
//! dashboard and the logs.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use clap::builder::RangedU64ValueParser;
use tigers_coordinator::config::{CoordinatorConfig, ServiceLimits};
use tigers_process::token::TOKEN_ENV;

/// The service's flags.
#[derive(Args)]
pub(crate) struct ServiceArgs {
	/// Address to listen on.
	#[arg(long, default_value = "127.0.0.1:50051")]
	listen: SocketAddr,
	/// The run directory: nets, checkpoint, ledger.
	#[arg(long, default_value = "runs/default")]
	pub(super) run_dir: PathBuf,
	/// The token workers and dashboards must present.
	#[arg(long, env = TOKEN_ENV, hide_env_values = true)]
	token: Option<String>,
	/// Listen on a non-loopback address without a token.
	#[arg(long)]
	insecure: bool,
	/// Take `worker loadtest`'s simulated workers, whose copies of one batch the run stores,
	/// trains on and archives as real games: only for a run directory made for the test.
	#[arg(long)]
	accept_loadtest: bool,
	/// Joins under worker identities the run has not seen, a minute at most (a minute's worth
	/// may come at once); past it a join is refused with RESOURCE_EXHAUSTED and the seconds to
	/// wait, and the worker retries. 0 for no limit.
	#[arg(long, value_name = "N", default_value_t = ServiceLimits::default().new_workers_per_minute)]
	max_new_workers_per_minute: u32,
	/// WatchProgress streams (dashboards) open at once, in all (at least 1).
	#[arg(long, value_name = "N", default_value_t = ServiceLimits::default().max_watchers,
		value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
	max_watchers: usize,
	/// WatchProgress streams open at once on one connection (at least 1).
	#[arg(long, value_name = "N", default_value_t = ServiceLimits::default().max_watchers_per_connection,
		value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
	max_watchers_per_connection: usize,
	/// TLS certificate (PEM); needs --tls-key.
	#[arg(long, requires = "tls_key")]
	tls_cert: Option<PathBuf>,
	/// TLS private key (PEM); needs --tls-cert.
	#[arg(long, requires = "tls_cert")]
	tls_key: Option<PathBuf>,
	/// Workers to run in this process, connecting over loopback.
	#[arg(long, default_value_t = 0)]
	local_workers: u32,
	/// Self-play threads per local worker (1 to 4096).
	#[arg(long, default_value_t = 1,
		value_parser = RangedU64ValueParser::<usize>::new().range(1..=4096))]
	local_worker_threads: usize,
	/// Serve Prometheus metrics over plain HTTP at this address (path /metrics). The endpoint
	/// takes no token; a non-loopback address needs the run to have one (or --insecure).
	#[arg(long, value_name = "ADDR")]
	metrics_listen: Option<SocketAddr>,
	/// Serve the run's read-only web pages at this address (docs/web.md): a listener of its
	/// own, apart from gRPC and metrics, over HTTPS with --tls-cert and --tls-key (the same
	/// certificate as gRPC). With a token, every page asks for it; a non-loopback address
	/// needs the run to have one (or --insecure).
	#[arg(long, value_name = "ADDR")]
	http_listen: Option<SocketAddr>,
	/// How long a login to the web pages lasts, in hours (1 to 8760); a log-out ends it
	/// sooner, and so does a restart of the coordinator.
	#[arg(long, value_name = "HOURS",
		default_value_t = tigers_play::access::DEFAULT_SESSION.as_secs() / 3600,
		value_parser = clap::value_parser!(u64).range(1..=8760))]
	web_session_hours: u64,
	/// Free space to keep on the run directory's disk, in MiB: below it, batches wait
	/// unacknowledged (sessions stay open) and training, checkpoints and the game archive
	/// pause until space returns (0 to wait only once a write fails for lack of space).
	#[arg(long, value_name = "MIB",
		default_value_t = tigers_coordinator::config::DEFAULT_MIN_FREE_MB)]
	min_free_mb: u64,
	/// Searches at once for the play and analysis pages' visitors (1 to 64): the cores they
	/// may take from training; more are refused at once with 429 Too Many Requests.
	#[arg(long, value_name = "N", default_value_t = 1,
		value_parser = clap::value_parser!(u64).range(1..=64))]
	play_searches: u64,
	/// The longest search a visitor of the play pages may ask for, in milliseconds (1 to
	/// 60000).
	#[arg(long, value_name = "MS", default_value_t = tigers_play::limits::Limits::default().max_ms,
		value_parser = clap::value_parser!(u32).range(1..=60_000))]
	play_max_ms: u32,
	/// No dashboard: logs on stderr instead. The default when stdin or stdout is not a
	/// terminal; with the dashboard, logs go to coordinator.log in the run directory.
	#[arg(long)]
	pub(super) headless: bool,
	/// Logs as JSON lines (the default when stderr is not a terminal).
	#[arg(long)]
	pub(super) log_json: bool,
	/// Forget workers without a session after this many hours unheard: they leave the count
	/// of workers known (`status`'s workers_known) and are not loaded again at a restart; the
	/// ledger keeps them. The dashboards and `status` list a worker without a session only for
	/// an hour after it was last heard, whatever this is.
	#[arg(long, value_name = "HOURS",
		default_value_t = ServiceLimits::default().forget_workers_after.as_secs() / 3600)]
	forget_workers_hours: u64,
}

impl ServiceArgs {
	/// A run's configuration with the service's settings from these flags, the rest at the
	/// library's defaults.
	pub(super) fn config(&self) -> CoordinatorConfig {
		let mut config = CoordinatorConfig::new(self.listen, self.run_dir.clone());
		config.token = self.token.clone().filter(|t| !t.is_empty());
		config.tls = self.tls_cert.clone().zip(self.tls_key.clone());
		config.insecure = self.insecure;
		config.local_workers = self.local_workers;
		config.local_worker_threads = self.local_worker_threads;
		config.metrics_listen = self.metrics_listen;
		config.http_listen = self.http_listen;
		config.web_session = Duration::from_secs(self.web_session_hours * 3600);
		config.min_free_bytes = self.min_free_mb.saturating_mul(1 << 20);
		config.play.searches = usize::try_from(self.play_searches).unwrap_or(1);
		config.play.max_ms = self.play_max_ms;
		let limits = &mut config.limits;
		limits.forget_workers_after =
			Duration::from_secs(self.forget_workers_hours.saturating_mul(3600));
		limits.accept_loadtest = self.accept_loadtest;
		limits.new_workers_per_minute = self.max_new_workers_per_minute;
		limits.max_watchers = self.max_watchers;
		limits.max_watchers_per_connection = self.max_watchers_per_connection;
		config
	}
}
