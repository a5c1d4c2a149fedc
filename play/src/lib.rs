//! Tigers and Sheep in a browser: the play and analysis pages and the JSON API behind them,
//! one axum router that the coordinator serves beside its run pages and `tui serve` serves
//! alone (docs/web.md).
//!
//! - `access`: the token, as a bearer header or a login's session cookie, and logout;
//! - `throttle`: how fast wrong tokens are taken, per address and in all;
//! - `listen`: the listener, plain or TLS, and the client's address;
//! - `limits`: the bounds on searches, at once and per visitor, and on look-ups;
//! - `players`: the net, the perfect player and `ClaudePlayer`, asked for a move at a time;
//! - `query`: query strings and form bodies;
//! - `api`: the JSON API, described by `openapi.json`;
//! - `pages`: the play and analysis pages and their scripts (`assets/`), with a
//!   Content-Security-Policy that allows no inline script.
//!
//! Searches and reads of the placement layers (from disk) run on tokio's blocking threads,
//! never on the async ones; a search holds one of the server's search slots
//! (`limits::Limits::searches`) while it runs. A movement-phase position's look-ups, at most 49
//! reads of the movement table in memory (microseconds in all), are answered on the async
//! thread.

pub mod access;
mod api;
pub mod limits;
pub mod listen;
pub mod pages;
pub mod players;
pub mod query;
pub mod throttle;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::response::Redirect;
use axum::routing::{get, post};
use tigers_core::analysis::Tables;

use crate::access::Access;
use crate::limits::{Gate, Limits};
use crate::listen::Listening;
use crate::players::ServedNet;

/// The OpenAPI 3 description of the API, as served at `/api/v1/openapi.json`.
pub const OPENAPI: &str = include_str!("../openapi.json");

/// Where a server finds its tables and its net: asked at every request, so a coordinator's
/// newly promoted net and newly loaded tables are in play at once.
pub trait Source: Send + Sync + 'static {
	/// The tables loaded now.
	fn tables(&self) -> Tables;
	/// The net to play now, if any.
	fn net(&self) -> Option<ServedNet>;
}

/// A fixed net and tables, for a server without a run (`tui serve` with a net file).
pub struct Fixed {
	/// The tables.
	pub tables: Tables,
	/// The net.
	pub net: Option<ServedNet>,
}

impl Source for Fixed {
	fn tables(&self) -> Tables {
		self.tables.clone()
	}

	fn net(&self) -> Option<ServedNet> {
		self.net.clone()
	}
}

/// What every request reads: the source of tables and net, and the bounds.
pub struct Server {
	source: Box<dyn Source>,
	gate: Gate,
}

impl Server {
	/// A server of `source`'s tables and net within `limits`.
	pub fn new(source: impl Source, limits: Limits) -> Arc<Server> {
		Arc::new(Server {
			source: Box::new(source),
			gate: Gate::new(limits),
		})
	}
}

/// The pages and the API of `server` on their own (as `tui serve` serves them), `/` leading to
/// the play page, all behind `access`'s token when it has one.
pub fn app(server: Arc<Server>, access: Arc<Access>) -> Router {
	let pages = router::<()>(server)
		.route("/", get(|| async { Redirect::to("/play") }))
		.route_layer(axum::middleware::from_fn_with_state(
			access.clone(),
			access::require,
		));
	Router::new().merge(access::routes(access)).merge(pages)
}

/// Serves [`app`] on `listening` (with each connection's address, which the per-client
/// bounds and the login throttle key on) until `shutdown` completes.
///
/// # Errors
///
/// If serving fails.
pub async fn serve(
	listening: Listening,
	server: Arc<Server>,
	access: Arc<Access>,
	shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
	listen::serve_router(listening, app(server, access), shutdown).await
}

/// The pages' and the API's routes, to be served with connection information
/// ([`listen::serve_router`]) so that each visitor has bounds of its own. Its state is the caller's choice, so that it merges into a router of any state.
pub fn router<S: Clone + Send + Sync + 'static>(server: Arc<Server>) -> Router<S> {
	Router::new()
		.route("/play", get(pages::play))
		.route("/analysis", get(pages::analysis))
		.route("/play/assets/{name}", get(pages::asset))
		.route("/api/v1/position", get(api::position))
		.route("/api/v1/move", post(api::choose_move))
		.route("/api/v1/evaluation", get(api::evaluation))
		.route("/api/v1/game", post(api::game))
		.route("/api/v1/server", get(api::about))
		.route("/api/v1/openapi.json", get(api::openapi))
		.layer(DefaultBodyLimit::max(api::MAX_BODY_BYTES))
		.with_state(server)
}
