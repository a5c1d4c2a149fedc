//! The `coordinator` binary, each of its subcommands and each example answer `--help` and `-h`
//! with a usage text on stdout and exit status 0 (`tigers_testkit::help`).

use std::path::Path;

use tigers_testkit::help::{assert_every_command_answers_help, assert_every_example_answers_help};

#[test]
fn the_binary_and_every_subcommand_answer_help() {
	let found = assert_every_command_answers_help(Path::new(env!("CARGO_BIN_EXE_coordinator")));
	for known in ["status", "solve", "measure", "tls"] {
		assert!(
			found.contains(&vec![known.to_string()]),
			"{known} in {found:?}"
		);
	}
}

#[test]
fn every_example_answers_help() {
	let names = assert_every_example_answers_help(
		"tigers-coordinator",
		Path::new(env!("CARGO_MANIFEST_DIR")),
	);
	assert!(names.contains(&"flood".to_string()), "{names:?}");
}
