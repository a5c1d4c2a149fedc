//! The browser test of the play and analysis pages, the same for every server of them (the
//! coordinator beside its run, and `tui serve`): whole games played to their end by clicks,
//! by the keyboard alone, by typed moves and on a phone-wide window, and the analysis board's
//! values read against the API's.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::http::get;
use crate::webdriver::Browser;

/// The most plies a test game may take before the test gives up on it.
const MAX_PLIES: usize = 400;

/// How a test game's moves are put in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
	/// Clicks on the board's points.
	Clicks,
	/// The arrow keys and Enter on the board.
	Keyboard,
	/// Moves typed into the move box.
	Typed,
}

/// The legal moves of `position`, best first, from the API of the server at `address`.
async fn moves(address: SocketAddr, headers: &[String], position: &str) -> Vec<String> {
	let path = format!(
		"/api/v1/position?position={}",
		position.replace('/', "%2F").replace(' ', "+")
	);
	let answer = get(address, &path, headers).await;
	assert_eq!(answer.status, 200, "{path}: {}", answer.text());
	let body: Value = serde_json::from_slice(&answer.body).expect("JSON");
	body["moves"]
		.as_array()
		.expect("moves")
		.iter()
		.map(|m| m["move"].as_str().expect("a move").to_string())
		.collect()
}

/// The points a move names: `sc3` is `c3`, `ta5b5` is `a5` then `b5`, and so is `ta5xc3`'s
/// `a5` then `c3`.
fn points(mv: &str) -> Vec<String> {
	let rest = mv[1..].replace('x', "");
	if rest.len() == 4 {
		vec![rest[..2].to_string(), rest[2..].to_string()]
	} else {
		vec![rest.to_string()]
	}
}

/// The arrow keys from a5 to `point`, then Enter.
fn keys_to(point: &str) -> String {
	let bytes = point.as_bytes();
	let x = usize::from(bytes[0] - b'a');
	let y = usize::from(b'5' - bytes[1]);
	format!(
		"{}{}\u{E007}",
		crate::webdriver::ARROW_RIGHT.repeat(x),
		"\u{E015}".repeat(y)
	)
}

/// Plays one game on the play page at `base` as `side` (`"sheep"` or `"tigers"`) against
/// ClaudePlayer, putting in the moves by `input`: the move the tables rank worst (a capture
/// first, if the tigers have one), so the game ends soon; returns the end's words.
pub async fn play_a_game(
	browser: &Browser,
	base: &str,
	(address, headers): (SocketAddr, &[String]),
	side: &str,
	input: Input,
) -> String {
	browser.go(&format!("{base}/play")).await;
	browser.find("#turn").await;
	browser
		.script(&format!(
			"const s = document.getElementById('opponent'); s.value = 'claude'; \
			const me = document.getElementById('side'); me.value = '{side}'; \
			me.dispatchEvent(new Event('change')); return 0;"
		))
		.await;
	let (to_move, letter) = if side == "tigers" {
		("Tigers to move", " t ")
	} else {
		("Sheep to move", " s ")
	};
	browser.click("#new").await;
	let deadline = Instant::now() + Duration::from_secs(600);
	let mut plies = 0;
	loop {
		assert!(Instant::now() < deadline, "the game took too long");
		let end = browser
			.script("const e = document.getElementById('end'); return e.classList.contains('hidden') ? '' : e.textContent;")
			.await;
		if let Some(words) = end.as_str().filter(|text| !text.is_empty()) {
			return words.to_string();
		}
		let turn = browser.text("#turn").await;
		if !turn.starts_with(to_move) || turn.contains("thinking") {
			tokio::time::sleep(Duration::from_millis(50)).await;
			continue;
		}
		let position = browser.text("#position-text").await;
		if !position.contains(letter) {
			tokio::time::sleep(Duration::from_millis(50)).await;
			continue;
		}
		let legal = moves(address, headers, &position).await;
		let capture = legal.iter().find(|mv| mv.contains('x'));
		let mv = capture.or(legal.last()).expect("a legal move").clone();
		match input {
			Input::Clicks => {
				for point in points(&mv) {
					browser
						.click(&format!("button[data-point='{point}']"))
						.await;
				}
			}
			Input::Keyboard => {
				for point in points(&mv) {
					browser
						.type_into("button[data-point='a5']", &keys_to(&point))
						.await;
				}
			}
			Input::Typed => browser.type_into("#typed", &format!("{mv}\u{E007}")).await,
		}
		// The move is on the board once the position shown changes.
		let moved = Instant::now() + Duration::from_secs(60);
		while browser.text("#position-text").await == position {
			assert!(Instant::now() < moved, "{mv} was not played in {position}");
			tokio::time::sleep(Duration::from_millis(50)).await;
		}
		plies += 1;
		assert!(plies < MAX_PLIES, "no end after {plies} sheep moves");
	}
}

/// The analysis board of `position` lists the API's moves in the API's order with its values.
pub async fn analysis_agrees_with_the_api(
	browser: &Browser,
	base: &str,
	address: SocketAddr,
	headers: &[String],
	position: &str,
) {
	let query = position.replace('/', "%2F").replace(' ', "+");
	browser
		.go(&format!("{base}/analysis?position={query}"))
		.await;
	browser.find("#move-rows tr").await;
	let shown = browser
		.script("return Array.from(document.querySelectorAll('#move-rows tr')).map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent + ' ' + r.cells[2].textContent);")
		.await;
	let path = format!("/api/v1/position?position={query}");
	let answer: Value =
		serde_json::from_slice(&get(address, &path, headers).await.body).expect("JSON");
	let expected: Vec<String> = answer["moves"]
		.as_array()
		.expect("moves")
		.iter()
		.map(|m| {
			format!(
				"{} {} {}",
				m["move"].as_str().unwrap_or_default(),
				m["value"].as_str().unwrap_or("unknown"),
				m["distance"]
					.as_u64()
					.map_or(String::new(), |n| n.to_string())
			)
		})
		.collect();
	assert_eq!(shown, serde_json::json!(expected), "{position}");
}
