//! `CoordinatorConfig`: everything a coordinator is started with, and the checks made before it
//! listens.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use tigers_core::gate::{GateSettings, TableRole};
use tigers_core::network::{Encoding, Shape};
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::SelfPlaySettings;
use tigers_core::stats::PromotionRule;
use tigers_core::trainer::TrainingSettings;
use tigers_process::token::TOKEN_ENV;
use tigers_proto::convert::Assignment;

/// This coordinator's version, which a joining worker's build must have.
pub(crate) const BUILD_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How the run trains, plays and gates.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
	/// Hidden layer widths chosen for the run's net: a new run's generation 0 has them, and a
	/// resumed run whose nets have others is refused. `None`: [`Shape::default`] for a new run,
	/// whatever the nets have for a resumed one.
	pub shape: Option<Shape>,
	/// The input encoding chosen for the run's net, as `shape`: a new run's generation 0 reads
	/// it, and a resumed run whose nets read another is refused. `None`:
	/// [`RunSettings::NEW_RUN_ENCODING`] for a new run, whatever the nets read for a resumed one.
	pub encoding: Option<Encoding>,
	/// Seed of a new run's first net and of the trainer's draws.
	pub seed: u64,
	/// Search depth for self-play at the start, and the shallowest it is adapted to; the gate's
	/// depth is set apart (`gate.search`).
	pub depth: u32,
	/// How the self-play depth follows the fleet's rate of samples.
	pub adapt: DepthAdaptation,
	/// Exploration and ply cap for self-play.
	pub selfplay: SelfPlaySettings,
	/// Games per sample batch a worker sends.
	pub games_per_batch: u32,
	/// Batch size, window, use cap, targets and Adam.
	pub training: TrainingSettings,
	/// Training steps between candidates.
	pub steps_per_candidate: u64,
	/// Training steps between checkpoints of the training state.
	pub steps_per_checkpoint: u64,
	/// The longest time between checkpoints while training goes on, whatever the steps: the
	/// most training a crash can cost.
	pub checkpoint_every: Duration,
	/// How the gate matches are played: a candidate's (against the incumbent net, or
	/// `ClaudePlayer` under [`GateMode::Sprt`]) and a promoted net's measurement.
	pub gate: GateSettings,
	/// What a candidate must show to be promoted.
	pub promotion: PromotionRule,
	/// How many generations behind the latest a sample may be.
	pub max_staleness: u64,
	/// The share of received samples searched again to check the worker's work (0 to 1).
	pub research_fraction: f64,
	/// What self-play and training take from the tablebase once there is one.
	pub tablebase_use: TablebaseUse,
	/// Under [`TablebaseUse::Adjudicate`], the share of self-play games played to their end
	/// without the tablebase (0 to 1).
	pub play_out_share: f32,
	/// The measurement of promoted nets at equal time per move.
	pub timed: TimedSettings,
	/// Whether each promoted net is graded on the grading suite at the gate's depth
	/// (`training::grades`); `--no-grades` turns it off.
	pub grade: bool,
	/// How many of the newest generations' self-play games the game archive keeps; 0 keeps
	/// every game.
	pub keep_game_generations: u64,
	/// How candidates become generations.
	pub gate_mode: GateMode,
	/// How long without a stronger net before the dashboards raise an alarm; zero for never.
	pub stall_alarm: Duration,
}

/// How a candidate becomes the run's next generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateMode {
	/// It plays a gate match against `ClaudePlayer` and is promoted if the SPRT, centred on the
	/// incumbent's measurement, finds it better (`stats::promote`).
	Sprt,
	/// Every candidate is promoted without a match, as KataGo and Leela Chess Zero use every
	/// new net; each is then measured on fresh openings like any promoted net, which is how
	/// its strength is known.
	None,
	/// It plays a gate match against the incumbent net itself, and is promoted if it scores
	/// above an even match without the SPRT finding it no better (`stats::promote_over_incumbent`);
	/// each promoted net is then measured against `ClaudePlayer` on fresh openings, as with the
	/// other modes. No fixed opponent bounds what a candidate can show.
	Incumbent,
	/// As `Incumbent`, and a candidate that wins there then plays `ClaudePlayer` on fresh
	/// openings beside the incumbent on the same ones, and is promoted only if it is not worse
	/// there by more than the promotion rule's margin (`stats::not_worse`): the design card's
	/// gate against `ClaudePlayer`, as a non-inferiority test rather than a score to beat.
	Both,
}

impl GateMode {
	/// The names the command line takes.
	pub const NAMES: [&'static str; 4] = ["sprt", "none", "incumbent", "both"];

	/// The default: with a fixed opponent as the bar the gate stopped promoting once the nets
	/// drew level with it, while against the incumbent runs kept promoting, and improving, to
	/// their end (docs/training.md, issue 24); the check against `ClaudePlayer` after the head
	/// to head keeps a candidate that plays worse there from being promoted, without a bar to
	/// clear (docs/training.md, issue 47).
	pub(crate) const DEFAULT: GateMode = GateMode::Both;

	/// Whether a candidate plays the incumbent head to head.
	pub const fn head_to_head(self) -> bool {
		matches!(self, GateMode::Incumbent | GateMode::Both)
	}

	/// The name the command line takes.
	pub const fn name(self) -> &'static str {
		match self {
			GateMode::Sprt => "sprt",
			GateMode::None => "none",
			GateMode::Incumbent => "incumbent",
			GateMode::Both => "both",
		}
	}
}

impl std::str::FromStr for GateMode {
	type Err = String;

	fn from_str(text: &str) -> Result<GateMode, String> {
		match text {
			"sprt" => Ok(GateMode::Sprt),
			"none" => Ok(GateMode::None),
			"incumbent" => Ok(GateMode::Incumbent),
			"both" => Ok(GateMode::Both),
			_ => Err(format!(
				"{text:?} is not one of sprt, none, incumbent, both"
			)),
		}
	}
}

/// How the self-play depth follows the fleet (`workload`): between [`RunSettings::depth`] and
/// `max_depth`, decided once a `period`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthAdaptation {
	/// The deepest self-play search the coordinator asks for; at most `depth` turns the
	/// adaptation off.
	pub max_depth: u32,
	/// How long the rates are measured for each decision, and so the least time between two
	/// changes of depth.
	pub period: Duration,
}

impl Default for DepthAdaptation {
	/// Up to depth 5, deciding every minute. On one small machine the trainer can use several
	/// times what its local workers play, so the depth stays at its minimum; a fleet that
	/// outruns the trainer gets up to two plies more, samples that cost about 15 times the CPU
	/// of depth 3's (`worker bench`, docs/scaling.md), which a fleet of about 130 cores needs
	/// to saturate the trainer (measured with nets of input encoding 1; a new run's, of
	/// encoding 2, search about 30% fewer positions a second, so it takes more cores). A minute
	/// of rates smooths over the arrival of batches (a few a second per worker) and leaves
	/// workers time to switch, which they do between games.
	fn default() -> DepthAdaptation {
		DepthAdaptation {
			max_depth: 5,
			period: Duration::from_secs(60),
		}
	}
}

/// How promoted nets are measured at equal time per move against `ClaudePlayer`, beside the
/// fixed-depth gate: what a person who plays the net experiences, rather than a reproducible
/// bar for promotion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedSettings {
	/// Each player's time for each move.
	pub move_time: Duration,
	/// Pairs of games per measurement, all played; 0 turns the measurement off.
	pub pairs: u32,
	/// What the tablebase, when there is one, does in the games.
	pub tablebase: TableRole,
}

impl Default for TimedSettings {
	/// 100 ms a move, 100 pairs, the tablebase in play for both players: a person meets the net
	/// in `tui` and `tui engine` with the table, so that is the strength that matters to them
	/// (issue 24 found the two figures far apart: 0.53 with the table in play, 0.64 to 0.68 with
	/// it judging only).
	fn default() -> TimedSettings {
		TimedSettings {
			move_time: Duration::from_millis(100),
			pairs: 100,
			tablebase: TableRole::Play,
		}
	}
}

impl TimedSettings {
	/// The search both players use: iterative deepening on the clock.
	pub fn search(&self) -> SearchSettings {
		SearchSettings {
			max_depth: 64,
			time_limit: Some(self.move_time),
		}
	}
}

/// What self-play and training take from the tablebase (the gate judges exact accuracy with
/// it whatever this says, and the players never search with it there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TablebaseUse {
	/// Nothing: self-play and targets as without a table.
	None,
	/// Self-play plays every game out with the net's own search, the table nowhere in it, and
	/// movement-phase samples train towards the table's exact value: the net practises the
	/// movement phase while the table gives only the targets.
	Targets,
	/// Self-play searches with it, and movement-phase samples train towards its exact result.
	Rescore,
	/// As `Rescore`, and self-play stops each game at its first movement-phase position with
	/// the exact result.
	Adjudicate,
}

impl TablebaseUse {
	/// The names the command line takes.
	pub const NAMES: [&'static str; 4] = ["none", "targets", "rescore", "adjudicate"];

	/// The default: adjudicated games reached the strongest nets for the least compute in the
	/// comparison in docs/training.md.
	pub(crate) const DEFAULT: TablebaseUse = TablebaseUse::Adjudicate;

	/// Whether self-play searches with the table (and so whether assignments name it).
	pub const fn in_self_play(self) -> bool {
		matches!(self, TablebaseUse::Rescore | TablebaseUse::Adjudicate)
	}

	/// Whether movement-phase samples train towards the table's exact value.
	pub const fn rescores(self) -> bool {
		!matches!(self, TablebaseUse::None)
	}

	/// The name the command line takes.
	pub const fn name(self) -> &'static str {
		match self {
			TablebaseUse::None => "none",
			TablebaseUse::Targets => "targets",
			TablebaseUse::Rescore => "rescore",
			TablebaseUse::Adjudicate => "adjudicate",
		}
	}
}

impl std::str::FromStr for TablebaseUse {
	type Err = String;

	fn from_str(text: &str) -> Result<TablebaseUse, String> {
		match text {
			"none" => Ok(TablebaseUse::None),
			"targets" => Ok(TablebaseUse::Targets),
			"rescore" => Ok(TablebaseUse::Rescore),
			"adjudicate" => Ok(TablebaseUse::Adjudicate),
			_ => Err(format!(
				"{text:?} is not one of none, targets, rescore, adjudicate"
			)),
		}
	}
}

impl RunSettings {
	/// The input encoding of a new run's generation 0 when none is chosen: version 2, whose
	/// plane of the sheep a tiger could capture gave the strongest nets at equal time
	/// (docs/training.md, issue 24). Workers from before it (protocol 3) cannot play such a net
	/// and are told so when they join; `--input-version 1` starts a run they can serve.
	pub const NEW_RUN_ENCODING: Encoding = Encoding::V2;

	/// The input encoding a new run's generation 0 reads: the one chosen, or
	/// [`RunSettings::NEW_RUN_ENCODING`].
	pub fn new_run_encoding(&self) -> Encoding {
		self.encoding.unwrap_or(RunSettings::NEW_RUN_ENCODING)
	}

	/// What to tell workers to play: the net of `generation` (whose file hashes to `sha256`) at
	/// self-play `depth`, with the tablebase of identity `tablebase` if the coordinator has one
	/// and self-play is to use it. The one place an assignment is made.
	pub(crate) fn assignment(
		&self,
		generation: u64,
		sha256: String,
		tablebase: Option<&str>,
		depth: u32,
	) -> Assignment {
		let tablebase_sha256 = tablebase
			.filter(|_| self.tablebase_use.in_self_play())
			.map(str::to_string);
		let adjudicate =
			tablebase_sha256.is_some() && self.tablebase_use == TablebaseUse::Adjudicate;
		Assignment {
			generation,
			sha256,
			depth,
			selfplay: self.selfplay,
			games_per_batch: self.games_per_batch,
			adjudicate,
			play_out_share: if adjudicate { self.play_out_share } else { 0.0 },
			tablebase_sha256,
		}
	}
}

impl Default for RunSettings {
	/// Settings that learn visibly within minutes on two cores (docs/training.md).
	fn default() -> RunSettings {
		RunSettings {
			shape: None,
			encoding: None,
			seed: 1,
			depth: 3,
			adapt: DepthAdaptation::default(),
			selfplay: SelfPlaySettings::default(),
			games_per_batch: 16,
			training: TrainingSettings::default(),
			steps_per_candidate: 500,
			steps_per_checkpoint: 500,
			checkpoint_every: DEFAULT_CHECKPOINT_EVERY,
			// The gate's own defaults (an SPRT of 0 against 50 Elo at 5% errors, 20 to 100
			// pairs), at the self-play depth.
			gate: GateSettings {
				search: SearchSettings::fixed_depth(3),
				..GateSettings::default()
			},
			promotion: PromotionRule::default(),
			max_staleness: 5,
			research_fraction: 0.01,
			tablebase_use: TablebaseUse::DEFAULT,
			// A quarter of the games played out: the run that did so graded best of three on
			// both phases at equal worker time (docs/training.md, "A share of the games played
			// out").
			play_out_share: 0.25,
			timed: TimedSettings::default(),
			grade: true,
			// Every game: a game took 107 bytes compressed in a first run, so a day of two
			// cores' self-play is some tens of megabytes (docs/training.md, "Every game kept").
			keep_game_generations: 0,
			gate_mode: GateMode::DEFAULT,
			// Half an hour: the 60-minute run of docs/training.md promoted its last net at 19
			// minutes and gated for 41 more without another, while before that promotions
			// came minutes apart: half an hour without one says the run has stalled.
			stall_alarm: Duration::from_secs(30 * 60),
		}
	}
}

/// How often training is checkpointed at the least, by default. A checkpoint of the default
/// window (200,000 samples, about 7 MB) takes well under a second to write and sync, so every
/// 30 s costs little; a coordinator killed more often than this still keeps its training.
pub(crate) const DEFAULT_CHECKPOINT_EVERY: Duration = Duration::from_secs(30);

/// How the server watches its connections and sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceLimits {
	/// How often the server pings an HTTP/2 connection.
	pub keepalive_interval: Duration,
	/// How long a ping may go unanswered before the connection is closed, ending its calls.
	pub keepalive_timeout: Duration,
	/// How long a session may go without a message from its worker (which sends a heartbeat
	/// every few seconds) before it is ended.
	pub session_idle_timeout: Duration,
	/// Workers without a session and not heard from for this long are forgotten: no longer
	/// counted among the workers known, nor loaded again at a restart (the ledger keeps them,
	/// and a worker that joins again is known again). The snapshots list a worker without a
	/// session only for an hour after it was last heard (`LISTED_RECENTLY`), whatever this is.
	pub forget_workers_after: Duration,
	/// Whether `worker loadtest`'s simulated workers may join. Their batches are copies of one
	/// batch, which the run stores, trains on and archives like any other: only a run made
	/// for measuring should take them.
	pub accept_loadtest: bool,
	/// Joins under identities the ledger does not know, a minute at most (as a bucket that
	/// holds a minute's worth); 0 for no limit.
	pub new_workers_per_minute: u32,
	/// `WatchProgress` streams open at once, in all.
	pub max_watchers: usize,
	/// `WatchProgress` streams open at once on one connection.
	pub max_watchers_per_connection: usize,
}

impl Default for ServiceLimits {
	/// A host that vanishes is found by the keepalive within 35 s (a ping every 15 s, 20 s to
	/// answer) and a silent session ends after 45 s, both under a minute; workers heartbeat
	/// every 5 s by default. Workers are forgotten after a week. 600 new identities a minute
	/// lets a fleet of thousands start within minutes (a refused worker retries) while a flood
	/// of joins adds at most about 0.5 MB of ledger a minute; 1,000 progress streams (about
	/// 50 kB each) and 16 on a connection are far more than dashboards need.
	fn default() -> ServiceLimits {
		ServiceLimits {
			keepalive_interval: Duration::from_secs(15),
			keepalive_timeout: Duration::from_secs(20),
			session_idle_timeout: Duration::from_secs(45),
			forget_workers_after: Duration::from_secs(7 * 24 * 3600),
			accept_loadtest: false,
			new_workers_per_minute: 600,
			max_watchers: 1000,
			max_watchers_per_connection: 16,
		}
	}
}

/// The free space kept on the run directory's disk by default, in MiB: a gigabyte, room for
/// hours of a fleet's batches and a few checkpoints.
pub const DEFAULT_MIN_FREE_MB: u64 = 1024;

/// A coordinator's configuration.
#[derive(Clone, Debug)]
pub struct CoordinatorConfig {
	/// Where to listen for gRPC.
	pub listen: SocketAddr,
	/// The run directory.
	pub run_dir: PathBuf,
	/// The token every client must present, if any.
	pub token: Option<String>,
	/// Allow a non-loopback address without a token.
	pub insecure: bool,
	/// TLS certificate and key files (PEM), if serving TLS.
	pub tls: Option<(PathBuf, PathBuf)>,
	/// Workers to run inside this process.
	pub local_workers: u32,
	/// Self-play threads of each local worker.
	pub local_worker_threads: usize,
	/// Where to serve Prometheus metrics, if anywhere.
	pub metrics_listen: Option<SocketAddr>,
	/// Where to serve the run's web pages (`web`), if anywhere.
	pub http_listen: Option<SocketAddr>,
	/// How long a login to the web pages lasts.
	pub web_session: Duration,
	/// The free space kept on the run directory's disk: below it, the run waits for space
	/// (docs/deploy.md, "A full disk").
	pub min_free_bytes: u64,
	/// The bounds on what visitors of the play and analysis pages may make the coordinator
	/// compute beside the run: searches at once (the cores they may take), time a move, each
	/// client's share.
	pub play: tigers_play::limits::Limits,
	/// Keepalive, session and worker-list limits.
	pub limits: ServiceLimits,
	/// Training, self-play and gating settings.
	pub run: RunSettings,
	/// The tablebase file [default: the platform's cache directory], or `None` for that.
	pub tablebase: Option<PathBuf>,
	/// Run without a tablebase: none is loaded, solved or handed to workers.
	pub no_tablebase: bool,
	/// The solved placement layers that judge placement-phase moves [default: `placement-f1-r1`
	/// beside the tablebase file], or `None` for that.
	pub placement: Option<PathBuf>,
	/// Threads that play gate matches: the share of the machine gating may take. `None`, the
	/// default, is one per core.
	pub gate_threads: Option<usize>,
}

impl CoordinatorConfig {
	/// A configuration with defaults, listening on `listen` with the run in `run_dir`.
	pub fn new(listen: SocketAddr, run_dir: PathBuf) -> CoordinatorConfig {
		CoordinatorConfig {
			listen,
			run_dir,
			token: None,
			insecure: false,
			tls: None,
			local_workers: 0,
			local_worker_threads: 1,
			metrics_listen: None,
			http_listen: None,
			web_session: tigers_play::access::DEFAULT_SESSION,
			min_free_bytes: DEFAULT_MIN_FREE_MB << 20,
			play: tigers_play::limits::Limits::default(),
			limits: ServiceLimits::default(),
			run: RunSettings::default(),
			tablebase: None,
			no_tablebase: false,
			placement: None,
			gate_threads: None,
		}
	}

	/// The threads gate matches are played on: `gate_threads`, or one per core.
	pub fn gate_threads(&self) -> usize {
		self.gate_threads.unwrap_or_else(|| {
			std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
		})
	}

	/// The URL by which processes on this machine (local workers, the coordinator's own
	/// dashboard) reach the server once bound to `bound`: the address itself, or loopback when
	/// listening on all addresses. With TLS, the certificate must name that host.
	pub(crate) fn local_url(&self, bound: SocketAddr) -> String {
		let host = match bound.ip() {
			IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
			IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
			ip => ip,
		};
		let scheme = if self.tls.is_some() { "https" } else { "http" };
		format!("{scheme}://{}", SocketAddr::new(host, bound.port()))
	}

	/// Refuses to expose an unauthenticated run beyond this machine, unless told `--insecure`:
	/// the gRPC address, and the metrics and web addresses by the same rule (the metrics
	/// endpoint itself takes no token; it serves only counts and rates, read-only; the web pages
	/// take the run's token when it has one).
	pub fn check_exposure(&self) -> Result<(), String> {
		if self.token.is_some() || self.insecure {
			return Ok(());
		}
		if !self.listen.ip().is_loopback() {
			return Err(format!(
				"refusing to listen on {} without a token: anyone who can reach it could feed the \
				 run samples. Pass --token (or set {TOKEN_ENV}), listen on 127.0.0.1, or pass \
				 --insecure",
				self.listen
			));
		}
		if let Some(metrics) = self.metrics_listen.filter(|a| !a.ip().is_loopback()) {
			return Err(format!(
				"refusing to serve metrics on {metrics} for a run without a token: a run shown \
				 beyond this machine must have one. Pass --token (or set {TOKEN_ENV}), serve \
				 metrics on 127.0.0.1, or pass --insecure"
			));
		}
		match self.http_listen {
			Some(web) if !web.ip().is_loopback() => Err(format!(
				"refusing to serve web pages on {web} for a run without a token: anyone who can \
				 reach it could read the run and download its nets and games. Pass --token (or \
				 set {TOKEN_ENV}), serve the pages on 127.0.0.1, or pass --insecure"
			)),
			_ => Ok(()),
		}
	}
}

#[cfg(test)]
mod tests;
