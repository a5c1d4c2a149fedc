//! Worker identities bound to secrets. A worker id is public (it is in every `Status`); the
//! secret handed out at the identity's first `Join` is not, and every later `Join` and
//! `SessionOpen` must present it. The ledger keeps only the secret's sha256.
//!
//! What a `Join` gets, by what the ledger holds and what the request presents:
//!
//! | ledger | request presents | outcome |
//! |---|---|---|
//! | no secret (a new identity, or one from before secrets) | nothing | a new secret is issued |
//! | no secret | a secret | that secret is adopted (a worker whose run directory was replaced) |
//! | a secret no session has presented yet | nothing | a new secret replaces it (the answer that carried it was lost) |
//! | a secret a session has presented | nothing | PERMISSION_DENIED |
//! | a secret | the same secret | joined |
//! | a secret | another secret | PERMISSION_DENIED |

use rand::TryRng;
use rand::rngs::SysRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::IdentityError;
use crate::store::ledger::StoredSecret;

/// Random bytes in a secret; it travels as twice as many hex digits.
const SECRET_BYTES: usize = 32;

/// What a `Join` does to an identity's secret.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum JoinSecret {
	/// Bind a new secret and hand it to the worker.
	Issue,
	/// Bind the secret the worker presented.
	Adopt,
	/// The worker presented the secret it is bound to.
	Verified,
}

/// A new secret from the operating system's generator, as 64 lowercase hex digits.
pub(crate) fn new_secret() -> Result<String, IdentityError> {
	let mut bytes = [0u8; SECRET_BYTES];
	SysRng
		.try_fill_bytes(&mut bytes)
		.map_err(|_| IdentityError::Random)?;
	Ok(hex(&bytes))
}

/// The sha256 of `secret`, as the ledger keeps it (lowercase hex).
pub(crate) fn secret_sha256(secret: &str) -> String {
	hex(&Sha256::digest(secret.as_bytes()))
}

/// Whether `secret` is what [`new_secret`] makes: 64 lowercase hex digits.
pub(crate) fn is_well_formed(secret: &str) -> bool {
	secret.len() == 2 * SECRET_BYTES
		&& secret
			.bytes()
			.all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `secret` hashes to `sha256`. The digests compare in constant time, so how long the
/// comparison takes says nothing about how much of the secret was right.
pub(crate) fn is_secret_of(secret: &str, sha256: &str) -> bool {
	secret_sha256(secret)
		.as_bytes()
		.ct_eq(sha256.as_bytes())
		.into()
}

/// What a `Join` of `worker_id` presenting `presented` (empty for none) does, given what the
/// ledger holds (see the module's table).
pub(crate) fn judge_join(
	worker_id: &str,
	stored: Option<&StoredSecret>,
	presented: &str,
) -> Result<JoinSecret, IdentityError> {
	if !presented.is_empty() && !is_well_formed(presented) {
		return Err(IdentityError::Malformed);
	}
	let refused = || IdentityError::WrongSecret(crate::text::excerpt(worker_id));
	match (stored, presented.is_empty()) {
		(None, true) => Ok(JoinSecret::Issue),
		(None, false) => Ok(JoinSecret::Adopt),
		(Some(stored), true) if !stored.confirmed => Ok(JoinSecret::Issue),
		(Some(_), true) => Err(refused()),
		(Some(stored), false) if is_secret_of(presented, &stored.sha256) => {
			Ok(JoinSecret::Verified)
		}
		(Some(_), false) => Err(refused()),
	}
}

/// Checks the secret a `SessionOpen` of `worker_id` presents against the one its `Join` bound.
pub(crate) fn judge_session(
	worker_id: &str,
	sha256: &str,
	presented: &str,
) -> Result<(), IdentityError> {
	if is_well_formed(presented) && is_secret_of(presented, sha256) {
		Ok(())
	} else {
		Err(IdentityError::WrongSecret(crate::text::excerpt(worker_id)))
	}
}

fn hex(bytes: &[u8]) -> String {
	bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
	use super::*;

	fn stored(secret: &str, confirmed: bool) -> StoredSecret {
		StoredSecret {
			sha256: secret_sha256(secret),
			confirmed,
		}
	}

	#[test]
	fn secrets_are_random_well_formed_and_hashed() {
		let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
		assert_ne!(a, b);
		assert!(is_well_formed(&a), "{a}");
		assert!(!is_well_formed(&a.to_uppercase()));
		assert!(!is_well_formed(&a[1..]));
		assert!(is_secret_of(&a, &secret_sha256(&a)));
		assert!(!is_secret_of(&b, &secret_sha256(&a)));
		// The sha256 of "abc", so the ledger's digests can be checked with any tool.
		assert_eq!(
			secret_sha256("abc"),
			"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
		);
	}

	#[test]
	fn joins_follow_the_table() {
		let (mine, theirs) = (new_secret().unwrap(), new_secret().unwrap());
		let join =
			|stored: Option<&StoredSecret>, presented: &str| judge_join("w", stored, presented);
		assert_eq!(join(None, ""), Ok(JoinSecret::Issue));
		assert_eq!(join(None, &mine), Ok(JoinSecret::Adopt));
		assert_eq!(join(Some(&stored(&mine, false)), ""), Ok(JoinSecret::Issue));
		assert!(matches!(
			join(Some(&stored(&mine, true)), ""),
			Err(IdentityError::WrongSecret(_))
		));
		for confirmed in [false, true] {
			let bound = stored(&mine, confirmed);
			assert_eq!(join(Some(&bound), &mine), Ok(JoinSecret::Verified));
			assert!(matches!(
				join(Some(&bound), &theirs),
				Err(IdentityError::WrongSecret(_))
			));
		}
		assert_eq!(join(None, "not hex"), Err(IdentityError::Malformed));
	}

	#[test]
	fn sessions_need_the_bound_secret() {
		let mine = new_secret().unwrap();
		let sha = secret_sha256(&mine);
		assert!(judge_session("w", &sha, &mine).is_ok());
		for wrong in ["", "x", &new_secret().unwrap()] {
			assert!(judge_session("w", &sha, wrong).is_err(), "{wrong}");
		}
	}
}
