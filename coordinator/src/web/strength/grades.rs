//! The Strength page's grades on the exact values: for each graded net, the share of the
//! grading suite's positions whose class its evaluation got right and the share in which its
//! search's move kept the exact value, each with its 95% Wilson interval, charted against time
//! and against worker CPU-hours as the scores are.

use tigers_core::grade::PhaseGrades;
use tigers_core::stats::wilson_interval;

use super::{Measure, Point, Series, charts, thin};
use crate::store::ledger::GradeRow;

/// The section: what the grades are, then their charts, or a sentence while no net is graded.
pub(super) fn section(rows: &[GradeRow]) -> String {
	let mut html = String::from(
		"<h2>Grades on the exact values</h2><p>Each graded net on the grading suite, positions \
		 of both phases whose exact values the solved game gives: the share whose class (won, \
		 drawn, lost) its own evaluation got right, and the share in which the move its search \
		 picked at the gate's depth kept the exact value, each with its 95% Wilson interval. \
		 The <a href=\"/nets\">Nets page</a> lists each net's grades.</p>",
	);
	let (class_right, moves_kept) = points(rows);
	if class_right.is_empty() {
		html.push_str(
			"<p class=\"note\">No net has been graded yet: a run grades each promoted net \
			 unless it was started with <code>--no-grades</code>.</p>",
		);
		return html;
	}
	let series = [
		Series {
			name: "class right",
			class: "classed",
			points: class_right,
		},
		Series {
			name: "move kept",
			class: "kept",
			points: moves_kept,
		},
	];
	html.push_str(&charts(&series, Measure::Share));
	html
}

/// The points of the two series, class right and move kept, over the whole suite (both
/// phases), oldest first. Only grades on the newest grade's suite are drawn: shares of another
/// suite's positions do not compare.
fn points(rows: &[GradeRow]) -> (Vec<Point>, Vec<Point>) {
	let Some(newest) = rows
		.iter()
		.max_by(|a, b| a.graded_at.total_cmp(&b.graded_at))
	else {
		return (Vec::new(), Vec::new());
	};
	let mut graded: Vec<&GradeRow> = rows
		.iter()
		.filter(|row| row.suite_sha256 == newest.suite_sha256)
		.filter(|row| row.grades.whole().positions > 0)
		.collect();
	graded.sort_by(|a, b| a.graded_at.total_cmp(&b.graded_at));
	let share = |row: &GradeRow, right: fn(&PhaseGrades) -> u32| {
		let whole = row.grades.whole();
		let (low, high) = wilson_interval(right(&whole), whole.positions);
		Point {
			at: row.graded_at,
			cpu_hours: row.cpu_seconds / 3600.0,
			score: f64::from(right(&whole)) / f64::from(whole.positions),
			low,
			high,
		}
	};
	let class_right = graded.iter().map(|row| share(row, |g| g.class_right));
	let moves_kept = graded.iter().map(|row| share(row, |g| g.moves_kept));
	(thin(class_right.collect()), thin(moves_kept.collect()))
}

#[cfg(test)]
mod tests {
	use super::*;
	use tigers_core::grade::Grades;

	/// A grade of `generation` on suite `suite`: 400 positions with sheep in hand and 600
	/// without, `class_right` and `moves_kept` of them split 40:60 between the phases.
	fn row(generation: u64, suite: &str, class_right: u32, moves_kept: u32) -> GradeRow {
		let phase = |positions, share: u32| PhaseGrades {
			positions,
			class_right: class_right * share / 100,
			moves_kept: moves_kept * share / 100,
		};
		GradeRow {
			generation,
			depth: 3,
			suite_sha256: suite.repeat(32),
			grades: Grades {
				placement: phase(400, 40),
				movement: phase(600, 60),
			},
			graded_at: 1000.0 + 60.0 * generation as f64,
			cpu_seconds: 7200.0 * generation as f64,
		}
	}

	#[test]
	fn grade_points_are_the_whole_suites_shares_with_their_wilson_intervals() {
		let rows = [row(1, "ab", 500, 900), row(2, "ab", 700, 950)];
		let (class_right, moves_kept) = points(&rows);
		let expected = |at, cpu_hours, right| {
			let (low, high) = wilson_interval(right, 1000);
			Point {
				at,
				cpu_hours,
				score: f64::from(right) / 1000.0,
				low,
				high,
			}
		};
		assert_eq!(
			class_right,
			[expected(1060.0, 2.0, 500), expected(1120.0, 4.0, 700)]
		);
		assert_eq!(
			moves_kept,
			[expected(1060.0, 2.0, 900), expected(1120.0, 4.0, 950)]
		);
		// The interval holds the share and is a few points wide at a thousand positions.
		let point = class_right[1];
		assert!(point.low < 0.7 && 0.7 < point.high, "{point:?}");
		assert!(
			(0.05..0.07).contains(&(point.high - point.low)),
			"{point:?}"
		);
	}

	#[test]
	fn only_grades_on_the_newest_suite_are_drawn_and_none_says_so() {
		let rows = [row(1, "ab", 500, 900), row(2, "cd", 700, 950)];
		let (class_right, moves_kept) = points(&rows);
		assert_eq!((class_right.len(), moves_kept.len()), (1, 1));
		assert_eq!(class_right[0].score, 0.7);
		let html = section(&rows);
		assert!(
			html.contains("class right") && html.contains("move kept"),
			"{html}"
		);
		assert!(
			html.contains(">50%<") && !html.contains("class=\"even\""),
			"{html}"
		);
		let empty = section(&[]);
		assert!(empty.contains("No net has been graded yet") && !empty.contains("<svg"));
		assert!(empty.contains("href=\"/nets\""), "{empty}");
	}
}
