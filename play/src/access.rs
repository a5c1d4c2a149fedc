//! Who may use a server's pages: with a token set, every request shows it, as `Authorization:
//! Bearer TOKEN` (scripts) or as the session cookie the login form hands out (browsers).
//!
//! - The token is kept only as digests, and compared as fixed-length digests in constant
//!   time; it is never echoed, never put in a cookie and never taken from a URL.
//! - A login starts a session: a random identifier in a cookie (`HttpOnly`,
//!   `SameSite=Strict`, `Secure` when served over TLS) that lasts the configured time, or until
//!   `POST /logout` ends it. Sessions live in the server's memory, so a restart ends them all.
//! - Wrong tokens, from the form or a bearer header, are slowed by [`crate::throttle`]: a try
//!   past its bound is refused with 429 and the seconds to wait, unlooked-at. They are logged
//!   when an address is made to wait, and counted in `tigers_web_logins_total`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use rand::TryRng;
use rand::rngs::SysRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tracing::{info, warn};

use crate::listen::client_address;
use crate::pages::escape;
use crate::query::form_value;
use crate::throttle::{LoginLimits, Throttle, Wait};

/// The session cookie's name.
pub const COOKIE: &str = "tigers_session";

/// The counter of logins by outcome (`accepted`, `wrong`, `throttled`).
pub const LOGINS_METRIC: &str = "tigers_web_logins_total";

/// The most bytes a login form may send.
pub const LOGIN_BYTES: usize = 4096;

/// Sessions held at once; past it the one nearest its end is ended.
const SESSIONS_KEPT: usize = 10_000;

/// Random bytes in a session's identifier (it travels as twice as many hex digits).
const SESSION_BYTES: usize = 32;

/// How a server asks for its token.
#[derive(Clone, Debug)]
pub struct AccessSettings {
	/// The token, or none for a server open to all.
	pub token: Option<String>,
	/// How long a login lasts.
	pub session: Duration,
	/// Whether the pages are served over TLS: the cookie is then marked `Secure`.
	pub secure: bool,
	/// The bounds on wrong tokens.
	pub limits: LoginLimits,
	/// Where a login and a logout lead, such as `/`.
	pub home: &'static str,
	/// What the login page says needs the token, such as "This run's pages".
	pub what: &'static str,
	/// The login page's style sheet, sent inline.
	pub style: &'static str,
}

/// The default time a login lasts: a week.
pub const DEFAULT_SESSION: Duration = Duration::from_secs(7 * 24 * 3600);

impl Default for AccessSettings {
	/// No token; with one, a login lasts [`DEFAULT_SESSION`], over plain HTTP, within the
	/// default bounds on wrong tokens, leading to `/`.
	fn default() -> AccessSettings {
		AccessSettings {
			token: None,
			session: DEFAULT_SESSION,
			secure: false,
			limits: LoginLimits::default(),
			home: "/",
			what: "These pages",
			style: "",
		}
	}
}

/// The token's check, the sessions and the record of wrong tokens, shared by every request.
pub struct Access {
	settings: AccessSettings,
	expected: Option<Expected>,
	sessions: Mutex<HashMap<[u8; 32], Instant>>,
	throttle: Mutex<Throttle>,
}

/// What a request is compared with: sha256 of the bearer header, and of the token.
struct Expected {
	bearer: [u8; 32],
	token: [u8; 32],
}

/// What a request showed.
#[derive(Debug, PartialEq, Eq)]
enum Shown {
	/// A live session's cookie, or the right bearer token.
	Allowed,
	/// Nothing that passes (no header, or only a cookie of no live session).
	Nothing,
	/// A wrong bearer token.
	WrongToken,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
	mutex
		.lock()
		.unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Access {
	/// The check `settings` describe.
	pub fn new(settings: AccessSettings) -> Arc<Access> {
		let expected = settings.token.as_deref().map(|token| Expected {
			bearer: sha256(format!("Bearer {token}").as_bytes()),
			token: sha256(token.as_bytes()),
		});
		Arc::new(Access {
			throttle: Mutex::new(Throttle::new(settings.limits, Instant::now())),
			settings,
			expected,
			sessions: Mutex::new(HashMap::new()),
		})
	}

	/// Whether the server has a token.
	pub fn is_required(&self) -> bool {
		self.expected.is_some()
	}

	/// What `headers` show: a live session, the bearer token, a wrong one, or nothing.
	fn shown(&self, headers: &HeaderMap, now: Instant) -> Shown {
		let Some(expected) = &self.expected else {
			return Shown::Allowed;
		};
		if self.session_of(headers, now).is_some() {
			return Shown::Allowed;
		}
		match headers.get(header::AUTHORIZATION) {
			Some(value) if same(value.as_bytes(), &expected.bearer) => Shown::Allowed,
			Some(_) => Shown::WrongToken,
			None => Shown::Nothing,
		}
	}

	/// The digest of the live session `headers` carry a cookie of, if any.
	fn session_of(&self, headers: &HeaderMap, now: Instant) -> Option<[u8; 32]> {
		let sessions = lock(&self.sessions);
		cookies(headers)
			.map(|value| sha256(value.as_bytes()))
			.find(|digest| sessions.get(digest).is_some_and(|end| *end > now))
	}

	/// Whether `token`, as typed into the login form, is the server's.
	fn is_token(&self, token: &str) -> bool {
		self.expected
			.as_ref()
			.is_some_and(|expected| same(token.as_bytes(), &expected.token))
	}

	/// A new session's identifier, held until `now` plus the session's length.
	fn start_session(&self, now: Instant) -> Option<String> {
		let mut bytes = [0u8; SESSION_BYTES];
		SysRng.try_fill_bytes(&mut bytes).ok()?;
		let id: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
		let mut sessions = lock(&self.sessions);
		if sessions.len() >= SESSIONS_KEPT {
			sessions.retain(|_, end| *end > now);
			if sessions.len() >= SESSIONS_KEPT
				&& let Some(nearest) = sessions
					.iter()
					.min_by_key(|(_, end)| **end)
					.map(|(k, _)| *k)
			{
				sessions.remove(&nearest);
			}
		}
		sessions.insert(sha256(id.as_bytes()), now + self.settings.session);
		Some(id)
	}

	/// Ends the sessions `headers` carry cookies of.
	fn end_sessions(&self, headers: &HeaderMap) {
		let mut sessions = lock(&self.sessions);
		for value in cookies(headers) {
			sessions.remove(&sha256(value.as_bytes()));
		}
	}

	/// Sessions live at `now`.
	pub fn live_sessions(&self) -> usize {
		let now = Instant::now();
		lock(&self.sessions)
			.values()
			.filter(|end| **end > now)
			.count()
	}

	/// Whether `client` may try a token now.
	fn may_try(&self, client: IpAddr, now: Instant) -> Result<(), Wait> {
		let allowed = lock(&self.throttle).allowed(client, now);
		if allowed.is_err() {
			metrics::counter!(LOGINS_METRIC, "outcome" => "throttled").increment(1);
		}
		allowed
	}

	/// Counts a wrong token from `client`, and logs the wait it earns.
	fn wrong(&self, client: IpAddr, now: Instant) {
		metrics::counter!(LOGINS_METRIC, "outcome" => "wrong").increment(1);
		if let Some(wait) = lock(&self.throttle).failed(client, now) {
			warn!(
				%client,
				wait_s = wait.as_secs(),
				"wrong tokens for the web pages: this address must wait before its next try"
			);
		}
	}

	/// The cookie that starts session `id`.
	fn session_cookie(&self, id: &str) -> String {
		let secure = if self.settings.secure { "; Secure" } else { "" };
		format!(
			"{COOKIE}={id}; Path=/; Max-Age={}; HttpOnly; SameSite=Strict{secure}",
			self.settings.session.as_secs()
		)
	}

	/// The cookie that ends a session.
	fn ended_cookie(&self) -> String {
		let secure = if self.settings.secure { "; Secure" } else { "" };
		format!("{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict{secure}")
	}

	/// The login form, with a sentence saying why it is shown again, if any.
	fn login_page(&self, status: StatusCode, problem: Option<&str>) -> Response {
		let problem = problem.map_or(String::new(), |p| {
			format!("<p class=\"problem\">{}</p>", escape(p))
		});
		let body = format!(
			"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
			 <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
			 <title>Log in · Tigers and Sheep</title><style>{}</style></head><body><main>\
			 <h1>Tigers and Sheep</h1><p>{} need its token.</p>{problem}\
			 <form method=\"post\" action=\"/login\"><label>Token \
			 <input type=\"password\" name=\"token\" autocomplete=\"current-password\" autofocus>\
			 </label> <button type=\"submit\">Log in</button></form></main></body></html>\n",
			self.settings.style,
			escape(self.settings.what)
		);
		let mut response = (
			status,
			[
				(header::CONTENT_TYPE, "text/html; charset=utf-8"),
				(header::CACHE_CONTROL, "no-store"),
			],
			body,
		)
			.into_response();
		response.headers_mut().insert(
			header::CONTENT_SECURITY_POLICY,
			HeaderValue::from_static(
				"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
				 base-uri 'none'; frame-ancestors 'none'",
			),
		);
		response
	}

	/// A redirect to the home page, setting `cookie` if any.
	fn redirect_home(&self, cookie: Option<String>) -> Response {
		let mut response = Response::new(Body::empty());
		*response.status_mut() = StatusCode::SEE_OTHER;
		let headers = response.headers_mut();
		headers.insert(
			header::LOCATION,
			HeaderValue::from_static(self.settings.home),
		);
		if let Some(value) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
			headers.insert(header::SET_COOKIE, value);
		}
		response
	}
}

/// The values of every session cookie in `headers`.
fn cookies(headers: &HeaderMap) -> impl Iterator<Item = &str> {
	headers
		.get_all(header::COOKIE)
		.iter()
		.filter_map(|value| value.to_str().ok())
		.flat_map(|value| value.split(';'))
		.filter_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
		.filter(|value| !value.is_empty())
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
	Sha256::digest(bytes).into()
}

/// Whether `presented` hashes to `expected`, compared in constant time.
fn same(presented: &[u8], expected: &[u8; 32]) -> bool {
	sha256(presented).ct_eq(expected).into()
}

/// A 429 with `wait`'s sentence and its `Retry-After`: the login form again for a page, plain
/// text for the JSON endpoints and downloads.
fn too_many(access: &Access, wait: Wait, page: bool) -> Response {
	let sentence = wait.sentence();
	let mut response = if page {
		access.login_page(StatusCode::TOO_MANY_REQUESTS, Some(&sentence))
	} else {
		(StatusCode::TOO_MANY_REQUESTS, format!("{sentence}\n")).into_response()
	};
	response
		.headers_mut()
		.insert(header::RETRY_AFTER, HeaderValue::from(wait.seconds));
	response
}

/// Whether a request for `path` is from a script (JSON, downloads) rather than a page.
fn is_script_path(path: &str) -> bool {
	path.starts_with("/api/") || path.starts_with("/download/")
}

/// The middleware: lets a request through if it shows a live session or the token; otherwise
/// answers 401 (the login form for a page, a sentence for the API and downloads), or 429 when
/// its address has sent too many wrong tokens.
pub async fn require(State(access): State<Arc<Access>>, request: Request, next: Next) -> Response {
	let now = Instant::now();
	let client = client_address(request.extensions());
	let page = !is_script_path(request.uri().path());
	match access.shown(request.headers(), now) {
		Shown::Allowed => {
			if request.headers().contains_key(header::AUTHORIZATION)
				&& let Err(wait) = access.may_try(client, now)
			{
				// Even the right token waits, or waiting could be skipped by guessing on.
				return too_many(&access, wait, page);
			}
			next.run(request).await
		}
		Shown::WrongToken => {
			if let Err(wait) = access.may_try(client, now) {
				return too_many(&access, wait, page);
			}
			access.wrong(client, now);
			unauthorized(&access, page, "that is not this server's token")
		}
		Shown::Nothing => unauthorized(&access, page, "this server needs its token"),
	}
}

/// A 401: the login form for a page, a sentence naming the header for a script.
fn unauthorized(access: &Access, page: bool, why: &str) -> Response {
	if page {
		return access.login_page(StatusCode::UNAUTHORIZED, None);
	}
	let mut refused = (
		StatusCode::UNAUTHORIZED,
		format!("{why}: send Authorization: Bearer TOKEN\n"),
	)
		.into_response();
	refused
		.headers_mut()
		.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
	refused
}

/// `POST /login`: a form with the token. The right token starts a session and goes home; a
/// wrong one shows the form again; a try past the bounds is refused unlooked-at.
async fn login(State(access): State<Arc<Access>>, request: Request) -> Response {
	if !access.is_required() {
		return access.redirect_home(None);
	}
	let now = Instant::now();
	let client = client_address(request.extensions());
	if let Err(wait) = access.may_try(client, now) {
		return too_many(&access, wait, true);
	}
	let body = match axum::body::to_bytes(request.into_body(), LOGIN_BYTES).await {
		Ok(body) => body,
		Err(_) => Bytes::new(),
	};
	if !form_value(&body, "token").is_some_and(|token| access.is_token(&token)) {
		access.wrong(client, now);
		return access.login_page(
			StatusCode::UNAUTHORIZED,
			Some("That is not this server's token."),
		);
	}
	lock(&access.throttle).succeeded(client);
	let Some(id) = access.start_session(now) else {
		return (
			StatusCode::INTERNAL_SERVER_ERROR,
			"the system's random number generator failed, so no session could start\n",
		)
			.into_response();
	};
	metrics::counter!(LOGINS_METRIC, "outcome" => "accepted").increment(1);
	info!(%client, "a web login");
	access.redirect_home(Some(access.session_cookie(&id)))
}

/// `POST /logout`: ends the session and forgets its cookie.
async fn logout(State(access): State<Arc<Access>>, headers: HeaderMap) -> Response {
	access.end_sessions(&headers);
	access.redirect_home(Some(access.ended_cookie()))
}

/// The login and logout routes, outside the token's check, for a router of any state.
pub fn routes<S: Clone + Send + Sync + 'static>(access: Arc<Access>) -> Router<S> {
	Router::new()
		.route("/login", post(login))
		.route("/logout", post(logout))
		.with_state(access)
}

#[cfg(test)]
mod tests {
	use super::*;

	fn settings(token: Option<&str>) -> AccessSettings {
		AccessSettings {
			token: token.map(str::to_string),
			session: Duration::from_secs(60),
			secure: false,
			limits: LoginLimits::default(),
			home: "/",
			what: "This server's pages",
			style: "",
		}
	}

	fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
		let mut map = HeaderMap::new();
		for (name, value) in pairs {
			map.append(name, value.parse().unwrap());
		}
		map
	}

	#[test]
	fn the_bearer_header_or_a_live_session_lets_a_request_through() {
		let access = Access::new(settings(Some("s3cret")));
		let now = Instant::now();
		let id = access.start_session(now).unwrap();
		assert_eq!(id.len(), 64);
		assert!(!id.contains("s3cret"));
		let cookie = format!("other=1; {COOKIE}={id}");
		let shown = |pairs: &[(header::HeaderName, &str)]| access.shown(&headers(pairs), now);
		assert_eq!(
			shown(&[(header::AUTHORIZATION, "Bearer s3cret")]),
			Shown::Allowed
		);
		assert_eq!(shown(&[(header::COOKIE, &cookie)]), Shown::Allowed);
		assert_eq!(shown(&[]), Shown::Nothing);
		// The raw token is no cookie, nor is a made-up identifier.
		assert_eq!(
			shown(&[(header::COOKIE, &format!("{COOKIE}=s3cret"))]),
			Shown::Nothing
		);
		assert_eq!(
			shown(&[(header::COOKIE, &format!("{COOKIE}={}", "0".repeat(64)))]),
			Shown::Nothing
		);
		for wrong in ["Bearer s3cre", "s3cret", "Bearer s3cret "] {
			assert_eq!(
				shown(&[(header::AUTHORIZATION, wrong)]),
				Shown::WrongToken,
				"{wrong}"
			);
		}
		assert_eq!(
			Access::new(settings(None)).shown(&headers(&[]), now),
			Shown::Allowed
		);
	}

	#[test]
	fn a_session_ends_when_its_time_is_up_or_at_logout() {
		let access = Access::new(settings(Some("s3cret")));
		let now = Instant::now();
		let id = access.start_session(now).unwrap();
		let carrying = headers(&[(header::COOKIE, &format!("{COOKIE}={id}"))]);
		assert_eq!(
			access.shown(&carrying, now + Duration::from_secs(59)),
			Shown::Allowed
		);
		assert_eq!(
			access.shown(&carrying, now + Duration::from_secs(60)),
			Shown::Nothing
		);
		let other = access.start_session(now).unwrap();
		assert_ne!(id, other);
		let carrying = headers(&[(header::COOKIE, &format!("{COOKIE}={other}"))]);
		access.end_sessions(&carrying);
		assert_eq!(access.shown(&carrying, now), Shown::Nothing);
	}

	#[test]
	fn the_cookie_says_how_long_it_lasts_and_is_secure_over_tls() {
		let plain = Access::new(settings(Some("t")));
		let cookie = plain.session_cookie("abc");
		assert_eq!(
			cookie,
			"tigers_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Strict"
		);
		let tls = Access::new(AccessSettings {
			secure: true,
			..settings(Some("t"))
		});
		assert!(tls.session_cookie("abc").ends_with("; Secure"));
		assert!(tls.ended_cookie().contains("Max-Age=0"));
	}

	#[test]
	fn only_the_token_itself_is_the_token() {
		let access = Access::new(settings(Some("s3cret")));
		assert!(access.is_token("s3cret"));
		assert!(!access.is_token("s3cret "));
		assert!(!access.is_token(""));
		assert!(!Access::new(settings(None)).is_token("s3cret"));
	}

	#[test]
	fn the_sessions_stay_bounded() {
		let access = Access::new(settings(Some("t")));
		let now = Instant::now();
		for _ in 0..SESSIONS_KEPT + 10 {
			access.start_session(now).unwrap();
		}
		assert_eq!(access.live_sessions(), SESSIONS_KEPT);
	}
}
