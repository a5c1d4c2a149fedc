//! The play and analysis pages and the files they load, all compiled into the binary: the
//! pages are plain HTML whose scripts come from `/play/assets/`, sent with a
//! Content-Security-Policy that allows scripts, styles and requests from this server only and
//! no inline script at all.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The policy every page and file is sent with.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
	style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
	form-action 'self'; frame-ancestors 'none'";

/// `text` with the five characters that mean something in HTML (`& < > " '`) replaced by
/// their entities, so that it reads as text in an element or a quoted attribute whatever it
/// holds: the login page's sentences here, and every value the coordinator's run pages show,
/// above all what a worker chose (its name, host and version).
pub fn escape(text: &str) -> String {
	let mut escaped = String::with_capacity(text.len());
	for c in text.chars() {
		match c {
			'&' => escaped.push_str("&amp;"),
			'<' => escaped.push_str("&lt;"),
			'>' => escaped.push_str("&gt;"),
			'"' => escaped.push_str("&quot;"),
			'\'' => escaped.push_str("&#39;"),
			c => escaped.push(c),
		}
	}
	escaped
}

/// The pages' style sheet (the login page of `tui serve` sends it inline).
pub const STYLE: &str = include_str!("../assets/style.css");

/// The files under `/play/assets/`: name, content type, bytes.
const ASSETS: [(&str, &str, &str); 4] = [
	("style.css", "text/css", STYLE),
	(
		"board.js",
		"text/javascript",
		include_str!("../assets/board.js"),
	),
	(
		"play.js",
		"text/javascript",
		include_str!("../assets/play.js"),
	),
	(
		"analysis.js",
		"text/javascript",
		include_str!("../assets/analysis.js"),
	),
];

/// The links at the top of both pages.
const HEADER: &str = r#"<header><h1>Tigers and Sheep</h1><nav><a href="/play">Play</a> · <a href="/analysis">Analysis</a> · <a href="/api/v1/openapi.json">API</a></nav></header>"#;

/// The play page.
const PLAY: &str = r#"<main>
<div class="board-column">
<div id="board"></div>
<p id="turn" class="status" aria-live="polite"></p>
<p id="end" class="end hidden" role="status" aria-live="assertive"></p>
<p class="value">Position: <span id="position-text"></span></p>
<p id="message" role="alert"></p>
</div>
<div class="panel">
<div class="controls">
<label>You play <select id="side">
<option value="sheep">the sheep</option>
<option value="tigers">the tigers</option>
<option value="both">both sides</option>
<option value="none">neither (computer against computer)</option>
</select></label>
<label>against <select id="opponent"><option value="net">the net</option><option value="claude">ClaudePlayer</option></select></label>
<label>thinking <select id="ms">
<option value="100">0.1 s</option><option value="300">0.3 s</option><option value="1000">1 s</option><option value="3000">3 s</option>
</select> a move</label>
</div>
<div class="controls">
<button id="new" type="button">New game</button>
<button id="takeback" type="button">Take back</button>
<button id="download" type="button">Save the record</button>
<a id="analyse" href="/analysis">Analyse</a>
</div>
<form id="move-form" class="controls">
<label class="sr" for="typed">Type a move</label>
<input id="typed" type="text" placeholder="type a move: sc3, ta5b5, tc1c3" autocomplete="off" spellcheck="false">
<button type="submit">Play</button>
</form>
<label class="controls"><input id="show-value" type="checkbox"> Show the exact value</label>
<p id="value" class="value hidden" aria-live="polite"></p>
<h2>Moves</h2>
<ol id="moves" class="moves"></ol>
<p>Click (or tap) an empty point to place a sheep; click a piece, then where it goes. With the
keyboard: Tab to the board, the arrow keys to move between points, Enter or Space to pick one;
or type a move.</p>
</div>
</main>"#;

/// The analysis page.
const ANALYSIS: &str = r#"<main>
<div class="board-column">
<div id="board"></div>
<div class="controls">
<button id="first" type="button" aria-label="first position">|&lt;</button>
<button id="back" type="button" aria-label="back one move">&lt;</button>
<button id="forward" type="button" aria-label="forward one move">&gt;</button>
<button id="last" type="button" aria-label="last position">&gt;|</button>
<span id="step"></span>
</div>
<ol id="game" class="moves" aria-label="the game's moves; a ? marks a move that gave a value away"></ol>
<label class="controls"><input id="edit" type="checkbox"> Set up: a click makes a point a sheep, a tiger, then empty</label>
<div id="edit-tools" class="controls hidden">
<label>to move <select id="edit-side"><option value="s">sheep</option><option value="t">tigers</option></select></label>
<label>sheep in hand <input id="edit-hand" type="number" min="0" max="20" value="20"></label>
</div>
</div>
<div class="panel">
<form id="position-form">
<label for="position">Position</label>
<input id="position" type="text" autocomplete="off" spellcheck="false">
<div class="controls"><button type="submit">Analyse this position</button></div>
</form>
<p id="message" role="alert"></p>
<p id="summary" class="status" aria-live="polite"></p>
<table>
<thead><tr><th>move</th><th>value</th><th>plies</th></tr></thead>
<tbody id="move-rows"></tbody>
</table>
<p>A move's value is the mover's after playing it; its plies count to the end with best play
from there (the placement layers give no distance). Best first; click a move to play it.</p>
<p id="net"></p>
<div class="controls">
<button id="search" type="button">The net's search</button>
<label>for <select id="ms"><option value="100">0.1 s</option><option value="1000">1 s</option><option value="3000">3 s</option></select></label>
</div>
<p id="choice" aria-live="polite"></p>
</div>
</main>"#;

/// A page: the header, `main`, and its scripts.
fn page(title: &str, main: &str, script: &str) -> Response {
	let html = format!(
		"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
		 <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
		 <title>{title} · Tigers and Sheep</title>\
		 <link rel=\"stylesheet\" href=\"/play/assets/style.css\"></head><body>{HEADER}{main}\
		 <script src=\"/play/assets/board.js\"></script>\
		 <script src=\"/play/assets/{script}\"></script></body></html>"
	);
	with_policy(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response())
}

/// `response` with the Content-Security-Policy and the headers that go with it.
pub fn with_policy(mut response: Response) -> Response {
	let headers = response.headers_mut();
	headers.insert(
		header::CONTENT_SECURITY_POLICY,
		HeaderValue::from_static(CONTENT_SECURITY_POLICY),
	);
	headers.insert(
		header::X_CONTENT_TYPE_OPTIONS,
		HeaderValue::from_static("nosniff"),
	);
	headers.insert(
		header::REFERRER_POLICY,
		HeaderValue::from_static("no-referrer"),
	);
	response
}

/// `GET /play`.
pub(crate) async fn play() -> Response {
	page("Play", PLAY, "play.js")
}

/// `GET /analysis`.
pub(crate) async fn analysis() -> Response {
	page("Analysis", ANALYSIS, "analysis.js")
}

/// `GET /play/assets/{name}`.
pub(crate) async fn asset(Path(name): Path<String>) -> Response {
	match ASSETS.iter().find(|(file, ..)| *file == name) {
		Some((_, kind, body)) => with_policy(
			(
				[
					(header::CONTENT_TYPE, *kind),
					(header::CACHE_CONTROL, "no-cache"),
				],
				*body,
			)
				.into_response(),
		),
		None => (StatusCode::NOT_FOUND, "There is no such file.").into_response(),
	}
}
