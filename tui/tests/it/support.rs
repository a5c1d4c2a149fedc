//! Helpers shared by the tests: apps with fixed players, drawing, and clicking on points.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{
	Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use tigers_core::{ClaudePlayer, Game, Pos, Position, Tablebase};
use tigers_tui::{App, BoardView, LocalPlayer, Player};

/// Long enough for any fixed-depth search in these tests to finish on a loaded machine; the
/// tests wait for the search's answer, never for the clock.
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(120);

/// A person.
pub fn human() -> Box<dyn Player> {
	Box::new(LocalPlayer::new("You"))
}

/// Claude searching exactly `depth` plies, so that its moves and reports are repeatable.
pub fn claude(depth: u32) -> Box<dyn Player> {
	Box::new(ClaudePlayer::fixed_depth(depth))
}

/// A game from a position in core's notation.
pub fn game_from(text: &str) -> Game {
	Game::new(text.parse::<Position>().expect("a valid position"))
}

/// A game from the start with these moves played.
pub fn game_after(moves: &[&str]) -> Game {
	let mut game = Game::default();
	for mv in moves {
		game.play_text(mv).expect("a legal move");
	}
	game
}

/// Ticks the app, lets every search that starts finish, and stops when a person is to move or
/// the game is over.
pub fn settle(app: &mut App) {
	app.tick();
	while app.seat(app.game().turn()).is_away() {
		assert!(
			app.wait_for_search(SEARCH_TIMEOUT),
			"the search did not finish"
		);
	}
}

/// Draws the app on a test terminal of this size.
pub fn draw(app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
	let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
	app.set_screen(Rect::new(0, 0, width, height));
	app.tick();
	terminal
		.draw(|frame| frame.render_widget(&*app, frame.area()))
		.expect("drawing into memory");
	terminal
}

/// A left click at a cell.
pub fn click_at(app: &mut App, column: u16, row: u16) {
	app.handle_event(&Event::Mouse(MouseEvent {
		kind: MouseEventKind::Down(MouseButton::Left),
		column,
		row,
		modifiers: KeyModifiers::NONE,
	}));
}

/// A left click on a point of the board as the app lays it out.
pub fn click_point(app: &mut App, point: &str) {
	let layout = app.layout().expect("the screen is large enough");
	let pos: Pos = point.parse().expect("a point");
	let cell = BoardView::point_cell(layout.board, pos).expect("the board fits");
	click_at(app, cell.x, cell.y);
}

/// A key press.
pub fn press(app: &mut App, code: KeyCode) {
	app.handle_event(&Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// Types text, one key a character.
pub fn type_text(app: &mut App, text: &str) {
	for c in text.chars() {
		press(app, KeyCode::Char(c));
	}
}

/// A fresh, empty directory under the target directory, named for the test.
pub fn temp_dir(name: &str) -> PathBuf {
	let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
	let _ = std::fs::remove_dir_all(&dir);
	std::fs::create_dir_all(&dir).expect("creating a test directory");
	dir
}

/// Where the workspace's test binaries share one solved tablebase.
pub fn tablebase_path() -> PathBuf {
	PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tablebase/tigers-and-sheep.tb")
}

/// The shared tablebase, solved by whichever test binary needs it first.
pub fn tablebase() -> &'static Arc<Tablebase> {
	static TABLE: OnceLock<Arc<Tablebase>> = OnceLock::new();
	TABLE.get_or_init(|| {
		let (table, _) = Tablebase::load_or_build(&tablebase_path(), 2, &|_| {})
			.expect("the test tablebase loads or builds");
		Arc::new(table)
	})
}
