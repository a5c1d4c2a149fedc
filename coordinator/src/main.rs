//! The `coordinator` binary: parses the command line, runs the subcommand asked for (a
//! training run without one) from `cli`, and exits with its status: 0, 1 for a failure, 2 for
//! a usage error (clap's own, or a combination of settings that cannot be).

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::cli::grade::GradeArgs;
use crate::cli::measure::MeasureArgs;
use crate::cli::serve::ServeArgs;
use crate::cli::solve::SolveArgs;
use crate::cli::status::StatusArgs;
use crate::cli::tls::TlsArgs;

/// Trains a Tigers and Sheep network with self-play workers.
#[derive(Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
	#[command(subcommand)]
	command: Option<Command>,
	#[command(flatten)]
	serve: ServeArgs,
}

#[derive(Subcommand)]
enum Command {
	/// Prints a running coordinator's state as one JSON object.
	Status(StatusArgs),
	/// Solves the placement phase's layers over the workers that connect (`worker solve`), into
	/// the same files as `tui tablebase build --placement`; stops once they are written.
	Solve(SolveArgs),
	/// Measures a net file (or the perfect player) at equal time per move against ClaudePlayer
	/// (or the perfect player), as a run measures its promoted nets, and prints the result.
	Measure(MeasureArgs),
	/// Grades nets by the exact values on the grading suite: how often a net's own evaluation
	/// puts a position in the right class (won, drawn, lost), and how often its search's move
	/// keeps the exact value, at a fixed depth and on the clock, by phase (no table needed).
	Grade(GradeArgs),
	/// Makes the files to serve TLS: a CA (ca.pem, which workers trust with --tls-ca, and
	/// ca.key) and a coordinator certificate signed by it (coordinator.pem and coordinator.key,
	/// for --tls-cert and --tls-key).
	Tls(TlsArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
	let cli = Cli::parse();
	let done = match cli.command {
		Some(Command::Status(args)) => cli::status::run(args).await,
		Some(Command::Solve(args)) => cli::solve::run(args).await,
		Some(Command::Measure(args)) => cli::measure::run(args).await,
		Some(Command::Grade(args)) => cli::grade::run(args).await,
		Some(Command::Tls(args)) => cli::tls::run(&args),
		None => cli::serve::run(cli.serve).await,
	};
	match done {
		Ok(()) => ExitCode::SUCCESS,
		Err(failure) => failure.report(),
	}
}

#[cfg(test)]
mod tests {
	use std::path::Path;

	use clap::Parser;
	use tigers_process::doc_commands;

	use super::Cli;

	/// `args` parsed, or the test fails with clap's words.
	pub(crate) fn parse(args: &[&str]) -> Cli {
		Cli::try_parse_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}"))
	}

	/// Checks that clap refuses `args` as a usage error (exit status 2) naming `flag`.
	pub(crate) fn assert_refused(args: &[&str], flag: &str) {
		let error = Cli::try_parse_from(args)
			.err()
			.unwrap_or_else(|| panic!("{args:?}"));
		assert_eq!(error.exit_code(), 2, "{error}");
		let words = error.to_string();
		assert!(words.contains(flag), "{args:?}: {words}");
	}

	/// Every command line of the README and docs/*.md that runs `coordinator` parses
	/// (which lines are command lines is `tigers_process::doc_commands`'s rule), and a misspelt
	/// flag would not.
	#[test]
	fn the_documented_command_lines_parse() {
		doc_commands::assert_documented_commands_parse(
			"coordinator",
			include_str!("../../README.md"),
			Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs")),
			4,
			"cargo run --release --bin coordinator -- --lisen 127.0.0.1:50051",
			|words| Cli::try_parse_from(words).map(drop),
		);
	}
}
