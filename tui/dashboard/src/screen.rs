//! The dashboard on a real terminal: draws, takes keys, and applies what the feed sends, until
//! the user quits or the coordinator refuses for good.

use std::io;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ratatui::DefaultTerminal;
use ratatui::crossterm::event;

use crate::feed::FeedEvent;
use crate::model::Dashboard;
use crate::recording::Recorder;

/// How long to wait for a key before looking at the feed again.
const FRAME: Duration = Duration::from_millis(100);

/// Why the screen closed.
#[derive(Debug, PartialEq, Eq)]
pub enum Closed {
	/// The user quit.
	Quit,
	/// The coordinator refused the feed, or the recording failed; what went wrong.
	Refused(String),
}

/// Shows `dashboard` fed by `events` until the user quits or the feed is refused, saving each
/// snapshot to `recorder` if given; puts the terminal back as it was, also when drawing fails.
pub fn show(
	dashboard: &mut Dashboard,
	events: &Receiver<FeedEvent>,
	mut recorder: Option<&mut Recorder>,
) -> io::Result<Closed> {
	let mut terminal = ratatui::try_init()?;
	let result = run(&mut terminal, dashboard, events, &mut recorder);
	ratatui::try_restore()?;
	result
}

/// Applies every event waiting, recording snapshots if asked; `Some` when the feed was refused
/// for good or the recording failed.
pub fn apply_events(
	dashboard: &mut Dashboard,
	events: &Receiver<FeedEvent>,
	recorder: &mut Option<&mut Recorder>,
) -> Option<String> {
	loop {
		match events.try_recv() {
			Ok(FeedEvent::Progress(progress)) => {
				if let Some(recorder) = recorder
					&& let Err(e) = recorder.write(&progress)
				{
					return Some(format!("cannot record: {e}"));
				}
				dashboard.receive(*progress);
			}
			Ok(FeedEvent::Lost(reason)) => dashboard.lost(reason),
			Ok(FeedEvent::Ended) => dashboard.ended(),
			Ok(FeedEvent::Refused(reason)) => return Some(reason),
			Err(TryRecvError::Empty) => return None,
			Err(TryRecvError::Disconnected) => {
				return Some("the progress feed stopped".to_string());
			}
		}
	}
}

fn run(
	terminal: &mut DefaultTerminal,
	dashboard: &mut Dashboard,
	events: &Receiver<FeedEvent>,
	recorder: &mut Option<&mut Recorder>,
) -> io::Result<Closed> {
	loop {
		if let Some(reason) = apply_events(dashboard, events, recorder) {
			return Ok(Closed::Refused(reason));
		}
		dashboard.set_clock(
			SystemTime::now()
				.duration_since(UNIX_EPOCH)
				.map_or(0.0, |d| d.as_secs_f64()),
		);
		terminal.draw(|frame| frame.render_widget(&*dashboard, frame.area()))?;
		if event::poll(FRAME)? {
			loop {
				dashboard.handle_event(&event::read()?);
				if dashboard.should_quit() || !event::poll(Duration::ZERO)? {
					break;
				}
			}
		}
		if dashboard.should_quit() {
			return Ok(Closed::Quit);
		}
	}
}
