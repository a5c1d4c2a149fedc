//! Headless Chromium driven over WebDriver by a chromedriver the test starts: the few calls
//! the browser tests make (open a page, find, read, click, type, run a script, take a
//! screenshot), as JSON requests over the plain HTTP of [`crate::http`]. A WebDriver crate
//! would bring some 45 crates (two versions of ICU among them) into the build for them.
//!
//! Chromium and chromedriver are Debian's `chromium` and `chromium-driver`. Without
//! chromedriver a test says so and passes, unless `TIGERS_BROWSER_TESTS=1` (which `.ci/run`
//! sets after installing them) says it must run. With `TIGERS_SCREENSHOTS=DIR` a test saves
//! its screenshots there (`web-NAME.png`; docs/ holds the README's).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

use crate::free_port;
use crate::http::request;

/// How long a page may take to show what a test waits for.
const WAIT: Duration = Duration::from_secs(60);

/// The W3C name of an element reference in WebDriver's answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The key WebDriver sends for the right arrow.
pub const ARROW_RIGHT: &str = "\u{E014}";
/// The key WebDriver sends for the left arrow.
pub const ARROW_LEFT: &str = "\u{E012}";

/// A headless Chromium session through a chromedriver this test started.
pub struct Browser {
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
	pub async fn start() -> Option<Browser> {
		Browser::start_sized((1200, 900)).await
	}

	/// As [`Browser::start`], with a window `window` pixels wide and high.
	pub async fn start_sized(window: (u32, u32)) -> Option<Browser> {
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
		browser.session = browser.new_session(&chromium, window).await;
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
	async fn new_session(&self, chromium: &std::path::Path, window: (u32, u32)) -> String {
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
			format!("--window-size={},{}", window.0, window.1),
			format!("--user-data-dir={}", profile.display()),
		];
		let mut options = json!({ "binary": chromium, "args": args });
		// A window is at least 500 pixels wide: a narrower one is a phone's screen, emulated.
		if window.0 < 500 {
			options["mobileEmulation"] = json!({ "deviceMetrics": {
				"width": window.0, "height": window.1, "pixelRatio": 2, "touch": true,
			}});
		}
		let capabilities = json!({ "capabilities": { "alwaysMatch": {
			"browserName": "chrome",
			"goog:chromeOptions": options,
		}}});
		let answer = self.call("POST", "/session", Some(capabilities)).await;
		answer["sessionId"]
			.as_str()
			.expect("a session id")
			.to_string()
	}

	/// One WebDriver call; its `value`.
	pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
		let text = body.map_or(String::new(), |b| b.to_string());
		let headers = ["Content-Type: application/json".to_string()];
		let answer = request(self.address, method, path, &headers, &text).await;
		let value: Value = serde_json::from_slice(&answer.body).expect("WebDriver answers JSON");
		assert_eq!(answer.status, 200, "{method} {path}: {value}");
		value.get("value").cloned().unwrap_or(Value::Null)
	}

	/// One call of this session's; its `value`.
	pub async fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
		self.call(method, &format!("/session/{}{path}", self.session), body)
			.await
	}

	/// Opens `url`.
	pub async fn go(&self, url: &str) {
		self.session_call("POST", "/url", Some(json!({ "url": url })))
			.await;
	}

	/// The first element `css` selects, waiting for it.
	pub async fn find(&self, css: &str) -> String {
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

	/// The text of the first element `css` selects, waiting for it.
	pub async fn text(&self, css: &str) -> String {
		let element = self.find(css).await;
		let text = self
			.session_call("GET", &format!("/element/{element}/text"), None)
			.await;
		text.as_str().unwrap_or_default().to_string()
	}

	/// Clicks the first element `css` selects, waiting for it.
	pub async fn click(&self, css: &str) {
		let element = self.find(css).await;
		self.session_call(
			"POST",
			&format!("/element/{element}/click"),
			Some(json!({})),
		)
		.await;
	}

	/// Types `keys` into the first element `css` selects, waiting for it.
	pub async fn type_into(&self, css: &str, keys: &str) {
		let element = self.find(css).await;
		self.session_call(
			"POST",
			&format!("/element/{element}/value"),
			Some(json!({ "text": keys })),
		)
		.await;
	}

	/// The result of a script run in the page.
	pub async fn script(&self, script: &str) -> Value {
		self.session_call(
			"POST",
			"/execute/sync",
			Some(json!({ "script": script, "args": [] })),
		)
		.await
	}

	/// Saves the page as `web-NAME.png` in `TIGERS_SCREENSHOTS`, if set.
	pub async fn screenshot(&self, name: &str) {
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

	/// Ends the session, closing Chromium.
	pub async fn quit(self) {
		self.call("DELETE", &format!("/session/{}", self.session), None)
			.await;
	}
}
