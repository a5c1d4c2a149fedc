//! The Fleet pane: the fleet's figures (`fleet`), then one row a worker with what it plays and
//! how fast, when it was last heard from, reconnects and flagged searches; quiet and
//! disconnected workers stand out.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, Widget};
use tigers_proto::v1;

use crate::fleet::{FleetSummary, WorkerState};
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

/// The fleet in a few figures, one phrase a line where the width asks for it.
fn summary_parts(p: &v1::Progress) -> Vec<Vec<Span<'static>>> {
	FleetSummary::of(p)
		.phrases()
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
	let state = WorkerState::of(w, latest);
	let style = match state {
		WorkerState::Gone => Style::new().fg(Color::DarkGray),
		WorkerState::Quiet | WorkerState::Behind => Style::new().fg(Color::Yellow),
		WorkerState::Playing => Style::new(),
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
		Cell::from(state.word()),
	])
	.style(style)
}
