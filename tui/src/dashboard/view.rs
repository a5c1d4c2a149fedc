//! Drawing the dashboard: a title line, the tabs, the alarms, the pane chosen, and a line of
//! keys. Every part draws from the snapshot shown, so a recorded snapshot always draws the same
//! screen; a terminal too small gets a sentence saying how big it must be.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs, Widget, Wrap};
use tigers_proto::v1;

use super::alarms::alarms;
use super::format;
use super::model::{Dashboard, Link, Pane};
use super::{fleet_pane, game_pane, gates_pane, run_pane};

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
		let alarm_lines = alarm_lines(self);
		let [title, tabs, alarms_area, body, keys] = Layout::vertical([
			Constraint::Length(1),
			Constraint::Length(1),
			Constraint::Length(alarm_lines.len() as u16),
			Constraint::Min(0),
			Constraint::Length(1),
		])
		.areas(area);
		title_line(self).render(title, buf);
		Tabs::new(
			Pane::ALL
				.iter()
				.enumerate()
				.map(|(i, p)| format!("{} {}", i + 1, p.title())),
		)
		.select(Pane::ALL.iter().position(|p| *p == self.pane()))
		.highlight_style(Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD))
		.render(tabs, buf);
		Paragraph::new(alarm_lines).render(alarms_area, buf);
		match self.progress() {
			None => waiting(self).render(body, buf),
			Some(progress) => match self.pane() {
				Pane::Run => run_pane::render(self, progress, body, buf),
				Pane::Gates => gates_pane::render(self, progress, body, buf),
				Pane::Fleet => fleet_pane::render(self, progress, body, buf),
				Pane::Game => game_pane::render(self, body, buf),
			},
		}
		let line = match self.quit_question() {
			Some(question) => Line::styled(question, Style::new().fg(Color::Yellow).bold()),
			None => keys_line(self.pane()),
		};
		line.render(keys, buf);
	}
}

fn title_line(dashboard: &Dashboard) -> Line<'static> {
	let bold = Style::new().add_modifier(Modifier::BOLD);
	let mut spans = vec![Span::styled("Tigers and Sheep", bold)];
	if let Some(p) = dashboard.progress() {
		spans.push(Span::raw(format!(
			" · run {} · up {} · generation {}",
			p.run_name,
			format::duration(p.uptime_seconds),
			p.generation
		)));
		if p.generation_since > 0.0 {
			spans.push(Span::raw(format!(
				" for {}",
				format::duration(dashboard.clock() - p.generation_since)
			)));
		}
	}
	spans.push(Span::raw(" · "));
	let (state, color) = match dashboard.link() {
		Link::Connecting => ("CONNECTING".to_string(), Color::Yellow),
		_ if dashboard.paused() => ("PAUSED".to_string(), Color::Cyan),
		Link::Live if dashboard.is_recorded() => ("RECORDED".to_string(), Color::Cyan),
		Link::Live => ("LIVE".to_string(), Color::Green),
		Link::Lost(_) => ("RECONNECTING".to_string(), Color::Red),
		Link::Ended => ("ENDED".to_string(), Color::Red),
	};
	spans.push(Span::styled(state, bold.fg(color)));
	spans.push(Span::raw(format!(" · {}", dashboard.source())));
	Line::from(spans)
}

fn alarm_lines(dashboard: &Dashboard) -> Vec<Line<'static>> {
	let red = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
	let mut lines = Vec::new();
	match dashboard.link() {
		Link::Lost(reason) => lines.push(Line::styled(
			format!("! lost the coordinator ({reason}); trying again"),
			red,
		)),
		Link::Ended => lines.push(Line::styled(
			"! the coordinator ended the stream: it is shutting down".to_string(),
			red,
		)),
		Link::Connecting | Link::Live => {}
	}
	let Some(progress) = dashboard.progress() else {
		return lines;
	};
	let found = alarms(progress);
	if found.is_empty() && lines.is_empty() {
		lines.push(Line::styled(
			"no alarms".to_string(),
			Style::new().fg(Color::Green),
		));
	}
	let room = MAX_ALARM_LINES.saturating_sub(lines.len());
	for (i, alarm) in found.iter().enumerate().take(room) {
		if i + 1 == room && found.len() > room {
			lines.push(Line::styled(
				format!("! {alarm} (and {} more)", found.len() - room),
				red,
			));
		} else {
			lines.push(Line::styled(format!("! {alarm}"), red));
		}
	}
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

fn keys_line(pane: Pane) -> Line<'static> {
	let pane_keys = match pane {
		Pane::Run => "",
		Pane::Gates => " · x time/CPU-hours · ↑↓ scroll",
		Pane::Fleet => " · ↑↓ scroll",
		Pane::Game => " · ←→ step · PgUp PgDn 10 · Home End · l latest",
	};
	Line::styled(
		format!("1-4 Tab panes · p pause display · q quit{pane_keys}"),
		Style::new().fg(Color::DarkGray),
	)
}

/// Samples and games per second between consecutive throughput points.
pub fn throughput_rates(points: &[v1::ThroughputPoint]) -> (Vec<u64>, Vec<u64>) {
	points
		.windows(2)
		.map(|w| {
			let seconds = (w[1].at - w[0].at).max(1e-9);
			(
				(w[1].samples_total.saturating_sub(w[0].samples_total) as f64 / seconds).round()
					as u64,
				(w[1].games_total.saturating_sub(w[0].games_total) as f64 / seconds * 60.0).round()
					as u64,
			)
		})
		.unzip()
}
