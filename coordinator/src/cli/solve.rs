//! `coordinator solve`: the placement phase's layers solved over the workers that connect
//! (`worker solve`), into the same files as `tui tablebase build --placement`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use tigers_coordinator::solve::SolveConfig;
use tigers_process::locations;
use tigers_process::logging::init_logging;
use tigers_process::signal::shutdown_signal;
use tigers_process::token::TOKEN_ENV;

use crate::cli::common::Failure;

#[derive(Args)]
pub(crate) struct SolveArgs {
	/// Where workers connect.
	#[arg(long, default_value = "127.0.0.1:50051")]
	listen: SocketAddr,
	/// Where the layers go [default: placement-f1-r1/ beside the movement table in the
	/// platform's cache directory, as for `tui tablebase build --placement`].
	#[arg(long, value_name = "DIR")]
	dir: Option<PathBuf>,
	/// The movement table to solve from [default: the platform's cache directory].
	#[arg(long, value_name = "PATH")]
	movement: Option<PathBuf>,
	/// Solve only the layers with at least this many sheep placed, 0 to 19 (19: the last two
	/// layers, the sheep and the tigers to move with 19 placed), keeping any already solved.
	#[arg(long, value_name = "N", default_value_t = 0,
		value_parser = clap::value_parser!(u32).range(0..=19))]
	from_placed: u32,
	/// The token workers must present.
	#[arg(long, env = TOKEN_ENV, hide_env_values = true)]
	token: Option<String>,
	/// Listen beyond this machine without a token.
	#[arg(long)]
	insecure: bool,
	/// Seconds a worker has to return a slice before it goes to another.
	#[arg(long, value_name = "SECONDS", default_value_t = 600)]
	slice_timeout: u64,
	/// Serve Prometheus metrics over plain HTTP at this address (path /metrics); no token.
	#[arg(long, value_name = "ADDR")]
	metrics_listen: Option<SocketAddr>,
	/// Log as JSON lines.
	#[arg(long)]
	log_json: bool,
}

/// Serves a placement solve until its layers are written.
pub(crate) async fn run(args: SolveArgs) -> Result<(), Failure> {
	const NAME: &str = "coordinator solve";
	init_logging(args.log_json);
	let token = args.token.filter(|t| !t.is_empty());
	let exposed = std::iter::once(args.listen)
		.chain(args.metrics_listen)
		.find(|address| !address.ip().is_loopback());
	if let (None, false, Some(address)) = (&token, args.insecure, exposed) {
		return Err(Failure::usage(
			NAME,
			format!(
				"refusing to serve on {address} without a token; pass --token (or set \
				 {TOKEN_ENV}), use 127.0.0.1, or pass --insecure"
			),
		));
	}
	let places = locations::tablebase_path(args.movement.as_deref()).and_then(|movement| {
		let dir = locations::placement_dir(args.dir.as_deref())?;
		Ok((movement, dir))
	});
	let (movement, dir) = places.map_err(|e| Failure::usage(NAME, e))?;
	let mut config = SolveConfig::new(dir, movement);
	config.from_placed = args.from_placed;
	config.token = token;
	config.slice_timeout = Duration::from_secs(args.slice_timeout.max(1));
	config.metrics_listen = args.metrics_listen;
	let listener = tokio::net::TcpListener::bind(args.listen)
		.await
		.map_err(|e| Failure::new(NAME, format!("cannot listen on {}: {e}", args.listen)))?;
	Ok(tigers_coordinator::solve::run(config, listener, shutdown_signal()).await?)
}
