//! The `tui` binary and each of its subcommands, however deep, answer `--help` and `-h` with a
//! usage text on stdout and exit status 0 (`tigers_testkit::help`).

use std::path::Path;

use tigers_testkit::help::assert_every_command_answers_help;

#[test]
fn the_binary_and_every_subcommand_answer_help() {
	let found = assert_every_command_answers_help(Path::new(env!("CARGO_BIN_EXE_tui")));
	for known in [
		&["engine"][..],
		&["tablebase"],
		&["tablebase", "build"],
		&["tablebase", "verify"],
		&["tablebase", "stats"],
		&["games"],
		&["dashboard"],
	] {
		assert!(
			found.iter().any(|words| words == known),
			"{known:?} in {found:?}"
		);
	}
}
