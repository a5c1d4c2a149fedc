//! The Strength page: the promoted nets' scores against ClaudePlayer at fixed depth and at
//! equal time per move, and their ratings on the ladder as the score each stands for, against
//! time and against worker CPU-hours, as SVG charts drawn here (no chart library in the
//! browser); the ladder's best nets as a table; and the nets' grades on the exact values
//! (`grades`) charted the same way.

mod grades;

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};

use tigers_core::stats::score_from_elo;
use tigers_proto::v1;

use super::html::{self, escape, utc};
use super::{Web, blocking, storage_failure};
use crate::store::ledger::StopReason;
use crate::store::ledger::{GateRow, TimedRow};

/// The most points a series draws: more are thinned evenly, so a chart stays small whatever
/// the run's length.
const MAX_POINTS: usize = 500;

/// The chart's size in SVG units, and its margins for the axes' labels.
const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 16.0;
const RIGHT: f64 = 16.0;

/// One measured net: when, after how much work, and its score (or share) with its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
	/// Unix seconds the measurement finished.
	pub at: f64,
	/// Worker CPU-hours over the run then.
	pub cpu_hours: f64,
	/// The score or share, 0 to 1, and its interval.
	pub score: f64,
	/// See `score`.
	pub low: f64,
	/// See `score`.
	pub high: f64,
}

/// A series: its name, its colour's class, its points.
struct Series {
	name: &'static str,
	class: &'static str,
	points: Vec<Point>,
}

/// What a chart's y axis measures, 0 to 1 either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Measure {
	/// Scores against ClaudePlayer: labelled as they are, the even score (0.5) dashed.
	Score,
	/// Shares of positions: labelled as percentages, no line singled out.
	Share,
}

impl Measure {
	/// The label of `value` on the y axis.
	fn label(self, value: f64) -> String {
		match self {
			Measure::Score => format!("{value}"),
			Measure::Share => format!("{:.0}%", 100.0 * value),
		}
	}

	/// Whether the grid line at `value` is drawn dashed, as the one that means "even".
	fn is_even(self, value: f64) -> bool {
		self == Measure::Score && value == 0.5
	}
}

/// `GET /strength`.
pub(crate) async fn page(State(web): State<Arc<Web>>) -> Response {
	let read = blocking(&web, |web| {
		let ladder = web.snapshot().ladder.clone().unwrap_or_default();
		let ledger = web.reader();
		let rows = ledger.strength().map_err(|e| storage_failure(&e))?;
		let grade_rows = ledger.grades().map_err(|e| storage_failure(&e))?;
		Ok((rows, grade_rows, ladder))
	})
	.await;
	let ((gates, timed), grade_rows, ladder) = match read {
		Ok(read) => read,
		Err(failure) => return failure.into_response(),
	};
	let series = [
		Series {
			name: "fixed depth",
			class: "depth",
			points: fixed_depth_points(&gates),
		},
		Series {
			name: "equal time",
			class: "time",
			points: timed_points(&timed),
		},
		Series {
			name: "ladder",
			class: "ladder",
			points: ladder_points(&gates, &ladder),
		},
	];
	let mut body = String::from(
		"<p>Each promoted net's score against ClaudePlayer (0.5 is even), with its 95% \
		 interval: at fixed depth (its measurement on fresh openings, or the gate that promoted \
		 it), at equal time per move, and as its rating on the ladder stands for (every match \
		 of every promoted net fitted at once, drawn at the net's gate).</p>",
	);
	body.push_str(&best_table(&ladder));
	body.push_str("<h2>Scores against ClaudePlayer</h2>");
	body.push_str(&charts(&series, Measure::Score));
	body.push_str(&grades::section(&grade_rows));
	html::page("Strength", &body, None)
}

/// The charts of `series` against time and against worker CPU-hours, each under a heading.
fn charts(series: &[Series], measure: Measure) -> String {
	// Month, day, hours and minutes: the year and seconds would crowd the axis.
	let short = |t: f64| utc(t).get(5..16).unwrap_or("-").to_string();
	format!(
		"<h3>Against time</h3>{}<h3>Against worker CPU-hours</h3>{}",
		chart(series, measure, |p| p.at, &short),
		chart(series, measure, |p| p.cpu_hours, &|h| format!("{h:.1}"))
	)
}

/// The fixed-depth points: each net's latest measurement, or its promoting gate if it has none.
fn fixed_depth_points(gates: &[GateRow]) -> Vec<Point> {
	let measured: std::collections::BTreeSet<u64> = gates
		.iter()
		.filter(|g| g.stop == StopReason::Measured)
		.map(|g| g.candidate_generation)
		.collect();
	let points = gates
		.iter()
		.filter(|g| g.stop == StopReason::Measured || !measured.contains(&g.candidate_generation))
		.filter(|g| g.score.is_finite())
		.map(|g| Point {
			at: g.finished_at,
			cpu_hours: g.cpu_seconds / 3600.0,
			score: g.score,
			low: g.score_low,
			high: g.score_high,
		});
	thin(points.collect())
}

/// The equal-time points, one a measured net.
fn timed_points(timed: &[TimedRow]) -> Vec<Point> {
	let points = timed.iter().filter(|t| t.score.is_finite()).map(|t| Point {
		at: t.finished_at,
		cpu_hours: t.cpu_seconds / 3600.0,
		score: t.score,
		low: t.score_low,
		high: t.score_high,
	});
	thin(points.collect())
}

/// The ladder's points: each rated net's rating as the score against ClaudePlayer it stands
/// for, placed where its fixed-depth point is (its measurement, else its promoting gate).
fn ladder_points(gates: &[GateRow], ladder: &v1::Ladder) -> Vec<Point> {
	let mut placed = std::collections::BTreeMap::new();
	for gate in gates
		.iter()
		.filter(|g| g.stop == StopReason::Measured || g.promoted)
	{
		let entry = placed.entry(gate.candidate_generation).or_insert(gate);
		if gate.stop == StopReason::Measured && entry.stop != StopReason::Measured {
			*entry = gate;
		}
	}
	let points = ladder.ratings.iter().filter_map(|rating| {
		let gate = placed.get(&rating.generation?)?;
		Some(Point {
			at: gate.finished_at,
			cpu_hours: gate.cpu_seconds / 3600.0,
			score: score_from_elo(rating.rating),
			low: score_from_elo(rating.low),
			high: score_from_elo(rating.high),
		})
	});
	let mut points: Vec<Point> = points.collect();
	points.sort_by(|a, b| a.at.total_cmp(&b.at));
	thin(points)
}

/// How many of the ladder's nets the table lists, by lower bound.
const BEST_LISTED: usize = 10;

/// The ladder's surest nets: the [`BEST_LISTED`] highest lower bounds, the best marked.
fn best_table(ladder: &v1::Ladder) -> String {
	let mut nets: Vec<&v1::PlayerRating> = ladder
		.ratings
		.iter()
		.filter(|r| r.generation.is_some())
		.collect();
	if nets.is_empty() {
		return "<p class=\"note\">No promoted net is on the rating ladder yet.</p>".into();
	}
	nets.sort_by(|a, b| b.low.total_cmp(&a.low));
	let mut html = format!(
		"<h2>The rating ladder</h2><p>{} players, {} matches, {} games; ratings in Elo above \
		 ClaudePlayer with 95% intervals. The best is the highest lower bound among nets with \
		 {} games or more.</p><table class=\"list\"><tr><th>gen</th><th>rating</th>\
		 <th>games</th><th></th></tr>",
		ladder.players, ladder.matches, ladder.games, ladder.min_games_for_best
	);
	for rating in nets.into_iter().take(BEST_LISTED) {
		let generation = rating.generation.unwrap_or_default();
		let mark = if ladder.best_generation == Some(generation) {
			"best"
		} else {
			""
		};
		let _ = write!(
			html,
			"<tr><td>{generation}</td><td>{}</td><td>{}</td><td>{mark}</td></tr>",
			html::rating(rating.rating, rating.low, rating.high),
			rating.games
		);
	}
	html.push_str("</table>");
	html
}

/// At most [`MAX_POINTS`] of `points`, evenly spaced, the last always kept.
fn thin(points: Vec<Point>) -> Vec<Point> {
	if points.len() <= MAX_POINTS {
		return points;
	}
	let step = points.len() as f64 / MAX_POINTS as f64;
	let last = points.len() - 1;
	(0..MAX_POINTS)
		.map(|i| points[((i as f64 * step) as usize).min(last)])
		.chain(std::iter::once(points[last]))
		.collect()
}

/// The SVG of `series` against `x` (labelled by `label`), with a legend and axes, the y axis
/// as `measure` has it.
fn chart(
	series: &[Series],
	measure: Measure,
	x: impl Fn(&Point) -> f64,
	label: &dyn Fn(f64) -> String,
) -> String {
	let xs = series.iter().flat_map(|s| s.points.iter().map(&x));
	let (low, high) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
		(l.min(v), h.max(v))
	});
	if !low.is_finite() {
		return "<p class=\"note\">No net has been measured yet.</p>".into();
	}
	let span = if high > low { high - low } else { 1.0 };
	let px = |v: f64| LEFT + (v - low) / span * (WIDTH - LEFT - RIGHT);
	let py = |score: f64| TOP + (1.0 - score.clamp(0.0, 1.0)) * (HEIGHT - TOP - BOTTOM);
	let mut svg = format!(
		"<svg class=\"chart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" \
		 xmlns=\"http://www.w3.org/2000/svg\">"
	);
	axes(&mut svg, measure, low, span, &px, &py, label);
	for (index, s) in series.iter().enumerate() {
		draw_series(&mut svg, s, &x, &px, &py);
		let _ = write!(
			svg,
			"<text class=\"{} legend\" x=\"{}\" y=\"{}\">● {}</text>",
			s.class,
			LEFT + 8.0 + 110.0 * index as f64,
			TOP + 12.0,
			escape(s.name)
		);
	}
	svg.push_str("</svg>");
	svg
}

/// The axes: 0 to 1 up y in quarters, labelled and marked as `measure` has them, and five
/// labels along x from `low` over `span`; `px` and `py` place a value.
fn axes(
	svg: &mut String,
	measure: Measure,
	low: f64,
	span: f64,
	px: &dyn Fn(f64) -> f64,
	py: &dyn Fn(f64) -> f64,
	label: &dyn Fn(f64) -> String,
) {
	for value in [0.0, 0.25, 0.5, 0.75, 1.0] {
		let y = py(value);
		let class = if measure.is_even(value) {
			"even"
		} else {
			"grid"
		};
		let _ = write!(
			svg,
			"<line class=\"{class}\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>\
			 <text class=\"axis\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
			WIDTH - RIGHT,
			LEFT - 6.0,
			y + 4.0,
			measure.label(value)
		);
	}
	for i in 0..5 {
		let v = low + span * f64::from(i) / 4.0;
		let anchor = ["start", "middle", "middle", "middle", "end"][i as usize];
		let _ = write!(
			svg,
			"<text class=\"axis\" x=\"{:.1}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
			px(v),
			HEIGHT - BOTTOM + 18.0,
			escape(&label(v))
		);
	}
}

/// One series: its intervals as whiskers, its scores as a line with dots.
fn draw_series(
	svg: &mut String,
	s: &Series,
	x: &impl Fn(&Point) -> f64,
	px: &dyn Fn(f64) -> f64,
	py: &dyn Fn(f64) -> f64,
) {
	let mut line = String::new();
	for p in &s.points {
		let (cx, cy) = (px(x(p)), py(p.score));
		let _ = write!(line, "{cx:.1},{cy:.1} ");
		let _ = write!(
			svg,
			"<line class=\"{} whisker\" x1=\"{cx:.1}\" x2=\"{cx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
			 <circle class=\"{}\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"2.5\"/>",
			s.class,
			py(p.low),
			py(p.high),
			s.class
		);
	}
	let _ = write!(
		svg,
		"<polyline class=\"{} series\" points=\"{}\"/>",
		s.class,
		line.trim_end()
	);
}

#[cfg(test)]
mod tests {
	use super::*;

	/// One series of `points` against `x`.
	fn chart_of(points: &[Point], x: impl Fn(&Point) -> f64) -> String {
		let series = [Series {
			name: "score",
			class: "depth",
			points: points.to_vec(),
		}];
		chart(&series, Measure::Score, x, &|v| format!("{v:.1}"))
	}

	fn point(at: f64, score: f64) -> Point {
		Point {
			at,
			cpu_hours: at / 10.0,
			score,
			low: score - 0.1,
			high: score + 0.1,
		}
	}

	#[test]
	fn a_chart_draws_every_point_within_its_frame() {
		let svg = chart_of(&[point(0.0, 0.2), point(5.0, 0.5), point(10.0, 0.9)], |p| {
			p.at
		});
		assert_eq!(svg.matches("<circle").count(), 3);
		assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
		// The first and last points sit at the plot's left and right edges.
		assert!(svg.contains(&format!("cx=\"{LEFT:.1}\"")));
		assert!(svg.contains(&format!("cx=\"{:.1}\"", WIDTH - RIGHT)));
	}

	#[test]
	fn long_series_are_thinned_with_their_last_point() {
		let points: Vec<Point> = (0..5000).map(|i| point(f64::from(i), 0.5)).collect();
		let thinned = thin(points);
		assert!(thinned.len() <= MAX_POINTS + 1);
		assert_eq!(thinned.last().unwrap().at, 4999.0);
		assert_eq!(
			chart_of(&[], |p| p.at),
			"<p class=\"note\">No net has been measured yet.</p>"
		);
	}
}
