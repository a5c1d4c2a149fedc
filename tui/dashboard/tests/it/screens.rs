//! The dashboard's screens drawn into `TestBackend` from progress snapshots recorded from a
//! real run (`tui dashboard --record`, see `tests/data/README.md`), compared with committed
//! snapshots; and what keys and trouble do to them.

use std::path::PathBuf;

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tigers_dashboard::recording::read_recording;
use tigers_dashboard::{Dashboard, Pane};
use tigers_proto::v1;

/// The recorded snapshots: two from early in the run, half a minute apart, and two from later.
pub fn recorded() -> Vec<v1::Progress> {
	let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/progress.pb");
	read_recording(&path).expect("the committed recording reads")
}

/// A dashboard that received `snapshots` in order, its clock a few seconds after the last.
pub fn fed(snapshots: &[v1::Progress]) -> Dashboard {
	let mut dashboard = Dashboard::new("http://127.0.0.1:50051");
	for progress in snapshots {
		dashboard.receive(progress.clone());
	}
	let last = snapshots.last().expect("a snapshot");
	let clock = last.throughput.last().map_or(0.0, |t| t.at) + 5.0;
	dashboard.set_clock(clock);
	dashboard
}

/// The later part of the run, as the screen has it after both later snapshots.
pub fn later() -> Dashboard {
	fed(&recorded()[2..4])
}

pub fn press(dashboard: &mut Dashboard, code: KeyCode) {
	dashboard.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
}

pub fn draw(dashboard: &Dashboard, width: u16, height: u16) -> Terminal<TestBackend> {
	let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
	terminal
		.draw(|frame| frame.render_widget(dashboard, frame.area()))
		.expect("drawing");
	terminal
}

pub fn text(terminal: &Terminal<TestBackend>) -> String {
	terminal.backend().to_string()
}

#[test]
fn the_recording_is_a_run_that_progressed() {
	let snapshots = recorded();
	assert_eq!(snapshots.len(), 4);
	let (early, late) = (&snapshots[1], &snapshots[3]);
	assert!(late.samples_total > early.samples_total);
	assert!(!late.gates.is_empty());
	assert!(!late.loss_history.is_empty());
	assert!(!late.last_game.is_empty());
}

#[test]
fn run_pane_early_120x40() {
	let dashboard = fed(&recorded()[0..2]);
	assert_snapshot!(draw(&dashboard, 120, 40).backend());
}

#[test]
fn run_pane_later_120x40() {
	assert_snapshot!(draw(&later(), 120, 40).backend());
}

#[test]
fn gates_pane_120x40() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('2'));
	assert_eq!(dashboard.pane(), Pane::Gates);
	assert_snapshot!(draw(&dashboard, 120, 40).backend());
}

/// The later snapshots with their promotions and measurements only, each measured net also
/// measured at equal time (a little below its fixed-depth score, ten minutes later) but the
/// newest, whose measurement is under way.
fn later_with_equal_time() -> Vec<v1::Progress> {
	let mut snapshots = recorded()[2..4].to_vec();
	for progress in &mut snapshots {
		progress.gates.retain(|g| g.promoted);
		let measured: Vec<v1::GateSummary> = progress
			.gates
			.iter()
			.filter(|g| g.measurement)
			.cloned()
			.collect();
		let (newest, older) = measured.split_last().expect("a measured net");
		progress.timed = older
			.iter()
			.map(|g| v1::TimedMeasurement {
				generation: g.generation,
				move_ms: 100,
				as_tigers: g.as_tigers,
				as_sheep: g.as_sheep,
				score: g.score - 0.05,
				score_low: g.score_low - 0.05,
				score_high: g.score_high - 0.05,
				elo: g.elo - 35.0,
				finished_at: g.finished_at + 600.0,
				cpu_hours: g.cpu_hours + 0.05,
				tablebase: "play".into(),
				..v1::TimedMeasurement::default()
			})
			.collect();
		progress.timed_running = Some(v1::TimedRunning {
			generation: newest.generation,
			move_ms: 100,
			pairs_done: 37,
			pairs: 100,
			started_at: newest.finished_at,
			tablebase: "play".into(),
		});
		// A ladder whose best net is not the newest: generation 6, surer than 8.
		let rating = |generation, rating: f64, half: f64| v1::PlayerRating {
			generation,
			rating,
			low: rating - half,
			high: rating + half,
			games: 400,
		};
		progress.ladder = Some(v1::Ladder {
			ratings: vec![
				rating(None, 0.0, 0.0),
				rating(Some(6), -30.0, 20.0),
				rating(Some(7), -60.0, 25.0),
				rating(Some(8), -20.0, 45.0),
			],
			best_generation: Some(6),
			players: 4,
			matches: 6,
			games: 1200,
			min_games_for_best: 200,
			..v1::Ladder::default()
		});
		let phase = |moves_kept, class_right| v1::PhaseGrade {
			positions: 500,
			class_right,
			moves_kept,
		};
		progress.grades = vec![v1::NetGrade {
			generation: newest.generation,
			depth: 3,
			placement: Some(phase(497, 420)),
			movement: Some(phase(489, 380)),
			..v1::NetGrade::default()
		}];
	}
	snapshots
}

#[test]
fn gates_pane_with_equal_time_120x40() {
	let mut dashboard = fed(&later_with_equal_time());
	press(&mut dashboard, KeyCode::Char('2'));
	let screen = text(&draw(&dashboard, 120, 40));
	assert!(screen.contains("equal time"), "{screen}");
	assert!(screen.contains("37/100"), "{screen}");
	assert!(screen.contains("best gen 6 -30 [-50,-10]"), "{screen}");
	assert!(
		screen.contains("gen 8 graded: move 98.6%, class 80.0%"),
		"{screen}"
	);
	assert_snapshot!(screen);
}

#[test]
fn gates_pane_by_cpu_hours_scrolled_120x40() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('2'));
	press(&mut dashboard, KeyCode::Char('x'));
	press(&mut dashboard, KeyCode::Down);
	let screen = text(&draw(&dashboard, 120, 40));
	assert!(screen.contains("across: worker CPU-hours"), "{screen}");
	assert_snapshot!(screen);
}

#[test]
fn fleet_pane_120x40() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('3'));
	assert_snapshot!(draw(&dashboard, 120, 40).backend());
}

#[test]
fn game_pane_stepped_back_120x40() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('4'));
	let total = dashboard.replay().len();
	assert!(total > 10, "the recorded game has {total} moves");
	for _ in 0..10 {
		press(&mut dashboard, KeyCode::Left);
	}
	assert_eq!(dashboard.replay().cursor(), total - 10);
	assert_snapshot!(draw(&dashboard, 120, 40).backend());
}

#[test]
fn alarms_show_above_every_pane() {
	let mut progress = recorded()[3].clone();
	progress.seconds_since_samples = 600.0;
	progress.loss = f64::NAN;
	progress.recent_games = Some(v1::GameTally {
		tiger_wins: 0,
		sheep_wins: 1,
		draws: 199,
	});
	if let Some(worker) = progress.workers.first_mut() {
		worker.flagged = 3;
	}
	let mut dashboard = fed(&[progress]);
	let screen = text(&draw(&dashboard, 120, 40));
	assert!(screen.contains("! no samples for 10m 00s"), "{screen}");
	assert!(screen.contains("199 of the last 200"), "{screen}");
	assert!(screen.contains("(and 1 more)"), "{screen}");
	press(&mut dashboard, KeyCode::Char('3'));
	let fleet = text(&draw(&dashboard, 120, 40));
	assert!(fleet.contains("! no samples"), "{fleet}");
	assert_snapshot!(screen);
}

#[test]
fn pause_and_trouble_show_in_the_title() {
	let snapshots = recorded();
	let mut dashboard = fed(&snapshots[2..3]);
	press(&mut dashboard, KeyCode::Char('p'));
	dashboard.receive(snapshots[3].clone());
	let paused = text(&draw(&dashboard, 120, 40));
	assert!(paused.contains("PAUSED"), "{paused}");
	assert_eq!(
		dashboard.progress().map(|p| p.samples_total),
		Some(snapshots[2].samples_total),
		"the screen stays on the snapshot it showed"
	);
	press(&mut dashboard, KeyCode::Char('p'));
	assert_eq!(
		dashboard.progress().map(|p| p.samples_total),
		Some(snapshots[3].samples_total)
	);
	dashboard.lost("Unavailable: connection refused");
	let lost = text(&draw(&dashboard, 120, 40));
	assert!(lost.contains("RECONNECTING"), "{lost}");
	assert!(
		lost.contains("lost the coordinator (Unavailable: connection refused)"),
		"{lost}"
	);
}

#[test]
fn screens_too_small_say_so_and_big_ones_fill_cleanly() {
	let dashboard = later();
	let small = text(&draw(&dashboard, 50, 12));
	assert!(small.contains("at least 60x16"), "{small}");
	// Every size from the smallest up draws without a panic, whatever the pane.
	let mut dashboard = later();
	for pane in ['1', '2', '3', '4'] {
		press(&mut dashboard, KeyCode::Char(pane));
		for (width, height) in [(60, 16), (61, 17), (97, 31), (200, 60)] {
			draw(&dashboard, width, height);
		}
	}
}

#[test]
fn before_the_first_snapshot_the_screen_waits() {
	let dashboard = Dashboard::new("http://127.0.0.1:50051");
	let screen = text(&draw(&dashboard, 80, 20));
	assert!(screen.contains("CONNECTING"), "{screen}");
	assert!(
		screen.contains("Waiting for the first progress from http://127.0.0.1:50051"),
		"{screen}"
	);
}

#[test]
fn a_bounded_snapshot_says_how_many_workers_and_gates_it_leaves_out() {
	let mut progress = recorded()[3].clone();
	let listed = progress.workers.len() as u64;
	let listed_gates = progress.gates.len() as u64;
	progress.workers_known = listed + 298;
	progress.workers_connected = 2;
	progress.gates_total = listed_gates + 1000;
	let mut dashboard = fed(&[progress]);
	press(&mut dashboard, KeyCode::Char('3'));
	let fleet = text(&draw(&dashboard, 140, 40));
	let wanted = format!("2 of {} workers connected (298 not listed)", listed + 298);
	assert!(fleet.contains(&wanted), "{fleet}");
	press(&mut dashboard, KeyCode::Char('2'));
	let gates = text(&draw(&dashboard, 140, 40));
	let wanted = format!("({listed_gates} of {}, newest first", listed_gates + 1000);
	assert!(gates.contains(&wanted), "{gates}");
}
