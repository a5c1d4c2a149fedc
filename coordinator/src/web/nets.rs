//! The Nets page: every promoted net, newest first, with its promotion, the gate result that
//! promoted it by side, its measurements at fixed depth and at equal time with their
//! intervals and exact accuracy, its rating on the ladder, its sha256, and its file to
//! download; the best net by the ladder and the newest under names that do not change.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::html::{self, accuracy, escape, pager, score, utc};
use super::query::{self, PER_PAGE, clamp_page};
use super::{Refusal, Web, blocking, storage_failure};
use tigers_proto::v1;

use crate::store::ledger::{GateRow, GradeRow, NetListing, TimedRow};
use crate::store::rundir::{net_file_name, parse_net_file_name};

/// `GET /nets?page=N`.
pub(crate) async fn page(State(web): State<Arc<Web>>, RawQuery(query): RawQuery) -> Response {
	let asked = query::page(query.as_deref());
	let read = blocking(&web, move |web| {
		let ladder = web.snapshot().ladder.clone().unwrap_or_default();
		let ledger = web.reader();
		let total = ledger.generation_count().map_err(|e| storage_failure(&e))?;
		let number = clamp_page(asked, total);
		let nets = ledger
			.nets_page(number * PER_PAGE, PER_PAGE)
			.map_err(|e| storage_failure(&e))?;
		let grades = ledger.grades().map_err(|e| storage_failure(&e))?;
		let grades = grades.into_iter().map(|g| (g.generation, g)).collect();
		Ok((total, number, nets, ladder, grades))
	})
	.await;
	match read {
		Ok((total, number, nets, ladder, grades)) => {
			let mut body = format!(
				"<p>{total} promoted nets, newest first. Scores are against ClaudePlayer, with \
				 95% intervals; exact accuracy is the share of the net's moves that kept the \
				 position's exact value, where the tablebase knows it. The ladder's rating is \
				 in Elo above ClaudePlayer, fitted over every match the promoted nets played. \
				 Grades are on the grading suite's positions, whose exact values are known: the \
				 share whose class (won, drawn, lost) the net's evaluation got right, and the \
				 share in which its search's move at the gate's depth kept the value.</p>"
			);
			body.push_str(&best_paragraph(&ladder));
			body.push_str(&table(&nets, &ladder, &grades));
			body.push_str(&pager("/nets", number, PER_PAGE, total));
			html::page("Nets", &body, None)
		}
		Err(failure) => failure.into_response(),
	}
}

/// The best net by the ladder, with the names that always fetch it and the newest net.
fn best_paragraph(ladder: &v1::Ladder) -> String {
	let best = ladder.best_generation.and_then(|generation| {
		let rating = ladder
			.ratings
			.iter()
			.find(|r| r.generation == Some(generation))?;
		Some((generation, rating))
	});
	let named = match best {
		Some((generation, rating)) => format!(
			"The best net by the rating ladder is generation {generation}, {} over {} games \
			 (the highest lower bound among nets with {} games or more)",
			html::rating(rating.rating, rating.low, rating.high),
			rating.games,
			ladder.min_games_for_best
		),
		None => format!(
			"No net has played the {} games on the rating ladder it takes to be named the best \
			 yet; until one has, the best is the newest",
			ladder.min_games_for_best
		),
	};
	format!(
		"<p>{named}: <a href=\"/download/nets/{BEST}\" download>{BEST}</a> always fetches it, \
		 <a href=\"/download/nets/{LATEST}\" download>{LATEST}</a> the newest.</p>"
	)
}

/// The name that always downloads the best net by the ladder (the newest until one is named).
pub(crate) const BEST: &str = "best.safetensors";

/// The name that always downloads the newest promoted net.
pub(crate) const LATEST: &str = "latest.safetensors";

/// A net's rating on the ladder, or a dash if it has none.
fn ladder_cell(ladder: &v1::Ladder, generation: u64) -> String {
	let rating = ladder
		.ratings
		.iter()
		.find(|r| r.generation == Some(generation));
	let best = ladder.best_generation == Some(generation);
	match rating {
		Some(r) if best => format!(
			"<strong>{} best</strong>",
			html::rating(r.rating, r.low, r.high)
		),
		Some(r) => html::rating(r.rating, r.low, r.high),
		None => "-".into(),
	}
}

/// A net's grades on the suite: its evaluation's class and its search's move, each right in
/// what share of the positions; a dash if it was not graded.
fn grades_cell(grades: &BTreeMap<u64, GradeRow>, generation: u64) -> String {
	let Some(row) = grades.get(&generation) else {
		return "-".into();
	};
	let whole = row.grades.whole();
	match whole.shares() {
		Some((class, kept)) => format!(
			"class {:.1}%, move {:.1}% of {} at depth {}",
			100.0 * class,
			100.0 * kept,
			whole.positions,
			row.depth
		),
		None => "-".into(),
	}
}

/// The nets' rows.
fn table(nets: &[NetListing], ladder: &v1::Ladder, grades: &BTreeMap<u64, GradeRow>) -> String {
	let mut html = String::from(
		"<table class=\"list\"><tr><th>gen</th><th>promoted</th><th>CPU-hours</th>\
		 <th>gate as tigers</th><th>gate as sheep</th><th>fixed depth</th>\
		 <th>equal time</th><th>exact accuracy</th><th>ladder (Elo)</th><th>grades</th>\
		 <th>sha256</th><th>file</th></tr>",
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
			 <td>{}</td><td>{}</td><td class=\"hash\"><code>{}</code></td><td><a \
			 href=\"/download/nets/{name}\" download>{name}</a></td></tr>",
			row.generation,
			utc(row.promoted_at),
			sides(net.gate.as_ref()),
			fixed_depth(net),
			equal_time(net.timed.as_ref()),
			exact(net),
			ladder_cell(ladder, row.generation),
			grades_cell(grades, row.generation),
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
///
/// `best.safetensors` and `latest.safetensors` are the best net by the ladder and the newest,
/// saved under their own generation's name, so a script can always fetch the recommended net
/// from one address.
pub(crate) async fn download(State(web): State<Arc<Web>>, Path(name): Path<String>) -> Response {
	let pointer = [BEST, LATEST].contains(&name.as_str());
	let named = parse_net_file_name(&name).filter(|&g| net_file_name(g) == name);
	if !pointer && named.is_none() {
		return html::error_page(StatusCode::NOT_FOUND, "There is no net of that name.");
	}
	let read = blocking(&web, move |web| {
		let generation = match named {
			Some(generation) => generation,
			None => {
				let progress = web.snapshot();
				let best = progress.ladder.as_ref().and_then(|l| l.best_generation);
				if name == BEST {
					best.unwrap_or(progress.generation)
				} else {
					progress.generation
				}
			}
		};
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
		let bytes = web
			.shared
			.run_dir
			.net_bytes(generation)
			.map_err(|e| storage_failure(&e))?;
		Ok((bytes, net_file_name(generation)))
	})
	.await;
	match read {
		Ok((bytes, name)) => attachment(bytes, &name, "application/octet-stream"),
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
