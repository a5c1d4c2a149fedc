//! The Run page: the figures `coordinator status` prints, kept live by a script that polls
//! `/api/status`, which answers exactly `coordinator status`'s JSON ([`progress_json`]).

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use tigers_proto::v1;

use super::html::{self, escape, score, utc};
use super::{Web, blocking};
use crate::observe::status::progress_json;

/// The script that refreshes the figures once a second.
const SCRIPT: &str = include_str!("assets/run.js");

/// `GET /api/status`: the run as `coordinator status --json` prints it.
pub(crate) async fn status(State(web): State<Arc<Web>>) -> Response {
	match blocking(&web, |web| Ok(progress_json(&web.snapshot()))).await {
		Ok(json) => {
			let mut response = json.to_string().into_response();
			let headers = response.headers_mut();
			headers.insert(
				header::CONTENT_TYPE,
				HeaderValue::from_static("application/json"),
			);
			headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
			response
		}
		Err(failure) => failure.into_response(),
	}
}

/// `GET /`: the Run page.
pub(crate) async fn page(State(web): State<Arc<Web>>) -> Response {
	match blocking(&web, |web| Ok(web.snapshot())).await {
		Ok(progress) => {
			let mut body = figures(&progress);
			if web.token_required {
				body.push_str(
					"<form method=\"post\" action=\"/logout\" class=\"logout\">\
					 <button type=\"submit\">Log out</button></form>",
				);
			}
			html::page(&format!("Run {}", progress.run_name), &body, Some(SCRIPT))
		}
		Err(failure) => failure.into_response(),
	}
}

/// The run directory's disk in words: its free space and margin, and whether the run waits
/// for space.
fn disk_text(disk: Option<&v1::DiskSpace>) -> String {
	let Some(disk) = disk else {
		return "-".into();
	};
	let free = disk
		.free_bytes
		.map_or("free space unknown".to_string(), |b| {
			format!("{} MiB free", b >> 20)
		});
	let state = if disk.low {
		"SHORT OF SPACE: batches wait unacknowledged and training pauses until space is freed"
	} else {
		"ok"
	};
	format!(
		"{state} ({free} in {}, {} MiB kept)",
		disk.dir,
		disk.margin_bytes >> 20
	)
}

/// The figures as a table; each value's cell has the id the script fills it by.
fn figures(p: &v1::Progress) -> String {
	let mut html = String::from("<table class=\"figures\">");
	for (id, label, value) in rows(p) {
		let _ = write!(
			html,
			"<tr><th>{label}</th><td id=\"{id}\">{}</td></tr>",
			escape(&value)
		);
	}
	html.push_str(
		"</table><p class=\"note\" id=\"updated\">Figures as of the page's loading; they \
		 update every second while the page is open.</p>",
	);
	html
}

/// The rows: id, label, value.
fn rows(p: &v1::Progress) -> Vec<(&'static str, &'static str, String)> {
	let window = format!("{} of {}", p.window_samples, p.window_capacity);
	let games = p.games.map_or(0, |g| g.kept);
	let depth = p.work.map_or("-".into(), |w| {
		format!(
			"{} ({:.0} samples/s arriving, {:.0} trainable)",
			w.depth, w.arriving_per_second, w.trainable_per_second
		)
	});
	let recent = p.recent_games.map_or("-".into(), |t| {
		format!(
			"tigers {}, sheep {}, draws {}",
			t.tiger_wins, t.sheep_wins, t.draws
		)
	});
	vec![
		(
			"generation",
			"Generation",
			format!("{} (promoted {})", p.generation, utc(p.generation_since)),
		),
		("samples", "Samples", p.samples_total.to_string()),
		("disk", "Disk", disk_text(p.disk.as_ref())),
		(
			"games",
			"Games",
			format!("{} ({games} kept)", p.games_total),
		),
		(
			"setup",
			"Setup",
			tigers_proto::convert::setup_summary(p.setup.as_ref()),
		),
		("steps", "Training steps", p.training_steps.to_string()),
		(
			"loss",
			"Loss",
			if p.loss.is_finite() {
				format!("{:.4}", p.loss)
			} else {
				"-".into()
			},
		),
		("window", "Replay window", window),
		(
			"workers",
			"Workers",
			format!("{} connected of {}", p.workers_connected, p.workers_known),
		),
		("cpu", "Worker CPU-hours", format!("{:.2}", p.cpu_hours)),
		("depth", "Self-play depth", depth),
		("recent", "Last games won by", recent),
		(
			"tablebase",
			"Tablebase",
			p.tablebase.as_ref().map_or("-".into(), |t| t.state.clone()),
		),
		("gate", "Last gate", p.gates.last().map_or("-".into(), gate)),
		(
			"timed",
			"Last at equal time",
			p.timed.last().map_or("-".into(), timed),
		),
		("uptime", "Up for", format!("{:.0} s", p.uptime_seconds)),
	]
}

/// A gate match in a few words.
fn gate(g: &v1::GateSummary) -> String {
	let verdict = match (g.measurement, g.promoted) {
		(true, _) => "measured",
		(false, true) => "promoted",
		(false, false) => "not promoted",
	};
	let against = g
		.opponent_generation
		.map_or(String::new(), |o| format!(" against generation {o}"));
	format!(
		"generation {} {verdict}, score {}{against}",
		g.generation,
		score(g.score, g.score_low, g.score_high)
	)
}

/// A measurement at equal time in a few words.
fn timed(t: &v1::TimedMeasurement) -> String {
	format!(
		"generation {} at {} ms, score {}",
		t.generation,
		t.move_ms,
		score(t.score, t.score_low, t.score_high)
	)
}
