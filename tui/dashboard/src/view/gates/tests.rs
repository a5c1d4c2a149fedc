//! The Gates pane's tests: which columns fit at which width, the legend that explains them, the
//! charts without head-to-head matches, and a measurement's row and decision.

use super::*;

/// Inside the border of an 80-column table.
const INSIDE_80: u16 = 78;

fn headers(columns: &[Column], shown: &[usize]) -> Vec<&'static str> {
	shown.iter().map(|&i| columns[i].header.0).collect()
}

#[test]
fn the_legend_explains_measured_rows_and_the_short_equal_time_header() {
	let narrow = legend(false, usize::from(INSIDE_80));
	assert!(
		narrow.contains("measured:") && narrow.contains("eq.t:"),
		"{narrow}"
	);
	assert!(narrow.chars().count() <= usize::from(INSIDE_80), "{narrow}");
	let wide = legend(true, 118);
	assert!(
		wide.contains("equal time:") && wide.contains("pairs played/pairs"),
		"{wide}"
	);
	assert!(!wide.contains("eq.t"), "{wide}");
}

#[test]
fn wide_tables_show_every_column_in_full() {
	let (shown, wide) = shown_columns(&COLUMNS, 118);
	assert!(wide);
	assert_eq!(shown.len(), COLUMNS.len());
}

#[test]
fn at_80_columns_all_but_cpu_hours_fit_narrow() {
	let (shown, wide) = shown_columns(&COLUMNS, INSIDE_80);
	assert!(!wide);
	let names = headers(&COLUMNS, &shown);
	for kept in [
		"gen",
		"score",
		"95% interval",
		"Elo",
		"exact",
		"verdict",
		"ladder",
		"equal time",
	] {
		assert!(names.contains(&kept), "{kept} dropped: {names:?}");
	}
	// The opponent and CPU-hours go first.
	assert!(!names.contains(&"CPU-h"), "{names:?}");
	assert!(!names.contains(&"vs"), "{names:?}");
}

#[test]
fn the_charts_leave_out_matches_against_the_incumbent() {
	let gate = |generation, promoted, measurement, opponent_generation, score| v1::GateSummary {
		generation,
		promoted,
		measurement,
		opponent_generation,
		score,
		finished_at: generation as f64 * 60.0,
		..v1::GateSummary::default()
	};
	let progress = v1::Progress {
		gates: vec![
			gate(0, true, true, None, 0.3),
			gate(1, false, false, Some(0), 0.45),
			gate(1, true, false, Some(0), 0.7),
			gate(1, true, true, None, 0.4),
			gate(2, true, false, Some(1), 0.65),
		],
		..v1::Progress::default()
	};
	let series = Series::of(&progress, GateAxis::Time, Measure::Score);
	// Generation 1 by its measurement; generation 2, not yet measured, not at all.
	let scores: Vec<f64> = series.promoted.iter().map(|(_, y)| *y).collect();
	assert_eq!(scores, [0.3, 0.4]);
	assert!(series.rejected.is_empty());
}

#[test]
fn a_measurement_row_shows_its_equal_time_score_or_its_progress() {
	let gate = |generation, measurement| v1::GateSummary {
		generation,
		measurement,
		promoted: true,
		..v1::GateSummary::default()
	};
	let progress = v1::Progress {
		timed: vec![v1::TimedMeasurement {
			generation: 2,
			score: 0.4375,
			..v1::TimedMeasurement::default()
		}],
		timed_running: Some(v1::TimedRunning {
			generation: 3,
			pairs_done: 37,
			pairs: 100,
			..v1::TimedRunning::default()
		}),
		..v1::Progress::default()
	};
	let text = |cell: Cell<'static>| {
		let mut buf = Buffer::empty(Rect::new(0, 0, 10, 1));
		Table::new([Row::new([cell])], [Constraint::Length(10)])
			.render(Rect::new(0, 0, 10, 1), &mut buf);
		buf.content.iter().map(|c| c.symbol()).collect::<String>()
	};
	assert_eq!(text(equal_time(&gate(2, true), &progress)).trim(), "0.438");
	assert_eq!(text(equal_time(&gate(3, true), &progress)).trim(), "37/100");
	assert_eq!(text(equal_time(&gate(4, true), &progress)).trim(), "-");
	// The promotion itself is not the measurement.
	assert_eq!(text(equal_time(&gate(2, false), &progress)).trim(), "");
}

#[test]
fn a_measurements_decision_says_what_the_table_did_at_equal_time() {
	let gate = v1::GateSummary {
		generation: 2,
		measurement: true,
		reason: "measured".into(),
		..v1::GateSummary::default()
	};
	let mut progress = v1::Progress {
		timed: vec![v1::TimedMeasurement {
			generation: 2,
			move_ms: 100,
			score: 0.5,
			tablebase: "play".into(),
			..v1::TimedMeasurement::default()
		}],
		..v1::Progress::default()
	};
	let text = decision(&gate, &progress);
	assert!(
		text.contains("100 ms a move with the table in play for both: 0.500"),
		"{text}"
	);
	progress.timed[0].tablebase = "judge".into();
	assert!(decision(&gate, &progress).contains("the table judging only"));
	progress.timed[0].tablebase = String::new();
	assert!(decision(&gate, &progress).contains("no table"));
}

#[test]
fn the_narrowest_screen_keeps_what_matters() {
	let (shown, _) = shown_columns(&COLUMNS, 58);
	let names = headers(&COLUMNS, &shown);
	for kept in [
		"gen",
		"as tigers",
		"as sheep",
		"score",
		"Elo",
		"exact",
		"verdict",
	] {
		assert!(names.contains(&kept), "{kept} dropped: {names:?}");
	}
}
