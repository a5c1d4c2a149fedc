//! The run in a browser: read-only pages the coordinator serves on `--http-listen`
//! (docs/web.md), a listener of its own apart from gRPC and metrics, over TLS when the run
//! serves gRPC over TLS (the same certificate). The token, the login and its session cookie
//! are the play crate's `access`.
//!
//! - `html` and `query`: escaping, the layout, pagination, form and query fields;
//! - `run_page` (with `/api/status`), `nets`, `strength`, `games` and `workers`: the pages;
//! - `assets/`: the style sheet and scripts, compiled into the binary.
//!
//! Every page reads either the live snapshot (at most one built a second for all browsers) or
//! the ledger through a connection of its own, on tokio's blocking threads: SQLite reads,
//! files and gzip never run on the async threads, and never take the ledger lock ingest
//! writes under. Every list is paginated ([`query::PER_PAGE`] rows a page), and downloads are
//! looked up by generation in the ledger's listing, never by a path from the request.

mod games;
mod html;
mod nets;
mod query;
mod run_page;
mod strength;
mod workers;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tigers_play::access::{Access, AccessSettings, LOGIN_BYTES};
use tigers_play::listen::Listening;
use tigers_proto::v1;
use tokio::net::TcpListener;

use crate::error::CoordinatorError;
use crate::live::Shared;
use crate::store::ledger::Ledger;

/// How old the snapshot behind a page may be: pages poll once a second, so one snapshot a
/// second serves every browser, and ingest pays for one whatever their number.
const SNAPSHOT_AGE: Duration = Duration::from_secs(1);

/// What every handler reads.
pub(crate) struct Web {
	/// The run.
	shared: Arc<Shared>,
	/// Whether the run has a token (the Run page then offers a log-out).
	token_required: bool,
	/// A read connection of the pages' own to the ledger (WAL: it never blocks the writer).
	reader: Mutex<Ledger>,
	/// The last snapshot taken for the pages, and when.
	snapshot: Mutex<Option<(Instant, Arc<v1::Progress>)>>,
	/// The last game file read for the viewer: generation, length, records.
	games: games::GameCache,
}

impl Web {
	/// The ledger connection, for blocking threads only.
	fn reader(&self) -> MutexGuard<'_, Ledger> {
		self.reader
			.lock()
			.unwrap_or_else(|poisoned| poisoned.into_inner())
	}

	/// The run's snapshot, at most [`SNAPSHOT_AGE`] old; for blocking threads only.
	fn snapshot(&self) -> Arc<v1::Progress> {
		let mut cached = self
			.snapshot
			.lock()
			.unwrap_or_else(|poisoned| poisoned.into_inner());
		match &*cached {
			Some((taken, progress)) if taken.elapsed() < SNAPSHOT_AGE => progress.clone(),
			_ => {
				let progress = Arc::new(self.shared.snapshot());
				*cached = Some((Instant::now(), progress.clone()));
				progress
			}
		}
	}
}

/// Binds the web pages' address: before the run opens, so a busy one fails fast.
pub(crate) async fn bind(address: SocketAddr) -> Result<TcpListener, CoordinatorError> {
	TcpListener::bind(address)
		.await
		.map_err(|source| CoordinatorError::Io {
			path: format!("the web address {address}"),
			source,
		})
}

/// How the pages are served: the token and the login's settings, TLS, and the bounds on the
/// play pages' visitors.
pub(crate) struct WebSettings {
	/// The run's token, if any.
	pub(crate) token: Option<String>,
	/// How long a login lasts.
	pub(crate) session: Duration,
	/// TLS, with the run's certificate, if the run serves TLS.
	pub(crate) tls: Option<Arc<tigers_play::listen::ServerConfig>>,
	/// The play pages' bounds.
	pub(crate) play: tigers_play::limits::Limits,
}

/// Serves the pages of `shared` on `listener` until the run closes its streams (at shutdown).
pub(crate) async fn serve(
	listener: TcpListener,
	shared: Arc<Shared>,
	settings: WebSettings,
) -> Result<(), CoordinatorError> {
	let path = shared.run_dir.ledger_path();
	let reader = tokio::task::spawn_blocking(move || Ledger::open(&path))
		.await
		.map_err(|e| {
			CoordinatorError::Config(format!("opening the ledger for the web pages failed: {e}"))
		})??;
	let web = Arc::new(Web {
		shared,
		token_required: settings.token.is_some(),
		reader: Mutex::new(reader),
		snapshot: Mutex::new(None),
		games: games::GameCache::default(),
	});
	let mut closing = web.shared.closing();
	let play = tigers_play::Server::new(RunSource(web.shared.clone()), settings.play);
	let listening = match settings.tls {
		Some(tls) => Listening::tls(listener, tls),
		None => Ok(Listening::Plain(listener)),
	}
	.map_err(|source| CoordinatorError::Io {
		path: "the web listener".into(),
		source,
	})?;
	let access = Access::new(AccessSettings {
		token: settings.token,
		session: settings.session,
		secure: listening.is_tls(),
		home: "/",
		what: "This run's pages",
		style: include_str!("web/assets/style.css"),
		..AccessSettings::default()
	});
	tigers_play::listen::serve_router(listening, router(web, play, access), async move {
		let _ = closing.wait_for(|closed| *closed).await;
	})
	.await
	.map_err(|source| CoordinatorError::Io {
		path: "the web listener".into(),
		source,
	})
}

/// The run's net and tables, for the play and analysis pages: the latest promoted net, and
/// the tables as soon as they are there.
struct RunSource(Arc<Shared>);

impl tigers_play::Source for RunSource {
	fn tables(&self) -> tigers_core::analysis::Tables {
		tigers_core::analysis::Tables {
			movement: self.0.tablebase.table(),
			placement: self.0.placement.table().cloned(),
		}
	}

	fn net(&self) -> Option<tigers_play::players::ServedNet> {
		let current = self.0.current();
		Some(tigers_play::players::ServedNet {
			generation: current.assignment.generation,
			net: current.net.clone(),
		})
	}
}

/// Every page and endpoint, the play pages and their API among them, behind the token check
/// (but the login form's post).
fn router(web: Arc<Web>, play: Arc<tigers_play::Server>, access: Arc<Access>) -> Router {
	let pages = Router::new()
		.route("/", get(run_page::page))
		.route("/api/status", get(run_page::status))
		.route("/nets", get(nets::page))
		.route("/download/nets/{name}", get(nets::download))
		.route("/strength", get(strength::page))
		.route("/games", get(games::archive_page))
		.route("/games/{generation}", get(games::list_page))
		.route("/games/{generation}/{index}", get(games::viewer_page))
		.route("/download/games/{name}", get(games::download))
		.route("/workers", get(workers::page))
		.merge(tigers_play::router(play))
		.fallback(not_found)
		.route_layer(axum::middleware::from_fn_with_state(
			access.clone(),
			tigers_play::access::require,
		));
	Router::new()
		.merge(tigers_play::access::routes(access))
		.layer(DefaultBodyLimit::max(LOGIN_BYTES))
		.merge(pages)
		.layer(axum::middleware::map_response(guard_headers))
		.with_state(web)
}

/// Headers every answer carries: the browser takes each file as the type it is said to be,
/// no other site may frame a page (the login form among them), and no address of the run's
/// pages leaves in a `Referer`.
async fn guard_headers(mut response: Response) -> Response {
	let headers = response.headers_mut();
	headers.insert(
		header::X_CONTENT_TYPE_OPTIONS,
		HeaderValue::from_static("nosniff"),
	);
	headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
	headers.insert(
		header::REFERRER_POLICY,
		HeaderValue::from_static("no-referrer"),
	);
	response
}

/// Any other path.
async fn not_found() -> Response {
	html::error_page(StatusCode::NOT_FOUND, "There is no such page.")
}

/// A request the pages cannot answer: its status, and a sentence saying why.
#[derive(Debug)]
pub(crate) struct Refusal {
	status: StatusCode,
	message: String,
}

impl Refusal {
	/// A refusal with `status`, saying `message`.
	pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
		Refusal {
			status,
			message: message.into(),
		}
	}
}

impl IntoResponse for Refusal {
	fn into_response(self) -> Response {
		html::error_page(self.status, &self.message)
	}
}

/// Runs `read` on a blocking thread with the pages' state; a failure is a 500 page saying
/// what could not be read.
async fn blocking<T: Send + 'static>(
	web: &Arc<Web>,
	read: impl FnOnce(&Web) -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
	let web = web.clone();
	tokio::task::spawn_blocking(move || read(&web))
		.await
		.unwrap_or_else(|e| {
			Err(Refusal::new(
				StatusCode::INTERNAL_SERVER_ERROR,
				format!("reading the run failed: {e}"),
			))
		})
}

/// A ledger read that failed, as a 500 page.
fn storage_failure(error: &crate::store::storage_error::StorageError) -> Refusal {
	Refusal::new(
		StatusCode::INTERNAL_SERVER_ERROR,
		format!("the run's ledger could not be read: {error}"),
	)
}
