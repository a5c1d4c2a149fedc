//! `tui serve`: the play and analysis pages and their JSON API (the `tigers-play` crate) on
//! their own, without a training run, for a club or a website: a net from a file, a run
//! directory or a coordinator, and the tables from the usual places.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use tigers_core::Tablebase;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_play::analysis::Tables;
use tigers_play::limits::Limits;
use tigers_play::players::ServedNet;
use tigers_play::{Fixed, Server};

use crate::net_source::LoadedNet;

/// What `tui serve` is asked to serve.
pub struct ServeConfig {
	/// Where to listen.
	pub listen: SocketAddr,
	/// Whether a non-loopback address may be served without a token: the pages face the
	/// public, with the per-client bounds.
	pub public: bool,
	/// The net, if one was found.
	pub net: Option<LoadedNet>,
	/// The movement table, if any.
	pub tablebase: Option<Arc<Tablebase>>,
	/// The placement layers, if any.
	pub placement: Option<Arc<PlacementTable>>,
	/// The bounds on visitors.
	pub limits: Limits,
}

/// Why `tui serve` will not serve `listen` as asked.
pub fn check_address(listen: SocketAddr, public: bool) -> anyhow::Result<()> {
	if !listen.ip().is_loopback() && !public {
		anyhow::bail!(
			"{listen} is not a loopback address, so anyone who reaches it can play and make this \
			 machine search: pass --public to serve the pages to the public (each client \
			 within the bounds of --searches, --max-ms and --client-ms), or listen on \
			 127.0.0.1 behind a proxy that asks for a password"
		);
	}
	Ok(())
}

/// Serves the pages until Ctrl-C or SIGTERM; `ready` hears the bound address.
pub fn run(config: ServeConfig, ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
	check_address(config.listen, config.public)?;
	let runtime = tokio::runtime::Builder::new_multi_thread()
		.worker_threads(2)
		.enable_all()
		.build()
		.context("the async runtime did not start")?;
	let net = config.net.map(|loaded| ServedNet {
		generation: loaded.net.generation,
		net: loaded.net,
	});
	let server = Server::new(
		Fixed {
			tables: Tables {
				movement: config.tablebase,
				placement: config.placement,
			},
			net,
		},
		config.limits,
	);
	runtime.block_on(async move {
		let listener = tokio::net::TcpListener::bind(config.listen)
			.await
			.with_context(|| format!("cannot listen on {}", config.listen))?;
		ready(listener.local_addr().context("the bound address")?);
		tigers_play::serve(listener, server, tigers_process::signal::shutdown_signal())
			.await
			.context("the web server failed")
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn only_loopback_is_served_without_public() {
		assert!(check_address("127.0.0.1:8080".parse().unwrap(), false).is_ok());
		assert!(check_address("[::1]:8080".parse().unwrap(), false).is_ok());
		let refused = check_address("0.0.0.0:8080".parse().unwrap(), false).unwrap_err();
		assert!(refused.to_string().contains("--public"), "{refused}");
		assert!(check_address("0.0.0.0:8080".parse().unwrap(), true).is_ok());
	}
}
