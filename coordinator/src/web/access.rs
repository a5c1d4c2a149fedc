//! Who may read the pages: with a token set, every request shows it, as `Authorization: Bearer
//! TOKEN` (scripts) or as the cookie the login form sets (browsers). Only digests of the token
//! are kept, and every comparison is of fixed-length digests in constant time, so the time
//! taken says nothing about the token. The token itself is never echoed, never put in a cookie
//! and never taken from a URL.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::Web;
use super::html::{escape, html_response};
use super::query::form_value;

/// The cookie's name.
pub(crate) const COOKIE: &str = "tigers_session";

/// What the cookie's value is the HMAC of, keyed by the token: a fixed label, so the cookie
/// proves the token was given without being it (and changes with the token).
const COOKIE_LABEL: &[u8] = b"tigers-and-sheep web session v1";

/// The most bytes a login form may send.
pub(crate) const LOGIN_BYTES: usize = 4096;

/// The token's digests; with none, every request is let through.
#[derive(Clone)]
pub(crate) struct Access {
	expected: Option<Expected>,
}

/// What a request is compared with: sha256 of the bearer header, and sha256 of the cookie.
#[derive(Clone)]
struct Expected {
	bearer: [u8; 32],
	cookie: [u8; 32],
}

impl Access {
	/// The check for `token`, or none.
	pub(crate) fn new(token: Option<&str>) -> Access {
		let expected = token.map(|token| Expected {
			bearer: sha256(format!("Bearer {token}").as_bytes()),
			cookie: sha256(cookie_value(token).as_bytes()),
		});
		Access { expected }
	}

	/// Whether the run has a token.
	pub(crate) fn is_required(&self) -> bool {
		self.expected.is_some()
	}

	/// Whether `headers` carry the token, as a bearer header or as the login cookie.
	pub(crate) fn allows(&self, headers: &HeaderMap) -> bool {
		let Some(expected) = &self.expected else {
			return true;
		};
		let bearer = headers
			.get(header::AUTHORIZATION)
			.is_some_and(|value| same(value.as_bytes(), &expected.bearer));
		let cookie = headers
			.get_all(header::COOKIE)
			.iter()
			.filter_map(|value| value.to_str().ok())
			.flat_map(|value| value.split(';'))
			.filter_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
			.any(|value| same(value.as_bytes(), &expected.cookie));
		bearer | cookie
	}

	/// Whether `token`, as typed into the login form, is the run's.
	fn is_token(&self, token: &str) -> bool {
		self.expected
			.as_ref()
			.is_some_and(|expected| same(cookie_value(token).as_bytes(), &expected.cookie))
	}
}

/// The login cookie's value for `token`: the hex HMAC-SHA256 of [`COOKIE_LABEL`].
fn cookie_value(token: &str) -> String {
	hmac_sha256(token.as_bytes(), COOKIE_LABEL)
		.iter()
		.map(|byte| format!("{byte:02x}"))
		.collect()
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
	Sha256::digest(bytes).into()
}

/// Whether `presented` hashes to `expected`, compared in constant time.
fn same(presented: &[u8], expected: &[u8; 32]) -> bool {
	sha256(presented).ct_eq(expected).into()
}

/// HMAC-SHA256 (RFC 2104) of `message` keyed by `key`.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
	const BLOCK: usize = 64;
	let mut block = [0u8; BLOCK];
	if key.len() > BLOCK {
		block[..32].copy_from_slice(&sha256(key));
	} else {
		block[..key.len()].copy_from_slice(key);
	}
	let pad = |byte: u8| block.map(|k| k ^ byte);
	let inner = Sha256::new()
		.chain_update(pad(0x36))
		.chain_update(message)
		.finalize();
	Sha256::new()
		.chain_update(pad(0x5c))
		.chain_update(inner)
		.finalize()
		.into()
}

/// Lets a request through if it carries the token; otherwise answers 401: the login form for
/// a page, a sentence for the JSON endpoints and downloads.
pub(crate) async fn require(
	State(web): State<std::sync::Arc<Web>>,
	request: Request,
	next: Next,
) -> Response {
	if web.access.allows(request.headers()) {
		return next.run(request).await;
	}
	let path = request.uri().path();
	if path.starts_with("/api/") || path.starts_with("/download/") {
		let mut refused = (
			StatusCode::UNAUTHORIZED,
			"this run needs its token: send Authorization: Bearer TOKEN\n",
		)
			.into_response();
		refused
			.headers_mut()
			.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
		return refused;
	}
	login_page(StatusCode::UNAUTHORIZED, None)
}

/// The login form, with a sentence saying why it is shown again, if any.
fn login_page(status: StatusCode, problem: Option<&str>) -> Response {
	let problem = problem.map_or(String::new(), |p| {
		format!("<p class=\"problem\">{}</p>", escape(p))
	});
	let body = format!(
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Log in · Tigers \
		 and Sheep</title><style>{}</style></head><body><main><h1>Tigers and Sheep</h1>\
		 <p>This run's pages need its token.</p>{problem}\
		 <form method=\"post\" action=\"/login\"><label>Token \
		 <input type=\"password\" name=\"token\" autocomplete=\"current-password\" autofocus>\
		 </label> <button type=\"submit\">Log in</button></form></main></body></html>\n",
		include_str!("assets/style.css")
	);
	html_response(status, body)
}

/// `POST /login`: a form with the token. The right token sets the cookie (HttpOnly,
/// SameSite=Strict) and goes to the Run page; a wrong one shows the form again.
pub(crate) async fn login(
	State(web): State<std::sync::Arc<Web>>,
	body: axum::body::Bytes,
) -> Response {
	if !web.access.is_required() {
		return redirect_home(None);
	}
	match form_value(&body, "token") {
		Some(token) if web.access.is_token(&token) => {
			let cookie = format!(
				"{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
				cookie_value(&token)
			);
			redirect_home(Some(cookie))
		}
		_ => login_page(
			StatusCode::UNAUTHORIZED,
			Some("That is not this run's token."),
		),
	}
}

/// `POST /logout`: forgets the cookie.
pub(crate) async fn logout() -> Response {
	redirect_home(Some(format!(
		"{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
	)))
}

/// A redirect to the Run page, setting `cookie` if any.
fn redirect_home(cookie: Option<String>) -> Response {
	let mut response = Response::new(Body::empty());
	*response.status_mut() = StatusCode::SEE_OTHER;
	let headers = response.headers_mut();
	headers.insert(header::LOCATION, HeaderValue::from_static("/"));
	if let Some(value) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
		headers.insert(header::SET_COOKIE, value);
	}
	response
}

#[cfg(test)]
mod tests {
	use super::*;

	fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
		let mut map = HeaderMap::new();
		for (name, value) in pairs {
			map.append(name, value.parse().unwrap());
		}
		map
	}

	#[test]
	fn hmac_matches_rfc_4231() {
		let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
		let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
		assert_eq!(
			hex,
			"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
		);
		// A key longer than the block is hashed first (RFC 4231 test case 6).
		let mac = hmac_sha256(
			&[0xaa; 131],
			b"Test Using Larger Than Block-Size Key - Hash Key First",
		);
		assert_eq!(mac[..4], [0x60, 0xe4, 0x31, 0x59]);
	}

	#[test]
	fn the_bearer_header_or_the_cookie_lets_a_request_through() {
		let access = Access::new(Some("s3cret"));
		let cookie = format!("other=1; {COOKIE}={}", cookie_value("s3cret"));
		assert!(access.allows(&headers(&[(header::AUTHORIZATION, "Bearer s3cret")])));
		assert!(access.allows(&headers(&[(header::COOKIE, &cookie)])));
		for refused in [
			headers(&[]),
			headers(&[(header::AUTHORIZATION, "Bearer s3cre")]),
			headers(&[(header::AUTHORIZATION, "s3cret")]),
			// The raw token is no cookie, nor is another token's.
			headers(&[(header::COOKIE, &format!("{COOKIE}=s3cret"))]),
			headers(&[(
				header::COOKIE,
				&format!("{COOKIE}={}", cookie_value("other")),
			)]),
		] {
			assert!(!access.allows(&refused), "{refused:?}");
		}
		assert!(Access::new(None).allows(&headers(&[])));
	}

	#[test]
	fn the_cookie_is_not_the_token() {
		let value = cookie_value("s3cret");
		assert_eq!(value.len(), 64);
		assert!(!value.contains("s3cret"));
		assert_ne!(value, cookie_value("s3cres"));
		assert!(Access::new(Some("s3cret")).is_token("s3cret"));
		assert!(!Access::new(Some("s3cret")).is_token("s3cret "));
	}
}
