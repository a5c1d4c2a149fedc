//! Helpers for the unit tests: temporary directories and small assignments.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tigers_core::Network;
use tigers_core::network::Shape;
use tigers_core::selfplay::SelfPlaySettings;
use tigers_proto::convert::Assignment;

use crate::selfplay::Playing;

/// A fresh directory under the system's temporary directory, removed on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
	/// A new, empty directory whose name starts with `label`.
	pub(crate) fn new(label: &str) -> TempDir {
		static COUNTER: AtomicU64 = AtomicU64::new(0);
		let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
		let path = std::env::temp_dir().join(format!(
			"tigers-worker-{label}-{}-{unique}",
			std::process::id()
		));
		let _ = std::fs::remove_dir_all(&path);
		std::fs::create_dir_all(&path).expect("create a temporary directory");
		TempDir(path)
	}

	/// Its path.
	pub(crate) fn path(&self) -> &Path {
		&self.0
	}
}

impl Drop for TempDir {
	fn drop(&mut self) {
		let _ = std::fs::remove_dir_all(&self.0);
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
		},
		net: Arc::new(net),
		tablebase: None,
	}
}
