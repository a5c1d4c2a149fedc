//! Bearer-token authentication for every RPC.

use tonic::service::Interceptor;
use tonic::{Request, Status};

/// Checks `authorization: Bearer <token>` on each request; with no token configured, lets
/// everything through.
#[derive(Clone)]
pub struct TokenCheck {
	expected: Option<String>,
}

impl TokenCheck {
	/// A check for `token`, or none.
	pub fn new(token: Option<String>) -> TokenCheck {
		TokenCheck {
			expected: token.map(|t| format!("Bearer {t}")),
		}
	}
}

/// Compares without stopping at the first difference, so timing says nothing about the token.
fn same(a: &[u8], b: &[u8]) -> bool {
	a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Interceptor for TokenCheck {
	fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
		let Some(expected) = &self.expected else {
			return Ok(request);
		};
		match request.metadata().get("authorization") {
			Some(value) if same(value.as_bytes(), expected.as_bytes()) => Ok(request),
			Some(_) => Err(Status::unauthenticated(
				"the token does not match this run's token",
			)),
			None => Err(Status::unauthenticated(
				"this coordinator needs a token: pass --token or set TIGERS_TOKEN",
			)),
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
		let wrong = check.call(request(Some("Bearer s3cres"))).unwrap_err();
		assert_eq!(wrong.code(), tonic::Code::Unauthenticated);
		let missing = check.call(request(None)).unwrap_err();
		assert!(missing.message().contains("needs a token"));
		assert!(TokenCheck::new(None).call(request(None)).is_ok());
	}
}
