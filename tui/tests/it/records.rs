//! Saving with `w`, loading with `--load`, and refusing corrupt records with their line.

use std::process::Command;

use ratatui::crossterm::event::KeyCode;
use tigers_core::GameRecord;
use tigers_tui::App;
use tigers_tui::record_io::{self, RecordIoError};
use tigers_tui::screen::setup::{self, PlayConfig, PlayerKind};

use crate::support::{draw, game_after, human, press, temp_dir};

#[test]
fn w_saves_a_record_that_loads_again() {
	let dir = temp_dir("w_saves_a_record_that_loads_again");
	let path = dir.join("game.txt");
	let mut app =
		App::new(game_after(&["sc3", "ta5b4", "sd3"]), human(), human()).with_save_path(&path);
	press(&mut app, KeyCode::Char('w'));
	let status = app.status().expect("a status");
	assert!(
		!status.is_error && status.text.contains("saved to"),
		"{status:?}"
	);
	let (record, game) = record_io::load(&path).unwrap();
	assert_eq!(&game, app.game());
	assert_eq!(record.sheep_player.unwrap().as_str(), "You");
	assert_eq!(record.result, None);
}

#[test]
fn a_loaded_record_continues_where_it_stopped() {
	let dir = temp_dir("a_loaded_record_continues_where_it_stopped");
	let path = dir.join("game.txt");
	let played = game_after(&["sc3", "ta5b4"]);
	std::fs::write(&path, GameRecord::from_game(&played).to_text()).unwrap();
	let config = PlayConfig {
		sheep: PlayerKind::Human,
		tigers: PlayerKind::Claude,
		load: Some(path),
		..PlayConfig::default()
	};
	let mut setup = setup::build(&config).unwrap();
	assert_eq!(setup.app.game(), &played);
	assert_eq!(setup.app.seat(tigers_core::Turn::Tiger).name(), "Claude");
	let screen = format!("{}", draw(&mut setup.app, 80, 24).backend());
	assert!(screen.contains("2. ta5b4"), "{screen}");
}

/// A record whose third move is illegal (c3 is taken), on line 3.
const CORRUPT: &str = "tigers-and-sheep record 1\n\
                       start T...T/...../...../...../T...T s 20\n\
                       moves sc3 ta5b4 sc3\n\
                       result *\n";

#[test]
fn a_corrupt_record_is_refused_with_its_line() {
	let dir = temp_dir("a_corrupt_record_is_refused_with_its_line");
	let path = dir.join("corrupt.txt");
	std::fs::write(&path, CORRUPT).unwrap();
	let error = record_io::load(&path).unwrap_err();
	assert!(matches!(error, RecordIoError::Invalid { .. }), "{error:?}");
	assert!(error.to_string().contains("line 3"), "{error}");
}

#[test]
fn the_binary_refuses_a_corrupt_record_before_touching_the_terminal() {
	let dir = temp_dir("the_binary_refuses_a_corrupt_record");
	let path = dir.join("corrupt.txt");
	std::fs::write(&path, CORRUPT).unwrap();
	let output = Command::new(env!("CARGO_BIN_EXE_tui"))
		.args(["--tiger", "claude", "--load"])
		.arg(&path)
		.output()
		.unwrap();
	assert!(!output.status.success());
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert!(stderr.contains("corrupt.txt"), "{stderr}");
	assert!(stderr.contains("line 3"), "{stderr}");
	assert!(stderr.contains("c3 is not empty"), "{stderr}");
}

#[test]
fn without_a_terminal_the_binary_points_to_the_engine() {
	let output = Command::new(env!("CARGO_BIN_EXE_tui"))
		.args(["--tiger", "claude", "--no-tablebase"])
		.stdin(std::process::Stdio::null())
		.output()
		.unwrap();
	assert_eq!(output.status.code(), Some(1));
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert!(
		stderr.contains("not one") && stderr.contains("tui engine"),
		"{stderr}"
	);
}

#[test]
fn games_are_saved_in_the_data_directory_by_default() {
	let config = PlayConfig {
		sheep: PlayerKind::Human,
		tigers: PlayerKind::Claude,
		..PlayConfig::default()
	};
	let setup = setup::build(&config).expect("a game with no net to find");
	let path = setup.app.save_path();
	let name = path.file_name().unwrap().to_string_lossy();
	assert!(
		name.starts_with("game-") && name.ends_with(".txt"),
		"{name}"
	);
	assert!(
		path.ends_with(format!("tigers-and-sheep/games/{name}")),
		"{path:?}"
	);
	assert!(path.is_absolute(), "{path:?}");
}

/// A run's game archive as the coordinator writes it: generation 3's games in two gzip
/// members, the second game three moves long.
fn archive(dir: &std::path::Path) -> std::path::PathBuf {
	let record = |moves: &[&str], seed| {
		GameRecord {
			generation: Some(3),
			seed: Some(seed),
			..GameRecord::from_game(&game_after(moves))
		}
		.to_text()
	};
	let (one, two, three) = (
		record(&["sc3"], 1),
		record(&["sc3", "ta5b4", "sd3"], 2),
		record(&[], 3),
	);
	let path = dir.join(tigers_proto::games::file_name(3));
	let mut bytes = tigers_proto::games::compress([one.as_str(), two.as_str()]);
	bytes.extend(tigers_proto::games::compress([three.as_str()]));
	std::fs::write(&path, bytes).unwrap();
	path
}

#[test]
fn a_game_of_a_runs_archive_loads_by_its_number() {
	let dir = temp_dir("a_game_of_a_runs_archive_loads_by_its_number");
	let path = archive(&dir);
	let (record, game) = record_io::load_game(&path, Some(2)).unwrap();
	assert_eq!(game, game_after(&["sc3", "ta5b4", "sd3"]));
	assert_eq!((record.generation, record.seed), (Some(3), Some(2)));
	let config = PlayConfig {
		sheep: PlayerKind::Human,
		tigers: PlayerKind::Claude,
		load: Some(path.clone()),
		game: Some(3),
		..PlayConfig::default()
	};
	let app = setup::build(&config).unwrap().app;
	assert_eq!(app.game(), &game_after(&[]));
	// Titled by the generation that played it, not by whatever net plays on.
	let notice = app.status().expect("a notice").text.clone();
	assert_eq!(notice, "a game of generation 3");
	// Without a number, or with one past the end, the error says what there is.
	let error = record_io::load(&path).unwrap_err();
	assert!(
		matches!(error, RecordIoError::WhichGame { count: 3, .. }),
		"{error:?}"
	);
	assert!(error.to_string().contains("--game N (1 to 3)"), "{error}");
	let error = record_io::load_game(&path, Some(4)).unwrap_err();
	assert!(error.to_string().contains("no game 4"), "{error}");
}

#[test]
fn a_damaged_game_in_a_file_of_many_is_named_and_hides_no_other() {
	let dir = temp_dir("a_damaged_game_in_a_file_of_many");
	let path = dir.join("games.txt");
	let good = GameRecord::from_game(&game_after(&["sc3"])).to_text();
	std::fs::write(&path, format!("{good}{CORRUPT}{good}")).unwrap();
	let error = record_io::load_game(&path, Some(2)).unwrap_err();
	assert!(
		matches!(error, RecordIoError::Invalid { number: 2, .. }),
		"{error:?}"
	);
	assert!(error.to_string().contains("game 2: line 3"), "{error}");
	assert_eq!(
		record_io::load_game(&path, Some(3)).unwrap().1,
		game_after(&["sc3"])
	);
	// A gzip stream cut short is refused as such.
	let cut = dir.join("cut.records.gz");
	let whole = std::fs::read(archive(&dir)).unwrap();
	std::fs::write(&cut, &whole[..whole.len() - 8]).unwrap();
	let error = record_io::load_game(&cut, Some(1)).unwrap_err();
	assert!(matches!(error, RecordIoError::Archive { .. }), "{error:?}");
}

#[test]
fn the_binary_lists_an_archives_games_and_loads_one() {
	let dir = temp_dir("the_binary_lists_an_archives_games");
	let path = archive(&dir);
	let output = Command::new(env!("CARGO_BIN_EXE_tui"))
		.arg("games")
		.arg(&path)
		.output()
		.unwrap();
	assert!(output.status.success(), "{output:?}");
	let listing = String::from_utf8_lossy(&output.stdout);
	let lines: Vec<&str> = listing.lines().collect();
	assert_eq!(lines.len(), 4, "{listing}");
	assert!(
		lines[1]
			.trim_start()
			.starts_with("2  generation    3  seed 0000000000000002    3 moves  *"),
		"{listing}"
	);
	assert!(lines[3].starts_with("3 games in "), "{listing}");
	// Loading game 2 gets as far as the terminal; game 9 is refused before it.
	let load = |game: &str| {
		Command::new(env!("CARGO_BIN_EXE_tui"))
			.args(["--tiger", "claude", "--no-tablebase", "--load"])
			.arg(&path)
			.args(["--game", game])
			.stdin(std::process::Stdio::null())
			.output()
			.unwrap()
	};
	let stderr = String::from_utf8_lossy(&load("2").stderr).into_owned();
	assert!(stderr.contains("tui engine"), "{stderr}");
	let refused = load("9");
	assert_eq!(refused.status.code(), Some(1));
	let stderr = String::from_utf8_lossy(&refused.stderr);
	assert!(stderr.contains("no game 9"), "{stderr}");
	// A listing with a game that does not read says so, and fails.
	let bad = dir.join("bad.txt");
	std::fs::write(&bad, CORRUPT).unwrap();
	let output = Command::new(env!("CARGO_BIN_EXE_tui"))
		.arg("games")
		.arg(&bad)
		.output()
		.unwrap();
	assert_eq!(output.status.code(), Some(1));
	let stdout = String::from_utf8_lossy(&output.stdout);
	assert!(
		stdout.contains("does not read") && stdout.contains("line 3"),
		"{stdout}"
	);
}

#[test]
fn a_listing_into_a_pipe_that_closes_early_ends_quietly() {
	use std::io::Read;
	use std::process::Stdio;
	let dir = temp_dir("a_listing_into_a_pipe_that_closes_early");
	// Far more listing than a pipe holds (64 KiB on Linux), so that the program is still
	// writing when its reader goes, as with `tui games FILE | head -2`.
	let text = GameRecord {
		generation: Some(1),
		seed: Some(1),
		..GameRecord::from_game(&game_after(&["sc3"]))
	}
	.to_text();
	let path = dir.join(tigers_proto::games::file_name(1));
	let bytes = tigers_proto::games::compress(std::iter::repeat_n(text.as_str(), 5000));
	std::fs::write(&path, bytes).unwrap();
	let mut child = Command::new(env!("CARGO_BIN_EXE_tui"))
		.arg("games")
		.arg(&path)
		.stdout(Stdio::piped())
		.stderr(Stdio::piped())
		.spawn()
		.unwrap();
	let mut head = [0; 200];
	child
		.stdout
		.take()
		.unwrap()
		.read_exact(&mut head)
		.expect("the listing starts");
	let output = child.wait_with_output().unwrap();
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(0), "{stderr}");
	assert!(stderr.is_empty(), "{stderr}");
}
