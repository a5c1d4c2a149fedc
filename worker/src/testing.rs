//! Helpers for the unit tests: temporary directories and small assignments.

use std::path::Path;
use std::sync::Arc;

use tigers_core::Network;
use tigers_core::network::Shape;
use tigers_core::selfplay::SelfPlaySettings;
use tigers_proto::convert::Assignment;

use crate::selfplay::Playing;

/// A fresh directory under the system's temporary directory, removed on drop.
///
/// A thin wrapper over [`tempfile::TempDir`], which picks a name no other test or process can
/// hold and removes the directory even when the test panics.
pub(crate) struct TempDir(tempfile::TempDir);

impl TempDir {
	/// A new, empty directory whose name starts with `label`.
	pub(crate) fn new(label: &str) -> TempDir {
		let dir = tempfile::Builder::new()
			.prefix(&format!("tigers-worker-{label}-"))
			.tempdir()
			.expect("create a temporary directory");
		TempDir(dir)
	}

	/// Its path.
	pub(crate) fn path(&self) -> &Path {
		self.0.path()
	}
}

/// The run the test assignments are played for.
pub(crate) const TEST_RUN: &str = "0123456789abcdef0123456789abcdef";

/// An assignment of a fresh net (from `net_seed`) at depth 1 with short games, as self-play
/// would play it.
pub(crate) fn playing(generation: u64, net_seed: u64, games_per_batch: u32) -> Playing {
	let net = Network::new(Shape::default(), net_seed);
	Playing {
		run_id: TEST_RUN.into(),
		assignment: Assignment {
			generation,
			sha256: net.sha256(),
			depth: 1,
			selfplay: SelfPlaySettings {
				max_plies: 40,
				..SelfPlaySettings::default()
			},
			games_per_batch,
			tablebase_sha256: None,
			adjudicate: false,
			play_out_share: 0.0,
		},
		net: Arc::new(net),
		tablebase: None,
	}
}
