//! The `coordinator` binary, each of its subcommands and each example answer `--help` and `-h`
//! with a usage text on stdout and exit status 0, so that a newcomer who asks is told rather
//! than refused.
//!
//! The subcommands are read from the help texts themselves (clap's `Commands:` list), so a new
//! one is checked without changing this file. The examples run as Cargo built them: `cargo
//! test` builds every example of the package before it runs the tests, into `examples` beside
//! the `deps` folder that holds this test binary.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `program` with `args` and `flag`, checks that it printed a usage text on stdout and
/// succeeded, and returns the text.
fn assert_answers_help(program: &Path, args: &[String], flag: &str) -> String {
	let output = Command::new(program)
		.args(args)
		.arg(flag)
		.output()
		.unwrap_or_else(|e| panic!("{} runs: {e}", program.display()));
	let (stdout, stderr) = (
		String::from_utf8_lossy(&output.stdout).into_owned(),
		String::from_utf8_lossy(&output.stderr),
	);
	let shown = format!(
		"{} {} {flag}\nstdout:\n{stdout}\nstderr:\n{stderr}",
		program.display(),
		args.join(" ")
	);
	assert!(output.status.success(), "{shown}");
	assert!(stdout.contains("Usage:"), "{shown}");
	stdout
}

/// The subcommands a clap help text lists under `Commands:`, without clap's own `help`.
fn subcommands(help: &str) -> Vec<String> {
	help.lines()
		.skip_while(|line| *line != "Commands:")
		.skip(1)
		.take_while(|line| !line.trim().is_empty())
		.filter_map(|line| line.strip_prefix("  "))
		.filter(|line| !line.starts_with(' '))
		.filter_map(|line| line.split_whitespace().next())
		.filter(|name| *name != "help")
		.map(String::from)
		.collect()
}

/// Checks `program` and every subcommand under it, however deep; returns the subcommands
/// found, each as its words (`["tablebase", "build"]`).
fn assert_every_command_answers_help(program: &Path) -> Vec<Vec<String>> {
	let mut found = Vec::new();
	let mut to_check = vec![Vec::new()];
	while let Some(command) = to_check.pop() {
		let help = assert_answers_help(program, &command, "--help");
		assert_answers_help(program, &command, "-h");
		for name in subcommands(&help) {
			let mut sub = command.clone();
			sub.push(name);
			found.push(sub.clone());
			to_check.push(sub);
		}
	}
	found
}

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

/// Where Cargo put the example `name` when it built this package for the tests.
fn example_path(name: &str) -> PathBuf {
	let exe = std::env::current_exe().expect("the test binary's path");
	let profile_dir = exe
		.parent()
		.and_then(Path::parent)
		.expect("the test binary lies in <target>/<profile>/deps");
	let path = profile_dir
		.join("examples")
		.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
	assert!(
		path.exists(),
		"{} is missing: `cargo test -p tigers-coordinator` builds the examples before the \
		 tests, but `--test it` alone does not; `cargo build -p tigers-coordinator --examples` \
		 builds them",
		path.display()
	);
	path
}

#[test]
fn every_example_answers_help() {
	let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
	let names: Vec<String> = std::fs::read_dir(&dir)
		.expect("the examples folder")
		.map(|entry| entry.expect("an entry of the examples folder").path())
		.filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
		.map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
		.collect();
	assert!(names.contains(&"flood".to_string()), "{names:?}");
	for name in &names {
		let path = example_path(name);
		for flag in ["--help", "-h"] {
			assert_answers_help(&path, &[], flag);
		}
	}
}
