//! `tui dashboard`: the dashboard of a coordinator elsewhere, its feed on a thread of its own;
//! or a recording played back at the pace it was recorded.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use std::io::IsTerminal;

use anyhow::Context;

use super::feed::{FeedEvent, FeedSettings, follow};
use super::model::Dashboard;
use super::recording::{Recorder, read_recording};
use super::screen::{Closed, show};

/// Shows the coordinator at `settings.url` until the user quits; saves every snapshot to
/// `record` if given. A refusal (a wrong token, a bad URL) is an error with its reason.
pub fn watch(settings: FeedSettings, record: Option<&Path>) -> anyhow::Result<()> {
	need_terminal()?;
	let mut recorder = record.map(Recorder::create).transpose()?;
	let runtime = tokio::runtime::Builder::new_current_thread()
		.enable_all()
		.build()
		.context("cannot start the network runtime")?;
	let (sender, events) = mpsc::channel();
	let mut dashboard = Dashboard::new(settings.url.clone());
	// The feed ends when the screen drops `events`; the thread is left to finish on its own.
	std::thread::Builder::new()
		.name("progress-feed".into())
		.spawn(move || runtime.block_on(follow(settings, sender)))
		.context("cannot start the feed thread")?;
	match show(&mut dashboard, &events, recorder.as_mut()).context("the terminal failed")? {
		Closed::Quit => Ok(()),
		Closed::Refused(reason) => anyhow::bail!("{reason}"),
	}
}

/// Plays the recording at `path` back, one snapshot every `interval`, then stays on the last
/// until the user quits.
pub fn replay(path: &Path, interval: Duration) -> anyhow::Result<()> {
	let snapshots = read_recording(path)?;
	need_terminal()?;
	anyhow::ensure!(
		!snapshots.is_empty(),
		"{} holds no snapshots",
		path.display()
	);
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
		.context("cannot start the playback thread")?;
	match show(&mut dashboard, &events, None).context("the terminal failed")? {
		Closed::Quit => Ok(()),
		Closed::Refused(reason) => anyhow::bail!("{reason}"),
	}
}

/// An error unless stdout is a terminal: the dashboard draws a screen, nothing to pipe.
fn need_terminal() -> anyhow::Result<()> {
	anyhow::ensure!(
		std::io::stdout().is_terminal(),
		"the dashboard needs a terminal; for the run's state as JSON, use `coordinator status`"
	);
	Ok(())
}
