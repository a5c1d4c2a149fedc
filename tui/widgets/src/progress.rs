//! [`progress_bar`]: the progress bar of the long commands run by hand (`tui tablebase build`
//! and `verify`, `coordinator measure`), on standard error.

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar on standard error with an ETA; hidden when standard error is no terminal.
pub fn progress_bar(total: u64, what: &str) -> ProgressBar {
	let bar = ProgressBar::new(total);
	bar.set_style(
		ProgressStyle::with_template("{msg} [{bar:30}] {percent:>3}% {elapsed} elapsed, ETA {eta}")
			.expect("a valid template")
			.progress_chars("=> "),
	);
	bar.set_message(what.to_string());
	bar
}
