//! The `worker` binary and each of its subcommands answer `--help` and `-h` with a usage text on
//! stdout and exit status 0 (`tigers_testkit::help`).

use std::path::Path;

use tigers_testkit::help::assert_every_command_answers_help;

#[test]
fn the_binary_and_every_subcommand_answer_help() {
	let found = assert_every_command_answers_help(Path::new(env!("CARGO_BIN_EXE_worker")));
	for known in ["bench", "solve", "loadtest"] {
		assert!(
			found.contains(&vec![known.to_string()]),
			"{known} in {found:?}"
		);
	}
}
