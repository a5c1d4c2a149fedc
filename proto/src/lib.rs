//! The cluster's wire format (package `tigers.v1`) and conversions between its messages and
//! core types. Only this crate knows the messages' layout; conversions from the wire check
//! everything and refuse what does not convert.
//!
//! - [`v1`]: the generated messages, client and server;
//! - [`convert`]: samples and assignments to and from core types;
//! - [`encode_batch`] and [`decode_batch`]: a sample batch as bytes, for storage.

pub mod convert;

use prost::Message;

/// Trailing metadata on the `INVALID_ARGUMENT` status that ends a session whose sample batch was
/// refused: the refused batch's sequence number, in decimal, so the worker drops that batch.
pub const REJECTED_SEQUENCE_KEY: &str = "tigers-rejected-sequence";

/// The largest message either side sends or accepts, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// A sample batch as bytes (for a worker's spool on disk), in the wire encoding.
pub fn encode_batch(batch: &v1::SampleBatch) -> Vec<u8> {
	batch.encode_to_vec()
}

/// A sample batch from [`encode_batch`]'s bytes; an error if they are not one.
pub fn decode_batch(bytes: &[u8]) -> Result<v1::SampleBatch, prost::DecodeError> {
	v1::SampleBatch::decode(bytes)
}

/// The generated code for `tigers/v1/cluster.proto`.
#[allow(missing_docs, clippy::all, clippy::pedantic, unused_qualifications)]
pub mod v1 {
	tonic::include_proto!("tigers.v1");
}
