//! The web pages in a real browser: headless Chromium, driven over WebDriver by chromedriver,
//! against a coordinator in this process. A page without the token shows the login form, and
//! the form lets the browser in; the nets table lists what `status` lists and the listed net
//! downloads with the sha256 the page shows; the viewer shows the right board after stepping
//! with the arrow keys and after a click; the Run page's figures change while the run takes
//! samples.
//!
//! The browser is testkit's (`tigers_testkit::webdriver`), which says what it needs.

use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tigers_core::Turn;
use tigers_core::pos::Pos;
use tigers_core::record::{GameRecord, split_records};

use crate::common::*;
use tigers_testkit::play_pages::{Input, analysis_agrees_with_the_api, play_a_game};
use tigers_testkit::webdriver::{ARROW_LEFT, ARROW_RIGHT, Browser};

use crate::web::{bearer, get, start_with_pages};

/// The board the viewer draws: 25 characters by point index, from its pieces' classes.
const BOARD_SCRIPT: &str = "const cells = Array(25).fill('.'); \
	document.querySelectorAll('#board .pieces g').forEach(g => \
	{ cells[Number(g.dataset.point)] = g.classList.contains('tiger') ? 'T' : 'S'; }); \
	return cells.join('');";

/// The board of `record` after `plies` moves, as [`BOARD_SCRIPT`] reads it.
fn board_after(record: &GameRecord, plies: usize) -> String {
	let (game, _) = record.replay();
	let board = if plies == 0 {
		record.start.board
	} else {
		game.history()[plies - 1].1
	};
	Pos::all()
		.map(|pos| match board.piece_at(pos) {
			Some(Turn::Tiger) => 'T',
			Some(Turn::Sheep) => 'S',
			None => '.',
		})
		.collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_in_a_real_browser() {
	let Some(browser) = Browser::start().await else {
		return;
	};
	let (_temp, running, pages) = start_with_pages("browser", Some("s3cret")).await;
	let base = format!("http://{pages}");
	let mut worker = client(running.address, Some("s3cret")).await;
	let secret = join(&mut worker, "w-browser").await;
	let (batches, mut inbound, _) = session(&mut worker, "w-browser", &secret).await;
	batches
		.send(batch_message(real_batch(1, 0, 41)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);

	// Without the token, the login form; with it, the Run page.
	browser.go(&format!("{base}/nets")).await;
	browser.find("form[action='/login']").await;
	assert!(browser.text("main").await.contains("need its token"));
	browser.screenshot("login").await;
	browser.type_into("input[name=token]", "s3cret").await;
	browser.click("button[type=submit]").await;
	browser.find("#generation").await;

	// The Run page's figures follow the run: another batch raises the samples shown.
	let before = browser.text("#samples").await;
	batches
		.send(batch_message(real_batch(2, 0, 42)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let deadline = Instant::now() + WAIT;
	while browser.text("#samples").await == before {
		assert!(
			Instant::now() < deadline,
			"the samples shown stayed at {before}"
		);
		tokio::time::sleep(Duration::from_millis(200)).await;
	}
	let listed = status(&mut worker).await;
	browser.screenshot("run").await;

	// The nets table lists what status lists, and its net downloads with the sha256 shown.
	browser.go(&format!("{base}/nets")).await;
	let rows = browser
		.script("return document.querySelectorAll('table.list tr').length - 1;")
		.await;
	assert_eq!(rows.as_u64(), Some(listed.generation + 1));
	let shown = browser.text("td.hash code").await;
	let href = browser
		.script(
			"return document.querySelector('td a[href^=\"/download/nets/\"]').getAttribute('href');",
		)
		.await;
	let net = get(pages, href.as_str().expect("a link"), &bearer("s3cret")).await;
	let digest: String = Sha256::digest(&net.body)
		.iter()
		.map(|b| format!("{b:02x}"))
		.collect();
	assert_eq!(shown, digest);
	browser.screenshot("nets").await;

	// The viewer: the board after three presses of the right arrow and one of the left, and
	// after a click on the fourth move, is the record's.
	let deadline = Instant::now() + WAIT;
	while !get(pages, "/games", &bearer("s3cret"))
		.await
		.text()
		.contains("gen-000000.records.gz")
	{
		assert!(
			Instant::now() < deadline,
			"the games never reached the archive"
		);
		tokio::time::sleep(Duration::from_millis(200)).await;
	}
	let file = get(
		pages,
		"/download/games/gen-000000.records.gz",
		&bearer("s3cret"),
	)
	.await;
	let text = tigers_proto::games::records_text(&file.body).unwrap();
	let record = GameRecord::from_text(split_records(&text).next().unwrap()).unwrap();
	browser.go(&format!("{base}/games")).await;
	browser.screenshot("games").await;
	browser.go(&format!("{base}/games/0/0")).await;
	browser.find("#board .pieces g").await;
	assert_eq!(browser.script(BOARD_SCRIPT).await, board_after(&record, 0));
	browser.type_into("body", &ARROW_RIGHT.repeat(3)).await;
	browser.type_into("body", ARROW_LEFT).await;
	assert_eq!(browser.script(BOARD_SCRIPT).await, board_after(&record, 2));
	assert!(browser.text("#ply").await.starts_with("2 / "));
	browser.click("#moves li:nth-child(4) a").await;
	assert_eq!(browser.script(BOARD_SCRIPT).await, board_after(&record, 4));
	browser.screenshot("viewer").await;

	browser.go(&format!("{base}/strength")).await;
	browser.find("main h1").await;
	browser.screenshot("strength").await;
	browser.go(&format!("{base}/workers")).await;
	assert!(browser.text("table.list").await.contains("w-browser-name"));
	browser.screenshot("workers").await;

	// The play page beside the run, with the login's cookie: a whole game by clicks against
	// ClaudePlayer, as on `tui serve`.
	let token = bearer("s3cret");
	let end = play_a_game(&browser, &base, (pages, &token), "sheep", Input::Clicks).await;
	assert!(end.contains("win") || end.contains("Draw"), "{end}");
	browser.screenshot("play").await;
	// And its analysis board, every move of a movement-phase position with its exact value.
	analysis_agrees_with_the_api(
		&browser,
		&base,
		pages,
		&token,
		"SS.SS/SSSSS/SS.TS/STTTS/SSSSS t 0",
	)
	.await;
	browser.screenshot("analysis").await;

	// The Run page's log-out ends the session: the next page asks for the token again.
	browser.go(&format!("{base}/")).await;
	browser.click("form.logout button").await;
	browser.find("form[action='/login']").await;
	browser.go(&format!("{base}/nets")).await;
	browser.find("form[action='/login']").await;
	browser.quit().await;
	running.stop().await;
}
