//! A server with a token: the login form and a bearer header, a session that ends when its time
//! is up, and the same over TLS with the certificate the worker's tests use.

use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use tigers_core::analysis::Tables;
use tigers_play::access::AccessSettings;
use tigers_play::limits::Limits;
use tigers_play::listen::tls_config;
use tigers_testkit::http::{get, request, request_tls};

use crate::support::serve_with;

/// The self-signed test certificate for 127.0.0.1, and a CA that did not sign it.
fn test_data(file: &str) -> PathBuf {
	PathBuf::from(env!("CARGO_MANIFEST_DIR"))
		.join("../worker/tests/data")
		.join(file)
}

fn with_token(session: Duration) -> AccessSettings {
	AccessSettings {
		token: Some("s3cret".into()),
		session,
		home: "/play",
		what: "This server's pages",
		..AccessSettings::default()
	}
}

const FORM: &str = "Content-Type: application/x-www-form-urlencoded";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_a_token_asks_for_it_and_a_login_lasts_its_time() {
	let address = serve_with(
		Tables::default(),
		Limits::default(),
		with_token(Duration::from_secs(2)),
		None,
	)
	.await;
	let page = get(address, "/play", &[]).await;
	assert_eq!(page.status, 401);
	assert!(page.text().contains("action=\"/login\""), "{}", page.text());
	assert!(
		page.text()
			.contains("This server&#39;s pages need its token")
	);
	assert!(page.header("content-security-policy").is_some());
	let script = get(address, "/api/v1/server", &[]).await;
	assert_eq!(script.status, 401);
	assert_eq!(script.header("www-authenticate").as_deref(), Some("Bearer"));
	assert_eq!(
		get(
			address,
			"/api/v1/server",
			&["Authorization: Bearer s3cret".into()]
		)
		.await
		.status,
		200
	);

	let form = [FORM.to_string()];
	let wrong = request(address, "POST", "/login", &form, "token=s3cres").await;
	assert_eq!(wrong.status, 401);
	assert!(wrong.text().contains("not this server"));
	let accepted = request(address, "POST", "/login", &form, "token=s3cret").await;
	assert_eq!(accepted.status, 303);
	assert_eq!(accepted.header("location").as_deref(), Some("/play"));
	let cookie = accepted.header("set-cookie").expect("a cookie");
	assert!(
		cookie.contains("Max-Age=2") && !cookie.contains("Secure"),
		"{cookie}"
	);
	let with_cookie = vec![format!("Cookie: {}", cookie.split(';').next().unwrap())];
	assert_eq!(get(address, "/play", &with_cookie).await.status, 200);
	assert_eq!(
		get(address, "/api/v1/server", &with_cookie).await.status,
		200
	);
	let home = get(address, "/", &with_cookie).await;
	assert_eq!(home.status, 303);
	assert_eq!(home.header("location").as_deref(), Some("/play"));
	// The session's time runs out: the cookie no longer opens anything.
	tokio::time::sleep(Duration::from_millis(2_300)).await;
	assert_eq!(get(address, "/play", &with_cookie).await.status, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tls_the_pages_answer_and_the_cookie_is_marked_secure() {
	let tls = tls_config(
		&test_data("test-coordinator.pem"),
		&test_data("test-coordinator.key"),
	)
	.expect("the test certificate");
	let settings = AccessSettings {
		secure: true,
		..with_token(Duration::from_secs(60))
	};
	let address = serve_with(Tables::default(), Limits::default(), settings, Some(tls)).await;
	let ca = test_data("test-coordinator.pem");
	let about = request_tls(
		address,
		&ca,
		"GET",
		"/api/v1/server",
		&["Authorization: Bearer s3cret".into()],
		"",
	)
	.await
	.expect("a TLS connection");
	assert_eq!(about.status, 200, "{}", about.text());
	let login = request_tls(
		address,
		&ca,
		"POST",
		"/login",
		&[FORM.into()],
		"token=s3cret",
	)
	.await
	.expect("a TLS connection");
	assert_eq!(login.status, 303);
	assert!(login.header("set-cookie").unwrap().ends_with("; Secure"));
	// A client that trusts another certificate does not get through.
	let refused = request_tls(
		address,
		&test_data("unrelated-ca.pem"),
		"GET",
		"/play",
		&[],
		"",
	)
	.await;
	assert!(refused.is_err());
	// Plain HTTP on the TLS port gets no page.
	let mut plain = tokio::net::TcpStream::connect(address).await.unwrap();
	plain
		.write_all(b"GET /play HTTP/1.1\r\nHost: x\r\n\r\n")
		.await
		.unwrap();
	let mut answer = Vec::new();
	let _ = tokio::time::timeout(Duration::from_secs(20), plain.read_to_end(&mut answer)).await;
	assert!(!answer.starts_with(b"HTTP/1.1 200"));
}

#[test]
fn certificate_files_that_do_not_serve_are_named() {
	let missing = tls_config(
		&test_data("no-such.pem"),
		&test_data("test-coordinator.key"),
	)
	.unwrap_err();
	assert!(missing.contains("no-such.pem"), "{missing}");
	let swapped = tls_config(
		&test_data("test-coordinator.pem"),
		&test_data("test-coordinator.pem"),
	)
	.unwrap_err();
	assert!(swapped.contains("test-coordinator.pem"), "{swapped}");
	let readme =
		tls_config(&test_data("README.md"), &test_data("test-coordinator.key")).unwrap_err();
	assert!(readme.contains("README.md"), "{readme}");
}
