//! The web pages against a coordinator in this process, over a plain HTTP/1.1 socket: the
//! token asked of every page, download and JSON endpoint (as a bearer header or the login
//! form's cookie, never in a URL), a worker's chosen name escaped, downloads limited to the
//! files the run lists, and `/api/status` in `coordinator status`'s shape.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tigers_coordinator::progress_json;
pub(crate) use tigers_testkit::http::{get, request, request_from};

use crate::common::*;

pub(crate) fn bearer(token: &str) -> Vec<String> {
	vec![format!("Authorization: Bearer {token}")]
}

/// A coordinator serving its pages on a free loopback port, with `token` if any.
pub(crate) async fn start_with_pages(
	tag: &str,
	token: Option<&str>,
) -> (TestDir, Running, SocketAddr) {
	let temp = temp_dir(tag);
	let mut config = test_config(temp.to_path_buf(), token);
	let pages = SocketAddr::from(([127, 0, 0, 1], free_port()));
	config.http_listen = Some(pages);
	let running = start(config).await;
	// The pages answer once the run is open.
	let deadline = Instant::now() + WAIT;
	while tokio::net::TcpStream::connect(pages).await.is_err() {
		assert!(Instant::now() < deadline, "the pages never answered");
		tokio::time::sleep(Duration::from_millis(50)).await;
	}
	(temp, running, pages)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_needs_the_token_as_a_bearer_header_or_the_login_cookie() {
	let (_temp, running, pages) = start_with_pages("web-token", Some("s3cret")).await;
	for path in [
		"/",
		"/nets",
		"/strength",
		"/games",
		"/workers",
		"/api/status",
		"/download/nets/gen-000000.safetensors",
	] {
		let missing = get(pages, path, &[]).await;
		assert_eq!(missing.status, 401, "{path} without the token");
		assert!(!missing.text().contains("s3cret"));
		assert_eq!(
			get(pages, path, &bearer("s3cret")).await.status,
			200,
			"{path} with the token"
		);
	}
	// A wrong token is refused (a few only: more would make this address wait).
	for path in ["/", "/api/status"] {
		let wrong = get(pages, path, &bearer("s3cres")).await;
		assert_eq!(wrong.status, 401, "{path} with a wrong token");
		assert!(!wrong.text().contains("s3cre"));
	}
	// The token in a URL is not taken.
	assert_eq!(
		get(pages, "/api/status?token=s3cret", &[]).await.status,
		401
	);
	assert!(
		get(pages, "/", &[])
			.await
			.text()
			.contains("<form method=\"post\" action=\"/login\"")
	);

	// The login form: a wrong token shows it again; the right one sets a cookie that is not
	// the token, which then opens every page.
	let form = ["Content-Type: application/x-www-form-urlencoded".to_string()];
	let refused = request(pages, "POST", "/login", &form, "token=s3cres").await;
	assert_eq!(refused.status, 401);
	assert!(refused.header("set-cookie").is_none() && !refused.text().contains("s3cre"));
	let accepted = request(pages, "POST", "/login", &form, "token=s3cret").await;
	assert_eq!(accepted.status, 303);
	assert_eq!(accepted.header("x-frame-options").as_deref(), Some("DENY"));
	let cookie = accepted.header("set-cookie").expect("a cookie");
	assert!(
		cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
		"{cookie}"
	);
	assert!(!cookie.contains("s3cret"), "{cookie}");
	let pair = cookie.split(';').next().unwrap().to_string();
	let with_cookie = vec![format!("Cookie: {pair}")];
	assert_eq!(get(pages, "/nets", &with_cookie).await.status, 200);
	assert_eq!(get(pages, "/api/status", &with_cookie).await.status, 200);
	// A cookie made up from the token itself is refused.
	let forged = vec!["Cookie: tigers_session=s3cret".to_string()];
	assert_eq!(get(pages, "/nets", &forged).await.status, 401);
	// A log-out ends the session: the cookie no longer opens a page, even if kept.
	let out = request(pages, "POST", "/logout", &with_cookie, "").await;
	assert_eq!(out.status, 303);
	assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
	assert_eq!(get(pages, "/nets", &with_cookie).await.status, 401);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_wrong_tokens_from_one_address_waits_and_the_right_token_still_works_from_another()
 {
	let (_temp, running, pages) = start_with_pages("web-flood", Some("s3cret")).await;
	let form = ["Content-Type: application/x-www-form-urlencoded".to_string()];
	let flooder: IpAddr = "127.0.0.1".parse().unwrap();
	let (mut wrong, mut waited) = (0, 0);
	let started = Instant::now();
	for n in 0..200 {
		let answer = request_from(
			flooder,
			pages,
			"POST",
			"/login",
			&form,
			&format!("token=guess{n}"),
		)
		.await;
		match answer.status {
			401 => wrong += 1,
			429 => {
				waited += 1;
				let retry: u64 = answer
					.header("retry-after")
					.expect("a retry time")
					.parse()
					.unwrap();
				assert!(retry >= 1, "{retry}");
				assert!(answer.text().contains("try again in"), "{}", answer.text());
			}
			other => panic!("a wrong token answered {other}"),
		}
	}
	// Five free tries, then one a second at most (doubling) for as long as the flood lasted.
	let seconds = started.elapsed().as_secs();
	assert!(
		wrong >= 5 && wrong <= 6 + (seconds + 2).ilog2() as usize,
		"{wrong} checked in {seconds} s"
	);
	assert_eq!(wrong + waited, 200);
	// The flooder's address waits even with the right token, a script's bearer header among them.
	assert_eq!(
		request_from(flooder, pages, "POST", "/login", &form, "token=s3cret")
			.await
			.status,
		429
	);
	let script = request_from(flooder, pages, "GET", "/api/status", &bearer("s3cret"), "").await;
	assert_eq!(script.status, 429);
	// Another address logs in and reads at once.
	let other: IpAddr = "127.0.0.2".parse().unwrap();
	let accepted = request_from(other, pages, "POST", "/login", &form, "token=s3cret").await;
	assert_eq!(accepted.status, 303);
	assert_eq!(
		request_from(other, pages, "GET", "/api/status", &bearer("s3cret"), "")
			.await
			.status,
		200
	);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workers_chosen_name_is_escaped_on_the_workers_page() {
	let (_temp, running, pages) = start_with_pages("web-escape", None).await;
	let mut worker = client(running.address, None).await;
	let mut join = join_request("w-script");
	join.name = "<script>alert('name')</script>".into();
	join.host = "<img src=x onerror=alert(1)>".into();
	worker.join(join).await.expect("the join is accepted");
	let deadline = Instant::now() + WAIT;
	let page = loop {
		let page = get(pages, "/workers", &[]).await;
		assert_eq!(page.status, 200);
		if page.text().contains("alert") || Instant::now() > deadline {
			break page.text();
		}
		tokio::time::sleep(Duration::from_millis(200)).await;
	};
	assert!(
		page.contains("&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;"),
		"{page}"
	);
	assert!(
		page.contains("&lt;img src=x onerror=alert(1)&gt;"),
		"{page}"
	);
	assert!(
		!page.contains("<script>alert") && !page.contains("<img"),
		"{page}"
	);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_serve_listed_files_only_and_a_net_has_the_sha256_its_page_shows() {
	let (temp, running, pages) = start_with_pages("web-downloads", None).await;
	let net = get(pages, "/download/nets/gen-000000.safetensors", &[]).await;
	assert_eq!(net.status, 200);
	let digest: String = Sha256::digest(&net.body)
		.iter()
		.map(|b| format!("{b:02x}"))
		.collect();
	let listed = get(pages, "/nets", &[]).await.text();
	assert!(
		listed.contains(&digest),
		"the page shows the file's sha256 {digest}"
	);
	assert!(listed.contains("href=\"/download/nets/gen-000000.safetensors\""));
	assert_eq!(
		net.body,
		std::fs::read(temp.join("nets/gen-000000.safetensors")).unwrap()
	);

	for path in [
		"/download/nets/..%2Fledger.sqlite",
		"/download/nets/..%2F..%2Frun%2Fledger.sqlite",
		"/download/nets/../ledger.sqlite",
		"/download/nets/gen-000001.safetensors",
		"/download/nets/gen-0.safetensors",
		"/download/nets/ledger.sqlite",
		"/download/games/..%2Fledger.sqlite",
		"/download/games/gen-000000.records.gz",
		"/download/../ledger.sqlite",
	] {
		let refused = get(pages, path, &[]).await;
		assert!(
			matches!(refused.status, 400 | 404),
			"{path}: {}",
			refused.status
		);
		assert!(!refused.body.starts_with(b"SQLite"), "{path}");
	}
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_status_answers_the_status_json_and_the_games_are_listed_replayed_and_downloaded() {
	let (_temp, running, pages) = start_with_pages("web-status", None).await;
	let mut worker = client(running.address, None).await;
	let secret = join(&mut worker, "w-games").await;
	let (batches, mut inbound, _) = session(&mut worker, "w-games", &secret).await;
	batches
		.send(batch_message(real_batch(1, 0, 5)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);

	// /api/status is coordinator status's JSON: the same keys, and the same figures.
	let answer = get(pages, "/api/status", &[]).await;
	assert_eq!(
		answer.header("content-type").as_deref(),
		Some("application/json")
	);
	let web: Value = serde_json::from_slice(&answer.body).expect("JSON");
	let grpc = progress_json(&status(&mut worker).await);
	let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
	assert_eq!(keys(&web), keys(&grpc));
	for key in ["run", "run_id", "generation", "samples_total"] {
		assert_eq!(web[key], grpc[key], "{key}");
	}

	// The game reaches the archive within a few seconds; then it is listed and replayed.
	let deadline = Instant::now() + WAIT;
	while !get(pages, "/games", &[])
		.await
		.text()
		.contains("gen-000000.records.gz")
	{
		assert!(
			Instant::now() < deadline,
			"the game never reached the archive"
		);
		tokio::time::sleep(Duration::from_millis(200)).await;
	}
	let file = get(pages, "/download/games/gen-000000.records.gz", &[]).await;
	assert_eq!(file.status, 200);
	let text = tigers_proto::games::records_text(&file.body).expect("a gzip of records");
	assert!(text.starts_with("tigers-and-sheep record"), "{text}");
	let list = get(pages, "/games/0", &[]).await;
	assert!(
		list.text().contains("href=\"/games/0/0\""),
		"{}",
		list.text()
	);
	let viewer = get(pages, "/games/0/0", &[]).await;
	assert_eq!(viewer.status, 200);
	assert!(viewer.text().contains("id=\"plies\"") && viewer.text().contains("\"cells\""));
	assert_eq!(get(pages, "/games/0/999", &[]).await.status, 404);
	assert_eq!(get(pages, "/games/7", &[]).await.status, 404);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_shows_each_positions_exact_value_where_the_tables_know_it() {
	let temp = temp_dir("web-values");
	let mut config = test_config(temp.to_path_buf(), None);
	config.no_tablebase = false;
	config.tablebase = Some(crate::tablebase::table_path());
	config.placement = Some(crate::tablebase::last_layers().clone());
	let pages = SocketAddr::from(([127, 0, 0, 1], free_port()));
	config.http_listen = Some(pages);
	let table = crate::tablebase::table().clone();
	let running = start(config).await;
	let mut worker = client(running.address, None).await;
	let secret = join(&mut worker, "w-values").await;
	let (batches, mut inbound, _) = session(&mut worker, "w-values", &secret).await;
	// Forty plies place every sheep: the last position is in the movement table, the one two
	// plies before (one sheep in hand) in the last placement layers.
	let batch = real_batch(1, 0, 41);
	let record = tigers_core::record::GameRecord::from_text(&batch.game_records[0]).unwrap();
	assert_eq!(record.moves.len(), 40, "the game places every sheep");
	batches.send(batch_message(batch)).await.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let deadline = Instant::now() + WAIT;
	let viewer = loop {
		let viewer = get(pages, "/games/0/0", &[]).await;
		if viewer.status == 200 || Instant::now() > deadline {
			break viewer.text();
		}
		tokio::time::sleep(Duration::from_millis(200)).await;
	};
	let (game, _) = record.replay();
	let last = game.position();
	let value = table
		.probe(last.board, last.turn)
		.expect("a movement-phase position");
	let expected = format!("{} to move: {value} (movement table)", last.turn.name());
	assert!(viewer.contains(&expected), "{expected} in {viewer}");
	assert!(viewer.contains("(placement layers)"), "{viewer}");
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_play_pages_and_their_api_are_served_beside_the_run_behind_its_token() {
	let (_temp, running, pages) = start_with_pages("web-play", Some("s3cret")).await;
	let position = "/api/v1/position?position=SS.SS%2FSSSSS%2FSS.TS%2FSTTTS%2FSSSSS+t+0";
	for path in ["/play", "/analysis", "/play/assets/play.js", position] {
		assert_eq!(get(pages, path, &[]).await.status, 401, "{path}");
	}
	let token = bearer("s3cret");
	for (path, kind) in [
		("/play", "text/html"),
		("/analysis", "text/html"),
		("/play/assets/board.js", "text/javascript"),
	] {
		let answer = get(pages, path, &token).await;
		assert_eq!(answer.status, 200, "{path}");
		assert!(answer.header("content-type").unwrap().starts_with(kind));
		// No inline script is allowed, and the pages hold none.
		let policy = answer.header("content-security-policy").expect("a policy");
		assert!(policy.contains("script-src 'self'"), "{policy}");
		assert!(!policy.contains("unsafe-inline"), "{policy}");
		if kind == "text/html" {
			assert!(!answer.text().contains("<script>"), "{path}");
		}
	}
	// The run's own pages link to them.
	let run = get(pages, "/", &token).await.text();
	assert!(run.contains("href=\"/play\"") && run.contains("href=\"/analysis\""));
	// The API answers with the run's net: generation 0 at the start.
	let about: Value =
		serde_json::from_slice(&get(pages, "/api/v1/server", &token).await.body).expect("JSON");
	assert_eq!(about["net"]["generation"], 0, "{about}");
	assert!(about["players"].as_array().unwrap().contains(&"net".into()));
	let answer = get(pages, position, &token).await;
	assert_eq!(answer.status, 200, "{}", answer.text());
	let moves = serde_json::from_slice::<Value>(&answer.body).expect("JSON")["moves"]
		.as_array()
		.expect("moves")
		.len();
	assert_eq!(moves, 4);
	let chosen = request(
		pages,
		"POST",
		"/api/v1/move",
		&[
			token[0].clone(),
			"Content-Type: application/json".to_string(),
		],
		r#"{"position": "T...T/...../...../...../T...T s 20", "player": "net", "ms": 50}"#,
	)
	.await;
	assert_eq!(chosen.status, 200, "{}", chosen.text());
	running.stop().await;
}
