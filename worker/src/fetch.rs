//! Fetching an assignment's net with `FetchNet`, and checking it is the net announced.

use std::sync::Arc;

use thiserror::Error;
use tigers_core::Network;
use tigers_proto::client::NetCheckError;
use tigers_proto::convert::Assignment;
use tigers_proto::v1::{FetchNetRequest, NetFile};

use crate::client::Client;

/// A fetched net that was refused: not the one the assignment named, or no net at all.
#[derive(Debug, Error)]
#[error("the net for generation {generation}: {source}")]
pub(crate) struct NetError {
	/// The assignment's generation.
	generation: u64,
	/// What was wrong.
	source: NetCheckError,
}

/// Fetches `assignment`'s net. Errors are statuses of the call, or a refused net.
pub(crate) async fn fetch_net(
	client: &mut Client,
	assignment: &Assignment,
) -> Result<Result<Arc<Network>, NetError>, tonic::Status> {
	let request = FetchNetRequest {
		generation: assignment.generation,
		latest: false,
		best: false,
	};
	let file = client.fetch_net(request).await?.into_inner();
	let (generation, announced) = (assignment.generation, assignment.sha256.clone());
	// Hashing and parsing tens of kilobytes is quick, but it is CPU work all the same.
	let checked =
		tokio::task::spawn_blocking(move || check_net(&file, generation, &announced)).await;
	checked.map_err(|e| tonic::Status::internal(format!("checking the net failed: {e}")))
}

/// The net in `file` if its bytes hash to `announced` and load.
pub(crate) fn check_net(
	file: &NetFile,
	generation: u64,
	announced: &str,
) -> Result<Arc<Network>, NetError> {
	let net = tigers_proto::client::check_net(&file.safetensors, announced)
		.map_err(|source| NetError { generation, source })?;
	if net.generation != generation || file.generation != generation {
		// The hash is the net's identity; the numbers are labels. Samples are tagged with the
		// assignment's generation, which is what the coordinator counts by.
		tracing::warn!(
			assignment = generation,
			file = file.generation,
			metadata = net.generation,
			"the net's generation labels disagree; tagging samples with the assignment's"
		);
	}
	Ok(Arc::new(net))
}

#[cfg(test)]
mod tests {
	use tigers_core::network::Shape;
	use tigers_core::network::file::sha256_hex;

	use super::*;

	fn file(generation: u64) -> NetFile {
		let mut net = Network::new(Shape::default(), 9);
		net.generation = generation;
		let bytes = net.to_bytes();
		NetFile {
			generation,
			sha256: sha256_hex(&bytes),
			safetensors: bytes,
		}
	}

	#[test]
	fn a_net_with_the_announced_hash_loads() {
		let file = file(2);
		let net = check_net(&file, 2, &file.sha256).unwrap();
		assert_eq!(net.sha256(), file.sha256);
		assert_eq!(net.generation, 2);
	}

	#[test]
	fn a_net_with_another_hash_is_refused() {
		let file = file(2);
		let other = "0".repeat(64);
		let error = check_net(&file, 2, &other).unwrap_err();
		assert!(
			matches!(error.source, NetCheckError::Sha256 { .. }),
			"{error}"
		);
		// Bytes changed in transit are refused even if the file's own field agrees.
		let mut damaged = file.clone();
		let last = damaged.safetensors.len() - 1;
		damaged.safetensors[last] ^= 1;
		assert!(check_net(&damaged, 2, &file.sha256).is_err());
	}

	#[test]
	fn bytes_that_are_no_net_are_refused() {
		let junk = NetFile {
			generation: 0,
			sha256: sha256_hex(b"junk"),
			safetensors: b"junk".to_vec(),
		};
		let error = check_net(&junk, 0, &junk.sha256).unwrap_err();
		assert!(
			matches!(error.source, NetCheckError::Unreadable(_)),
			"{error}"
		);
	}
}
