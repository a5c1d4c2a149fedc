//! Logs set up the same way in every server binary: to the terminal, or to a file while the
//! terminal shows a dashboard.

use std::fs::OpenOptions;
use std::io::{self, IsTerminal};
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

use crate::console::LossyStderr;

/// Human-readable logs on a terminal, JSON lines otherwise (or with `--log-json`), on stderr;
/// levels from `RUST_LOG`, `info` by default.
///
/// A log line that cannot be written (stderr closed, as when `2>&1 | tee log` loses its `tee`)
/// is dropped: the program goes on, and still stops when asked.
pub fn init_logging(json: bool) {
	let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
	let builder = tracing_subscriber::fmt()
		.with_env_filter(filter)
		// Not the subscriber's own report of a failed write: it goes to stderr with
		// `eprintln!`, which panics when stderr is what failed.
		.log_internal_errors(false)
		.with_writer(|| LossyStderr);
	if json || !io::stderr().is_terminal() {
		builder.json().init();
	} else {
		builder.init();
	}
}

/// Logs appended to `path` instead of the terminal, for when the terminal shows a dashboard:
/// JSON lines if `json`, plain text otherwise (without colours); levels from `RUST_LOG`.
pub fn init_file_logging(path: &Path, json: bool) -> io::Result<()> {
	let file = OpenOptions::new().create(true).append(true).open(path)?;
	let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
	let builder = tracing_subscriber::fmt()
		.with_env_filter(filter)
		.with_ansi(false)
		.log_internal_errors(false)
		.with_writer(Mutex::new(file));
	if json {
		builder.json().init();
	} else {
		builder.init();
	}
	Ok(())
}
