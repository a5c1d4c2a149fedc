//! HTML as text: the one escape function every value goes through, the page layout shared by
//! every page, and the links between the pages of a paginated list.

use std::fmt::Write;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tigers_process::dates::UtcTime;

/// The style sheet of every page, in the binary.
const STYLE: &str = include_str!("assets/style.css");

/// The pages in the navigation bar: path and title.
const NAVIGATION: [(&str, &str); 7] = [
	("/", "Run"),
	("/nets", "Nets"),
	("/strength", "Strength"),
	("/games", "Games"),
	("/workers", "Workers"),
	("/play", "Play"),
	("/analysis", "Analysis"),
];

pub(crate) use tigers_play::pages::escape;

/// A whole page: the layout with its navigation around `body` (already HTML), under `title`
/// (text, escaped here), with `script` (JavaScript from the binary) at its end if any.
pub(crate) fn page(title: &str, body: &str, script: Option<&str>) -> Response {
	let mut html = String::with_capacity(body.len() + STYLE.len() + 1024);
	let title = escape(title);
	let _ = write!(
		html,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
		 <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
		 <title>{title} · Tigers and Sheep</title><style>{STYLE}</style></head><body>\
		 <nav><span class=\"brand\">Tigers and Sheep</span>"
	);
	for (path, name) in NAVIGATION {
		let _ = write!(html, "<a href=\"{path}\">{name}</a>");
	}
	let _ = write!(html, "</nav><main><h1>{title}</h1>{body}</main>");
	if let Some(script) = script {
		let _ = write!(html, "<script>{script}</script>");
	}
	html.push_str("</body></html>\n");
	html_response(StatusCode::OK, html)
}

/// `html` as a response with `status`, never cached (a page shows the run as it is now).
pub(crate) fn html_response(status: StatusCode, html: String) -> Response {
	let mut response = (status, html).into_response();
	let headers = response.headers_mut();
	headers.insert(
		header::CONTENT_TYPE,
		HeaderValue::from_static("text/html; charset=utf-8"),
	);
	headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
	response
}

/// A short page saying what went wrong, with `status`.
pub(crate) fn error_page(status: StatusCode, message: &str) -> Response {
	let body = format!(
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{status}</title>\
		 <style>{STYLE}</style></head><body><main><h1>{status}</h1><p>{}</p>\
		 <p><a href=\"/\">The run</a></p></main></body></html>\n",
		escape(message)
	);
	html_response(status, body)
}

/// Links to the pages before and after `page` (counted from 0) of a list of `total` items,
/// `per_page` a page, at `path` (whose own query, if any, is kept).
pub(crate) fn pager(path: &str, page: u64, per_page: u64, total: u64) -> String {
	let pages = total.div_ceil(per_page).max(1);
	let join = if path.contains('?') { '&' } else { '?' };
	let link = |to: u64, label: &str| format!("<a href=\"{path}{join}page={to}\">{label}</a>");
	let mut html = String::from("<p class=\"pager\">");
	if page > 0 {
		html.push_str(&link(0, "first"));
		html.push(' ');
		html.push_str(&link(page - 1, "previous"));
		html.push(' ');
	}
	let _ = write!(html, "page {} of {pages}", page + 1);
	if page + 1 < pages {
		html.push(' ');
		html.push_str(&link(page + 1, "next"));
		html.push(' ');
		html.push_str(&link(pages - 1, "last"));
	}
	html.push_str("</p>");
	html
}

/// A Unix time as UTC text, `2026-12-05 15:42:05`; a dash for none (0 or not finite).
pub(crate) fn utc(unix_seconds: f64) -> String {
	if !unix_seconds.is_finite() || unix_seconds <= 0.0 {
		return "-".into();
	}
	UtcTime::from_unix_seconds(unix_seconds as i64).to_string()
}

/// A score with its interval, `0.612 (0.55–0.67)`; a dash for none (NaN).
pub(crate) fn score(score: f64, low: f64, high: f64) -> String {
	if !score.is_finite() {
		return "-".into();
	}
	format!("{score:.3} ({low:.2}–{high:.2})")
}

/// A rating on the ladder in Elo with its 95% interval: `+142 (+121–+163)`.
pub(crate) fn rating(rating: f64, low: f64, high: f64) -> String {
	if !rating.is_finite() {
		return "-".into();
	}
	format!("{rating:+.0} ({low:+.0}–{high:+.0})")
}

/// Exact accuracy, moves kept of moves judged, with a 95% Wilson interval: `97.1% (96.2–97.8)
/// of 1,204`; a dash when no move was judged.
pub(crate) fn accuracy(kept: u32, moves: u32) -> String {
	if moves == 0 {
		return "-".into();
	}
	let (low, high) = tigers_core::stats::wilson_interval(kept, moves);
	format!(
		"{:.1}% ({:.1}–{:.1}) of {moves}",
		100.0 * f64::from(kept) / f64::from(moves),
		100.0 * low,
		100.0 * high
	)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn escape_leaves_no_markup() {
		assert_eq!(
			escape("<script>alert('x')</script>"),
			"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
		);
		assert_eq!(escape("a & b \"c\""), "a &amp; b &quot;c&quot;");
		assert_eq!(escape("&amp;"), "&amp;amp;");
		assert_eq!(escape("plain text, ünïcode"), "plain text, ünïcode");
		assert_eq!(escape(""), "");
		for c in ['<', '>', '"', '\''] {
			assert!(!escape(&format!("x{c}y")).contains(c), "{c}");
		}
	}

	#[test]
	fn a_pager_links_only_to_pages_that_exist() {
		let first = pager("/nets", 0, 50, 120);
		assert!(first.contains("page 1 of 3"));
		assert!(first.contains("/nets?page=1") && first.contains("/nets?page=2"));
		assert!(!first.contains("previous"));
		let last = pager("/games?generation=3", 2, 50, 120);
		assert!(last.contains("/games?generation=3&page=1") && !last.contains("next"));
		assert!(pager("/nets", 0, 50, 0).contains("page 1 of 1"));
	}

	#[test]
	fn times_read_as_utc() {
		assert_eq!(utc(0.0), "-");
		assert_eq!(utc(951_782_400.0), "2000-02-29 00:00:00");
		assert_eq!(utc(1_796_485_325.5), "2026-12-05 15:42:05");
	}

	#[test]
	fn figures_read_with_their_intervals() {
		assert_eq!(score(f64::NAN, 0.0, 1.0), "-");
		assert_eq!(score(0.6125, 0.55, 0.671), "0.613 (0.55–0.67)");
		assert_eq!(accuracy(0, 0), "-");
		let text = accuracy(90, 100);
		assert!(
			text.starts_with("90.0% (82.") && text.ends_with("of 100"),
			"{text}"
		);
	}
}
