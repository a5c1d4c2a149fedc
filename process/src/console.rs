//! Output for the person at the terminal that never stops a program: where `println!` and
//! `eprintln!` panic on a closed stream (the reader of a pipe gone, as in `tui games FILE |
//! head -2`), these end the output quietly.

use std::fmt::Display;
use std::io::{self, Write};

/// Writes `text` to stdout and flushes it. A closed pipe is not an error (whoever read the
/// output has what they wanted); any other failure, such as a full disk, is returned.
pub fn out(text: impl Display) -> io::Result<()> {
	let mut stdout = io::stdout().lock();
	let written = write!(stdout, "{text}").and_then(|()| stdout.flush());
	match written {
		Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
		other => other,
	}
}

/// Writes `text` and a newline to stderr, ignoring failures: a message nobody can read is no
/// reason to stop.
pub fn err(text: impl Display) {
	let _ = writeln!(io::stderr().lock(), "{text}");
}

/// Stderr for logs: a write that fails is dropped rather than reported, so that a log nobody
/// reads any more never stops or stalls the program that writes it.
#[derive(Clone, Copy, Debug, Default)]
pub struct LossyStderr;

impl Write for LossyStderr {
	fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
		let _ = io::stderr().write_all(buf);
		Ok(buf.len())
	}

	fn flush(&mut self) -> io::Result<()> {
		let _ = io::stderr().flush();
		Ok(())
	}
}
