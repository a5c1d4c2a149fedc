//! Every example answers `--help` and `-h` with its usage on stdout and exit status 0, so that
//! a newcomer who asks an example what it takes is told rather than refused.
//!
//! The examples run as Cargo built them: `cargo test` builds every example of the package
//! before it runs the tests, into `examples` beside the `deps` folder that holds this test
//! binary.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The names of this package's Rust examples, one per `examples/*.rs`.
fn example_names() -> Vec<String> {
	let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
	let mut names: Vec<String> = std::fs::read_dir(&dir)
		.expect("the examples folder")
		.map(|entry| entry.expect("an entry of the examples folder").path())
		.filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
		.map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
		.collect();
	names.sort();
	names
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
		"{} is missing: `cargo test -p tigers-core` builds the examples before the tests, but \
		 `--test it` alone does not; `cargo build -p tigers-core --examples` builds them",
		path.display()
	);
	path
}

/// Runs `program` with `flag` and checks that it printed a usage text on stdout and succeeded.
fn assert_answers_help(program: &Path, flag: &str) {
	let output = Command::new(program)
		.arg(flag)
		.output()
		.unwrap_or_else(|e| panic!("{} runs: {e}", program.display()));
	let (stdout, stderr) = (
		String::from_utf8_lossy(&output.stdout),
		String::from_utf8_lossy(&output.stderr),
	);
	let shown = format!(
		"{} {flag}\nstdout:\n{stdout}\nstderr:\n{stderr}",
		program.display()
	);
	assert!(output.status.success(), "{shown}");
	assert!(stdout.contains("Usage:"), "{shown}");
}

#[test]
fn every_example_answers_help_with_its_usage() {
	let names = example_names();
	for known in ["perft", "placement-probe", "search", "train-bench"] {
		assert!(
			names.iter().any(|name| name == known),
			"{known} in {names:?}"
		);
	}
	for name in &names {
		let path = example_path(name);
		for flag in ["--help", "-h"] {
			assert_answers_help(&path, flag);
		}
	}
}
