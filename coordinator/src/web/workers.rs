//! The Workers page: the fleet summed up as the dashboard's Fleet pane sums it up
//! (`tigers_dashboard::fleet`), with each listed worker's build version from the ledger. Names,
//! hosts and versions are the workers' own words, so every one is escaped.

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use tigers_dashboard::fleet::{FleetSummary, WorkerState};
use tigers_dashboard::format;
use tigers_proto::v1;

use super::html::{self, escape, pager};
use super::query::{self, PER_PAGE, clamp_page};
use super::{Web, blocking, storage_failure};

/// One listed worker with its version.
struct Listed {
	summary: v1::WorkerSummary,
	version: String,
}

/// `GET /workers?page=N`.
pub(crate) async fn page(State(web): State<Arc<Web>>, RawQuery(query): RawQuery) -> Response {
	let asked = query::page(query.as_deref());
	let read = blocking(&web, move |web| {
		let progress = web.snapshot();
		let number = clamp_page(asked, progress.workers.len() as u64);
		let start = (number * PER_PAGE) as usize;
		let ledger = web.reader();
		let mut listed = Vec::new();
		for summary in progress.workers.iter().skip(start).take(PER_PAGE as usize) {
			let row = ledger
				.worker(&summary.worker_id)
				.map_err(|e| storage_failure(&e))?;
			listed.push(Listed {
				summary: summary.clone(),
				version: row.map(|r| r.build_version).unwrap_or_default(),
			});
		}
		Ok((progress, number, listed))
	})
	.await;
	match read {
		Ok((progress, number, listed)) => {
			let mut body = summary(&progress);
			body.push_str(&table(&listed, progress.generation));
			body.push_str(&pager(
				"/workers",
				number,
				PER_PAGE,
				progress.workers.len() as u64,
			));
			html::page("Workers", &body, None)
		}
		Err(failure) => failure.into_response(),
	}
}

/// The fleet in a few figures, the phrases of the Fleet pane's first lines.
fn summary(p: &v1::Progress) -> String {
	format!(
		"<p>{}.</p>",
		escape(&FleetSummary::of(p).phrases().join(", "))
	)
}

/// The listed workers' rows.
fn table(listed: &[Listed], latest: u64) -> String {
	let mut html = String::from(
		"<table class=\"list\"><tr><th>name</th><th>host</th><th>version</th><th>threads</th>\
		 <th>gen</th><th>samples/s</th><th>samples</th><th>heard</th><th>reconnects</th>\
		 <th>flagged</th><th>state</th></tr>",
	);
	for Listed {
		summary: w,
		version,
	} in listed
	{
		let rate = if w.connected {
			format::rate(w.samples_per_second)
		} else {
			"-".into()
		};
		let _ = write!(
			html,
			"<tr class=\"{state}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
			 <td>{}</td><td>{} ago</td><td>{}</td><td>{}</td><td>{state}</td></tr>",
			escape(&w.name),
			escape(&w.host),
			escape(version),
			w.threads,
			w.generation.map_or("?".into(), |g| g.to_string()),
			rate,
			format::count(w.samples),
			format::duration(w.seconds_since_heard),
			w.reconnects,
			w.flagged,
			state = WorkerState::of(w, latest).word(),
		);
	}
	html.push_str("</table>");
	html
}
