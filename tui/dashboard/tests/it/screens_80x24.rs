//! The dashboard at 80x24, the smallest common terminal: every pane and the header drawn from
//! the recorded run and compared with committed snapshots, with checks that what matters (the
//! coordinator's URL, the gate's decision, the Fleet's headers, the workers connected) is
//! there whole.

use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;
use tigers_dashboard::{Dashboard, Pane};
use tigers_proto::v1;

use crate::screens::{draw, fed, later, press, recorded, text};

const WIDTH: u16 = 80;
const HEIGHT: u16 = 24;

/// The screen's lines, trailing blanks trimmed, joined by single spaces: a sentence wrapped
/// over several whole lines reads back as it was written.
fn joined(screen: &str) -> String {
	screen
		.lines()
		.map(|line| line.trim_matches('"').trim_end())
		.collect::<Vec<_>>()
		.join(" ")
}

fn screen(dashboard: &Dashboard) -> String {
	text(&draw(dashboard, WIDTH, HEIGHT))
}

#[test]
fn run_pane() {
	// The recording predates the self-play depth rule: a fleet a little too fast for the
	// trainer is added to it.
	let mut snapshots = recorded()[2..4].to_vec();
	for progress in &mut snapshots {
		progress.work = Some(v1::SelfPlayWork {
			depth: 4,
			depth_min: 3,
			depth_max: 5,
			arriving_per_second: 14_000.0,
			trainable_per_second: 12_500.0,
			trained_share: Some(0.97),
			mean_uses: Some(7.1),
		});
	}
	let dashboard = fed(&snapshots);
	let screen = screen(&dashboard);
	assert!(screen.contains("http://127.0.0.1:50051"), "{screen}");
	assert!(screen.contains("2 of 3 connected"), "{screen}");
	assert!(screen.contains("depth 4 (3-5)"), "{screen}");
	assert!(
		screen.contains("trained on     97% of those leaving the window"),
		"{screen}"
	);
	assert_snapshot!(screen);
}

#[test]
fn gates_pane() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('2'));
	assert_eq!(dashboard.pane(), Pane::Gates);
	let screen = screen(&dashboard);
	let latest = recorded()[3].gates.last().cloned().expect("a gate");
	let decision = format!("gen {}: {}", latest.generation, latest.reason);
	assert!(joined(&screen).contains(&decision), "{decision}\n{screen}");
	for header in [
		"gen", "tigers", "sheep", "score", "95% int", "Elo", "exact", "verdict", "eq.t",
	] {
		assert!(screen.contains(header), "{header}\n{screen}");
	}
	for chart in [
		"score vs ClaudePlayer",
		"Elo vs ClaudePlayer",
		"exact accuracy",
	] {
		assert!(screen.contains(chart), "{chart}\n{screen}");
	}
	assert_snapshot!(screen);
}

#[test]
fn gates_pane_on_a_promotion() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('2'));
	let gates = &recorded()[3].gates;
	let promoted = gates
		.iter()
		.rposition(|g| g.promoted && !g.measurement)
		.expect("the recording has a promotion");
	for _ in promoted + 1..gates.len() {
		press(&mut dashboard, KeyCode::Down);
	}
	let screen = screen(&dashboard);
	// A promotion's sentence is the longest the gate writes: it wraps, whole.
	let g = &gates[promoted];
	let decision = format!("gen {}: {}", g.generation, g.reason);
	assert!(decision.len() > usize::from(WIDTH), "{decision}");
	assert!(joined(&screen).contains(&decision), "{decision}\n{screen}");
	assert_snapshot!(screen);
}

#[test]
fn fleet_pane() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('3'));
	let screen = screen(&dashboard);
	for header in [
		"name", "host", "thr", "gen", "smp/s", "samples", "heard", "state",
	] {
		assert!(screen.contains(header), "{header}\n{screen}");
	}
	assert!(!screen.contains("sample sample"), "{screen}");
	assert!(
		joined(&screen).contains("came from superseded generations"),
		"{screen}"
	);
	assert_snapshot!(screen);
}

/// A fleet as a restarted coordinator shows it: one worker back and playing, one connected but
/// silent for 45 s, and one not back, known only from the ledger.
fn after_a_restart() -> v1::Progress {
	let mut progress = recorded()[3].clone();
	let worker = |name: &str, connected, generation, rate, heard| v1::WorkerSummary {
		worker_id: format!("{name}-0123456789abcdef"),
		name: name.into(),
		host: "vm".into(),
		threads: 1,
		connected,
		generation,
		samples: 100_000,
		samples_per_second: rate,
		seconds_since_heard: heard,
		..v1::WorkerSummary::default()
	};
	progress.workers = vec![
		worker("back", true, Some(8), 1_192.0, 1.0),
		worker("silent", true, Some(7), 5_000.0, 45.0),
		worker("not-back", false, None, 0.0, 3_700.0),
	];
	progress.workers_known = 3;
	progress.workers_connected = 2;
	progress
}

#[test]
fn fleet_pane_after_a_restart() {
	let mut dashboard = fed(&[after_a_restart()]);
	press(&mut dashboard, KeyCode::Char('3'));
	let screen = screen(&dashboard);
	// Only the worker producing now counts in the total; the silent one is marked.
	assert!(screen.contains("1,192 samples/s reported"), "{screen}");
	assert!(screen.contains("quiet"), "{screen}");
	let not_back = screen
		.lines()
		.find(|line| line.contains("not-back"))
		.expect("the absent worker is listed");
	// Its generation is unknown and its rate gone, not 0; heard from an hour ago.
	assert!(not_back.contains(" ? "), "{not_back}");
	assert!(not_back.contains("1h 01m ago"), "{not_back}");
	assert!(not_back.contains("gone"), "{not_back}");
	assert_snapshot!(screen);
}

#[test]
fn game_pane() {
	let mut dashboard = later();
	press(&mut dashboard, KeyCode::Char('4'));
	let screen = screen(&dashboard);
	assert!(screen.contains("latest self-play game"), "{screen}");
	assert!(screen.contains("moves"), "{screen}");
	// The pane's keys wrap rather than lose the last ones.
	assert!(screen.contains("l latest"), "{screen}");
	assert_snapshot!(screen);
}

#[test]
fn the_coordinators_own_header() {
	let source = "this coordinator (http://127.0.0.1:50553)";
	let mut dashboard = Dashboard::new(source);
	let snapshots = &recorded()[2..4];
	for progress in snapshots {
		dashboard.receive(progress.clone());
	}
	// As `fed` does: a fixed clock, so that "generation 8 for ..." draws the same every time.
	let last = snapshots.last().and_then(|p| p.throughput.last());
	dashboard.set_clock(last.map_or(0.0, |t| t.at) + 5.0);
	let screen = screen(&dashboard);
	assert!(screen.contains(source), "{screen}");
	assert!(screen.contains("generation 8"), "{screen}");
	assert_snapshot!(screen);
}

#[test]
fn a_long_address_goes_on_a_line_of_its_own() {
	let source = "https://coordinator.training-cluster.example.org:50051";
	let mut dashboard = Dashboard::new(source);
	dashboard.receive(recorded()[3].clone());
	let screen = screen(&dashboard);
	assert!(screen.contains(source), "{screen}");
	assert!(screen.contains("LIVE"), "{screen}");
}

#[test]
fn alarms_wrap_and_count_what_does_not_fit() {
	let mut progress = recorded()[3].clone();
	progress.seconds_since_samples = 600.0;
	progress.recent_games = Some(v1::GameTally {
		tiger_wins: 0,
		sheep_wins: 1,
		draws: 199,
	});
	progress.tablebase = Some(v1::TablebaseStatus {
		state: "failed".into(),
		detail: "cannot write /var/cache/tigers-and-sheep/tablebase/movement-phase-f1-r1.tb: \
		         No space left on device (os error 28)"
			.into(),
		..v1::TablebaseStatus::default()
	});
	for worker in &mut progress.workers {
		worker.flagged = 3;
	}
	let dashboard = fed(&[progress]);
	let screen = screen(&dashboard);
	let joined = joined(&screen);
	assert!(joined.contains("! no samples for 10m 00s"), "{screen}");
	assert!(
		joined.contains("199 of the last 200 self-play games were draws"),
		"{screen}"
	);
	assert!(joined.contains("more)"), "{screen}");
	// The tablebase's failure, which the alarms had no room for, wraps whole in the Run pane.
	assert!(
		screen.contains("tablebase      failed: cannot write"),
		"{screen}"
	);
	assert!(screen.contains("(os error 28)"), "{screen}");
	assert_snapshot!(screen);
}

#[test]
fn a_placement_solve_takes_every_pane() {
	let worker = |name: &str, slices, share, flag: Option<&str>| v1::SolveWorker {
		name: name.into(),
		slices,
		positions: slices * 2_000_000,
		share,
		in_flight: 1,
		flagged: flag.is_some(),
		flag_reason: flag.unwrap_or_default().into(),
		seconds_since_seen: 0.4,
	};
	let progress = v1::Progress {
		run_name: "placement solve".into(),
		uptime_seconds: 95.0,
		placement_solve: Some(v1::PlacementSolve {
			layer: "placed-18-sheep".into(),
			layers: 4,
			layers_done: 2,
			slices: 135,
			slices_done: 60,
			slices_in_flight: 2,
			positions: 934_112_872,
			positions_done: 420_000_000,
			positions_per_second: 12_500_000.0,
			seconds_left: 41.0,
			slices_reassigned: 1,
			slices_doubled: 7,
			positions_checked: 6_600_000,
			workers: vec![
				worker("a", 140, 0.55, None),
				worker("b", 115, 0.45, None),
				worker(
					"liar",
					0,
					0.0,
					Some("placed-19-sheep with 0 dead, class 12: wrong"),
				),
			],
			finished: false,
		}),
		..v1::Progress::default()
	};
	let mut dashboard = fed(&[progress]);
	let first = screen(&dashboard);
	assert!(
		joined(&first).contains("placement solve: placed-18-sheep"),
		"{first}"
	);
	assert!(!first.contains("No samples"), "no training alarm: {first}");
	press(&mut dashboard, KeyCode::Char('3'));
	let fleet = screen(&dashboard);
	assert!(
		joined(&fleet).contains("placement solve: placed-18-sheep"),
		"every pane shows the solve: {fleet}"
	);
	assert_snapshot!(first);
}
