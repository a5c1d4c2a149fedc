//! Whole screens drawn into ratatui's `TestBackend`, compared with committed snapshots.

use insta::assert_snapshot;
use ratatui::style::Modifier;
use tigers_tui::App;

use tigers_core::tablebase::Value;

use crate::support::{
	claude, click_point, draw, game_after, game_from, human, press, settle, tablebase, type_text,
};
use ratatui::crossterm::event::KeyCode;

/// You as the sheep against a computer, before the first move.
fn start() -> App {
	App::new(game_after(&[]), human(), claude(1))
		.with_notice("no net found; playing Claude instead")
}

#[test]
fn start_80x24() {
	let mut app = start();
	assert_snapshot!(draw(&mut app, 80, 24).backend());
}

#[test]
fn start_100x36() {
	let mut app = start();
	assert_snapshot!(draw(&mut app, 100, 36).backend());
}

/// A movement-phase game: Claude (tigers) has moved, and you have picked up a sheep.
fn mid_game(width: u16, height: u16) -> App {
	let mut app = App::new(
		game_from("SS.SS/SSSSS/SS.TS/STTTS/SSSSS t 0"),
		human(),
		claude(2),
	);
	settle(&mut app);
	assert_eq!(app.game().history().len(), 1, "Claude has played");
	draw(&mut app, width, height);
	click_point(&mut app, "c4");
	app
}

#[test]
fn mid_game_with_highlights_80x24() {
	let mut app = mid_game(80, 24);
	let terminal = draw(&mut app, 80, 24);
	let highlights = app.highlights();
	assert_eq!(
		highlights.selected.map(|p| p.to_string()).as_deref(),
		Some("c4")
	);
	assert!(!highlights.targets.is_empty());
	// The picked-up sheep is drawn reversed; the text snapshot cannot show that.
	let layout = app.layout().unwrap();
	let cell = tigers_tui::BoardView::point_cell(layout.board, "c4".parse().unwrap()).unwrap();
	let drawn = &terminal.backend().buffer()[(cell.x, cell.y)];
	assert!(drawn.modifier.contains(Modifier::REVERSED), "{drawn:?}");
	assert_snapshot!(terminal.backend());
}

#[test]
fn mid_game_with_highlights_100x36() {
	let mut app = mid_game(100, 36);
	assert_snapshot!(draw(&mut app, 100, 36).backend());
}

#[test]
fn quit_prompt_80x24() {
	// Two people, a move not yet saved: `q` asks first, in the pane where the player to move
	// reads what to do, in place of the instructions.
	let mut app = App::new(game_after(&[]), human(), human());
	draw(&mut app, 80, 24);
	type_text(&mut app, "c3");
	press(&mut app, KeyCode::Enter);
	press(&mut app, KeyCode::Char('q'));
	assert!(app.is_asking_to_save());
	let terminal = draw(&mut app, 80, 24);
	let screen = format!("{}", terminal.backend());
	assert!(!screen.contains("Click"), "{screen}");
	assert_snapshot!(terminal.backend());
}

#[test]
fn a_long_confirmation_80x24() {
	// What `w` says with the default save path: whole, wrapped at the bottom of the player's
	// pane, below what the player to move reads.
	let mut app = App::new(game_after(&["sc3"]), human(), human()).with_notice(
		"saved to /home/someone/.local/share/tigers-and-sheep/games/game-2026-12-02-141000.txt",
	);
	let terminal = draw(&mut app, 80, 24);
	let screen = format!("{}", terminal.backend());
	assert!(screen.contains("game-2026-12-02-141000.txt"), "{screen}");
	assert!(screen.contains("Tigers to move"), "{screen}");
	assert_snapshot!(terminal.backend());
}

#[test]
fn game_over_80x24() {
	let mut app = App::new(
		game_from("T...T/.S.../...../SSSSS/TSSST t 7"),
		human(),
		claude(1),
	);
	settle(&mut app);
	assert!(app.game().is_over());
	assert_snapshot!(draw(&mut app, 80, 24).backend());
}

#[test]
fn too_small_a_screen_says_so() {
	let mut app = start();
	let terminal = draw(&mut app, 40, 12);
	let text = format!("{}", terminal.backend());
	assert!(text.contains("too small"), "{text}");
}

/// A movement-phase game in which the side to move held a win and played a move that drew.
fn a_thrown_away_win() -> App {
	let table = tablebase();
	let (position, mv) = (0..table.len())
		.step_by(101)
		.map(|i| table.entry(i))
		.filter(|(p, v)| matches!(v, Value::Win(3..=15)) && p.turn == tigers_core::Turn::Sheep)
		.find_map(|(p, _)| {
			let draws = |mv: &tigers_core::Move| {
				let after = p.board.after_move_unchecked(*mv);
				table.probe(after, p.turn.opponent()) == Some(Value::Draw)
			};
			p.board
				.get_moves(p.turn)
				.iter()
				.copied()
				.find(draws)
				.map(|mv| (p, mv))
		})
		.expect("some won position has a drawing move");
	let mut game = tigers_core::Game::new(position);
	game.play(mv).expect("a legal move");
	App::new(game, human(), human()).with_tablebase(table.clone())
}

#[test]
fn exact_value_and_a_thrown_away_win_80x24() {
	let mut app = a_thrown_away_win();
	let terminal = draw(&mut app, 80, 24);
	let text = format!("{}", terminal.backend());
	assert!(text.contains("exact: draw"), "{text}");
	assert!(text.contains("threw away a win"), "{text}");
	let played = app.game().moves()[0];
	assert!(text.contains(&format!("1. {played}?")), "{text}");
	assert_snapshot!(terminal.backend());
}
