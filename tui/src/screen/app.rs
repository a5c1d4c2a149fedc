//! `App`: the game on screen as plain state, and what keys, clicks and finished searches do to
//! it. Nothing here touches a terminal, so tests drive it directly.
//!
//! | input | effect |
//! |---|---|
//! | `q` | quit, at any time (a running search is abandoned); with moves not yet saved, it asks first: `y` saves and quits, `n` quits, Esc plays on |
//! | Ctrl+C | quit at once |
//! | Esc | to the player to move: clears a typed move or a picked-up piece |
//! | click on the board, other keys | to the player to move, if it is a person |
//! | click on a move in the list | back (or forward) to the position before that move |
//! | ← / → | one move back / forward, pausing computer players |
//! | `u` | back to before the last move a person made |
//! | `p` | pause or resume computer players |
//! | `w` | write the game to the record file |

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ratatui::crossterm::event::{
	Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};
use tigers_core::{Game, Move, Tablebase, Turn};
use tigers_widgets::{BoardView, Highlights, HistoryView};

use crate::record_io;
use crate::screen::layout::{ScreenLayout, inner};
use crate::screen::player::{Input, Player};
use crate::screen::seat::{SearchEvent, Seat};

/// Where `w` writes the game unless told otherwise.
pub const DEFAULT_SAVE_PATH: &str = "tigers-game.txt";

/// A line for the user at the top of the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
	/// The message.
	pub text: String,
	/// Whether something went wrong (drawn in red).
	pub is_error: bool,
}

/// A game being played on screen.
pub struct App {
	game: Game,
	/// Moves taken back, the next one first, so that the user can step forward again.
	undone: Vec<Move>,
	/// The sheep's seat, then the tigers'.
	seats: [Seat; 2],
	paused: bool,
	status: Option<Status>,
	save_path: PathBuf,
	quit: bool,
	/// The terminal's area at the last draw, to map clicks to panes.
	screen: Rect,
	/// The solved movement phase, for exact values on screen.
	tablebase: Option<Arc<Tablebase>>,
	/// The moves as last saved (or loaded), to tell whether quitting would lose any.
	saved_moves: Vec<Move>,
	/// Whether `q` is waiting for the answer to "save first?".
	asking_to_save: bool,
	/// Where the game was last written, if it was.
	last_saved: Option<PathBuf>,
}

fn seat_index(turn: Turn) -> usize {
	match turn {
		Turn::Sheep => 0,
		Turn::Tiger => 1,
	}
}

impl App {
	/// A game continuing `game`, with these players.
	pub fn new(game: Game, sheep: Box<dyn Player>, tigers: Box<dyn Player>) -> App {
		App {
			undone: Vec::new(),
			seats: [Seat::new(sheep), Seat::new(tigers)],
			paused: false,
			status: None,
			save_path: PathBuf::from(DEFAULT_SAVE_PATH),
			quit: false,
			screen: Rect::default(),
			tablebase: None,
			saved_moves: game.moves(),
			asking_to_save: false,
			last_saved: None,
			game,
		}
	}

	/// Shows exact values from `table` once the movement phase starts, and marks moves that
	/// gave one away.
	#[must_use]
	pub fn with_tablebase(mut self, table: Arc<Tablebase>) -> App {
		self.tablebase = Some(table);
		self
	}

	/// The solved movement phase, if the app has it.
	pub fn tablebase(&self) -> Option<&Tablebase> {
		self.tablebase.as_deref()
	}

	/// Writes records to `path`.
	#[must_use]
	pub fn with_save_path(mut self, path: &Path) -> App {
		self.save_path = path.to_path_buf();
		self
	}

	/// Starts with `text` in the status line.
	#[must_use]
	pub fn with_notice(mut self, text: &str) -> App {
		self.notify(text);
		self
	}

	/// The game so far.
	pub fn game(&self) -> &Game {
		&self.game
	}

	/// Moves taken back, the next one first.
	pub fn undone(&self) -> &[Move] {
		&self.undone
	}

	/// The seat of `side`.
	pub fn seat(&self, side: Turn) -> &Seat {
		&self.seats[seat_index(side)]
	}

	/// The status line, if there is something to say.
	pub fn status(&self) -> Option<&Status> {
		self.status.as_ref()
	}

	/// Whether computer players wait instead of searching.
	pub fn is_paused(&self) -> bool {
		self.paused
	}

	/// Whether the user asked to quit.
	pub fn should_quit(&self) -> bool {
		self.quit
	}

	/// Tells the app the terminal's size, which clicks are mapped against.
	pub fn set_screen(&mut self, area: Rect) {
		self.screen = area;
	}

	/// The panes for the current screen size.
	pub fn layout(&self) -> Option<ScreenLayout> {
		ScreenLayout::new(self.screen)
	}

	/// The highlights of the player to move, if it is at hand and the game goes on.
	pub fn highlights(&self) -> Highlights {
		let player = self.seat(self.game.turn()).player();
		match player {
			Some(player) if !self.game.is_over() => player.highlights(),
			_ => Highlights::default(),
		}
	}

	fn notify(&mut self, text: &str) {
		self.status = Some(Status {
			text: text.to_string(),
			is_error: false,
		});
	}

	fn complain(&mut self, text: String) {
		self.status = Some(Status {
			text,
			is_error: true,
		});
	}

	/// Collects finished searches and lets the player to move act: an interactive player is
	/// updated and polled, a computer player is sent off to search (unless paused). Call it
	/// before every redraw.
	pub fn tick(&mut self) {
		for side in [Turn::Sheep, Turn::Tiger] {
			if let Some(event) = self.seats[seat_index(side)].poll(Duration::ZERO) {
				self.on_search(side, event);
			}
		}
		if self.game.is_over() {
			return;
		}
		let (board, turn) = (self.game.board(), self.game.turn());
		let ply = self.game.history().len();
		let paused = self.paused;
		let seat = &mut self.seats[seat_index(turn)];
		if let Some(player) = seat.player_mut() {
			player.update(board, turn);
		}
		if seat.is_interactive() {
			let previous = self.game.previous();
			let chosen = seat
				.player_mut()
				.and_then(|player| player.pick_move(board, turn, &previous));
			if let Some(mv) = chosen {
				self.play(mv);
			}
		} else if !paused && seat.player().is_some() {
			seat.start_search(board, turn, self.game.previous(), ply);
		}
	}

	/// Waits up to `timeout` for the search of the player to move, then plays its move and
	/// ticks. Returns whether a search finished. For tests and scripted play.
	pub fn wait_for_search(&mut self, timeout: Duration) -> bool {
		let turn = self.game.turn();
		let Some(event) = self.seats[seat_index(turn)].poll(timeout) else {
			return false;
		};
		self.on_search(turn, event);
		self.tick();
		true
	}

	fn on_search(&mut self, side: Turn, event: SearchEvent) {
		match event {
			SearchEvent::Finished { ply, mv: Some(mv) }
				if ply == self.game.history().len() && self.game.turn() == side =>
			{
				self.play(mv);
			}
			SearchEvent::Finished { .. } => {}
			SearchEvent::Failed => {
				let name = self.seat(side).name().to_string();
				self.complain(format!("{name}'s search failed; it cannot play on"));
			}
		}
	}

	/// Plays `mv` for the side to move, keeping the undone moves if it is the next of them.
	fn play(&mut self, mv: Move) {
		match self.game.play(mv) {
			Ok(()) => {
				if self.undone.first() == Some(&mv) {
					self.undone.remove(0);
				} else {
					self.undone.clear();
				}
			}
			Err(error) => {
				let name = self.seat(self.game.turn()).name().to_string();
				self.complain(format!("{name} tried {mv}: {error}"));
			}
		}
	}

	/// Goes to the position before move `index` (0-based) of the moves played and undone,
	/// dropping whatever the players had half done.
	pub fn go_to(&mut self, index: usize) {
		let played = self.game.history().len();
		if index == played || index > played + self.undone.len() {
			return;
		}
		if index < played {
			let mut taken_back = self.game.moves().split_off(index);
			taken_back.append(&mut self.undone);
			self.undone = taken_back;
			self.game.revert(index);
		} else {
			let again: Vec<Move> = self.undone.drain(..index - played).collect();
			for mv in again {
				if self.game.play(mv).is_err() {
					break;
				}
			}
		}
		for seat in &mut self.seats {
			seat.abandon_search();
			if let Some(player) = seat.player_mut() {
				player.reset();
			}
		}
	}

	/// Goes back to before the last move a person made (or the last move, if none did).
	pub fn take_back(&mut self) {
		let moves = self.game.moves();
		let by_person = moves
			.iter()
			.rposition(|mv| self.seat(mv.side()).is_interactive());
		if let Some(index) = by_person.or_else(|| moves.len().checked_sub(1)) {
			self.go_to(index);
		}
	}

	/// Writes the game to the record file, saying so in the status line; returns whether it
	/// was written.
	pub fn save(&mut self) -> bool {
		let names = [self.seats[0].name(), self.seats[1].name()];
		match record_io::save(&self.save_path, &self.game, names[0], names[1]) {
			Ok(()) => {
				let text = format!("saved to {}", self.save_path.display());
				self.notify(&text);
				self.saved_moves = self.game.moves();
				self.last_saved = Some(self.save_path.clone());
				true
			}
			Err(error) => {
				self.complain(error.to_string());
				false
			}
		}
	}

	/// Where `w` writes the game.
	pub fn save_path(&self) -> &Path {
		&self.save_path
	}

	/// Where the game was last written, if it was.
	pub fn last_saved(&self) -> Option<&Path> {
		self.last_saved.as_deref()
	}

	/// Whether the game has moves that quitting now would lose.
	pub fn has_unsaved_moves(&self) -> bool {
		self.game.moves() != self.saved_moves
	}

	/// Whether `q` is waiting for "save first?" to be answered.
	pub fn is_asking_to_save(&self) -> bool {
		self.asking_to_save
	}

	/// `q`: quits, or first asks whether to save moves that would be lost.
	fn ask_to_quit(&mut self) {
		if self.has_unsaved_moves() {
			self.asking_to_save = true;
			self.notify("save the game first? y yes · n no · Esc back");
		} else {
			self.quit = true;
		}
	}

	/// The answer to "save first?".
	fn answer_save_question(&mut self, code: KeyCode) {
		match code {
			KeyCode::Char('y') => {
				self.asking_to_save = false;
				self.quit = self.save();
			}
			KeyCode::Char('n') => self.quit = true,
			KeyCode::Esc => {
				self.asking_to_save = false;
				self.status = None;
			}
			_ => {}
		}
	}

	/// Reacts to a terminal event.
	pub fn handle_event(&mut self, event: &Event) {
		match event {
			Event::Key(key) => self.handle_key(*key),
			Event::Mouse(mouse) => self.handle_mouse(*mouse),
			Event::Resize(width, height) => self.set_screen(Rect::new(0, 0, *width, *height)),
			_ => {}
		}
	}

	/// Reacts to a key: the app's own keys first, the rest to the player to move.
	pub fn handle_key(&mut self, key: KeyEvent) {
		if key.kind == KeyEventKind::Release {
			return;
		}
		let control = key.modifiers.contains(KeyModifiers::CONTROL);
		if control && key.code == KeyCode::Char('c') {
			self.quit = true;
			return;
		}
		if self.asking_to_save {
			self.answer_save_question(key.code);
			return;
		}
		let played = self.game.history().len();
		match key.code {
			KeyCode::Char('q') => self.ask_to_quit(),
			KeyCode::Left if played > 0 => {
				self.paused = true;
				self.go_to(played - 1);
			}
			KeyCode::Right if !self.undone.is_empty() => {
				self.paused = true;
				self.go_to(played + 1);
			}
			KeyCode::Char('u') => self.take_back(),
			KeyCode::Char('w') => {
				self.save();
			}
			KeyCode::Char('p') => self.paused = !self.paused,
			_ => self.give_input(Input::Key(key)),
		}
	}

	/// Reacts to the mouse: a click on the board goes to the player to move, a click on the
	/// move list goes to that move.
	pub fn handle_mouse(&mut self, mouse: MouseEvent) {
		if mouse.kind != MouseEventKind::Down(MouseButton::Left) {
			return;
		}
		let Some(layout) = self.layout() else {
			return;
		};
		let cell = Position::new(mouse.column, mouse.row);
		if let Some(pos) = BoardView::pos_at(layout.board, cell) {
			self.give_input(Input::Click(pos));
		} else if let Some(index) = HistoryView::move_at(
			inner(layout.history_pane),
			self.game.history().len(),
			self.undone.len(),
			cell,
		) {
			self.go_to(index);
		}
	}

	/// Passes input to the player to move if it is a person and the game goes on.
	fn give_input(&mut self, input: Input) {
		if self.game.is_over() {
			return;
		}
		let (board, turn) = (self.game.board(), self.game.turn());
		let seat = &mut self.seats[seat_index(turn)];
		if !seat.is_interactive() {
			return;
		}
		let chosen = seat
			.player_mut()
			.and_then(|player| player.handle_input(input, board, turn));
		if let Some(mv) = chosen {
			// A person playing on from a position they stepped back to wants the game to go on.
			self.paused = false;
			self.play(mv);
		}
	}
}
