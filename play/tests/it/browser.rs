//! The pages in headless Chromium against this crate's server in this process: whole games by
//! clicks, by the keyboard and by typed moves, one on a phone-wide window, and the analysis
//! board against the API (testkit's `play_pages`, which `tui serve`'s tests run too).

use tigers_play::limits::Limits;
use tigers_testkit::play_pages::{Input, analysis_agrees_with_the_api, play_a_game};
use tigers_testkit::webdriver::Browser;

use crate::support::{serve, tables};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_are_played_to_their_end_by_clicks_keys_and_typing_and_analysed() {
	let Some(browser) = Browser::start().await else {
		return;
	};
	let limits = Limits {
		searches: 2,
		..Limits::default()
	};
	let address = serve(tables(), limits).await;
	let base = format!("http://{address}");
	for input in [Input::Clicks, Input::Keyboard, Input::Typed] {
		let end = play_a_game(&browser, &base, (address, &[]), "sheep", input).await;
		assert!(
			end.contains("win") || end.contains("Draw"),
			"{input:?}: {end}"
		);
	}
	// As the tigers, by clicks: a capture is a piece, then the point beyond the sheep.
	let end = play_a_game(&browser, &base, (address, &[]), "tigers", Input::Clicks).await;
	assert!(end.contains("win") || end.contains("Draw"), "tigers: {end}");
	browser.screenshot("play").await;
	for position in [
		"SS.SS/SSSSS/SS.TS/STTTS/SSSSS t 0",
		"SSTSS/S.TSS/S..SS/ST..S/SSSST s 0",
		"T...T/...../...../...../T...T s 20",
	] {
		analysis_agrees_with_the_api(&browser, &base, address, &[], position).await;
	}
	browser.screenshot("analysis").await;
	browser.quit().await;

	// On a phone: the page fits 375 pixels, and a game is played to its end by taps.
	let Some(phone) = Browser::start_sized((375, 812)).await else {
		return;
	};
	let end = play_a_game(&phone, &base, (address, &[]), "sheep", Input::Clicks).await;
	assert!(end.contains("win") || end.contains("Draw"), "{end}");
	let width = phone
		.script("return document.documentElement.scrollWidth;")
		.await;
	let viewport = phone.script("return window.innerWidth;").await;
	assert_eq!(viewport.as_u64(), Some(375));
	assert!(width.as_u64().is_some_and(|w| w <= 375), "{width}");
	phone.screenshot("play-phone").await;
	phone.screenshot("play-phone").await;
	phone.quit().await;
}
