//! The `worker` binary and each of its subcommands answer `--help` and `-h` with a usage text
//! on stdout and exit status 0, so that a newcomer who asks is told rather than refused. The
//! subcommands are read from the help texts themselves (clap's `Commands:` list), so a new one
//! is checked without changing this file.

use std::path::Path;
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
	let found = assert_every_command_answers_help(Path::new(env!("CARGO_BIN_EXE_worker")));
	for known in ["bench", "solve", "loadtest"] {
		assert!(
			found.contains(&vec![known.to_string()]),
			"{known} in {found:?}"
		);
	}
}
