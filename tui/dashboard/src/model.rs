//! `Dashboard`: what the dashboard shows and what keys do to it, without a terminal.
//!
//! It holds the latest progress snapshot received, a short window of earlier ones for the
//! "per second now" figures, the pane on screen, the replay, and whether the feed is live.
//! Pausing freezes the screen on the snapshot shown; snapshots that arrive meanwhile are kept
//! and the newest is shown on resuming. The clock is set from outside, so a screen drawn from
//! recorded snapshots is the same every time.

use std::collections::VecDeque;

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tigers_proto::v1;

use crate::replay::Replay;

/// How far back the "now" rates look, in seconds of the coordinator's uptime.
const RATE_WINDOW_SECONDS: f64 = 30.0;

/// The panes, in tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
	/// Totals, rates, loss, window, staleness.
	Run,
	/// Every gate match and the strength charts.
	Gates,
	/// The workers.
	Fleet,
	/// The latest self-play game.
	Game,
}

impl Pane {
	/// Every pane, in tab order.
	pub const ALL: [Pane; 4] = [Pane::Run, Pane::Gates, Pane::Fleet, Pane::Game];

	/// The tab's title.
	pub const fn title(self) -> &'static str {
		match self {
			Pane::Run => "Run",
			Pane::Gates => "Gates",
			Pane::Fleet => "Fleet",
			Pane::Game => "Game",
		}
	}

	fn index(self) -> usize {
		Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
	}
}

/// What the strength charts are drawn against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateAxis {
	/// Hours since the first gate.
	Time,
	/// Worker CPU-hours over the run.
	CpuHours,
}

/// The state of the progress feed.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
	/// No snapshot yet.
	Connecting,
	/// Snapshots are arriving.
	Live,
	/// The stream broke; the feed is trying again.
	Lost(String),
	/// The coordinator ended the stream (it is shutting down).
	Ended,
}

/// The dashboard's whole state.
#[derive(Debug)]
pub struct Dashboard {
	source: String,
	recorded: bool,
	shown: Option<v1::Progress>,
	held: Option<v1::Progress>,
	recent: VecDeque<(f64, u64, u64)>,
	pane: Pane,
	paused: bool,
	axis: GateAxis,
	replay: Replay,
	link: Link,
	now_unix: f64,
	gate_scroll: usize,
	fleet_scroll: usize,
	quit: bool,
	/// What quitting would do, if it must be confirmed ("stop the coordinator").
	quit_stops: Option<String>,
	/// Whether `q` is waiting for that confirmation.
	confirming_quit: bool,
}

impl Dashboard {
	/// An empty dashboard of the coordinator at `source` (a URL, or words like "this
	/// coordinator").
	pub fn new(source: impl Into<String>) -> Dashboard {
		Dashboard {
			source: source.into(),
			recorded: false,
			shown: None,
			held: None,
			recent: VecDeque::new(),
			pane: Pane::Run,
			paused: false,
			axis: GateAxis::Time,
			replay: Replay::default(),
			link: Link::Connecting,
			now_unix: 0.0,
			gate_scroll: 0,
			fleet_scroll: 0,
			quit: false,
			quit_stops: None,
			confirming_quit: false,
		}
	}

	/// Makes `q` ask before quitting, because quitting also does `what` (e.g. "stop the
	/// coordinator"): a second `q` or `y` confirms, Esc or anything else goes back.
	#[must_use]
	pub fn confirming_quit(mut self, what: impl Into<String>) -> Dashboard {
		self.quit_stops = Some(what.into());
		self
	}

	/// The question `q` is waiting to have answered, if it is.
	pub fn quit_question(&self) -> Option<String> {
		self.quit_stops
			.as_ref()
			.filter(|_| self.confirming_quit)
			.map(|what| format!("Quit and {what}? q or y: yes · Esc: no"))
	}

	/// The same, for snapshots played back from a recording rather than live.
	pub fn recorded(mut self) -> Dashboard {
		self.recorded = true;
		self
	}

	/// Takes a snapshot from the feed.
	pub fn receive(&mut self, progress: v1::Progress) {
		self.link = Link::Live;
		if self.paused {
			self.held = Some(progress);
		} else {
			self.show(progress);
		}
	}

	fn show(&mut self, progress: v1::Progress) {
		if self
			.shown
			.as_ref()
			.is_some_and(|old| old.uptime_seconds > progress.uptime_seconds)
		{
			// A restarted coordinator: its uptime starts again.
			self.recent.clear();
		}
		self.recent.push_back((
			progress.uptime_seconds,
			progress.samples_total,
			progress.games_total,
		));
		while self
			.recent
			.front()
			.is_some_and(|(at, _, _)| progress.uptime_seconds - at > RATE_WINDOW_SECONDS)
		{
			self.recent.pop_front();
		}
		self.replay.offer(&progress.last_game);
		self.shown = Some(progress);
	}

	/// Notes that the feed lost the coordinator, and why.
	pub fn lost(&mut self, reason: impl Into<String>) {
		self.link = Link::Lost(reason.into());
	}

	/// Notes that the coordinator ended the stream.
	pub fn ended(&mut self) {
		self.link = Link::Ended;
	}

	/// Sets the local wall clock (Unix seconds), for snapshots that do not carry their time.
	pub fn set_clock(&mut self, now_unix: f64) {
		self.now_unix = now_unix;
	}

	/// Handles a terminal event.
	pub fn handle_event(&mut self, event: &Event) {
		if let Event::Key(key) = event
			&& key.kind != KeyEventKind::Release
		{
			self.handle_key(*key);
		}
	}

	/// Handles a key.
	pub fn handle_key(&mut self, key: KeyEvent) {
		if key.modifiers.contains(KeyModifiers::CONTROL) {
			if matches!(key.code, KeyCode::Char('c' | 'd')) {
				self.quit = true;
			}
			return;
		}
		if self.confirming_quit {
			self.confirming_quit = false;
			self.quit = matches!(key.code, KeyCode::Char('q' | 'y'));
			return;
		}
		match key.code {
			KeyCode::Char('q') if self.quit_stops.is_some() => self.confirming_quit = true,
			KeyCode::Char('q') => self.quit = true,
			KeyCode::Char(c @ '1'..='4') => {
				self.pane = Pane::ALL[usize::from(c as u8 - b'1')];
			}
			KeyCode::Tab => self.pane = Pane::ALL[(self.pane.index() + 1) % Pane::ALL.len()],
			KeyCode::BackTab => {
				self.pane = Pane::ALL[(self.pane.index() + Pane::ALL.len() - 1) % Pane::ALL.len()];
			}
			KeyCode::Char('p') | KeyCode::Char(' ') => self.toggle_pause(),
			_ => self.pane_key(key.code),
		}
	}

	fn pane_key(&mut self, code: KeyCode) {
		match (self.pane, code) {
			(Pane::Gates, KeyCode::Char('x')) => {
				self.axis = match self.axis {
					GateAxis::Time => GateAxis::CpuHours,
					GateAxis::CpuHours => GateAxis::Time,
				};
			}
			(Pane::Gates, KeyCode::Up) => self.gate_scroll = self.gate_scroll.saturating_sub(1),
			(Pane::Gates, KeyCode::Down) => {
				let gates = self.shown.as_ref().map_or(0, |p| p.gates.len());
				self.gate_scroll = (self.gate_scroll + 1).min(gates.saturating_sub(1));
			}
			(Pane::Fleet, KeyCode::Up) => self.fleet_scroll = self.fleet_scroll.saturating_sub(1),
			(Pane::Fleet, KeyCode::Down) => {
				let workers = self.shown.as_ref().map_or(0, |p| p.workers.len());
				self.fleet_scroll = (self.fleet_scroll + 1).min(workers.saturating_sub(1));
			}
			(Pane::Game, KeyCode::Left) => self.replay.step(-1),
			(Pane::Game, KeyCode::Right) => self.replay.step(1),
			(Pane::Game, KeyCode::PageUp) => self.replay.step(-10),
			(Pane::Game, KeyCode::PageDown) => self.replay.step(10),
			(Pane::Game, KeyCode::Home) => self.replay.home(),
			(Pane::Game, KeyCode::End) => self.replay.end(),
			(Pane::Game, KeyCode::Char('l')) => self.replay.latest(),
			_ => {}
		}
	}

	fn toggle_pause(&mut self) {
		self.paused = !self.paused;
		if !self.paused
			&& let Some(progress) = self.held.take()
		{
			self.show(progress);
		}
	}

	/// Whether the user asked to quit.
	pub fn should_quit(&self) -> bool {
		self.quit
	}

	/// The coordinator shown, as given.
	pub fn source(&self) -> &str {
		&self.source
	}

	/// The snapshot on screen.
	pub fn progress(&self) -> Option<&v1::Progress> {
		self.shown.as_ref()
	}

	/// The pane on screen.
	pub fn pane(&self) -> Pane {
		self.pane
	}

	/// Whether the snapshots come from a recording.
	pub fn is_recorded(&self) -> bool {
		self.recorded
	}

	/// Whether the screen is frozen.
	pub fn paused(&self) -> bool {
		self.paused
	}

	/// Whether newer snapshots wait behind the pause.
	pub fn held(&self) -> bool {
		self.held.is_some()
	}

	/// What the strength charts are drawn against.
	pub fn axis(&self) -> GateAxis {
		self.axis
	}

	/// The game replay.
	pub fn replay(&self) -> &Replay {
		&self.replay
	}

	/// The feed's state.
	pub fn link(&self) -> &Link {
		&self.link
	}

	/// The time of the snapshot shown by the coordinator's clock (Unix seconds), or the local
	/// clock for snapshots that do not say.
	pub fn clock(&self) -> f64 {
		match self.shown.as_ref() {
			Some(p) if p.taken_at > 0.0 => p.taken_at,
			_ => self.now_unix,
		}
	}

	/// Rows scrolled in the gates table (from the newest).
	pub fn gate_scroll(&self) -> usize {
		self.gate_scroll
	}

	/// Rows scrolled in the fleet table.
	pub fn fleet_scroll(&self) -> usize {
		self.fleet_scroll
	}

	/// Samples and games per second over the last half minute of snapshots; before two
	/// snapshots a few seconds apart, over the last two points of the throughput history.
	pub fn rates_now(&self) -> Option<(f64, f64)> {
		if let (Some(first), Some(last)) = (self.recent.front(), self.recent.back())
			&& last.0 - first.0 >= 2.0
		{
			let seconds = last.0 - first.0;
			return Some((
				last.1.saturating_sub(first.1) as f64 / seconds,
				last.2.saturating_sub(first.2) as f64 / seconds,
			));
		}
		let history = &self.shown.as_ref()?.throughput;
		let [.., a, b] = history.as_slice() else {
			return None;
		};
		let seconds = b.at - a.at;
		(seconds > 0.0).then(|| {
			(
				b.samples_total.saturating_sub(a.samples_total) as f64 / seconds,
				b.games_total.saturating_sub(a.games_total) as f64 / seconds,
			)
		})
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	fn key(code: KeyCode) -> KeyEvent {
		KeyEvent::new(code, KeyModifiers::NONE)
	}

	fn progress(uptime: f64, samples: u64) -> v1::Progress {
		v1::Progress {
			uptime_seconds: uptime,
			samples_total: samples,
			games_total: samples / 10,
			..v1::Progress::default()
		}
	}

	#[test]
	fn keys_switch_panes_and_quit() {
		let mut dashboard = Dashboard::new("here");
		dashboard.handle_key(key(KeyCode::Char('3')));
		assert_eq!(dashboard.pane(), Pane::Fleet);
		dashboard.handle_key(key(KeyCode::Tab));
		assert_eq!(dashboard.pane(), Pane::Game);
		dashboard.handle_key(key(KeyCode::Tab));
		assert_eq!(dashboard.pane(), Pane::Run);
		dashboard.handle_key(key(KeyCode::BackTab));
		assert_eq!(dashboard.pane(), Pane::Game);
		assert!(!dashboard.should_quit());
		// Esc never quits (people press it to clear or go back).
		dashboard.handle_key(key(KeyCode::Esc));
		assert!(!dashboard.should_quit());
		dashboard.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
		assert!(dashboard.should_quit());
		let mut viewer = Dashboard::new("there");
		viewer.handle_key(key(KeyCode::Char('q')));
		assert!(viewer.should_quit(), "a remote viewer quits at once");
	}

	#[test]
	fn quitting_the_coordinators_screen_asks_first() {
		let mut own = Dashboard::new("this coordinator").confirming_quit("stop the coordinator");
		own.handle_key(key(KeyCode::Char('q')));
		assert!(!own.should_quit());
		assert_eq!(
			own.quit_question().as_deref(),
			Some("Quit and stop the coordinator? q or y: yes · Esc: no")
		);
		own.handle_key(key(KeyCode::Esc));
		assert!(!own.should_quit());
		assert_eq!(own.quit_question(), None);
		own.handle_key(key(KeyCode::Char('q')));
		own.handle_key(key(KeyCode::Char('y')));
		assert!(own.should_quit());
	}

	#[test]
	fn pausing_freezes_the_screen_until_resumed() {
		let mut dashboard = Dashboard::new("here");
		dashboard.receive(progress(1.0, 10));
		dashboard.handle_key(key(KeyCode::Char('p')));
		dashboard.receive(progress(2.0, 20));
		dashboard.receive(progress(3.0, 30));
		assert_eq!(dashboard.progress().unwrap().samples_total, 10);
		assert!(dashboard.held());
		dashboard.handle_key(key(KeyCode::Char('p')));
		assert_eq!(dashboard.progress().unwrap().samples_total, 30);
		assert!(!dashboard.held());
	}

	#[test]
	fn ages_go_by_the_coordinators_clock_when_it_is_known() {
		let mut dashboard = Dashboard::new("here");
		dashboard.set_clock(5_000.0);
		dashboard.receive(progress(1.0, 10));
		assert_eq!(dashboard.clock(), 5_000.0);
		dashboard.receive(v1::Progress {
			taken_at: 1_000.0,
			..progress(2.0, 20)
		});
		assert_eq!(dashboard.clock(), 1_000.0);
	}

	#[test]
	fn rates_come_from_the_last_half_minute() {
		let mut dashboard = Dashboard::new("here");
		assert_eq!(dashboard.rates_now(), None);
		for second in 0..=60 {
			let samples = if second < 30 { 0 } else { 100 * (second - 30) };
			dashboard.receive(progress(f64::from(second), u64::from(samples as u32)));
		}
		let (samples, games) = dashboard.rates_now().unwrap();
		assert!((samples - 100.0).abs() < 1e-9, "{samples}");
		assert!((games - 10.0).abs() < 1e-9, "{games}");
	}
}
