//! The Gates pane: every gate match, newest first, against `ClaudePlayer` or the incumbent net
//! (`vs`), with its result by side, score and interval, Elo, the candidate's exact accuracy in
//! the movement and placement phases, the verdict, the net's rating on the ladder and, on a
//! promoted net's measurement, its score at equal time per move (or how far that measurement
//! has got); the reason for the selected one; the ladder's best net and the newest net's
//! grades on the suite; and three charts of the
//! promoted nets' score, Elo and exact accuracy against time or worker CPU-hours, at fixed
//! depth and at equal time.
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
	Axis, Block, Cell, Chart, Dataset, GraphType, Paragraph, Row, Table, Widget,
};
use tigers_core::stats::MAX_ELO;
use tigers_proto::v1;

use crate::model::{Dashboard, GateAxis};
use crate::{fit, format};

/// The most lines a gate's decision takes: a promotion's sentence, the longest, names both
/// scores with their intervals and the SPRT's stop, some 190 characters, three lines at 80
/// columns and four at 60.
const MAX_REASON_LINES: usize = 4;

/// Draws the pane.
pub fn render(dashboard: &Dashboard, p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let selected = p.gates.len().checked_sub(1 + dashboard.gate_scroll());
	let reason = selected.and_then(|i| p.gates.get(i)).map_or_else(
		|| "no gate match has finished yet".to_string(),
		|g| decision(g, p),
	);
	// The decision in full: as many lines as it wraps to, up to a few.
	let mut reason = fit::wrap(&reason, usize::from(area.width));
	reason.truncate(MAX_REASON_LINES);
	let [table_area, reason_area, legend_area, charts_area] = Layout::vertical([
		Constraint::Percentage(45),
		Constraint::Length(reason.len() as u16),
		Constraint::Length(1),
		Constraint::Min(6),
	])
	.areas(area);
	table(p, selected, table_area, buf);
	Paragraph::new(reason.into_iter().map(Line::from).collect::<Vec<_>>())
		.style(Style::new().fg(Color::Gray))
		.render(reason_area, buf);
	let axis = dashboard.axis();
	let x_name = match axis {
		GateAxis::Time => "hours since the first gate",
		GateAxis::CpuHours => "worker CPU-hours",
	};
	Line::from(vec![
		best_span(p),
		grade_span(p),
		Span::styled("── promoted", Style::new().fg(Color::Green)),
		Span::raw("  "),
		Span::styled("── equal time", Style::new().fg(Color::Yellow)),
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

/// The ladder's best net and its rating, leading the legend line.
fn best_span(p: &v1::Progress) -> Span<'static> {
	let ladder = p.ladder.as_ref();
	let best = ladder.and_then(|l| {
		let generation = l.best_generation?;
		l.ratings.iter().find(|r| r.generation == Some(generation))
	});
	match best {
		Some(r) => Span::styled(
			format!(
				"best gen {} {:+.0} [{:+.0},{:+.0}]  ",
				r.generation.unwrap_or_default(),
				r.rating,
				r.low,
				r.high
			),
			Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
		),
		None => Span::raw(""),
	}
}

/// The newest net's grades on the suite: the share of positions in which its search's move kept
/// the exact value, and the share whose class its evaluation got right.
fn grade_span(p: &v1::Progress) -> Span<'static> {
	let Some(grade) = p.grades.last() else {
		return Span::raw("");
	};
	let (placement, movement) = (
		grade.placement.unwrap_or_default(),
		grade.movement.unwrap_or_default(),
	);
	let positions = placement.positions + movement.positions;
	if positions == 0 {
		return Span::raw("");
	}
	let share = |count: u32| 100.0 * f64::from(count) / f64::from(positions);
	Span::styled(
		format!(
			"gen {} graded: move {:.1}%, class {:.1}%  ",
			grade.generation,
			share(placement.moves_kept + movement.moves_kept),
			share(placement.class_right + movement.class_right)
		),
		Style::new().fg(Color::Magenta),
	)
}

/// The net's rating on the ladder, for a promoted candidate's or a measurement's row.
fn ladder_rating(g: &v1::GateSummary, p: &v1::Progress) -> Cell<'static> {
	if !g.promoted && !g.measurement {
		return Cell::from("");
	}
	let ladder = p.ladder.as_ref();
	let rating = ladder.and_then(|l| {
		l.ratings
			.iter()
			.find(|r| r.generation == Some(g.generation))
	});
	match rating {
		Some(r) => {
			let best = ladder.and_then(|l| l.best_generation) == Some(g.generation);
			let style = if best {
				Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
			} else {
				Style::new()
			};
			Cell::from(format!("{:+.0}", r.rating)).style(style)
		}
		None => Cell::from("-"),
	}
}

/// Whom the candidate played: `ClaudePlayer`, or the incumbent net by its generation.
fn opponent(g: &v1::GateSummary) -> String {
	g.opponent_generation
		.map_or("Claude".to_string(), |generation| format!("g{generation}"))
}

/// The candidate's exact accuracy (0 to 1), if the gate was judged by a tablebase.
fn exact_share(g: &v1::GateSummary) -> Option<f64> {
	share(g.candidate_exact)
}

/// An exact accuracy as a share (0 to 1), if there was one.
fn share(accuracy: Option<v1::ExactAccuracy>) -> Option<f64> {
	accuracy
		.filter(|a| a.moves > 0)
		.map(|a| f64::from(a.kept) / f64::from(a.moves))
}

/// A share as a percentage to a tenth, or `-` where there is none.
fn percent(share: Option<f64>) -> String {
	share.map_or("-".to_string(), |a| format!("{:.1}%", 100.0 * a))
}

/// A gate's decision, and on a promoted net's measurement row its score at equal time with what
/// the tablebase did in those games: the two figures differ most there.
fn decision(g: &v1::GateSummary, p: &v1::Progress) -> String {
	let mut text = format!("gen {}: {}", g.generation, g.reason);
	let timed = p.timed.iter().find(|t| t.generation == g.generation);
	if let Some(t) = timed.filter(|_| g.measurement) {
		text.push_str(&format!(
			"; at equal time, {} ms a move with {}: {:.3} [{:.3}, {:.3}]",
			t.move_ms,
			format::table_role(&t.tablebase, t.candidate_exact.is_some()),
			t.score,
			t.score_low,
			t.score_high
		));
		if let Some(kept) = share(t.candidate_placement) {
			text.push_str(&format!(
				", placement value kept {:.1}% (ClaudePlayer {})",
				100.0 * kept,
				percent(share(t.reference_placement))
			));
		}
	}
	text
}

/// On a promoted net's measurement row: its score at equal time per move, or how many pairs of
/// that measurement are played while it runs; blank on other rows.
fn equal_time(g: &v1::GateSummary, p: &v1::Progress) -> Cell<'static> {
	if !g.measurement {
		return Cell::from("");
	}
	if let Some(timed) = p.timed.iter().find(|t| t.generation == g.generation) {
		return Cell::from(format!("{:.3}", timed.score)).style(Style::new().fg(Color::Yellow));
	}
	match &p.timed_running {
		Some(running) if running.generation == g.generation => {
			Cell::from(format!("{}/{}", running.pairs_done, running.pairs))
				.style(Style::new().fg(Color::DarkGray))
		}
		_ => Cell::from("-"),
	}
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

/// One column of the gates table.
struct Column {
	/// The header with room to spare, and the short one.
	header: (&'static str, &'static str),
	/// Its width with room to spare, and the narrow one (at least its widest usual value).
	width: (u16, u16),
	/// Columns with a higher number go first when the table is too wide; 0 never goes.
	drop_rank: u8,
	/// Its cell for a gate, in the snapshot that lists it.
	cell: fn(&v1::GateSummary, &v1::Progress) -> Cell<'static>,
}

/// The table's columns, left to right. At 80 columns all but the opponent, CPU-hours, steps
/// and the placement accuracy fit, narrow (the charts show CPU-hours on their axis with `x`;
/// the verdict and the reason say whom a candidate played); a column added here pushes out
/// the columns of the highest drop ranks at narrow widths.
const COLUMNS: [Column; 14] = [
	Column {
		header: ("gen", "gen"),
		width: (4, 4),
		drop_rank: 0,
		cell: |g, _| Cell::from(g.generation.to_string()),
	},
	Column {
		header: ("vs", "vs"),
		width: (6, 6),
		drop_rank: 4,
		cell: |g, _| Cell::from(opponent(g)),
	},
	Column {
		header: ("steps", "steps"),
		width: (8, 7),
		drop_rank: 2,
		cell: |g, _| Cell::from(format::count(g.training_steps)),
	},
	Column {
		header: ("as tigers", "tigers"),
		width: (9, 8),
		drop_rank: 0,
		cell: |g, _| Cell::from(side(g.as_tigers)),
	},
	Column {
		header: ("as sheep", "sheep"),
		width: (9, 8),
		drop_rank: 0,
		cell: |g, _| Cell::from(side(g.as_sheep)),
	},
	Column {
		header: ("score", "score"),
		width: (6, 5),
		drop_rank: 0,
		cell: |g, _| Cell::from(format!("{:.3}", g.score)),
	},
	Column {
		header: ("95% interval", "95% int"),
		width: (12, 11),
		drop_rank: 1,
		cell: |g, _| Cell::from(format!("{:.3}-{:.3}", g.score_low, g.score_high)),
	},
	Column {
		header: ("Elo", "Elo"),
		width: (5, 5),
		drop_rank: 0,
		cell: |g, _| Cell::from(format::elo(g.elo)),
	},
	Column {
		header: ("exact", "exact"),
		width: (6, 6),
		drop_rank: 0,
		cell: |g, _| Cell::from(percent(exact_share(g))),
	},
	Column {
		header: ("placement", "place"),
		width: (9, 6),
		drop_rank: 2,
		cell: |g, _| Cell::from(percent(share(g.candidate_placement))),
	},
	Column {
		header: ("verdict", "verdict"),
		width: (9, 8),
		drop_rank: 0,
		cell: |g, _| {
			let (word, style) = verdict(g);
			Cell::from(word).style(style)
		},
	},
	Column {
		header: ("ladder", "lad."),
		width: (6, 5),
		drop_rank: 1,
		cell: ladder_rating,
	},
	Column {
		header: ("equal time", "eq.t"),
		width: (10, 6),
		drop_rank: 0,
		cell: equal_time,
	},
	Column {
		header: ("CPU-h", "CPU-h"),
		width: (6, 6),
		drop_rank: 3,
		cell: |g, _| Cell::from(format!("{:.2}", g.cpu_hours)),
	},
];

/// Which of `columns` to show in `width` cells, and whether spelt out in full: every column
/// wide if they fit so, else narrow, dropping the highest drop ranks first until they fit.
fn shown_columns(columns: &[Column], width: u16) -> (Vec<usize>, bool) {
	let used = |shown: &[usize], wide: bool| -> u16 {
		let cells: u16 = shown
			.iter()
			.map(|&i| {
				let (full, narrow) = columns[i].width;
				if wide { full } else { narrow }
			})
			.sum();
		// One column of space between neighbours.
		cells + shown.len().saturating_sub(1) as u16
	};
	let mut shown: Vec<usize> = (0..columns.len()).collect();
	if used(&shown, true) <= width {
		return (shown, true);
	}
	while used(&shown, false) > width {
		let Some(worst) = shown
			.iter()
			.copied()
			.filter(|&i| columns[i].drop_rank > 0)
			.max_by_key(|&i| columns[i].drop_rank)
		else {
			break;
		};
		shown.retain(|&i| i != worst);
	}
	(shown, false)
}

fn table(p: &v1::Progress, selected: Option<usize>, area: Rect, buf: &mut Buffer) {
	// A long run's snapshot lists its older gates thinned; say how many there were in all.
	let count = if p.gates_total > p.gates.len() as u64 {
		format!("{} of {}", p.gates.len(), p.gates_total)
	} else {
		p.gates.len().to_string()
	};
	let titles = [
		format!("gate matches ({count}, newest first; W-D-L by the candidate's side)"),
		format!("gate matches ({count}, newest first; W-D-L by side)"),
		format!("gates ({count}; W-D-L by side)"),
	];
	let (shown, wide) = shown_columns(&COLUMNS, area.width.saturating_sub(2));
	let block = Block::bordered()
		.title(fit::first_fitting(
			&titles,
			usize::from(area.width).saturating_sub(2),
		))
		.title_bottom(legend(wide, usize::from(area.width).saturating_sub(2)));
	let header = Row::new(shown.iter().map(|&i| {
		let (full, short) = COLUMNS[i].header;
		if wide { full } else { short }
	}))
	.style(Style::new().add_modifier(Modifier::BOLD));
	let rows_shown = selected.map_or(0, |i| i + 1);
	let rows = p.gates[..rows_shown]
		.iter()
		.enumerate()
		.rev()
		.map(|(i, g)| {
			let row = Row::new(shown.iter().map(|&c| (COLUMNS[c].cell)(g, p)));
			if Some(i) == selected {
				row.style(Style::new().add_modifier(Modifier::REVERSED))
			} else {
				row
			}
		});
	let widths = shown.iter().map(|&i| {
		let (full, narrow) = COLUMNS[i].width;
		Constraint::Length(if wide { full } else { narrow })
	});
	Table::new(rows, widths)
		.header(header)
		.block(block)
		.render(area, buf);
}

/// What the table's words and short headers mean, on its bottom border: `measured` rows and
/// the equal-time column are the ones a reader cannot guess.
fn legend(wide: bool, columns: usize) -> String {
	let column = if wide { "equal time" } else { "eq.t" };
	let choices = [
		format!(
			"measured: a promoted net's own match on fresh openings · {column}: its score at \
			 equal time a move, or pairs played/pairs while it plays"
		),
		format!(
			"measured: a promoted net on fresh openings · {column}: score at equal time a move, \
			 or pairs played/pairs"
		),
		format!("measured: promoted net, fresh openings · {column}: score at equal time"),
		format!("{column}: score at equal time"),
	];
	fit::first_fitting(&choices, columns)
}

#[derive(Clone, Copy)]
enum Measure {
	Score,
	Elo,
	/// The candidate's exact accuracy, where the tablebase judged it.
	Exact,
}

impl Measure {
	/// What the chart plots for a gate, NaN where there is nothing (no exact accuracy).
	fn of_gate(self, g: &v1::GateSummary) -> f64 {
		match self {
			Measure::Score => g.score,
			Measure::Elo => g.elo.clamp(-MAX_ELO, MAX_ELO),
			Measure::Exact => exact_share(g).unwrap_or(f64::NAN),
		}
	}

	/// What the chart plots for an equal-time measurement.
	fn of_timed(self, t: &v1::TimedMeasurement) -> f64 {
		match self {
			Measure::Score => t.score,
			Measure::Elo => t.elo.clamp(-MAX_ELO, MAX_ELO),
			Measure::Exact => share(t.candidate_exact).unwrap_or(f64::NAN),
		}
	}

	/// The chart's title and vertical range for these points: scores on 0 to 1, Elo and exact
	/// accuracy fitted to what there is.
	fn range(self, points: &Series) -> (&'static str, [f64; 2]) {
		let ys = || points.all().map(|(_, y)| *y);
		match self {
			Measure::Score => ("score vs ClaudePlayer", [0.0, 1.0]),
			Measure::Exact => {
				let lo = ys().fold(1.0_f64, f64::min);
				("exact accuracy", [(lo - 0.02).clamp(0.0, 0.98), 1.0])
			}
			Measure::Elo => {
				let (lo, hi) = ys().fold((0.0_f64, 0.0_f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
				("Elo vs ClaudePlayer", [lo - 50.0, hi + 50.0])
			}
		}
	}

	/// A value as the vertical axis labels it.
	fn label(self, v: f64) -> String {
		match self {
			Measure::Score => format!("{v:.2}"),
			Measure::Elo => format!("{v:+.0}"),
			Measure::Exact => format!("{:.0}%", 100.0 * v),
		}
	}
}

/// The chart's three sets of (hours or CPU-hours, measure) points.
struct Series {
	/// Each promoted net's last gate or measurement, by generation.
	promoted: Vec<(f64, f64)>,
	/// The candidates kept out.
	rejected: Vec<(f64, f64)>,
	/// The run's equal-time measurements.
	timed: Vec<(f64, f64)>,
}

impl Series {
	fn of(p: &v1::Progress, axis: GateAxis, measure: Measure) -> Series {
		let start = p.gates.first().map_or(0.0, |g| g.finished_at);
		let x = |finished_at: f64, cpu_hours: f64| match axis {
			GateAxis::Time => (finished_at - start) / 3600.0,
			GateAxis::CpuHours => cpu_hours,
		};
		let point = |g: &v1::GateSummary| (x(g.finished_at, g.cpu_hours), measure.of_gate(g));
		// The charts are against `ClaudePlayer`: a candidate's match against the incumbent
		// (`--gate both`, the default, and `--gate incumbent`) has a score of another scale,
		// and is left out.
		let against_claude = || p.gates.iter().filter(|g| g.opponent_generation.is_none());
		let mut by_generation: BTreeMap<u64, &v1::GateSummary> = BTreeMap::new();
		for g in against_claude().filter(|g| g.promoted) {
			// A measurement comes after the match that promoted the net, and replaces it.
			by_generation.insert(g.generation, g);
		}
		let promoted = by_generation
			.values()
			.map(|g| point(g))
			.filter(|(_, y)| y.is_finite());
		let rejected = against_claude().filter(|g| !g.promoted).map(point);
		let timed = p
			.timed
			.iter()
			.map(|t| (x(t.finished_at, t.cpu_hours), measure.of_timed(t)))
			.filter(|(x, _)| x.is_finite());
		Series {
			promoted: promoted.collect(),
			rejected: rejected.filter(|(_, y)| y.is_finite()).collect(),
			timed: timed.filter(|(_, y)| y.is_finite()).collect(),
		}
	}

	fn all(&self) -> impl Iterator<Item = &(f64, f64)> {
		self.promoted
			.iter()
			.chain(&self.rejected)
			.chain(&self.timed)
	}
}

/// A series drawn as a line.
fn line<'a>(name: &'static str, color: Color, data: &'a [(f64, f64)]) -> Dataset<'a> {
	Dataset::default()
		.name(name)
		.marker(Marker::Braille)
		.graph_type(GraphType::Line)
		.style(Style::new().fg(color))
		.data(data)
}

fn chart(p: &v1::Progress, axis: GateAxis, measure: Measure, area: Rect, buf: &mut Buffer) {
	let series = Series::of(p, axis, measure);
	let (title, y_bounds) = measure.range(&series);
	let block = Block::bordered().title(title);
	if series.all().next().is_none() {
		let inner = block.inner(area);
		block.render(area, buf);
		Paragraph::new(Line::from("nothing to chart yet")).render(inner, buf);
		return;
	}
	let x_max = series
		.all()
		.map(|(x, _)| *x)
		.fold(0.0_f64, f64::max)
		.max(0.01);
	let dim = Style::new().fg(Color::DarkGray);
	Chart::new(vec![
		Dataset::default()
			.name("rejected")
			.marker(Marker::Dot)
			.graph_type(GraphType::Scatter)
			.style(dim)
			.data(&series.rejected),
		line("promoted", Color::Green, &series.promoted),
		line("equal time", Color::Yellow, &series.timed),
	])
	.block(block)
	.hidden_legend_constraints((Constraint::Length(0), Constraint::Length(0)))
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
			.labels([measure.label(y_bounds[0]), measure.label(y_bounds[1])]),
	)
	.render(area, buf);
}

#[cfg(test)]
mod tests;
