//! The placement solve (`coordinator solve`), shown in place of every pane when the snapshot
//! is a solve's: the layer, slices done and in flight, positions a second and time left, the
//! checks made, and one row a worker with its share; flagged workers stand out in red.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Paragraph, Row, Table, Widget};
use tigers_proto::v1;

use crate::{fit, format};

/// Draws the solve's progress.
pub fn render(solve: &v1::PlacementSolve, area: Rect, buf: &mut Buffer) {
	let summary = fit::pack(summary_parts(solve), usize::from(area.width));
	let [summary_area, table_area] =
		Layout::vertical([Constraint::Length(summary.len() as u16), Constraint::Min(0)])
			.areas(area);
	Paragraph::new(summary).render(summary_area, buf);
	table(solve, table_area, buf);
}

fn summary_parts(s: &v1::PlacementSolve) -> Vec<Vec<Span<'static>>> {
	let layer = if s.finished {
		"placement solve finished".to_string()
	} else if s.layer.is_empty() {
		"placement solve: between layers".to_string()
	} else {
		format!("placement solve: {}", s.layer)
	};
	let left = if s.seconds_left > 0.0 {
		format!("{} left", format::duration(s.seconds_left))
	} else {
		"time left unknown".to_string()
	};
	[
		layer,
		format!("layers {} of {}", s.layers_done, s.layers),
		format!(
			"slices {} of {} done, {} out",
			s.slices_done, s.slices, s.slices_in_flight
		),
		format!(
			"positions {} of {} ({})",
			format::count(s.positions_done),
			format::count(s.positions),
			format::percent(s.positions_done, s.positions)
		),
		format!("{}/s", format::rate(s.positions_per_second)),
		left,
		format!(
			"{} slices reassigned, {} doubled, {} positions checked again",
			s.slices_reassigned,
			s.slices_doubled,
			format::count(s.positions_checked)
		),
	]
	.into_iter()
	.map(|text| vec![Span::raw(text)])
	.collect()
}

fn table(s: &v1::PlacementSolve, area: Rect, buf: &mut Buffer) {
	let header = Row::new([
		"worker",
		"slices",
		"positions",
		"share",
		"out",
		"seen",
		"flag",
	])
	.style(Style::new().add_modifier(Modifier::BOLD));
	let rows = s.workers.iter().map(|w| {
		let style = if w.flagged {
			Style::new().fg(Color::Red)
		} else {
			Style::new()
		};
		Row::new([
			Cell::from(w.name.clone()),
			Cell::from(w.slices.to_string()),
			Cell::from(format::count(w.positions)),
			Cell::from(format!("{:.1}%", 100.0 * w.share)),
			Cell::from(w.in_flight.to_string()),
			Cell::from(format!("{} ago", format::duration(w.seconds_since_seen))),
			Cell::from(if w.flagged {
				w.flag_reason.clone()
			} else {
				String::new()
			}),
		])
		.style(style)
	});
	let widths = [
		Constraint::Length(10),
		Constraint::Length(6),
		Constraint::Length(14),
		Constraint::Length(7),
		Constraint::Length(4),
		Constraint::Length(9),
		Constraint::Min(4),
	];
	Widget::render(Table::new(rows, widths).header(header), area, buf);
}
