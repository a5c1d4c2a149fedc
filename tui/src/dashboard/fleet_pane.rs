//! The Fleet pane: one row a worker with what it plays and how fast, when it was last heard
//! from, reconnects and flagged searches; quiet and disconnected workers stand out.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, Widget};
use tigers_proto::v1;

use super::alarms::is_quiet;
use super::format;
use super::model::Dashboard;

/// Draws the pane.
pub fn render(dashboard: &Dashboard, p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let [summary_area, table_area] =
		Layout::vertical([Constraint::Length(2), Constraint::Min(0)]).areas(area);
	let connected: Vec<&v1::WorkerSummary> = p.workers.iter().filter(|w| w.connected).collect();
	let threads: u32 = connected.iter().map(|w| w.threads).sum();
	let rate: f64 = connected.iter().map(|w| w.samples_per_second).sum();
	let (connected_count, known) = worker_counts(p);
	let unlisted = known.saturating_sub(p.workers.len() as u64);
	let more = if unlisted > 0 {
		format!(" ({unlisted} not listed)")
	} else {
		String::new()
	};
	Paragraph::new(vec![
		format!(
			"{connected_count} of {known} workers connected{more} · {threads} threads · {} \
			 samples/s reported · {:.2} CPU-hours over the run",
			format::rate(rate),
			p.cpu_hours
		)
		.into(),
		format!(
			"{} of the {} samples of the last 5 min came from superseded generations",
			format::percent(p.recent_superseded, p.recent_samples),
			format::count(p.recent_samples)
		)
		.into(),
	])
	.render(summary_area, buf);

	let header = Row::new([
		"name",
		"host",
		"threads",
		"gen",
		"samples/s",
		"samples",
		"heard",
		"reconn",
		"flagged",
		"state",
	])
	.style(Style::new().add_modifier(Modifier::BOLD));
	let rows = p.workers.iter().skip(dashboard.fleet_scroll()).map(|w| {
		let (state, style) = if !w.connected {
			("gone", Style::new().fg(Color::DarkGray))
		} else if is_quiet(w) {
			("quiet", Style::new().fg(Color::Yellow))
		} else if w.generation < p.generation {
			("behind", Style::new().fg(Color::Yellow))
		} else {
			("playing", Style::new())
		};
		let flagged = if w.flagged > 0 {
			Cell::from(w.flagged.to_string()).style(Style::new().fg(Color::Red))
		} else {
			Cell::from("0")
		};
		Row::new([
			Cell::from(w.name.clone()),
			Cell::from(w.host.clone()),
			Cell::from(w.threads.to_string()),
			Cell::from(w.generation.to_string()),
			Cell::from(format::rate(w.samples_per_second)),
			Cell::from(format::count(w.samples)),
			Cell::from(format!("{} ago", format::duration(w.seconds_since_heard))),
			Cell::from(w.reconnects.to_string()),
			flagged,
			Cell::from(state),
		])
		.style(style)
	});
	Table::new(
		rows,
		[
			Constraint::Min(10),
			Constraint::Min(10),
			Constraint::Length(7),
			Constraint::Length(4),
			Constraint::Length(9),
			Constraint::Length(10),
			Constraint::Length(12),
			Constraint::Length(6),
			Constraint::Length(7),
			Constraint::Length(7),
		],
	)
	.header(header)
	.block(Block::bordered().title(format!("workers ({})", p.workers.len())))
	.render(table_area, buf);
}

/// Workers connected and known: the snapshot's counts of all of them, or, from a coordinator
/// (or a recording) without them, the listed workers.
fn worker_counts(p: &v1::Progress) -> (u64, u64) {
	if p.workers_known > 0 {
		(p.workers_connected, p.workers_known)
	} else {
		let connected = p.workers.iter().filter(|w| w.connected).count();
		(connected as u64, p.workers.len() as u64)
	}
}
