//! Drawing the dashboard: a title line, the tabs, the alarms, the pane chosen, and a line of
//! keys. Every part draws from the snapshot shown, so a recorded snapshot always draws the same
//! screen; a terminal too small gets a sentence saying how big it must be.
//!
//! The panes, each a child: [`run`], [`gates`], [`fleet`], [`game`], and [`solve`] for a
//! placement solve.

pub mod fleet;
pub mod game;
pub mod gates;
pub mod run;
pub mod solve;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs, Widget, Wrap};

use crate::alarms::alarms;
use crate::model::{Dashboard, Link, Pane};
use crate::{fit, format};

/// The smallest screen drawn.
pub const MIN_WIDTH: u16 = 60;
/// The smallest screen drawn.
pub const MIN_HEIGHT: u16 = 16;
/// Most alarm lines shown; more are summed up on the last.
const MAX_ALARM_LINES: usize = 3;

impl Widget for &Dashboard {
	fn render(self, area: Rect, buf: &mut Buffer) {
		if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
			Paragraph::new(format!(
				"The dashboard needs at least {MIN_WIDTH}x{MIN_HEIGHT} cells; this terminal is \
				 {}x{}. q quits.",
				area.width, area.height
			))
			.wrap(Wrap { trim: true })
			.render(area, buf);
			return;
		}
		let columns = usize::from(area.width);
		let header = Header::new(self, columns);
		let alarm_lines = alarm_lines(self, columns);
		let key_lines = match self.quit_question() {
			Some(question) => fit::wrap(&question, columns)
				.into_iter()
				.map(|line| Line::styled(line, Style::new().fg(Color::Yellow).bold()))
				.collect(),
			None => key_lines(self.pane(), columns),
		};
		let [title, tabs, alarms_area, body, keys] = Layout::vertical([
			Constraint::Length(header.title.len() as u16),
			Constraint::Length(1),
			Constraint::Length(alarm_lines.len() as u16),
			Constraint::Min(0),
			Constraint::Length(key_lines.len() as u16),
		])
		.areas(area);
		Paragraph::new(header.title).render(title, buf);
		let source_width = header.source.as_ref().map_or(0, |s| s.width() as u16);
		let [tabs, source] =
			Layout::horizontal([Constraint::Min(0), Constraint::Length(source_width)]).areas(tabs);
		tabs_widget(self).render(tabs, buf);
		if let Some(line) = header.source {
			line.render(source, buf);
		}
		Paragraph::new(alarm_lines).render(alarms_area, buf);
		match self.progress() {
			None => waiting(self).render(body, buf),
			// A coordinator that solves has no run to show: its progress takes every pane.
			Some(progress) if progress.placement_solve.is_some() => {
				let solve = progress.placement_solve.as_ref().expect("just checked");
				solve::render(solve, body, buf);
			}
			Some(progress) => match self.pane() {
				Pane::Run => run::render(self, progress, body, buf),
				Pane::Gates => gates::render(self, progress, body, buf),
				Pane::Fleet => fleet::render(self, progress, body, buf),
				Pane::Game => game::render(self, body, buf),
			},
		}
		Paragraph::new(key_lines).render(keys, buf);
	}
}

fn tabs_widget(dashboard: &Dashboard) -> Tabs<'static> {
	Tabs::new(
		Pane::ALL
			.iter()
			.enumerate()
			.map(|(i, p)| format!("{} {}", i + 1, p.title())),
	)
	.select(Pane::ALL.iter().position(|p| *p == dashboard.pane()))
	.highlight_style(Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD))
}

/// Columns the tabs take: each title padded by a space on either side, and a divider between.
fn tabs_width() -> usize {
	let titles: usize = Pane::ALL
		.iter()
		.enumerate()
		.map(|(i, p)| format!("{} {}", i + 1, p.title()).chars().count() + 2)
		.sum();
	titles + Pane::ALL.len() - 1
}

/// The title lines, and the source when it goes at the right of the tabs instead.
struct Header {
	title: Vec<Line<'static>>,
	source: Option<Line<'static>>,
}

impl Header {
	/// The run's name, uptime, generation, the link's state and where the snapshots come from,
	/// in `columns`: on one line when they fit; else the source right of the tabs if it fits
	/// there; else on as many lines as they take, none of them cut.
	fn new(dashboard: &Dashboard, columns: usize) -> Header {
		let mut parts = title_parts(dashboard);
		let source = vec![Span::raw(dashboard.source().to_string())];
		let all: usize = parts.iter().map(|p| fit::width(p)).sum::<usize>()
			+ parts.len() * fit::SEPARATOR.chars().count()
			+ fit::width(&source);
		if all <= columns {
			parts.push(source);
			return Header {
				title: fit::pack(parts, columns),
				source: None,
			};
		}
		// A space between the tabs and the source.
		if tabs_width() + 1 + fit::width(&source) <= columns {
			return Header {
				title: fit::pack(parts, columns),
				source: Some(Line::from(source).right_aligned()),
			};
		}
		parts.push(source);
		Header {
			title: fit::pack(parts, columns),
			source: None,
		}
	}
}

fn title_parts(dashboard: &Dashboard) -> Vec<Vec<Span<'static>>> {
	let bold = Style::new().add_modifier(Modifier::BOLD);
	let mut parts = vec![vec![Span::styled("Tigers and Sheep", bold)]];
	if let Some(p) = dashboard.progress() {
		parts.push(vec![Span::raw(format!("run {}", p.run_name))]);
		parts.push(vec![Span::raw(format!(
			"up {}",
			format::duration(p.uptime_seconds)
		))]);
		let mut generation = format!("generation {}", p.generation);
		if p.generation_since > 0.0 {
			generation.push_str(&format!(
				" for {}",
				format::duration(dashboard.clock() - p.generation_since)
			));
		}
		parts.push(vec![Span::raw(generation)]);
	}
	let (state, color) = match dashboard.link() {
		Link::Connecting => ("CONNECTING".to_string(), Color::Yellow),
		_ if dashboard.paused() => ("PAUSED".to_string(), Color::Cyan),
		Link::Live if dashboard.is_recorded() => ("RECORDED".to_string(), Color::Cyan),
		Link::Live => ("LIVE".to_string(), Color::Green),
		Link::Lost(_) => ("RECONNECTING".to_string(), Color::Red),
		Link::Ended => ("ENDED".to_string(), Color::Red),
	};
	parts.push(vec![Span::styled(state, bold.fg(color))]);
	parts
}

/// The alarms, each wrapped to `columns`, in at most [`MAX_ALARM_LINES`] lines; alarms that do
/// not fit are counted on the last one shown.
fn alarm_lines(dashboard: &Dashboard, columns: usize) -> Vec<Line<'static>> {
	let red = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
	let link = match dashboard.link() {
		Link::Lost(reason) => Some(format!("! lost the coordinator ({reason}); trying again")),
		Link::Ended => Some("! the coordinator ended the stream: it is shutting down".to_string()),
		Link::Connecting | Link::Live => None,
	};
	let mut lines: Vec<String> = link
		.map(|text| fit::wrap(&text, columns))
		.unwrap_or_default();
	// The lost link's reason may be long: it keeps a line for the run's own alarms.
	lines.truncate(MAX_ALARM_LINES - 1);
	let styled = |lines: Vec<String>| lines.into_iter().map(|l| Line::styled(l, red)).collect();
	let Some(progress) = dashboard.progress() else {
		return styled(lines);
	};
	let found: Vec<String> = alarms(progress).iter().map(ToString::to_string).collect();
	if found.is_empty() {
		if lines.is_empty() {
			return vec![Line::styled(
				"no alarms".to_string(),
				Style::new().fg(Color::Green),
			)];
		}
		return styled(lines);
	}
	let room = MAX_ALARM_LINES - lines.len();
	lines.extend(fitting_alarms(&found, columns, room));
	styled(lines)
}

/// As many of `found` as fit whole in `room` lines of `columns`, the last shown saying how
/// many more there are.
fn fitting_alarms(found: &[String], columns: usize, room: usize) -> Vec<String> {
	for shown in (1..=found.len()).rev() {
		let mut lines = Vec::new();
		for (i, alarm) in found[..shown].iter().enumerate() {
			let more = found.len() - shown;
			let text = if i + 1 == shown && more > 0 {
				format!("! {alarm} (and {more} more)")
			} else {
				format!("! {alarm}")
			};
			lines.extend(fit::wrap(&text, columns));
		}
		if lines.len() <= room {
			return lines;
		}
	}
	// Not even the first fits whole: as much of it as fits, with the count.
	let text = match found.len() {
		1 => format!("! {}", found[0]),
		n => format!("! {} (and {} more)", found[0], n - 1),
	};
	let mut lines = fit::wrap(&text, columns);
	lines.truncate(room);
	lines
}

fn waiting(dashboard: &Dashboard) -> Paragraph<'static> {
	let text = match dashboard.link() {
		Link::Lost(reason) => format!("No progress yet from {}: {reason}", dashboard.source()),
		_ => format!(
			"Waiting for the first progress from {}…",
			dashboard.source()
		),
	};
	Paragraph::new(text).wrap(Wrap { trim: true })
}

/// The keys that work in `pane`, packed onto as many lines of `columns` as they take, none cut.
fn key_lines(pane: Pane, columns: usize) -> Vec<Line<'static>> {
	let pane_keys: &[&'static str] = match pane {
		Pane::Run => &[],
		Pane::Gates => &["x time/CPU-hours", "↑↓ scroll"],
		Pane::Fleet => &["↑↓ scroll"],
		Pane::Game => &["←→ step", "PgUp PgDn 10", "Home End", "l latest"],
	};
	let parts = ["1-4 Tab panes", "p pause display", "q quit"]
		.iter()
		.chain(pane_keys)
		.map(|keys| vec![Span::raw(*keys)])
		.collect();
	fit::pack(parts, columns)
		.into_iter()
		.map(|line| line.style(Style::new().fg(Color::DarkGray)))
		.collect()
}
