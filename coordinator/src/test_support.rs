//! What the tests share: `TestDir`, a fresh directory per test removed when dropped, and
//! sample fixtures.

use std::path::Path;

use tigers_core::selfplay::Sample;
use tigers_core::{GameBoard, Position, Turn};

/// A directory under the system's temporary directory, deleted with everything in it on drop.
pub(crate) struct TestDir {
	dir: tempfile::TempDir,
}

impl TestDir {
	/// A new empty directory whose name contains `label`, apart from every other test's.
	pub(crate) fn new(label: &str) -> TestDir {
		let dir = tempfile::Builder::new()
			.prefix(&format!("tigers-coordinator-{label}-"))
			.tempdir()
			.expect("the temporary directory is writable");
		TestDir { dir }
	}

	/// The directory.
	pub(crate) fn path(&self) -> &Path {
		self.dir.path()
	}
}

/// Samples that exercise every field: both sides, sheep in hand and placed, negative and odd
/// fractions (which must come back bit for bit), the longest ply, a generation above 32 bits.
/// (A score of -0.0 comes back as 0.0, as over the wire: zeros are not written.)
pub(crate) fn varied_samples() -> Vec<Sample> {
	let placed: Position = "T...T/.SSS./...../..S../T...T t 15".parse().unwrap();
	vec![
		Sample {
			board: GameBoard::default(),
			turn: Turn::Sheep,
			score: -0.5,
			result: 1.0,
			ply: 0,
			generation: 0,
		},
		Sample {
			board: placed.board,
			turn: Turn::Tiger,
			score: 0.1 + f32::EPSILON,
			result: -1.0,
			ply: 5,
			generation: 1 << 40,
		},
		Sample {
			board: placed.board,
			turn: Turn::Sheep,
			score: 1.0,
			result: 0.0,
			ply: Sample::MAX_PLY,
			generation: 7,
		},
	]
}

/// The state of a fresh run in `dir`, as a coordinator opens it, for tests of what reads it.
pub(crate) fn shared_for_tests(dir: &Path) -> std::sync::Arc<crate::live::Shared> {
	use crate::config::RunSettings;
	use crate::live::{Current, Live, Shared};
	use tigers_core::Network;
	use tigers_core::network::Shape;

	let run_dir = crate::store::rundir::RunDir::open(dir).expect("a run directory");
	let ledger = run_dir.open_ledger().expect("a ledger");
	let settings = RunSettings::default();
	let net = Network::new(
		Shape {
			hidden1: 8,
			hidden2: 4,
		},
		1,
	);
	let current = Current {
		assignment: settings.assignment(0, net.sha256(), None, settings.depth),
		net: std::sync::Arc::new(net),
	};
	let tablebase = crate::tablebase::TablebaseHolder::off("not in these tests");
	Shared::new(
		run_dir,
		ledger,
		settings,
		current,
		Live::default(),
		(
			tablebase,
			crate::tablebase::PlacementLayers::off("not in these tests"),
		),
		0,
	)
	.expect("the ledger's writer thread starts")
}
