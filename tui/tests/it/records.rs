//! Saving with `w`, loading with `--load`, and refusing corrupt records with their line.

use std::process::Command;

use ratatui::crossterm::event::KeyCode;
use tigers_core::GameRecord;
use tigers_tui::App;
use tigers_tui::record_io::{self, RecordIoError};
use tigers_tui::setup::{self, PlayConfig, PlayerKind};

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
