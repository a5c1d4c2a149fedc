//! What the subcommands share: why one stopped short and its exit status, the result printed
//! on stdout, the library's defaults that the flags' defaults are taken from, and the value
//! parsers of a setting named by a word
//! and of a share.

use std::fmt::Display;
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::LazyLock;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use tigers_coordinator::config::RunSettings;
use tigers_coordinator::error::CoordinatorError;
use tigers_process::console;

/// Why a subcommand stopped short: one line for the user, and the exit status.
pub(crate) struct Failure {
	/// The line, which starts with the command's name.
	line: String,
	/// 2 for a usage error (the command line asks for something that cannot be), else 1.
	status: u8,
}

impl Failure {
	/// A failure of `command` with exit status 1.
	pub(crate) fn new(command: &str, error: impl Display) -> Failure {
		Failure {
			line: format!("{command}: {error}"),
			status: 1,
		}
	}

	/// A usage error of `command`: exit status 2, as clap's own.
	pub(crate) fn usage(command: &str, error: impl Display) -> Failure {
		Failure {
			status: 2,
			..Failure::new(command, error)
		}
	}

	/// Prints the line on stderr, once, and gives the exit status.
	pub(crate) fn report(self) -> ExitCode {
		// Not `eprintln!`, which panics when stderr is closed (`coordinator ... 2>&1 | head`):
		// a message nobody can read is no reason to stop.
		console::err(format_args!("{}", self.line));
		ExitCode::from(self.status)
	}
}

/// A run or a solve that failed once serving: its error, as the library words it.
impl From<CoordinatorError> for Failure {
	fn from(error: CoordinatorError) -> Failure {
		Failure::new("coordinator", error)
	}
}

/// Prints a command's result and a newline on stdout: success, also when the reader of a pipe
/// has gone; failure if stdout cannot be written otherwise.
pub(crate) fn print_out(result: impl Display) -> Result<(), Failure> {
	console::out(format_args!("{result}\n"))
		.map_err(|e| Failure::new("coordinator", format!("cannot write the result: {e}")))
}

/// The library's defaults, which the command line's are taken from: one source for both.
pub(crate) fn run_defaults() -> &'static RunSettings {
	static DEFAULTS: LazyLock<RunSettings> = LazyLock::new(RunSettings::default);
	&DEFAULTS
}

/// A parser of one of `names`, which clap lists in the help and checks, into a `T` by its
/// `FromStr`.
pub(crate) fn one_of<T>(names: &'static [&'static str]) -> impl TypedValueParser<Value = T>
where
	T: FromStr + Clone + Send + Sync + 'static,
	T::Err: Into<Box<dyn std::error::Error + Send + Sync>>,
{
	PossibleValuesParser::new(names.iter().copied()).try_map(|name| name.parse::<T>())
}

/// `text` as a number that `holds`, else a sentence for clap to show after the flag and value.
pub(crate) fn number_where<T: FromStr<Err: Display>>(
	text: &str,
	holds: impl Fn(&T) -> bool,
	must_be: &str,
) -> Result<T, String> {
	match text.parse::<T>() {
		Ok(value) if holds(&value) => Ok(value),
		Ok(_) => Err(format!("must be {must_be}")),
		Err(error) => Err(error.to_string()),
	}
}

/// `text` as a share, 0 to 1 (`--result-weight`, `--gate-claude-margin`,
/// `--play-out-share`).
pub(crate) fn share<T: FromStr<Err: Display> + PartialOrd + From<u8>>(
	text: &str,
) -> Result<T, String> {
	number_where(
		text,
		|value| (T::from(0)..=T::from(1)).contains(value),
		"0 to 1",
	)
}
