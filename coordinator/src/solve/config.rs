//! `SolveConfig`: what `coordinator solve` is told.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// How long a worker has to return a slice by default: the largest slices take about a
/// minute of one core (the busiest layers' 2.5 billion entries in 135 slices, at the build's
/// measured pace), so ten minutes leaves room for a slow or loaded machine.
pub(crate) const DEFAULT_SLICE_TIMEOUT: Duration = Duration::from_secs(600);

/// What `coordinator solve` is told.
#[derive(Clone, Debug)]
pub struct SolveConfig {
	/// Where the layer files go (and where those already there are kept).
	pub dir: PathBuf,
	/// The movement table the layers are solved from.
	pub movement: PathBuf,
	/// The fewest sheep placed of the layers to solve (0 for the whole phase).
	pub from_placed: u32,
	/// The bearer token workers must present, if any.
	pub token: Option<String>,
	/// How long a slice may be out before it goes to another worker.
	pub slice_timeout: Duration,
	/// How long to go on answering once finished, so that workers hear it.
	pub linger: Duration,
	/// Serve Prometheus metrics here.
	pub metrics_listen: Option<SocketAddr>,
}

impl SolveConfig {
	/// The defaults for `dir` and `movement`: every layer, no token.
	pub fn new(dir: PathBuf, movement: PathBuf) -> SolveConfig {
		SolveConfig {
			dir,
			movement,
			from_placed: 0,
			token: None,
			slice_timeout: DEFAULT_SLICE_TIMEOUT,
			linger: Duration::from_secs(5),
			metrics_listen: None,
		}
	}
}
