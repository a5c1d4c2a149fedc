//! Bearer-token authentication for every RPC.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tigers_process::token::TOKEN_ENV;
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// Checks `authorization: Bearer <token>` on each request; with no token configured, lets
/// everything through. Only the sha256 of the expected header is kept.
#[derive(Clone)]
pub(crate) struct TokenCheck {
	expected: Option<[u8; 32]>,
}

impl TokenCheck {
	/// A check for `token`, or none.
	pub(crate) fn new(token: Option<String>) -> TokenCheck {
		TokenCheck {
			expected: token.map(|t| digest(format!("Bearer {t}").as_bytes())),
		}
	}
}

fn digest(bytes: &[u8]) -> [u8; 32] {
	Sha256::digest(bytes).into()
}

/// Whether `presented` is the header whose sha256 is `expected`. The digests have a fixed
/// length and compare in constant time, so the time taken says nothing about the token's length
/// or how much of it was right.
fn matches(presented: &[u8], expected: &[u8; 32]) -> bool {
	digest(presented).ct_eq(expected).into()
}

impl Interceptor for TokenCheck {
	fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
		let Some(expected) = &self.expected else {
			return Ok(request);
		};
		match request.metadata().get("authorization") {
			Some(value) if matches(value.as_bytes(), expected) => Ok(request),
			Some(_) => Err(Status::unauthenticated(
				"the token does not match this run's token",
			)),
			None => Err(Status::unauthenticated(format!(
				"this coordinator needs a token: pass --token or set {TOKEN_ENV}"
			))),
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn request(auth: Option<&str>) -> Request<()> {
		let mut request = Request::new(());
		if let Some(auth) = auth {
			request
				.metadata_mut()
				.insert("authorization", auth.parse().unwrap());
		}
		request
	}

	#[test]
	fn tokens_are_checked() {
		let mut check = TokenCheck::new(Some("s3cret".into()));
		assert!(check.call(request(Some("Bearer s3cret"))).is_ok());
		for wrong in [
			"Bearer s3cres",
			"Bearer s3cre",
			"Bearer s3crett",
			"s3cret",
			"",
		] {
			let refused = check.call(request(Some(wrong))).unwrap_err();
			assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{wrong:?}");
		}
		let missing = check.call(request(None)).unwrap_err();
		assert!(missing.message().contains("needs a token"));
		assert!(TokenCheck::new(None).call(request(None)).is_ok());
	}

	#[test]
	fn only_the_digest_of_the_token_is_kept() {
		let check = TokenCheck::new(Some("s3cret".into()));
		let expected = check.expected.unwrap();
		assert_eq!(expected, digest(b"Bearer s3cret"));
		assert!(matches(b"Bearer s3cret", &expected));
		// Prefixes and extensions fail like any other wrong token.
		assert!(!matches(b"Bearer s3cre", &expected));
		assert!(!matches(b"Bearer s3crett", &expected));
	}
}
