//! The Nets page: every promoted net, newest first, with its promotion, the gate result that
//! promoted it by side, its measurements at fixed depth and at equal time with their
//! intervals and exact accuracy, its sha256, and its file to download.

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::html::{self, accuracy, escape, pager, score, utc};
use super::query::{self, PER_PAGE, clamp_page};
use super::{Refusal, Web, blocking, storage_failure};
use crate::store::ledger::{GateRow, NetListing, TimedRow};
use crate::store::rundir::{net_file_name, parse_net_file_name};

/// `GET /nets?page=N`.
pub(crate) async fn page(State(web): State<Arc<Web>>, RawQuery(query): RawQuery) -> Response {
	let asked = query::page(query.as_deref());
	let read = blocking(&web, move |web| {
		let ledger = web.reader();
		let total = ledger.generation_count().map_err(|e| storage_failure(&e))?;
		let number = clamp_page(asked, total);
		let nets = ledger
			.nets_page(number * PER_PAGE, PER_PAGE)
			.map_err(|e| storage_failure(&e))?;
		Ok((total, number, nets))
	})
	.await;
	match read {
		Ok((total, number, nets)) => {
			let mut body = format!(
				"<p>{total} promoted nets, newest first. Scores are against ClaudePlayer, with \
				 95% intervals; exact accuracy is the share of the net's moves that kept the \
				 position's exact value, where the tablebase knows it.</p>"
			);
			body.push_str(&table(&nets));
			body.push_str(&pager("/nets", number, PER_PAGE, total));
			html::page("Nets", &body, None)
		}
		Err(failure) => failure.into_response(),
	}
}

/// The nets' rows.
fn table(nets: &[NetListing]) -> String {
	let mut html = String::from(
		"<table class=\"list\"><tr><th>gen</th><th>promoted</th><th>CPU-hours</th>\
		 <th>gate as tigers</th><th>gate as sheep</th><th>fixed depth</th>\
		 <th>equal time</th><th>exact accuracy</th><th>sha256</th><th>file</th></tr>",
	);
	for net in nets {
		let row = &net.generation;
		let name = net_file_name(row.generation);
		// When its gate finished; a net promoted without one, when it was first measured.
		let cpu_hours = net
			.gate
			.as_ref()
			.or(net.measured.as_ref())
			.map_or("-".into(), |g| format!("{:.2}", g.cpu_seconds / 3600.0));
		let _ = write!(
			html,
			"<tr><td>{}</td><td>{}</td><td>{cpu_hours}</td>{}<td>{}</td><td>{}</td><td>{}</td>\
			 <td class=\"hash\"><code>{}</code></td><td><a href=\"/download/nets/{name}\" \
			 download>{name}</a></td></tr>",
			row.generation,
			utc(row.promoted_at),
			sides(net.gate.as_ref()),
			fixed_depth(net),
			equal_time(net.timed.as_ref()),
			exact(net),
			escape(&row.sha256),
		);
	}
	html.push_str("</table>");
	html
}

/// The promoting gate's games by side, as wins-draws-losses.
fn sides(gate: Option<&GateRow>) -> String {
	match gate {
		Some(g) => format!(
			"<td>{}-{}-{}</td><td>{}-{}-{}</td>",
			g.tigers_wins,
			g.tigers_draws,
			g.tigers_losses,
			g.sheep_wins,
			g.sheep_draws,
			g.sheep_losses
		),
		None => "<td>-</td><td>-</td>".into(),
	}
}

/// The score at fixed depth: the measurement on fresh openings, or else the promoting gate's.
fn fixed_depth(net: &NetListing) -> String {
	net.measured
		.as_ref()
		.or(net.gate.as_ref())
		.map_or("-".into(), |g| score(g.score, g.score_low, g.score_high))
}

/// The score at equal time per move, with the time.
fn equal_time(timed: Option<&TimedRow>) -> String {
	timed.map_or("-".into(), |t| {
		format!(
			"{} at {} ms",
			score(t.score, t.score_low, t.score_high),
			t.move_ms
		)
	})
}

/// The net's exact accuracy in its latest games judged: at equal time, else at fixed depth.
fn exact(net: &NetListing) -> String {
	if let Some(t) = net.timed.as_ref().filter(|t| t.candidate_exact.moves > 0) {
		return accuracy(t.candidate_exact.kept, t.candidate_exact.moves);
	}
	net.measured
		.as_ref()
		.or(net.gate.as_ref())
		.map_or("-".into(), |g| {
			accuracy(g.candidate_exact.kept, g.candidate_exact.moves)
		})
}

/// `GET /download/nets/gen-NNNNNN.safetensors`: a promoted net's file. The name must be the
/// one the listing gives a promoted generation; the file read is the run's own for that
/// generation, never a path taken from the request.
pub(crate) async fn download(State(web): State<Arc<Web>>, Path(name): Path<String>) -> Response {
	let Some(generation) = parse_net_file_name(&name).filter(|&g| net_file_name(g) == name) else {
		return html::error_page(StatusCode::NOT_FOUND, "There is no net of that name.");
	};
	let read = blocking(&web, move |web| {
		let promoted = web
			.reader()
			.generation(generation)
			.map_err(|e| storage_failure(&e))?;
		if promoted.is_none() {
			return Err(Refusal::new(
				StatusCode::NOT_FOUND,
				"No net of that generation was promoted.",
			));
		}
		web.shared
			.run_dir
			.net_bytes(generation)
			.map_err(|e| storage_failure(&e))
	})
	.await;
	match read {
		Ok(bytes) => attachment(bytes, &name, "application/octet-stream"),
		Err(failure) => failure.into_response(),
	}
}

/// `bytes` as a file to save as `name` (a name the coordinator made, never a request's).
pub(crate) fn attachment(bytes: Vec<u8>, name: &str, content_type: &'static str) -> Response {
	let mut response = bytes.into_response();
	let headers = response.headers_mut();
	headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
	if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
		headers.insert(header::CONTENT_DISPOSITION, value);
	}
	response
}
