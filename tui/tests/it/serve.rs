//! `tui serve` as a person runs it: the real binary on a loopback port, with the shared
//! movement table and the last placement layers. Its API's values agree with `tui engine`'s
//! `probe` for the position after every move of 500 random positions of both phases; its
//! pages pass the same browser test as the coordinator's; a public address needs --public
//! or a token; with a token and TLS it serves HTTPS to those who show the token; a newly
//! promoted net is served without a restart.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::{GameBoard, Network, Position, Turn};
use tigers_proto::client::ClientSettings;
use tigers_testkit::http::get;
use tigers_testkit::play_pages::{Input, analysis_agrees_with_the_api, play_a_game};
use tigers_testkit::webdriver::Browser;
use tigers_testkit::{free_port, tables};
use tigers_tui::engine::Engine;

use crate::support::temp_dir;

/// A `tui serve` process, killed when dropped.
struct Serving {
	child: Child,
	address: SocketAddr,
}

impl Drop for Serving {
	fn drop(&mut self) {
		let _ = self.child.kill();
		let _ = self.child.wait();
	}
}

/// A fresh net's file in a test directory named after `tag`.
fn fresh_net(tag: &str) -> std::path::PathBuf {
	let net = temp_dir(tag).join("net.safetensors");
	Network::new(Default::default(), 3)
		.save(&net)
		.expect("the net is written");
	net
}

/// Waits up to a minute until `tui serve` listens on `address`.
fn wait_listening(address: SocketAddr) {
	let deadline = Instant::now() + Duration::from_secs(60);
	while std::net::TcpStream::connect(address).is_err() {
		assert!(Instant::now() < deadline, "tui serve never listened");
		std::thread::sleep(Duration::from_millis(50));
	}
}

/// Starts `tui serve` with the shared tables and a fresh net, and waits until it answers.
fn serve() -> Serving {
	let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
	let movement = tables::movement_path(target);
	tables::movement(target);
	let layers = tables::last_layers(target);
	let net = fresh_net("serve");
	let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
	let child = Command::new(env!("CARGO_BIN_EXE_tui"))
		.args(["serve", "--listen", &address.to_string(), "--searches", "2"])
		.arg("--tablebase")
		.arg(&movement)
		.arg("--placement")
		.arg(layers)
		.arg("--net")
		.arg(&net)
		.stdout(Stdio::null())
		.stderr(Stdio::null())
		.spawn()
		.expect("tui serve starts");
	wait_listening(address);
	Serving { child, address }
}

/// The API's answer for `position`, waiting out any 429.
async fn analysis(address: SocketAddr, position: &str) -> Value {
	let path = format!(
		"/api/v1/position?position={}",
		tigers_play::query::encode(position)
	);
	loop {
		let answer = get(address, &path, &[]).await;
		if answer.status == 429 {
			let wait: u64 = answer
				.header("retry-after")
				.and_then(|s| s.parse().ok())
				.unwrap_or(1);
			tokio::time::sleep(Duration::from_secs(wait)).await;
			continue;
		}
		assert_eq!(answer.status, 200, "{position}: {}", answer.text());
		return serde_json::from_slice(&answer.body).expect("JSON");
	}
}

/// `tui engine`'s `probe` of `position` as the API would write the value for the side that
/// just moved into it: (value, distance).
fn engine_after(engine: &mut Engine, position: &str) -> (Value, Value) {
	let set = engine.execute(&format!("position {position}")).lines;
	assert!(set.is_empty(), "{position}: {set:?}");
	let probe = engine.execute("probe").lines.join(" ");
	let words: Vec<&str> = probe.split_whitespace().collect();
	fn flipped(word: &str) -> &str {
		match word {
			"win" => "loss",
			"loss" => "win",
			other => other,
		}
	}
	match words[..] {
		["probe", "none"] => (Value::Null, Value::Null),
		["probe", word] => (flipped(word).into(), Value::Null),
		["probe", word, n] => (
			flipped(word).into(),
			n.parse::<u64>().expect("plies").into(),
		),
		_ => panic!("{position}: {probe}"),
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apis_values_agree_with_the_engines_probe_after_every_move() {
	let serving = serve();
	let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
	let table = tables::movement(target);
	let layers = PlacementTable::open(tables::last_layers(target)).expect("the layers");
	let mut engine = Engine::new(ClientSettings::default())
		.with_tablebase(Some(table.clone()), None)
		.with_placement(Some(std::sync::Arc::new(layers)));
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(500);
	let (mut placement, mut movement, mut compared) = (0, 0, 0);
	while placement + movement < 500 {
		let (from, _) = table.entry(rng.random_range(0..table.len()));
		// Every other one a last placement: a sheep of a movement position lifted back into
		// the hand, with the sheep to move.
		let position = if placement < 250 && from.turn == Turn::Sheep {
			let sheep = from.board.sheep();
			let lifted = sheep & !(1 << sheep.trailing_zeros());
			match GameBoard::new(from.board.tigers(), lifted, 1)
				.ok()
				.and_then(|board| Position::new(board, Turn::Sheep).ok())
			{
				Some(position) if sheep != 0 => position,
				_ => continue,
			}
		} else if movement < 250 {
			from
		} else {
			continue;
		};
		let text = position.to_string();
		let answer = analysis(serving.address, &text).await;
		for m in answer["moves"].as_array().expect("moves") {
			let after = m["after"].as_str().expect("the position after");
			let next: Position = after.parse().expect("a position");
			let over = next.board.outcome(next.turn).is_some();
			let expected = if over {
				("win".into(), 0.into())
			} else {
				engine_after(&mut engine, after)
			};
			assert_eq!(
				(m["value"].clone(), m["distance"].clone()),
				expected,
				"{} in {text}",
				m["move"]
			);
			compared += 1;
		}
		if position.board.sheep_in_hand() > 0 {
			placement += 1;
		} else {
			movement += 1;
		}
	}
	assert!(compared > 500, "{compared}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn its_pages_pass_the_browser_test_of_the_coordinators() {
	let Some(browser) = Browser::start().await else {
		return;
	};
	let serving = serve();
	let base = format!("http://{}", serving.address);
	let end = play_a_game(
		&browser,
		&base,
		(serving.address, &[]),
		"tigers",
		Input::Clicks,
	)
	.await;
	assert!(end.contains("win") || end.contains("Draw"), "{end}");
	analysis_agrees_with_the_api(
		&browser,
		&base,
		serving.address,
		&[],
		"SSTSS/S.TSS/S..SS/ST..S/SSSST s 0",
	)
	.await;
	browser.quit().await;
}

#[test]
fn a_public_address_needs_public() {
	let output = Command::new(env!("CARGO_BIN_EXE_tui"))
		.args(["serve", "--listen", "0.0.0.0:0", "--no-tablebase"])
		.output()
		.expect("tui runs");
	assert!(!output.status.success());
	let said = String::from_utf8_lossy(&output.stderr);
	assert!(said.contains("--public"), "{said}");
	assert!(said.contains("--pages-token"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_and_tls_it_serves_https_to_those_who_show_the_token() {
	let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../worker/tests/data");
	let net = fresh_net("serve-token");
	let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
	let child = Command::new(env!("CARGO_BIN_EXE_tui"))
		.args(["serve", "--listen", &address.to_string(), "--no-tablebase"])
		.arg("--net")
		.arg(&net)
		.arg("--tls-cert")
		.arg(data.join("test-coordinator.pem"))
		.arg("--tls-key")
		.arg(data.join("test-coordinator.key"))
		.env("TIGERS_PAGES_TOKEN", "s3cret")
		.stdout(Stdio::null())
		.stderr(Stdio::null())
		.spawn()
		.expect("tui serve starts");
	let _serving = Serving { child, address };
	wait_listening(address);
	let ca = data.join("test-coordinator.pem");
	let ask = |path: &'static str, headers: Vec<String>| {
		let ca = ca.clone();
		async move {
			tigers_testkit::http::request_tls(address, &ca, "GET", path, &headers, "")
				.await
				.expect("a TLS connection")
		}
	};
	let refused = ask("/api/v1/server", vec![]).await;
	assert_eq!(refused.status, 401);
	let page = ask("/play", vec![]).await;
	assert_eq!(page.status, 401);
	assert!(page.text().contains("action=\"/login\""));
	let allowed = ask(
		"/api/v1/server",
		vec!["Authorization: Bearer s3cret".into()],
	)
	.await;
	assert_eq!(allowed.status, 200, "{}", allowed.text());
	let login = tigers_testkit::http::request_tls(
		address,
		&ca,
		"POST",
		"/login",
		&["Content-Type: application/x-www-form-urlencoded".into()],
		"token=s3cret",
	)
	.await
	.expect("a TLS connection");
	assert_eq!(login.status, 303);
	let cookie = login.header("set-cookie").expect("a cookie");
	assert!(cookie.ends_with("; Secure"), "{cookie}");
	let with_cookie = vec![format!("Cookie: {}", cookie.split(';').next().unwrap())];
	assert_eq!(ask("/analysis", with_cookie).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newly_promoted_net_is_served_without_a_restart() {
	let run = temp_dir("serve-follow");
	let nets = run.join("nets");
	std::fs::create_dir_all(&nets).unwrap();
	let save = |generation: u64| {
		let mut net = Network::new(Default::default(), generation);
		net.generation = generation;
		net.save(&nets.join(format!("gen-{generation:06}.safetensors")))
			.expect("the net is written");
	};
	save(3);
	let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
	let child = Command::new(env!("CARGO_BIN_EXE_tui"))
		.args(["serve", "--listen", &address.to_string(), "--no-tablebase"])
		.args(["--net-refresh-s", "1", "--run-dir"])
		.arg(&run)
		.stdout(Stdio::null())
		.stderr(Stdio::null())
		.spawn()
		.expect("tui serve starts");
	let _serving = Serving { child, address };
	wait_listening(address);
	let generation = || async {
		let about = get(address, "/api/v1/server", &[]).await;
		let about: Value = serde_json::from_slice(&about.body).expect("JSON");
		about["net"]["generation"].as_u64()
	};
	assert_eq!(generation().await, Some(3));
	// The run promotes generation 7 and names it the best: the next look serves it.
	save(7);
	std::fs::write(nets.join("best"), "gen-000007.safetensors\n").unwrap();
	let deadline = Instant::now() + Duration::from_secs(30);
	while generation().await != Some(7) {
		assert!(Instant::now() < deadline, "the newer net was never served");
		tokio::time::sleep(Duration::from_millis(200)).await;
	}
	// A look that fails keeps the net served.
	std::fs::remove_dir_all(&nets).unwrap();
	tokio::time::sleep(Duration::from_millis(2_500)).await;
	assert_eq!(generation().await, Some(7));
}
