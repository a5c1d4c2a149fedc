//! The Fleet pane: one row a worker with what it plays and how fast, when it was last heard
//! from, reconnects and flagged searches; quiet and disconnected workers stand out, and only
//! the workers producing now count in the fleet's total rate.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, Widget};
use tigers_proto::v1;

use crate::alarms::is_quiet;
use crate::model::Dashboard;
use crate::{fit, format};

/// Widths of the table at or above which the headers are spelt out in full.
const WIDE: u16 = 100;

/// Draws the pane.
pub fn render(dashboard: &Dashboard, p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let summary = fit::pack(summary_parts(p), usize::from(area.width));
	let [summary_area, table_area] =
		Layout::vertical([Constraint::Length(summary.len() as u16), Constraint::Min(0)])
			.areas(area);
	Paragraph::new(summary).render(summary_area, buf);
	table(dashboard, p, table_area, buf);
}

/// Whether a worker's reported rate is current: it has a session and has been heard from
/// lately. Only those count in the fleet's total.
pub fn is_producing(worker: &v1::WorkerSummary) -> bool {
	worker.connected && !is_quiet(worker)
}

/// The fleet in a few figures: workers, threads and reported rate of those producing now,
/// CPU-hours, and the share of recent samples from superseded generations.
fn summary_parts(p: &v1::Progress) -> Vec<Vec<Span<'static>>> {
	let connected: Vec<&v1::WorkerSummary> = p.workers.iter().filter(|w| w.connected).collect();
	let threads: u32 = connected.iter().map(|w| w.threads).sum();
	let rate: f64 = p
		.workers
		.iter()
		.filter(|w| is_producing(w))
		.map(|w| w.samples_per_second)
		.sum();
	let (connected_count, known) = worker_counts(p);
	let unlisted = known.saturating_sub(p.workers.len() as u64);
	let more = if unlisted > 0 {
		format!(" ({unlisted} not listed)")
	} else {
		String::new()
	};
	[
		format!("{connected_count} of {known} workers connected{more}"),
		format!("{threads} threads"),
		format!("{} samples/s reported", format::rate(rate)),
		format!("{:.2} CPU-hours over the run", p.cpu_hours),
		format!(
			"{} of the {} samples of the last 5 min came from superseded generations",
			format::percent(p.recent_superseded, p.recent_samples),
			format::count(p.recent_samples)
		),
	]
	.into_iter()
	.map(|text| vec![Span::raw(text)])
	.collect()
}

fn table(dashboard: &Dashboard, p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let wide = area.width >= WIDE;
	let label = |full: &'static str, short: &'static str| if wide { full } else { short };
	let header = Row::new([
		"name",
		"host",
		label("threads", "thr"),
		"gen",
		label("samples/s", "smp/s"),
		"samples",
		"heard",
		label("reconn", "rec"),
		label("flagged", "flag"),
		"state",
	])
	.style(Style::new().add_modifier(Modifier::BOLD));
	let rows = p
		.workers
		.iter()
		.skip(dashboard.fleet_scroll())
		.map(|w| worker_row(w, p.generation));
	let width = |full: u16, short: u16| Constraint::Length(if wide { full } else { short });
	Table::new(
		rows,
		[
			Constraint::Min(9),
			Constraint::Min(6),
			width(7, 3),
			Constraint::Length(4),
			width(9, 6),
			Constraint::Length(10),
			Constraint::Length(11),
			width(6, 3),
			width(7, 4),
			Constraint::Length(7),
		],
	)
	.header(header)
	.block(Block::bordered().title(format!("workers ({})", p.workers.len())))
	.render(area, buf);
}

/// One worker's row. A generation or rate that is not known (a worker not heard from since the
/// coordinator started, or without a session) shows as `?` or `-`, never as 0.
fn worker_row(w: &v1::WorkerSummary, latest: u64) -> Row<'static> {
	let (state, style) = if !w.connected {
		("gone", Style::new().fg(Color::DarkGray))
	} else if is_quiet(w) {
		("quiet", Style::new().fg(Color::Yellow))
	} else if w.generation.is_some_and(|g| g < latest) {
		("behind", Style::new().fg(Color::Yellow))
	} else {
		("playing", Style::new())
	};
	let flagged = if w.flagged > 0 {
		Cell::from(w.flagged.to_string()).style(Style::new().fg(Color::Red))
	} else {
		Cell::from("0")
	};
	let rate = if w.connected {
		format::rate(w.samples_per_second)
	} else {
		"-".to_string()
	};
	Row::new([
		Cell::from(w.name.clone()),
		Cell::from(w.host.clone()),
		Cell::from(w.threads.to_string()),
		Cell::from(w.generation.map_or("?".to_string(), |g| g.to_string())),
		Cell::from(rate),
		Cell::from(format::count(w.samples)),
		Cell::from(format!("{} ago", format::duration(w.seconds_since_heard))),
		Cell::from(w.reconnects.to_string()),
		flagged,
		Cell::from(state),
	])
	.style(style)
}

/// Workers connected and known: the snapshot's counts of all of them, or, from a coordinator
/// (or a recording) without them, the listed workers.
pub fn worker_counts(p: &v1::Progress) -> (u64, u64) {
	if p.workers_known > 0 {
		(p.workers_connected, p.workers_known)
	} else {
		let connected = p.workers.iter().filter(|w| w.connected).count();
		(connected as u64, p.workers.len() as u64)
	}
}
