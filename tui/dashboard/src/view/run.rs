//! The Run pane: the run's setup in its title; totals and rates, the replay window, the
//! self-play depth, staleness and results on the left; samples and games per unit of time over
//! the run as sparklines on the right; the training loss as a chart below.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
	Axis, Block, Chart, Dataset, GraphType, LineGauge, Paragraph, Sparkline, Widget,
};
use tigers_proto::v1;

use crate::fleet::worker_counts;
use crate::model::Dashboard;
use crate::{fit, format};

/// Draws the pane.
pub fn render(dashboard: &Dashboard, p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let figures_width = (area.width * 3 / 5).clamp(48, 58);
	// Inside the border.
	let lines = figure_lines(dashboard, p, usize::from(figures_width.saturating_sub(2)));
	let [top, loss_area] = Layout::vertical([
		Constraint::Length(lines.len() as u16 + 2),
		Constraint::Min(0),
	])
	.areas(area);
	let [figures_area, sparks_area] =
		Layout::horizontal([Constraint::Length(figures_width), Constraint::Min(0)]).areas(top);
	figures(p, lines, figures_area, buf);
	sparklines(p, sparks_area, buf);
	loss_chart(p, loss_area, buf);
}

/// Columns of a figure's label.
const LABEL_WIDTH: usize = 15;

fn label(text: &str) -> Span<'static> {
	Span::styled(
		format!("{text:<LABEL_WIDTH$}"),
		Style::new().fg(Color::DarkGray),
	)
}

/// Workers connected of those known, and the CPU-hours they gave the run if there is room
/// (the Fleet pane has them too).
fn workers_line(p: &v1::Progress, columns: usize) -> String {
	let (connected, known) = worker_counts(p);
	let workers = format!("{connected} of {known} connected");
	let choices = [
		format!("{workers} · {:.2} CPU-hours", p.cpu_hours),
		format!("{workers} · {:.2} CPU-h", p.cpu_hours),
		workers,
	];
	fit::first_fitting(&choices, columns)
}

/// The self-play depth with its bounds; `coordinator status` has the rates behind it.
fn work_line(p: &v1::Progress) -> String {
	let Some(work) = p.work else {
		return "unknown (an older coordinator)".to_string();
	};
	if work.depth_min >= work.depth_max {
		format!("depth {} (fixed)", work.depth)
	} else {
		format!(
			"depth {} ({}-{})",
			work.depth, work.depth_min, work.depth_max
		)
	}
}

/// The share of the samples that left the replay window that were trained on first (the
/// trainer keeping up, or not), once some have left.
fn trained_line(p: &v1::Progress, columns: usize) -> String {
	let Some(work) = p.work else {
		return "unknown".to_string();
	};
	let choices = match work.trained_share {
		Some(share) => {
			let share = share_percent(share);
			[
				format!("{share} of the samples leaving the window"),
				format!("{share} of those leaving the window"),
				format!("{share} of those leaving"),
			]
		}
		None => [
			"none has left the window yet".to_string(),
			"none has left yet".to_string(),
			"-".to_string(),
		],
	};
	fit::first_fitting(&choices, columns)
}

/// A share (0 to 1) as a whole percentage that reads 100% only when it is all: `99%` for
/// 0.998, so that a few unused samples still show.
fn share_percent(share: f64) -> String {
	let percent = (100.0 * share).round();
	if percent >= 100.0 && share < 1.0 {
		"99%".to_string()
	} else {
		format!("{percent:.0}%")
	}
}

/// Batches refused, with as many of the reasons as fit in `columns` (all of them are in
/// `coordinator status`).
fn rejected_line(p: &v1::Progress, columns: usize) -> String {
	let total = format::count(p.batches_rejected);
	let reasons: Vec<String> = p
		.rejections
		.iter()
		.map(|r| format!("{} {}", r.reason, r.count))
		.collect();
	(0..=reasons.len())
		.rev()
		.map(|shown| match (shown, reasons.len() - shown) {
			(0, 0) => total.clone(),
			(0, _) => format!("{total} (by reason in status)"),
			(_, 0) => format!("{total} ({})", reasons.join(", ")),
			(_, more) => format!("{total} ({}, +{more})", reasons[..shown].join(", ")),
		})
		.find(|text| text.chars().count() <= columns)
		.unwrap_or(total)
}

/// The figures, in `columns` inside the pane's border: one line each, but for a tablebase's
/// failure (or reason to be off), which wraps.
fn figure_lines(dashboard: &Dashboard, p: &v1::Progress, columns: usize) -> Vec<Line<'static>> {
	let value_columns = columns.saturating_sub(LABEL_WIDTH);
	let mut lines = total_lines(dashboard, p);
	lines.extend([
		figure("self-play", work_line(p)),
		figure("trained on", trained_line(p, value_columns)),
	]);
	lines.extend(tablebase_lines(p, columns));
	lines.extend([
		figure(
			"stale samples",
			format!(
				"{} of {} in 5 min",
				format::percent(p.recent_superseded, p.recent_samples),
				format::count(p.recent_samples)
			),
		),
		results_figure(p),
		figure("workers", workers_line(p, value_columns)),
		figure("rejected", rejected_line(p, value_columns)),
		figure("last gate", last_gate_line(p)),
	]);
	lines
}

/// One figure's line: its label, then its value.
fn figure(name: &str, value: String) -> Line<'static> {
	Line::from(vec![label(name), Span::raw(value)])
}

/// The run's totals with their rates now: samples, games, training steps (with the loss) and
/// the replay window's fill.
fn total_lines(dashboard: &Dashboard, p: &v1::Progress) -> Vec<Line<'static>> {
	let (samples_rate, games_rate) = dashboard
		.rates_now()
		.map_or(("-".to_string(), "-".to_string()), |(s, g)| {
			(format::rate(s), format::rate(g))
		});
	vec![
		figure(
			"samples",
			format!("{:>12}   {samples_rate}/s", format::count(p.samples_total)),
		),
		figure(
			"games",
			format!("{:>12}   {games_rate}/s", format::count(p.games_total)),
		),
		figure(
			"training steps",
			format!(
				"{:>12}   loss {}",
				format::count(p.training_steps),
				format::loss(p.loss)
			),
		),
		figure(
			"replay window",
			format!(
				"{} of {}",
				format::count(p.window_samples),
				format::count(p.window_capacity)
			),
		),
	]
}

/// The recent games' results, each side's wins and the draws as shares.
fn results_figure(p: &v1::Progress) -> Line<'static> {
	let games = p.recent_games.unwrap_or_default();
	let played = games.tiger_wins + games.sheep_wins + games.draws;
	let share = |n: u32| format::percent(u64::from(n), u64::from(played));
	figure(
		&format!("last {played} games"),
		format!(
			"tigers {} sheep {} draws {}",
			share(games.tiger_wins),
			share(games.sheep_wins),
			share(games.draws)
		),
	)
}

/// The last gate's generation, score and verdict, and its opponent if that was the incumbent.
fn last_gate_line(p: &v1::Progress) -> String {
	p.gates.last().map_or("none yet".to_string(), |g| {
		let against = g
			.opponent_generation
			.map_or(String::new(), |o| format!(" against gen {o}"));
		format!(
			"gen {}: {:.3} {}{against}",
			g.generation,
			g.score,
			if g.measurement {
				"measured"
			} else if g.promoted {
				"promoted"
			} else {
				"rejected"
			}
		)
	})
}

/// The figures' title: the run's setup, if the coordinator sent it.
fn title(p: &v1::Progress) -> String {
	p.setup.as_ref().map_or("Run".to_string(), |s| {
		format!("Run: {}", tigers_proto::convert::setup_summary(Some(s)))
	})
}

fn figures(p: &v1::Progress, lines: Vec<Line<'static>>, area: Rect, buf: &mut Buffer) {
	let block = Block::bordered().title(title(p));
	let inner = block.inner(area);
	block.render(area, buf);
	Paragraph::new(lines).render(inner, buf);
	// The window's fill as a gauge on its own row, right of the figures.
	let row = Rect {
		x: inner.x + LABEL_WIDTH as u16 + 24,
		y: inner.y + 3,
		width: inner.width.saturating_sub(LABEL_WIDTH as u16 + 24),
		height: 1,
	};
	if row.width >= 8 && p.window_capacity > 0 {
		LineGauge::default()
			.ratio((p.window_samples as f64 / p.window_capacity as f64).clamp(0.0, 1.0))
			.filled_style(Style::new().fg(Color::Cyan))
			.render(row, buf);
	}
}

/// Most lines the tablebase's figure takes: a failure's reason names a file and the system's
/// error.
const MAX_TABLEBASE_LINES: usize = 4;

/// Columns a wrapped value is indented by under its first line.
const HANGING_INDENT: usize = 2;

/// The coordinator's tablebase: ready (with its identity's start), being solved, or why not;
/// the reason wrapped in `columns` (right of the label on the first line, under it on the
/// others), cut only past [`MAX_TABLEBASE_LINES`].
fn tablebase_lines(p: &v1::Progress, columns: usize) -> Vec<Line<'static>> {
	let status = p.tablebase.clone().unwrap_or_default();
	let (text, style) = match status.state.as_str() {
		"ready" => (
			format!("ready {:.12}", status.sha256),
			Style::new().fg(Color::Green),
		),
		"building" => (
			format!("solving, {:.0}% done", 100.0 * status.progress),
			Style::new().fg(Color::Yellow),
		),
		"failed" => (
			format!("failed: {}", status.detail),
			Style::new().fg(Color::Red),
		),
		"off" => (status.detail, Style::new()),
		_ => ("unknown (an older coordinator)".to_string(), Style::new()),
	};
	let under = columns.saturating_sub(HANGING_INDENT);
	let mut wrapped = fit::wrap_hanging(&text, columns.saturating_sub(LABEL_WIDTH), under);
	if wrapped.len() > MAX_TABLEBASE_LINES {
		wrapped.truncate(MAX_TABLEBASE_LINES);
		if let Some(last) = wrapped.last_mut() {
			let keep = under.saturating_sub(1).min(last.chars().count());
			*last = last.chars().take(keep).chain(['…']).collect();
		}
	}
	let first = Span::styled(wrapped.remove(0), style);
	std::iter::once(Line::from(vec![label("tablebase"), first]))
		.chain(wrapped.into_iter().map(|text| {
			Line::from(vec![
				Span::raw(" ".repeat(HANGING_INDENT)),
				Span::styled(text, style),
			])
		}))
		.collect()
}

fn sparklines(p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let [samples_area, games_area] =
		Layout::vertical([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(area);
	let (samples, games) = throughput_rates(&p.throughput);
	for (area, data, what) in [
		(samples_area, samples, "samples/s"),
		(games_area, games, "games/min"),
	] {
		let peak = format::count(data.iter().copied().max().unwrap_or(0));
		let titles = [
			format!("{what} over the run (peak {peak})"),
			format!("{what} (peak {peak})"),
			format!("{what} {peak} peak"),
		];
		// Two columns of border.
		let title = fit::first_fitting(&titles, usize::from(area.width).saturating_sub(2));
		let block = Block::bordered().title(title);
		let inner = block.inner(area);
		let shown = &data[data.len().saturating_sub(usize::from(inner.width))..];
		Sparkline::default()
			.block(block)
			.data(shown.iter().copied())
			.style(Style::new().fg(Color::Green))
			.render(area, buf);
	}
}

fn loss_chart(p: &v1::Progress, area: Rect, buf: &mut Buffer) {
	let raw: Vec<(f64, f64)> = p
		.loss_history
		.iter()
		.filter(|l| l.loss.is_finite())
		.map(|l| (l.training_steps as f64, l.loss))
		.collect();
	let block = Block::bordered().title(Line::from(vec![
		Span::raw("training loss by step: "),
		Span::styled("smoothed", Style::new().fg(Color::Yellow)),
		Span::raw(", "),
		Span::styled("each point", Style::new().fg(Color::DarkGray)),
	]));
	if raw.len() < 2 {
		let inner = block.inner(area);
		block.render(area, buf);
		Paragraph::new("no losses recorded yet").render(inner, buf);
		return;
	}
	let smoothed = smooth(&raw, (raw.len() / 20).max(2));
	let (x0, x1) = (raw[0].0, raw[raw.len() - 1].0);
	let (y0, y1) = loss_bounds(&raw, &smoothed);
	let dim = Style::new().fg(Color::DarkGray);
	Chart::new(vec![
		Dataset::default()
			.marker(Marker::Braille)
			.graph_type(GraphType::Scatter)
			.style(dim)
			.data(&raw),
		Dataset::default()
			.marker(Marker::Braille)
			.graph_type(GraphType::Line)
			.style(Style::new().fg(Color::Yellow))
			.data(&smoothed),
	])
	.block(block)
	.x_axis(
		Axis::default()
			.bounds([x0, x1.max(x0 + 1.0)])
			.style(dim)
			.labels([format::count(x0 as u64), format::count(x1 as u64)]),
	)
	.y_axis(
		Axis::default()
			.bounds([y0, y1])
			.style(dim)
			.labels([format!("{y0:.3}"), format!("{y1:.3}")]),
	)
	.style(Style::new().add_modifier(Modifier::empty()))
	.render(area, buf);
}

/// The mean of each point's neighbours within `half_width` on either side (fewer at the ends):
/// the trend under the step-to-step noise of mini-batch losses.
pub fn smooth(points: &[(f64, f64)], half_width: usize) -> Vec<(f64, f64)> {
	(0..points.len())
		.map(|i| {
			let window =
				&points[i.saturating_sub(half_width)..(i + half_width + 1).min(points.len())];
			let mean = window.iter().map(|(_, y)| y).sum::<f64>() / window.len() as f64;
			(points[i].0, mean)
		})
		.collect()
}

/// The loss axis: the whole smoothed line and all but the most extreme twentieth of the raw
/// points at each end, so that a few outliers do not flatten the trend.
fn loss_bounds(raw: &[(f64, f64)], smoothed: &[(f64, f64)]) -> (f64, f64) {
	let mut values: Vec<f64> = raw.iter().map(|(_, y)| *y).collect();
	values.sort_by(f64::total_cmp);
	let trim = values.len() / 20;
	let (mut lo, mut hi) = (values[trim], values[values.len() - 1 - trim]);
	for (_, y) in smoothed {
		lo = lo.min(*y);
		hi = hi.max(*y);
	}
	let pad = ((hi - lo) * 0.05).max(1e-3);
	(lo - pad, hi + pad)
}

/// Samples and games per second between consecutive throughput points.
fn throughput_rates(points: &[v1::ThroughputPoint]) -> (Vec<u64>, Vec<u64>) {
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

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn smoothing_averages_neighbours_and_keeps_the_steps() {
		let noisy: Vec<(f64, f64)> = (0..10)
			.map(|i| (f64::from(i) * 100.0, if i % 2 == 0 { 0.2 } else { 0.0 }))
			.collect();
		let smooth = smooth(&noisy, 2);
		assert_eq!(smooth.len(), 10);
		assert!(smooth.iter().zip(&noisy).all(|(s, n)| s.0 == n.0));
		// Inside, five neighbours: 0.2 * 3/5 or 0.2 * 2/5; the noise of 0.2 shrinks to 0.04.
		for (_, y) in &smooth[2..8] {
			assert!((y - 0.12).abs() < 1e-9 || (y - 0.08).abs() < 1e-9, "{y}");
		}
		// At the ends, fewer neighbours.
		assert!((smooth[0].1 - 0.4 / 3.0).abs() < 1e-9);
	}

	#[test]
	fn the_run_pane_says_what_share_of_the_samples_leaving_the_window_were_trained_on() {
		let mut p = v1::Progress::default();
		assert_eq!(work_line(&p), "unknown (an older coordinator)");
		assert_eq!(trained_line(&p, 31), "unknown");
		p.work = Some(v1::SelfPlayWork::default());
		assert_eq!(trained_line(&p, 31), "none has left the window yet");
		assert_eq!(trained_line(&p, 20), "none has left yet");
		p.work = Some(v1::SelfPlayWork {
			depth: 4,
			depth_min: 3,
			depth_max: 5,
			trained_share: Some(0.998),
			..v1::SelfPlayWork::default()
		});
		assert_eq!(work_line(&p), "depth 4 (3-5)");
		assert_eq!(
			trained_line(&p, 41),
			"99% of the samples leaving the window"
		);
		assert_eq!(trained_line(&p, 31), "99% of those leaving the window");
		assert_eq!(trained_line(&p, 20), "99% of those leaving");
		p.work = Some(v1::SelfPlayWork {
			depth: 3,
			depth_min: 3,
			depth_max: 3,
			..v1::SelfPlayWork::default()
		});
		assert_eq!(work_line(&p), "depth 3 (fixed)");
		assert_eq!(share_percent(1.0), "100%");
		assert_eq!(share_percent(0.754), "75%");
	}

	#[test]
	fn the_title_has_the_runs_setup_when_the_coordinator_sends_it() {
		let mut p = v1::Progress::default();
		assert_eq!(title(&p), "Run");
		p.setup = Some(v1::RunSetup {
			net_shape: "128x64".into(),
			input_version: 2,
			gate: "incumbent".into(),
		});
		let title = title(&p);
		assert_eq!(title, "Run: net 128x64, encoding 2, gate incumbent");
		// It fits the narrowest figures block, 48 columns with its corners.
		assert!(title.chars().count() <= 46, "{title}");
	}

	#[test]
	fn the_last_gate_says_when_it_was_against_the_incumbent() {
		let mut p = v1::Progress::default();
		assert_eq!(last_gate_line(&p), "none yet");
		p.gates.push(v1::GateSummary {
			generation: 8,
			score: 0.5625,
			promoted: true,
			opponent_generation: Some(7),
			..v1::GateSummary::default()
		});
		assert_eq!(last_gate_line(&p), "gen 8: 0.562 promoted against gen 7");
		p.gates.push(v1::GateSummary {
			generation: 8,
			score: 0.81,
			promoted: true,
			measurement: true,
			..v1::GateSummary::default()
		});
		assert_eq!(last_gate_line(&p), "gen 8: 0.810 measured");
	}

	#[test]
	fn a_few_outliers_do_not_set_the_axis() {
		let mut raw: Vec<(f64, f64)> = (0..100).map(|i| (f64::from(i), 0.05)).collect();
		raw[50].1 = 0.9;
		let smoothed = smooth(&raw, 5);
		let (lo, hi) = loss_bounds(&raw, &smoothed);
		assert!(lo < 0.05 && hi < 0.2, "{lo} {hi}");
	}
}
