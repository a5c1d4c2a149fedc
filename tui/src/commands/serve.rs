//! `tui serve`: the play and analysis pages and their JSON API (the `tigers-play` crate) on
//! their own, without a training run, for a club or a website: a net from a file, a run
//! directory or a coordinator (looked for again every minute by default, so a newly promoted
//! net is served without a restart), and the tables from the usual places.

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use anyhow::Context;
use tigers_core::Tablebase;
use tigers_core::analysis::Tables;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_play::access::{Access, AccessSettings};
use tigers_play::limits::Limits;
use tigers_play::listen::Listening;
use tigers_play::players::ServedNet;
use tigers_play::{Server, Source};
use tigers_process::console;

use std::path::PathBuf;

use tigers_proto::client::ClientSettings;

use crate::net_source::{self, DEFAULT_COORDINATOR, LoadedNet, NetSource};

/// What `tui serve` is asked to serve.
pub struct ServeConfig {
	/// Where to listen.
	pub listen: SocketAddr,
	/// Whether a non-loopback address may be served without a token: the pages face the
	/// public, with the per-client bounds.
	pub public: bool,
	/// The token every visitor must show (a login, or a bearer header), if any.
	pub token: Option<String>,
	/// How long a login lasts.
	pub session: Duration,
	/// The TLS certificate and key (PEM), if serving HTTPS.
	pub tls: Option<(PathBuf, PathBuf)>,
	/// The net, if one was found.
	pub net: Option<LoadedNet>,
	/// The movement table, if any.
	pub tablebase: Option<Arc<Tablebase>>,
	/// The placement layers, if any.
	pub placement: Option<Arc<PlacementTable>>,
	/// The bounds on visitors.
	pub limits: Limits,
	/// How the net is looked for again while serving, if it is.
	pub follow: Option<Follow>,
}

/// How `tui serve` keeps its net up to date: every so often it looks for the net again the
/// way it first found it (the coordinator's best or latest, the run directory's best, the
/// file), and serves a net of another generation from the next request on.
pub struct Follow {
	/// How long between looks.
	pub every: Duration,
	/// One look: the net found, or why none was.
	pub reload: Reload,
}

/// One look for the net.
pub type Reload = Box<dyn FnMut() -> Result<LoadedNet, String> + Send>;

/// How `tui serve` finds its net, now and at every later look: `source` if given, else the
/// best in `run_dir`, else the local coordinator's best.
pub fn net_finder(source: Option<NetSource>, run_dir: PathBuf, client: ClientSettings) -> Reload {
	Box::new(move || match &source {
		Some(source) => net_source::load(source, &client).map_err(|e| e.to_string()),
		None => {
			net_source::find_best(&run_dir, DEFAULT_COORDINATOR, &client).map_err(|e| e.to_string())
		}
	})
}

/// The net to start with: the first look's, said on stderr. A net asked for by name that is
/// not found is an error; without one, the pages offer the other players.
pub fn first_net(reload: &mut Reload, explicit: bool) -> anyhow::Result<Option<LoadedNet>> {
	match reload() {
		Ok(net) => {
			console::err(format_args!("tui serve: the net is {}", net.origin));
			Ok(Some(net))
		}
		Err(error) if explicit => anyhow::bail!(error),
		Err(error) => {
			console::err(format_args!(
				"tui serve: no net ({error}); the pages offer the other players"
			));
			Ok(None)
		}
	}
}

/// The tables, and a net that [`Follow`] may replace.
struct Following {
	tables: Tables,
	net: Arc<RwLock<Option<ServedNet>>>,
}

impl Source for Following {
	fn tables(&self) -> Tables {
		self.tables.clone()
	}

	fn net(&self) -> Option<ServedNet> {
		self.net
			.read()
			.unwrap_or_else(|poisoned| poisoned.into_inner())
			.clone()
	}
}

/// The net as served.
fn served(loaded: LoadedNet) -> ServedNet {
	ServedNet {
		generation: loaded.net.generation,
		net: loaded.net,
	}
}

/// Looks for the net by `follow` until the process ends, replacing `net` when a net of another
/// generation is found; a failed look keeps the net served and is said once until one works.
fn follow_net(mut follow: Follow, net: Arc<RwLock<Option<ServedNet>>>) -> std::io::Result<()> {
	let looking = move || {
		let mut failing = false;
		loop {
			std::thread::sleep(follow.every);
			match (follow.reload)() {
				Ok(loaded) => {
					failing = false;
					let mut current = net.write().unwrap_or_else(|poisoned| poisoned.into_inner());
					let generation = loaded.net.generation;
					if current.as_ref().map(|served| served.generation) != Some(generation) {
						console::err(format_args!("tui serve: the net is now {}", loaded.origin));
						*current = Some(served(loaded));
					}
				}
				Err(error) if !failing => {
					failing = true;
					console::err(format_args!(
						"tui serve: looking for a newer net failed ({error}); the net served \
						 stays as it is, and the next look is in {} s",
						follow.every.as_secs()
					));
				}
				Err(_) => {}
			}
		}
	};
	std::thread::Builder::new()
		.name("net-follow".into())
		.spawn(looking)
		.map(drop)
}

/// Why `tui serve` will not serve `listen` as asked: a non-loopback address needs a token or
/// `--public`, and a token with `--public` says two things at once.
pub fn check_address(listen: SocketAddr, public: bool, token: bool) -> anyhow::Result<()> {
	if public && token {
		anyhow::bail!(
			"--public serves the pages to anyone, and --pages-token asks every visitor for a \
			 token: pass one or the other"
		);
	}
	if !listen.ip().is_loopback() && !public && !token {
		anyhow::bail!(
			"{listen} is not a loopback address, so anyone who reaches it can play and make this \
			 machine search: pass --pages-token (or set {PAGES_TOKEN_ENV}) to ask visitors for a \
			 token, --public to serve the pages to the public (each client within the bounds of \
			 --searches, --max-ms and --client-ms), or listen on 127.0.0.1"
		);
	}
	Ok(())
}

/// The environment variable `tui serve` reads its pages' token from when `--pages-token` is
/// not given (apart from `TIGERS_TOKEN`, which is the coordinator's).
pub const PAGES_TOKEN_ENV: &str = "TIGERS_PAGES_TOKEN";

/// Serves the pages until Ctrl-C or SIGTERM; `ready` hears the bound address.
pub fn run(config: ServeConfig, ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
	check_address(config.listen, config.public, config.token.is_some())?;
	let tls = match &config.tls {
		Some((cert, key)) => {
			Some(tigers_play::listen::tls_config(cert, key).map_err(anyhow::Error::msg)?)
		}
		None => None,
	};
	let runtime = tokio::runtime::Builder::new_multi_thread()
		.worker_threads(2)
		.enable_all()
		.build()
		.context("the async runtime did not start")?;
	let net = Arc::new(RwLock::new(config.net.map(served)));
	if let Some(follow) = config.follow {
		follow_net(follow, net.clone()).context("the thread that follows the net")?;
	}
	let server = Server::new(
		Following {
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
		let listening = match tls {
			Some(tls) => Listening::tls(listener, tls).context("the TLS listener")?,
			None => Listening::Plain(listener),
		};
		let access = Access::new(AccessSettings {
			token: config.token,
			session: config.session,
			secure: listening.is_tls(),
			home: "/play",
			what: "This server's pages",
			style: tigers_play::pages::STYLE,
			..AccessSettings::default()
		});
		tigers_play::serve(
			listening,
			server,
			access,
			tigers_process::signal::shutdown_signal(),
		)
		.await
		.context("the web server failed")
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn only_loopback_is_served_without_a_token_or_public() {
		let loopback = "127.0.0.1:8080".parse().unwrap();
		let everywhere = "0.0.0.0:8080".parse().unwrap();
		assert!(check_address(loopback, false, false).is_ok());
		assert!(check_address("[::1]:8080".parse().unwrap(), false, false).is_ok());
		let refused = check_address(everywhere, false, false).unwrap_err();
		assert!(refused.to_string().contains("--public"), "{refused}");
		assert!(refused.to_string().contains("--pages-token"), "{refused}");
		assert!(check_address(everywhere, true, false).is_ok());
		assert!(check_address(everywhere, false, true).is_ok());
		let both = check_address(everywhere, true, true).unwrap_err();
		assert!(both.to_string().contains("one or the other"), "{both}");
	}
}
