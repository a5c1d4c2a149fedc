//! `tui dashboard`: the dashboard of a coordinator elsewhere, its feed on a thread of its own;
//! or a recording played back at the pace it was recorded.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use thiserror::Error;

use crate::feed::{FeedEvent, FeedSettings, follow};
use crate::model::Dashboard;
use crate::recording::{Recorder, RecordingError, read_recording};
use crate::screen::{Closed, show};

/// Why a dashboard could not be shown, or stopped.
#[derive(Debug, Error)]
pub enum DashboardError {
	/// Standard output is not a terminal.
	#[error(
		"the dashboard needs a terminal; for the run's state as JSON, use `coordinator status`"
	)]
	NoTerminal,
	/// A thread or runtime could not be started.
	#[error("cannot start the {what}: {error}")]
	Start {
		/// What.
		what: &'static str,
		/// What the system said.
		error: io::Error,
	},
	/// Drawing on the terminal failed.
	#[error("the terminal failed: {0}")]
	Terminal(io::Error),
	/// A recording could not be written or read.
	#[error(transparent)]
	Recording(#[from] RecordingError),
	/// A recording without snapshots.
	#[error("{} holds no snapshots", .0.display())]
	EmptyRecording(PathBuf),
	/// The coordinator refused the feed (a wrong token, not a coordinator).
	#[error("{0}")]
	Refused(String),
}

fn start(what: &'static str) -> impl FnOnce(io::Error) -> DashboardError {
	move |error| DashboardError::Start { what, error }
}

/// Shows the coordinator at `settings.url` until the user quits; saves every snapshot to
/// `record` if given. A refusal (a wrong token, a bad URL) is an error with its reason.
pub fn watch(settings: FeedSettings, record: Option<&Path>) -> Result<(), DashboardError> {
	need_terminal()?;
	let mut recorder = record.map(Recorder::create).transpose()?;
	let runtime = tokio::runtime::Builder::new_current_thread()
		.enable_all()
		.build()
		.map_err(start("network runtime"))?;
	let (sender, events) = mpsc::channel();
	let mut dashboard = Dashboard::new(settings.url.clone());
	// The feed ends when the screen drops `events`; the thread is left to finish on its own.
	std::thread::Builder::new()
		.name("progress-feed".into())
		.spawn(move || runtime.block_on(follow(settings, sender)))
		.map_err(start("feed thread"))?;
	let closed = show(&mut dashboard, &events, recorder.as_mut());
	if let Some(recorder) = recorder {
		recorder.finish();
	}
	match closed.map_err(DashboardError::Terminal)? {
		Closed::Quit => Ok(()),
		Closed::Refused(reason) => Err(DashboardError::Refused(reason)),
	}
}

/// Plays the recording at `path` back, one snapshot every `interval`, then stays on the last
/// until the user quits.
pub fn replay(path: &Path, interval: Duration) -> Result<(), DashboardError> {
	let snapshots = read_recording(path)?;
	need_terminal()?;
	if snapshots.is_empty() {
		return Err(DashboardError::EmptyRecording(path.to_path_buf()));
	}
	let (sender, events) = mpsc::channel();
	let mut dashboard = Dashboard::new(format!("recording {}", path.display())).recorded();
	std::thread::Builder::new()
		.name("recording".into())
		.spawn(move || {
			for progress in snapshots {
				if sender
					.send(FeedEvent::Progress(Box::new(progress)))
					.is_err()
				{
					return;
				}
				std::thread::sleep(interval);
			}
			// The sender stays alive, so the screen stays on the last snapshot.
			loop {
				std::thread::park();
			}
		})
		.map_err(start("playback thread"))?;
	match show(&mut dashboard, &events, None).map_err(DashboardError::Terminal)? {
		Closed::Quit => Ok(()),
		Closed::Refused(reason) => Err(DashboardError::Refused(reason)),
	}
}

/// An error unless stdout is a terminal: the dashboard draws a screen, nothing to pipe.
fn need_terminal() -> Result<(), DashboardError> {
	if io::stdout().is_terminal() {
		Ok(())
	} else {
		Err(DashboardError::NoTerminal)
	}
}
