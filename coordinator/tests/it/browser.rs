//! The web pages in a real browser: headless Chromium, driven over WebDriver by chromedriver,
//! against a coordinator in this process. A page without the token shows the login form, and
//! the form lets the browser in; the nets table lists what `status` lists and the listed net
//! downloads with the sha256 the page shows; the viewer shows the right board after stepping
//! with the arrow keys and after a click; the Run page's figures change while the run takes
//! samples.
//!
//! Chromium and chromedriver are Debian's `chromium` and `chromium-driver`. Without
//! chromedriver the test says so and passes, unless `TIGERS_BROWSER_TESTS=1` (which `.ci/run`
//! sets after installing them) says it must run. With `TIGERS_SCREENSHOTS=DIR` it saves a
//! screenshot of each page there (`web-run.png` and so on; docs/ holds the README's).
//!
//! The WebDriver calls are a few JSON requests over the same plain HTTP as the pages' tests:
//! a WebDriver crate would bring some 45 crates (two versions of ICU among them) into the build
//! for these eight calls.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tigers_core::Turn;
use tigers_core::pos::Pos;
use tigers_core::record::{GameRecord, split_records};

use crate::common::*;
use crate::web::{bearer, get, request, start_with_pages};

/// The W3C name of an element reference in WebDriver's answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The keys WebDriver sends for the arrows.
const ARROW_RIGHT: &str = "\u{E014}";
const ARROW_LEFT: &str = "\u{E012}";

/// A headless Chromium session through a chromedriver this test started.
struct Browser {
	driver: Child,
	address: SocketAddr,
	session: String,
	/// Chromium's profile and temporary files, removed with the test.
	_scratch: tempfile::TempDir,
}

impl Drop for Browser {
	/// Ends the session first (which closes Chromium; killing chromedriver alone would leave
	/// it running), then chromedriver. Blocking, as a drop must be: a short call on loopback.
	fn drop(&mut self) {
		if !self.session.is_empty() {
			use std::io::{Read, Write};
			if let Ok(mut stream) = std::net::TcpStream::connect(self.address) {
				let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
				let request = format!(
					"DELETE /session/{} HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
					self.session, self.address
				);
				let _ = stream.write_all(request.as_bytes());
				let _ = stream.read(&mut [0u8; 1024]);
			}
		}
		let _ = self.driver.kill();
		let _ = self.driver.wait();
	}
}

/// Where a program is on the `PATH`, if it is.
fn on_path(name: &str) -> Option<PathBuf> {
	std::env::var_os("PATH")?
		.to_str()?
		.split(':')
		.map(|dir| PathBuf::from(dir).join(name))
		.find(|path| path.is_file())
}

impl Browser {
	/// A browser, or `None` (said on stderr) if chromedriver or Chromium is not installed and
	/// the environment does not demand the test.
	async fn start() -> Option<Browser> {
		let required = std::env::var("TIGERS_BROWSER_TESTS").is_ok_and(|v| v == "1");
		let (Some(driver), Some(chromium)) = (on_path("chromedriver"), on_path("chromium")) else {
			assert!(
				!required,
				"TIGERS_BROWSER_TESTS=1 but chromedriver or chromium is not installed"
			);
			eprintln!(
				"skipped: no chromedriver or chromium on the PATH (apt-get install chromium chromium-driver)"
			);
			return None;
		};
		let scratch = tempfile::Builder::new()
			.prefix("tigers-browser-")
			.tempdir()
			.expect("a scratch directory");
		let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
		let child = Command::new(driver)
			.arg(format!("--port={}", address.port()))
			.env("TMPDIR", scratch.path())
			.stdout(Stdio::null())
			.stderr(Stdio::null())
			.spawn()
			.expect("chromedriver starts");
		let mut browser = Browser {
			driver: child,
			address,
			session: String::new(),
			_scratch: scratch,
		};
		browser.wait_for_driver().await;
		browser.session = browser.new_session(&chromium).await;
		Some(browser)
	}

	async fn wait_for_driver(&self) {
		let deadline = Instant::now() + WAIT;
		while tokio::net::TcpStream::connect(self.address).await.is_err() {
			assert!(Instant::now() < deadline, "chromedriver never listened");
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	}

	/// A session of headless Chromium with a fresh profile, flags as for running as root.
	async fn new_session(&self, chromium: &std::path::Path) -> String {
		let profile = self._scratch.path().join("profile");
		let args = [
			"--headless".to_string(),
			"--no-sandbox".into(),
			"--disable-gpu".into(),
			"--no-first-run".into(),
			"--disable-background-networking".into(),
			"--disable-component-update".into(),
			"--disable-sync".into(),
			"--disable-crash-reporter".into(),
			"--disable-dev-shm-usage".into(),
			"--window-size=1200,900".into(),
			format!("--user-data-dir={}", profile.display()),
		];
		let capabilities = json!({ "capabilities": { "alwaysMatch": {
			"browserName": "chrome",
			"goog:chromeOptions": { "binary": chromium, "args": args },
		}}});
		let answer = self.call("POST", "/session", Some(capabilities)).await;
		answer["sessionId"]
			.as_str()
			.expect("a session id")
			.to_string()
	}

	/// One WebDriver call; its `value`.
	async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
		let text = body.map_or(String::new(), |b| b.to_string());
		let headers = ["Content-Type: application/json".to_string()];
		let answer = request(self.address, method, path, &headers, &text).await;
		let value: Value = serde_json::from_slice(&answer.body).expect("WebDriver answers JSON");
		assert_eq!(answer.status, 200, "{method} {path}: {value}");
		value.get("value").cloned().unwrap_or(Value::Null)
	}

	async fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
		self.call(method, &format!("/session/{}{path}", self.session), body)
			.await
	}

	async fn go(&self, url: &str) {
		self.session_call("POST", "/url", Some(json!({ "url": url })))
			.await;
	}

	/// The first element `css` selects, waiting for it.
	async fn find(&self, css: &str) -> String {
		let deadline = Instant::now() + WAIT;
		loop {
			let found = self
				.session_call(
					"POST",
					"/elements",
					Some(json!({"using": "css selector", "value": css})),
				)
				.await;
			if let Some(id) = found.get(0).and_then(|e| e[ELEMENT].as_str()) {
				return id.to_string();
			}
			if Instant::now() > deadline {
				let page = self
					.script("return document.documentElement.outerHTML;")
					.await;
				panic!("nothing matches {css} ({found}) in {page}");
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	}

	async fn text(&self, css: &str) -> String {
		let element = self.find(css).await;
		let text = self
			.session_call("GET", &format!("/element/{element}/text"), None)
			.await;
		text.as_str().unwrap_or_default().to_string()
	}

	async fn click(&self, css: &str) {
		let element = self.find(css).await;
		self.session_call(
			"POST",
			&format!("/element/{element}/click"),
			Some(json!({})),
		)
		.await;
	}

	async fn type_into(&self, css: &str, keys: &str) {
		let element = self.find(css).await;
		self.session_call(
			"POST",
			&format!("/element/{element}/value"),
			Some(json!({ "text": keys })),
		)
		.await;
	}

	/// The result of a script run in the page.
	async fn script(&self, script: &str) -> Value {
		self.session_call(
			"POST",
			"/execute/sync",
			Some(json!({ "script": script, "args": [] })),
		)
		.await
	}

	/// Saves the page as `web-NAME.png` in `TIGERS_SCREENSHOTS`, if set.
	async fn screenshot(&self, name: &str) {
		let Some(dir) = std::env::var_os("TIGERS_SCREENSHOTS") else {
			return;
		};
		let encoded = self.session_call("GET", "/screenshot", None).await;
		let png = base64::engine::general_purpose::STANDARD
			.decode(encoded.as_str().expect("base64"))
			.expect("a PNG");
		std::fs::write(PathBuf::from(dir).join(format!("web-{name}.png")), png)
			.expect("the screenshot is written");
	}

	async fn quit(self) {
		self.call("DELETE", &format!("/session/{}", self.session), None)
			.await;
	}
}

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
	browser.quit().await;
	running.stop().await;
}
