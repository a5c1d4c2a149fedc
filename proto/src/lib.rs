//! The cluster's wire format (package `tigers.v1`) and conversions between its messages and
//! core types. Only this crate knows the messages' layout; conversions from the wire check
//! everything and refuse what does not convert.
//!
//! - [`v1`]: the generated messages, client and server;
//! - [`convert`]: samples and assignments to and from core types.

pub mod convert;

/// The generated code for `tigers/v1/cluster.proto`.
#[allow(missing_docs, clippy::all, clippy::pedantic, unused_qualifications)]
pub mod v1 {
	tonic::include_proto!("tigers.v1");
}
