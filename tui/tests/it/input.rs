//! Input handling on the `App` state, without a terminal: clicks, typed moves, going back and
//! forth in the history, pausing, and quitting, also in the middle of a search.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use tigers_core::{GameBoard, Move, Turn};
use tigers_tui::screen::layout::inner;
use tigers_tui::{App, Player};

use crate::support::{
	claude, click_at, click_point, draw, game_after, game_from, human, press, settle, temp_dir,
	type_text,
};

fn moves(app: &App) -> Vec<String> {
	app.game().moves().iter().map(Move::to_string).collect()
}

fn screen_text(app: &mut App) -> String {
	format!("{}", draw(app, 80, 24).backend())
}

/// Clicks the move list's row for move `index` (0-based), with every move in view.
fn click_history_row(app: &mut App, index: u16) {
	let pane = inner(
		app.layout()
			.expect("the screen is large enough")
			.history_pane,
	);
	click_at(app, pane.x + 2, pane.y + index);
}

#[test]
fn a_click_picks_up_a_tiger_and_another_moves_it() {
	let mut app = App::new(game_after(&["sc3"]), human(), human());
	draw(&mut app, 80, 24);
	click_point(&mut app, "a5");
	assert_eq!(app.highlights().selected, Some("a5".parse().unwrap()));
	assert!(screen_text(&mut app).contains('*'), "targets are marked");
	click_point(&mut app, "b4");
	assert_eq!(moves(&app), ["sc3", "ta5b4"]);
	assert_eq!(app.highlights(), tigers_tui::Highlights::default());
}

#[test]
fn an_illegal_click_says_why_on_screen() {
	let mut app = App::new(game_after(&[]), human(), human());
	draw(&mut app, 80, 24);
	click_point(&mut app, "a5");
	assert!(moves(&app).is_empty());
	assert!(screen_text(&mut app).contains("a5 is not empty"));
}

#[test]
fn a_typed_move_and_enter_plays_it_and_the_computer_replies() {
	let mut app = App::new(game_after(&[]), human(), claude(1));
	draw(&mut app, 80, 24);
	type_text(&mut app, "sc3");
	assert!(screen_text(&mut app).contains("> sc3_"));
	press(&mut app, KeyCode::Enter);
	assert_eq!(moves(&app), ["sc3"]);
	settle(&mut app);
	assert_eq!(app.game().history().len(), 2, "Claude answered");
	assert_eq!(app.game().turn(), Turn::Sheep);
}

#[test]
fn a_click_on_the_history_goes_back_and_the_arrows_step() {
	let mut app = App::new(game_after(&["sc3", "ta5b4", "sd3"]), human(), human());
	draw(&mut app, 80, 24);
	click_history_row(&mut app, 1);
	assert_eq!(moves(&app), ["sc3"]);
	assert_eq!(app.undone().len(), 2);
	press(&mut app, KeyCode::Right);
	assert_eq!(moves(&app), ["sc3", "ta5b4"]);
	press(&mut app, KeyCode::Left);
	press(&mut app, KeyCode::Left);
	assert!(moves(&app).is_empty());
	// Clicking an undone move goes forward to just before it.
	draw(&mut app, 80, 24);
	click_history_row(&mut app, 2);
	assert_eq!(moves(&app), ["sc3", "ta5b4"]);
	// A different move forgets what was undone.
	type_text(&mut app, "sd4");
	press(&mut app, KeyCode::Enter);
	assert_eq!(moves(&app), ["sc3", "ta5b4", "sd4"]);
	assert!(app.undone().is_empty());
	assert!(!app.is_paused(), "playing on resumes the game");
	// With nothing undone, → neither moves nor pauses.
	press(&mut app, KeyCode::Right);
	assert_eq!(app.game().history().len(), 3);
	assert!(!app.is_paused());
}

#[test]
fn take_back_returns_to_before_your_last_move() {
	let mut app = App::new(game_after(&[]), human(), claude(1));
	draw(&mut app, 80, 24);
	type_text(&mut app, "c3");
	press(&mut app, KeyCode::Enter);
	settle(&mut app);
	assert_eq!(app.game().history().len(), 2);
	press(&mut app, KeyCode::Char('u'));
	assert!(moves(&app).is_empty());
	assert_eq!(app.game().turn(), Turn::Sheep);
	assert_eq!(app.undone().len(), 2);
}

#[test]
fn stepping_back_pauses_the_computer_until_p() {
	let mut app = App::new(game_after(&[]), human(), claude(1));
	draw(&mut app, 80, 24);
	type_text(&mut app, "c3");
	press(&mut app, KeyCode::Enter);
	settle(&mut app);
	press(&mut app, KeyCode::Left);
	assert_eq!(app.game().turn(), Turn::Tiger);
	assert!(app.is_paused());
	app.tick();
	assert!(
		!app.seat(Turn::Tiger).is_away(),
		"a paused computer does not search"
	);
	assert!(screen_text(&mut app).contains("paused"));
	press(&mut app, KeyCode::Char('p'));
	settle(&mut app);
	assert_eq!(app.game().history().len(), 2);
}

/// A computer player whose search lasts until the test says which move it found.
struct StuckPlayer {
	answer: Arc<Mutex<Receiver<Move>>>,
	resets: Sender<()>,
}

impl Player for StuckPlayer {
	fn name(&self) -> String {
		"Stuck".to_string()
	}

	fn searches(&self) -> bool {
		true
	}

	fn pick_move(&mut self, _: GameBoard, _: Turn, _: &[GameBoard]) -> Option<Move> {
		self.answer.lock().unwrap().recv().ok()
	}

	fn reset(&mut self) {
		let _ = self.resets.send(());
	}
}

/// A stuck player, the sender that unsticks it, and the receiver of its resets.
fn stuck() -> (Box<dyn Player>, Sender<Move>, Receiver<()>) {
	let (answer_sender, answer) = mpsc::channel();
	let (resets, reset_receiver) = mpsc::channel();
	let player = StuckPlayer {
		answer: Arc::new(Mutex::new(answer)),
		resets,
	};
	(Box::new(player), answer_sender, reset_receiver)
}

#[test]
fn quit_works_during_a_search() {
	let (tigers, answer, _resets) = stuck();
	let mut app = App::new(game_after(&["sc3"]), human(), tigers);
	app.tick();
	assert!(app.seat(Turn::Tiger).search_started().is_some());
	assert!(screen_text(&mut app).contains("Stuck is thinking"));
	press(&mut app, KeyCode::Char('q'));
	assert!(
		app.should_quit(),
		"the app quits without waiting for the search"
	);
	drop(answer);
}

#[test]
fn q_and_ctrl_c_quit_and_esc_never_does() {
	let keys = [
		KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE),
		KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
	];
	for key in keys {
		let mut app = App::new(game_after(&[]), human(), human());
		assert!(!app.should_quit());
		app.handle_event(&Event::Key(key));
		assert!(app.should_quit(), "{key:?}");
	}
	// A plain c is part of a move, and Esc only clears what is being typed.
	let mut app = App::new(game_after(&[]), human(), human());
	type_text(&mut app, "c");
	press(&mut app, KeyCode::Esc);
	assert!(!app.should_quit());
	type_text(&mut app, "c3");
	press(&mut app, KeyCode::Enter);
	assert_eq!(moves(&app), ["sc3"], "Esc left an empty line");
}

#[test]
fn quitting_an_unsaved_game_offers_to_save_it() {
	let dir = temp_dir("quitting_an_unsaved_game_offers_to_save_it");
	let path = dir.join("game.txt");
	let mut app = App::new(game_after(&[]), human(), human()).with_save_path(&path);
	type_text(&mut app, "c3");
	press(&mut app, KeyCode::Enter);
	press(&mut app, KeyCode::Char('q'));
	assert!(!app.should_quit());
	assert!(app.is_asking_to_save());
	assert!(screen_text(&mut app).contains("save the game first?"));
	// Esc goes back to the game; the next move still plays.
	press(&mut app, KeyCode::Esc);
	assert!(!app.is_asking_to_save() && !app.should_quit());
	type_text(&mut app, "ta5b4");
	press(&mut app, KeyCode::Enter);
	assert_eq!(moves(&app), ["sc3", "ta5b4"]);
	// y saves, then quits.
	press(&mut app, KeyCode::Char('q'));
	press(&mut app, KeyCode::Char('y'));
	assert!(app.should_quit());
	let text = std::fs::read_to_string(&path).expect("the record was written");
	assert!(text.contains("moves sc3 ta5b4"), "{text}");
	// n quits without saving; a saved game quits at once.
	let mut app = App::new(game_after(&["sc3"]), human(), human());
	press(&mut app, KeyCode::Char('q'));
	assert!(app.should_quit(), "a game with nothing new quits at once");
	let mut app = App::new(game_after(&[]), human(), human());
	type_text(&mut app, "c3");
	press(&mut app, KeyCode::Enter);
	press(&mut app, KeyCode::Char('q'));
	press(&mut app, KeyCode::Char('n'));
	assert!(app.should_quit());
}

#[test]
fn going_back_during_a_search_drops_its_move() {
	let (tigers, answer, resets) = stuck();
	let mut app = App::new(game_after(&["sc3"]), human(), tigers);
	draw(&mut app, 80, 24);
	assert!(app.seat(Turn::Tiger).is_away());
	click_history_row(&mut app, 0);
	assert!(moves(&app).is_empty());
	answer.send("ta5b4".parse().unwrap()).unwrap();
	while app.seat(Turn::Tiger).is_away() {
		app.tick();
		std::thread::yield_now();
	}
	assert!(moves(&app).is_empty(), "the stale move was not played");
	resets
		.try_recv()
		.expect("the player was reset on its return");
	// It is the sheep's turn; nothing is searching.
	assert!(app.seat(Turn::Tiger).search_started().is_none());
	drop(answer);
}

#[test]
fn input_after_the_game_ends_changes_nothing() {
	let mut app = App::new(
		game_from("T...T/.S.../...../SSSSS/TSSST t 7"),
		human(),
		human(),
	);
	draw(&mut app, 80, 24);
	click_point(&mut app, "a5");
	click_point(&mut app, "c3");
	assert!(app.game().is_over());
	click_point(&mut app, "c4");
	type_text(&mut app, "sc4");
	press(&mut app, KeyCode::Enter);
	assert_eq!(moves(&app), ["ta5xc3"]);
	assert!(screen_text(&mut app).contains("Game over"));
}
