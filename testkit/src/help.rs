//! Checks that a binary, each of its subcommands and each example of a package answer `--help`
//! and `-h` with a usage text on stdout and exit status 0, so that a newcomer who asks is told
//! rather than refused.
//!
//! Subcommands are read from the help texts themselves (clap's `Commands:` list), so a new one
//! is checked without changing a test. Examples run as Cargo built them: `cargo test` builds
//! every example of the package before it runs the tests, into `examples` beside the `deps`
//! folder that holds the test binary.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `program` with `args` and `flag`, checks that it printed a usage text on stdout and
/// succeeded, and returns the text.
///
/// # Panics
///
/// If the program cannot run, fails, or prints no usage text.
pub fn assert_answers_help(program: &Path, args: &[String], flag: &str) -> String {
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
pub fn subcommands(help: &str) -> Vec<String> {
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
///
/// # Panics
///
/// As [`assert_answers_help`], for the first that does not answer.
pub fn assert_every_command_answers_help(program: &Path) -> Vec<Vec<String>> {
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

/// The names of a package's Rust examples, one per `examples/*.rs` under `manifest_dir`,
/// sorted.
///
/// # Panics
///
/// If the package has no examples folder.
pub fn example_names(manifest_dir: &Path) -> Vec<String> {
	let dir = manifest_dir.join("examples");
	let mut names: Vec<String> = std::fs::read_dir(&dir)
		.expect("the examples folder")
		.map(|entry| entry.expect("an entry of the examples folder").path())
		.filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
		.filter_map(|path| Some(path.file_stem()?.to_string_lossy().into_owned()))
		.collect();
	names.sort();
	names
}

/// Where Cargo put the example `name` of `package` when it built the package for the tests.
///
/// # Panics
///
/// If it is not there, saying how to build it (`--test it` alone does not).
pub fn example_path(package: &str, name: &str) -> PathBuf {
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
		"{} is missing: `cargo test -p {package}` builds the examples before the tests, but \
		 `--test it` alone does not; `cargo build -p {package} --examples` builds them",
		path.display()
	);
	path
}

/// Checks every example of `package` (whose manifest is in `manifest_dir`) with `--help` and
/// `-h`; returns their names.
///
/// # Panics
///
/// As [`example_path`] and [`assert_answers_help`].
pub fn assert_every_example_answers_help(package: &str, manifest_dir: &Path) -> Vec<String> {
	let names = example_names(manifest_dir);
	for name in &names {
		let path = example_path(package, name);
		for flag in ["--help", "-h"] {
			assert_answers_help(&path, &[], flag);
		}
	}
	names
}
