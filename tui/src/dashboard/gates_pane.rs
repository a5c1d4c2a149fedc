//! The Gates pane: every gate match against `ClaudePlayer`, newest first, with its result by
//! side, score and interval, Elo, the candidate's exact accuracy and the verdict; the reason for
//! the selected one; and three charts of the promoted nets' score, Elo and exact accuracy
//! against time or worker CPU-hours.
//!
//! A promoted net's point is its measurement on fresh openings when it has one (the unbiased
//! figure), else the match that promoted it; rejected candidates are dots.

use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
	Axis, Block, Cell, Chart, Dataset, GraphType, Paragraph, Row, Table, Widget, Wrap,
};
use tigers_core::stats::MAX_ELO;
use tigers_proto::v1;

use super::format;
use super::model::{Dashboard, GateAxis};

/// Draws the pane.
pub fn render(dashboard: &Dashboard, p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let [table_area, reason_area, legend_area, charts_area] = Layout::vertical([
		Constraint::Percentage(45),
		Constraint::Length(2),
		Constraint::Length(1),
		Constraint::Min(6),
	])
	.areas(area);
	let selected = p.gates.len().checked_sub(1 + dashboard.gate_scroll());
	table(p, selected, table_area, buf);
	let reason = selected.and_then(|i| p.gates.get(i)).map_or_else(
		|| "no gate match has finished yet".to_string(),
		|g| format!("gen {}: {}", g.generation, g.reason),
	);
	Paragraph::new(reason)
		.wrap(Wrap { trim: true })
		.style(Style::new().fg(Color::Gray))
		.render(reason_area, buf);
	let axis = dashboard.axis();
	let x_name = match axis {
		GateAxis::Time => "hours since the first gate",
		GateAxis::CpuHours => "worker CPU-hours",
	};
	Line::from(vec![
		Span::styled("── promoted nets", Style::new().fg(Color::Green)),
		Span::raw("  "),
		Span::styled("• rejected", Style::new().fg(Color::DarkGray)),
		Span::raw(format!("  across: {x_name}")),
	])
	.render(legend_area, buf);
	let [score_area, elo_area, exact_area] = Layout::horizontal([
		Constraint::Ratio(1, 3),
		Constraint::Ratio(1, 3),
		Constraint::Ratio(1, 3),
	])
	.areas(charts_area);
	chart(p, axis, Measure::Score, score_area, buf);
	chart(p, axis, Measure::Elo, elo_area, buf);
	chart(p, axis, Measure::Exact, exact_area, buf);
}

/// The candidate's exact accuracy (0 to 1), if the gate was judged by a tablebase.
fn exact_share(g: &v1::GateSummary) -> Option<f64> {
	g.candidate_exact
		.filter(|a| a.moves > 0)
		.map(|a| f64::from(a.kept) / f64::from(a.moves))
}

fn side(result: Option<v1::SideResult>) -> String {
	let r = result.unwrap_or_default();
	format!("{}-{}-{}", r.wins, r.draws, r.losses)
}

fn verdict(g: &v1::GateSummary) -> (&'static str, Style) {
	if g.measurement {
		("measured", Style::new().fg(Color::Cyan))
	} else if g.promoted {
		(
			"promoted",
			Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
		)
	} else {
		("rejected", Style::new().fg(Color::DarkGray))
	}
}

fn table(p: &v1::Progress, selected: Option<usize>, area: Rect, buf: &mut Buffer) {
	// A long run's snapshot lists its older gates thinned; say how many there were in all.
	let count = if p.gates_total > p.gates.len() as u64 {
		format!("{} of {}", p.gates.len(), p.gates_total)
	} else {
		p.gates.len().to_string()
	};
	let block = Block::bordered().title(format!(
		"gate matches against ClaudePlayer ({count}, newest first; W-D-L by the candidate's side)"
	));
	let header = Row::new([
		"gen",
		"steps",
		"as tigers",
		"as sheep",
		"score",
		"95% interval",
		"Elo",
		"exact",
		"verdict",
		"CPU-h",
	])
	.style(Style::new().add_modifier(Modifier::BOLD));
	let shown = selected.map_or(0, |i| i + 1);
	let rows = p.gates[..shown].iter().enumerate().rev().map(|(i, g)| {
		let (word, style) = verdict(g);
		let row = Row::new([
			Cell::from(g.generation.to_string()),
			Cell::from(format::count(g.training_steps)),
			Cell::from(side(g.as_tigers)),
			Cell::from(side(g.as_sheep)),
			Cell::from(format!("{:.3}", g.score)),
			Cell::from(format!("{:.3}-{:.3}", g.score_low, g.score_high)),
			Cell::from(format::elo(g.elo)),
			Cell::from(exact_share(g).map_or("-".to_string(), |a| format!("{:.1}%", 100.0 * a))),
			Cell::from(word).style(style),
			Cell::from(format!("{:.2}", g.cpu_hours)),
		]);
		if Some(i) == selected {
			row.style(Style::new().add_modifier(Modifier::REVERSED))
		} else {
			row
		}
	});
	Table::new(
		rows,
		[
			Constraint::Length(4),
			Constraint::Length(8),
			Constraint::Length(10),
			Constraint::Length(10),
			Constraint::Length(6),
			Constraint::Length(12),
			Constraint::Length(5),
			Constraint::Length(6),
			Constraint::Length(9),
			Constraint::Length(6),
		],
	)
	.header(header)
	.block(block)
	.render(area, buf);
}

#[derive(Clone, Copy)]
enum Measure {
	Score,
	Elo,
	/// The candidate's exact accuracy, where the tablebase judged it.
	Exact,
}

fn chart(p: &v1::Progress, axis: GateAxis, measure: Measure, area: Rect, buf: &mut Buffer) {
	let start = p.gates.first().map_or(0.0, |g| g.finished_at);
	let x = |g: &v1::GateSummary| match axis {
		GateAxis::Time => (g.finished_at - start) / 3600.0,
		GateAxis::CpuHours => g.cpu_hours,
	};
	let y = |g: &v1::GateSummary| match measure {
		Measure::Score => g.score,
		Measure::Elo => g.elo.clamp(-MAX_ELO, MAX_ELO),
		Measure::Exact => exact_share(g).unwrap_or(f64::NAN),
	};
	let point = |g: &v1::GateSummary| (x(g), y(g));
	let mut by_generation: BTreeMap<u64, &v1::GateSummary> = BTreeMap::new();
	for g in p.gates.iter().filter(|g| g.promoted) {
		// A measurement comes after the match that promoted the net, and replaces it.
		by_generation.insert(g.generation, g);
	}
	let promoted: Vec<(f64, f64)> = by_generation
		.values()
		.filter(|g| y(g).is_finite())
		.map(|g| point(g))
		.collect();
	let rejected: Vec<(f64, f64)> = p
		.gates
		.iter()
		.filter(|g| !g.promoted && y(g).is_finite())
		.map(point)
		.collect();
	let (title, y_bounds) = match measure {
		Measure::Score => ("score vs ClaudePlayer", [0.0, 1.0]),
		Measure::Exact => {
			let lo = promoted
				.iter()
				.chain(&rejected)
				.fold(1.0_f64, |lo, (_, y)| lo.min(*y));
			("exact accuracy", [(lo - 0.02).clamp(0.0, 0.98), 1.0])
		}
		Measure::Elo => {
			let (lo, hi) = promoted
				.iter()
				.chain(&rejected)
				.fold((0.0_f64, 0.0_f64), |(lo, hi), (_, y)| {
					(lo.min(*y), hi.max(*y))
				});
			("Elo vs ClaudePlayer", [lo - 50.0, hi + 50.0])
		}
	};
	let block = Block::bordered().title(title);
	let hide_legend = (Constraint::Length(0), Constraint::Length(0));
	if promoted.is_empty() && rejected.is_empty() {
		let inner = block.inner(area);
		block.render(area, buf);
		Paragraph::new(Line::from("nothing to chart yet")).render(inner, buf);
		return;
	}
	let x_max = promoted
		.iter()
		.chain(&rejected)
		.map(|(x, _)| *x)
		.fold(0.0_f64, f64::max)
		.max(0.01);
	let dim = Style::new().fg(Color::DarkGray);
	let label = |v: f64| match measure {
		Measure::Score => format!("{v:.2}"),
		Measure::Elo => format!("{v:+.0}"),
		Measure::Exact => format!("{:.0}%", 100.0 * v),
	};
	Chart::new(vec![
		Dataset::default()
			.name("rejected")
			.marker(Marker::Dot)
			.graph_type(GraphType::Scatter)
			.style(dim)
			.data(&rejected),
		Dataset::default()
			.name("promoted")
			.marker(Marker::Braille)
			.graph_type(GraphType::Line)
			.style(Style::new().fg(Color::Green))
			.data(&promoted),
	])
	.block(block)
	.hidden_legend_constraints(hide_legend)
	.legend_position(None)
	.x_axis(
		Axis::default()
			.bounds([0.0, x_max])
			.style(dim)
			.labels(["0".to_string(), format!("{x_max:.2}")]),
	)
	.y_axis(
		Axis::default()
			.bounds(y_bounds)
			.style(dim)
			.labels([label(y_bounds[0]), label(y_bounds[1])]),
	)
	.render(area, buf);
}
