//! Every example answers `--help` and `-h` with its usage on stdout and exit status 0, so that
//! a newcomer who asks an example what it takes is told rather than refused
//! (`tigers_testkit::help`).

use std::path::Path;

use tigers_testkit::help::assert_every_example_answers_help;

#[test]
fn every_example_answers_help_with_its_usage() {
	let names =
		assert_every_example_answers_help("tigers-core", Path::new(env!("CARGO_MANIFEST_DIR")));
	for known in ["perft", "placement-probe", "search", "train-bench"] {
		assert!(
			names.iter().any(|name| name == known),
			"{known} in {names:?}"
		);
	}
}
