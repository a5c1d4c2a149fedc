//! The cluster's wire format (package `tigers.v1`) and conversions between its messages and
//! core types. Only this crate knows the messages' layout; conversions from the wire check
//! everything and refuse what does not convert.
//!
//! - [`v1`]: the generated messages, and the clients and servers of the three services;
//! - [`client`]: the one client of the coordinator (endpoint, TLS, token, limits, errors),
//!   and the check of a received net against its announced hash;
//! - [`codec`]: prost's encoding, with a message that does not decode answered
//!   `INVALID_ARGUMENT`;
//! - [`convert`]: samples and assignments to and from core types;
//! - [`games`]: games at rest, a run's game archive (gzip files of core's text records);
//! - [`services`]: who serves which service, and a call the server does not serve told as
//!   the kind of coordinator it reached;
//! - [`stored`]: samples at rest (the coordinator's ledger and checkpoint), in the wire's
//!   `Sample` messages;
//! - [`encode_batch`] and [`decode_batch`]: a sample batch as bytes, for a worker's spool.

pub mod client;
pub mod codec;
pub mod convert;
pub mod games;
pub mod services;
pub mod stored;

use prost::Message;

/// Trailing metadata on the `INVALID_ARGUMENT` status that ends a session whose sample batch was
/// refused: the refused batch's sequence number, in decimal, so the worker drops that batch.
pub const REJECTED_SEQUENCE_KEY: &str = "tigers-rejected-sequence";

/// The protocol this build speaks. Raise it with any change to the messages, or to what they
/// mean, that a peer of the previous version would get wrong; raise [`MIN_WORKER_PROTOCOL`] with
/// it when the coordinator can no longer serve workers of the older one.
///
/// 2: a run has an identity (`JoinResponse.run_id`), every batch names it, and a batch of
/// another run is answered with a `BatchRefused`.
///
/// 3: `Join` and `SessionOpen` name the worker process (`instance`), and a session of another
/// process than the one holding an identity's live session is refused.
///
/// 4: `JoinRequest.input_version` is the newest input encoding the worker reads, no longer the
/// one encoding it has; a coordinator refuses only a worker that cannot read its run's nets.
/// A protocol-3 worker's 1 means the same under both readings, so such workers are still
/// served; a coordinator of protocol 3 would take a 2 for an encoding it lacks.
pub const PROTOCOL_VERSION: u32 = 4;

/// The oldest worker protocol this build's coordinator accepts: 3, since a worker that names no
/// process cannot be told from a second machine running a copy of its identity, and two such
/// would take each other's sessions over.
pub const MIN_WORKER_PROTOCOL: u32 = 3;

/// Trailing metadata on the `FAILED_PRECONDITION` status that refuses a worker's `Join` for its
/// version: the protocols the coordinator accepts, as `MIN-MAX`. A worker that sees it stops
/// for good (exit status 76) instead of retrying.
pub const VERSION_REFUSED_KEY: &str = "tigers-version-refused";

/// The characters of a run id: lowercase hex digits.
pub const RUN_ID_CHARS: usize = 32;

/// Whether `text` is a run id as the coordinator makes them (32 lowercase hex digits).
pub fn is_run_id(text: &str) -> bool {
	text.len() == RUN_ID_CHARS && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Trailing metadata on a `RESOURCE_EXHAUSTED` status that says how many whole seconds to
/// wait before trying again (a `Join` under a new identity past the coordinator's limit); a
/// worker waits at least that long.
pub const RETRY_AFTER_KEY: &str = "tigers-retry-after-seconds";

/// The largest message either side sends or accepts, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The most samples one batch may hold: workers cut batches at this, the coordinator refuses
/// larger ones.
pub const MAX_BATCH_SAMPLES: usize = 100_000;

/// The most game records one batch may hold.
pub const MAX_BATCH_GAMES: usize = 1_000;

/// A sample batch as bytes (for a worker's spool on disk), in the wire encoding.
pub fn encode_batch(batch: &v1::SampleBatch) -> Vec<u8> {
	batch.encode_to_vec()
}

/// A sample batch from [`encode_batch`]'s bytes; an error if they are not one.
pub fn decode_batch(bytes: &[u8]) -> Result<v1::SampleBatch, prost::DecodeError> {
	v1::SampleBatch::decode(bytes)
}

/// A progress snapshot as the next entry of a recording: its length as a varint, then its bytes.
pub fn encode_progress_entry(progress: &v1::Progress) -> Vec<u8> {
	progress.encode_length_delimited_to_vec()
}

/// Every snapshot of a recording made of [`encode_progress_entry`]'s entries, in order; if one
/// does not decode, its index (from 0) and why.
pub fn decode_progress_entries(
	mut bytes: &[u8],
) -> Result<Vec<v1::Progress>, (usize, prost::DecodeError)> {
	let mut entries = Vec::new();
	while !bytes.is_empty() {
		let progress =
			v1::Progress::decode_length_delimited(&mut bytes).map_err(|e| (entries.len(), e))?;
		entries.push(progress);
	}
	Ok(entries)
}

#[cfg(test)]
mod tests {
	use proptest::prelude::*;

	use super::*;

	fn batch() -> v1::SampleBatch {
		v1::SampleBatch {
			sequence: 42,
			samples: vec![v1::Sample::default(); 3],
			game_records: vec!["tigers-and-sheep record 1\n".into()],
			run_id: "0123456789abcdef0123456789abcdef".into(),
		}
	}

	#[test]
	fn run_ids_are_32_lowercase_hex_digits() {
		assert!(is_run_id("0123456789abcdef0123456789abcdef"));
		assert!(!is_run_id(""));
		assert!(!is_run_id("0123456789abcdef0123456789abcde"));
		assert!(!is_run_id("0123456789ABCDEF0123456789abcdef"));
		assert!(!is_run_id("0123456789abcdef0123456789abcdeg"));
		assert!(!is_run_id("0123456789abcdef0123456789abcdef0"));
	}

	proptest! {
		#![proptest_config(ProptestConfig::with_cases(512))]

		#[test]
		fn spooled_batches_never_panic(
			random in prop::collection::vec(any::<u8>(), 0..256),
			(at, byte) in (any::<prop::sample::Index>(), any::<u8>()),
		) {
			let mut damaged = encode_batch(&batch());
			let index = at.index(damaged.len());
			damaged[index] = byte;
			let _ = decode_batch(&random);
			if let Ok(decoded) = decode_batch(&damaged) {
				prop_assert_eq!(decode_batch(&encode_batch(&decoded)).ok(), Some(decoded));
			}
		}

		#[test]
		fn recordings_never_panic(
			random in prop::collection::vec(any::<u8>(), 0..256),
			cut in any::<prop::sample::Index>(),
		) {
			let progress = v1::Progress {
				run_name: "run".into(),
				gates: vec![v1::GateSummary::default(); 2],
				..v1::Progress::default()
			};
			let mut recording = encode_progress_entry(&progress);
			recording.extend(encode_progress_entry(&progress));
			let _ = decode_progress_entries(&random);
			let cut = cut.index(recording.len());
			match decode_progress_entries(&recording[..cut]) {
				// A cut between the two entries reads the first only.
				Ok(entries) => prop_assert!(entries.len() <= 1),
				Err((index, _)) => prop_assert!(index <= 1),
			}
		}
	}
}

/// The generated code for `tigers/v1/cluster.proto`.
#[allow(missing_docs, clippy::all, clippy::pedantic, unused_qualifications)]
pub mod v1 {
	tonic::include_proto!("tigers.v1");
}
