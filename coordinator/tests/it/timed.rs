//! Promoted nets measured at equal time per move: shown while under way, stored when done,
//! read back after a restart rather than played again, and abandoned promptly on a stop.

use std::time::{Duration, Instant};

use tigers_coordinator::Ledger;
use tigers_coordinator::config::TimedSettings;
use tigers_core::Network;
use tigers_core::network::Shape;

use crate::common::{client, start, status, temp_dir, test_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_incumbent_is_measured_on_the_clock_once_and_kept_across_a_restart() {
	let run_dir = temp_dir("timed");
	let mut config = test_config(run_dir.to_path_buf(), None);
	config.run.timed = TimedSettings {
		move_time: Duration::from_millis(2),
		pairs: 3,
		..TimedSettings::default()
	};
	config.run.gate.max_plies = 60;
	let running = start(config.clone()).await;
	let mut asker = client(running.address, None).await;
	let measured = tokio::time::timeout(Duration::from_secs(120), async {
		loop {
			let progress = status(&mut asker).await;
			if let Some(timed) = progress.timed.first() {
				return (timed.clone(), progress);
			}
			tokio::time::sleep(Duration::from_millis(50)).await;
		}
	})
	.await
	.expect("generation 0 measured at equal time within two minutes");
	let (timed, progress) = measured;
	assert_eq!((timed.generation, timed.move_ms), (0, 2));
	let (t, s) = (timed.as_tigers.unwrap(), timed.as_sheep.unwrap());
	assert_eq!(t.wins + t.draws + t.losses, 3, "{timed:?}");
	assert_eq!(s.wins + s.draws + s.losses, 3, "{timed:?}");
	assert!(timed.score_low <= timed.score && timed.score <= timed.score_high);
	// Without a table there is no exact accuracy to report.
	assert_eq!(timed.candidate_exact, None);
	// Nothing newer was promoted, so nothing else is under way.
	assert_eq!(progress.generation, 0);
	running.stop().await;

	let ledger = Ledger::open(&run_dir.join("ledger.sqlite")).unwrap();
	let rows = ledger.timed().unwrap();
	assert_eq!(rows.len(), 1);
	assert_eq!(rows[0].generation, 0);
	drop(ledger);

	// Started again, the measurement is listed from the ledger and not played again.
	let running = start(config).await;
	let mut asker = client(running.address, None).await;
	let progress = status(&mut asker).await;
	assert_eq!(progress.timed.len(), 1);
	assert_eq!(progress.timed[0].score, timed.score);
	tokio::time::sleep(Duration::from_millis(500)).await;
	assert_eq!(status(&mut asker).await.timed_running, None);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_abandons_a_long_measurement_between_moves() {
	let run_dir = temp_dir("timed-stop");
	let mut config = test_config(run_dir.to_path_buf(), None);
	config.run.timed = TimedSettings {
		move_time: Duration::from_millis(500),
		pairs: 100,
		..TimedSettings::default()
	};
	let running = start(config).await;
	let mut asker = client(running.address, None).await;
	let under_way = tokio::time::timeout(Duration::from_secs(30), async {
		loop {
			if let Some(running) = status(&mut asker).await.timed_running {
				return running;
			}
			tokio::time::sleep(Duration::from_millis(50)).await;
		}
	})
	.await
	.expect("a measurement under way");
	assert_eq!(under_way.generation, 0);
	assert_eq!(under_way.pairs, 100);
	assert_eq!(under_way.move_ms, 500);
	let asked = Instant::now();
	running.stop().await;
	// One move's time and the checkpoint, not the hour the measurement would take.
	assert!(
		asked.elapsed() < Duration::from_secs(10),
		"{:?}",
		asked.elapsed()
	);
	let ledger = Ledger::open(&run_dir.join("ledger.sqlite")).unwrap();
	assert!(
		ledger.timed().unwrap().is_empty(),
		"nothing half-played is stored"
	);
}

fn nowhere_dir(dir: &std::path::Path) -> std::path::PathBuf {
	dir.join("no-placement-here")
}

/// Runs `coordinator measure` with `args`: its exit code, stdout and stderr.
fn measure_command(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
	// A cache of its own, so that no table or layers of the machine's are found by default.
	let home = temp_dir("measure-home");
	let output = std::process::Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.arg("measure")
		.args(args)
		.env("HOME", &home)
		.env("XDG_CACHE_HOME", home.join("cache"))
		.output()
		.expect("the coordinator runs");
	(
		output.status.code(),
		String::from_utf8_lossy(&output.stdout).into_owned(),
		String::from_utf8_lossy(&output.stderr).into_owned(),
	)
}

#[test]
fn coordinator_measure_plays_a_net_file_on_the_clock_and_judges_its_moves() {
	let table = crate::tablebase::table_path();
	crate::tablebase::table();
	let dir = temp_dir("measure");
	std::fs::create_dir_all(&dir).unwrap();
	let net = dir.join("gen-000005.safetensors");
	Network::new(
		Shape {
			hidden1: 16,
			hidden2: 8,
		},
		9,
	)
	.save(&net)
	.unwrap();
	let os = |s: &'static str| std::ffi::OsStr::new(s);
	let timing = [os("--move-ms"), os("2"), os("--pairs"), os("2")];

	let mut args = vec![net.as_os_str()];
	args.extend(timing);
	args.extend([
		os("--threads"),
		os("2"),
		os("--tablebase"),
		table.as_os_str(),
	]);
	let (code, stdout, stderr) = measure_command(&args);
	assert_eq!(code, Some(0), "{stderr}");
	assert!(
		stdout.contains(
			"2 pairs against ClaudePlayer at 2 ms a move, the openings of generation 5, \
			 2 games at a time"
		),
		"{stdout}"
	);
	assert!(stdout.contains("score "), "{stdout}");
	assert!(stdout.contains("exact result kept: the net "), "{stdout}");
	// By default the table is in play for both players, so neither gives a result away.
	assert!(
		stdout.contains("tablebase: in play for both players"),
		"{stdout}"
	);
	assert!(
		stdout.contains("the net 100.00%") || stdout.contains("no movement-phase moves"),
		"{stdout}"
	);

	// No placement layers named, and none in this test's own cache: not judged.
	assert!(
		stdout.contains("placement value kept: not judged (no placement layers)"),
		"{stdout}"
	);

	// The last placement layers judge the moves made in them, both players'.
	let layers = crate::tablebase::last_layers();
	let mut args = vec![net.as_os_str()];
	args.extend(timing);
	args.extend([
		os("--tablebase"),
		table.as_os_str(),
		os("--placement"),
		layers.as_os_str(),
	]);
	let (code, stdout, stderr) = measure_command(&args);
	assert_eq!(code, Some(0), "{stderr}");
	let line = stdout
		.lines()
		.find(|line| line.starts_with("placement value kept: the net "))
		.unwrap_or_else(|| panic!("{stdout}"));
	assert_eq!(
		line.matches("placement-phase moves").count(),
		2,
		"both players' moves in the layers are judged: {line}"
	);
	assert!(
		stdout.contains("placement moves that gave value away, per game: the net "),
		"{stdout}"
	);
	// The movement phase's, and both phases together: the grade against the perfect player.
	assert!(
		stdout.contains("movement moves that gave value away, per game: the net "),
		"{stdout}"
	);
	assert!(
		stdout.contains("values given away per game, both phases: the net "),
		"{stdout}"
	);
	// The perfect player needs every layer: a sentence, status 1, nothing played.
	for who in [
		vec![os("--perfect")],
		vec![net.as_os_str(), os("--against"), os("perfect")],
	] {
		let mut args = who;
		args.extend([
			os("--tablebase"),
			table.as_os_str(),
			os("--placement"),
			layers.as_os_str(),
		]);
		let (code, stdout, stderr) = measure_command(&args);
		assert_eq!(code, Some(1), "{stderr}");
		assert!(stdout.is_empty(), "{stdout}");
		assert!(
			stderr
				.contains("the perfect player needs the movement table and every placement layer"),
			"{stderr}"
		);
	}
	// A net and --perfect at once, or neither: a usage error.
	let (code, _, stderr) = measure_command(&[net.as_os_str(), os("--perfect")]);
	assert_eq!(code, Some(2), "{stderr}");
	let (code, _, stderr) = measure_command(&[os("--pairs"), os("1")]);
	assert_eq!(code, Some(2), "{stderr}");
	// A placement directory named but not there is refused with its path.
	let (code, _, stderr) = measure_command(&[
		net.as_os_str(),
		os("--placement"),
		nowhere_dir(&dir).as_os_str(),
	]);
	assert_eq!(code, Some(1), "{stderr}");
	assert!(stderr.contains("no-placement-here"), "{stderr}");

	// A file that is not there, a setting out of range, a named table that is not there: a
	// sentence each, and nothing played.
	let missing = dir.join("gen-000006.safetensors");
	let mut args = vec![missing.as_os_str()];
	args.extend(timing);
	args.push(os("--no-tablebase"));
	let (code, _, stderr) = measure_command(&args);
	assert_eq!(code, Some(1), "{stderr}");
	assert!(stderr.contains("gen-000006.safetensors"), "{stderr}");
	let (code, _, stderr) = measure_command(&[net.as_os_str(), os("--pairs"), os("0")]);
	assert_eq!(code, Some(2), "{stderr}");
	// Refused by clap, as every value out of its range is: the flag and the range named.
	assert!(
		stderr.contains("--pairs") && stderr.contains("1..=10000"),
		"{stderr}"
	);
	// A table that is missing or not good fails as every other unusable file does: status 1.
	let nowhere = dir.join("nowhere.tb");
	let (code, _, stderr) =
		measure_command(&[net.as_os_str(), os("--tablebase"), nowhere.as_os_str()]);
	assert_eq!(code, Some(1), "{stderr}");
	assert!(stderr.contains("nowhere.tb"), "{stderr}");
	let junk = dir.join("junk.tb");
	std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
	let (code, _, stderr) =
		measure_command(&[net.as_os_str(), os("--tablebase"), junk.as_os_str()]);
	assert_eq!(code, Some(1), "{stderr}");
	assert!(
		stderr.contains("junk.tb") && stderr.contains("--no-tablebase"),
		"{stderr}"
	);
	std::fs::remove_dir_all(&dir).unwrap();
}
