//! `LocalPlayer`: the person at this terminal, playing with the mouse or by typing moves.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Paragraph, Widget, Wrap};
use tigers_core::lines::jump_over;
use tigers_core::{GameBoard, Move, MoveError, Pos, Turn};
use tigers_widgets::Highlights;

use crate::screen::player::{Input, Player};

/// The longest move in our notation (`ta5xc3`).
const LONGEST_MOVE: usize = 6;

/// A human player.
///
/// With the mouse: while sheep are in hand, a click on an empty point places one. Otherwise a
/// click on one's own piece picks it up and highlights where it can go, a click on one of those
/// points moves it there, and any other click drops it. By keyboard: a move in our notation
/// (`sc3`, `ta5b4`, `ta5xc3`; the side's letter may be left out) and Enter. A refused move
/// leaves the rules' reason in red on the panel and an empty line to type the next one; a key
/// that is never part of a move says so. Esc clears the line, the picked-up piece and the
/// message.
#[derive(Clone, Debug)]
pub struct LocalPlayer {
	name: String,
	/// The position last shown, for the panel.
	position: Option<(GameBoard, Turn)>,
	selected: Option<Pos>,
	/// The legal moves of the selected piece.
	targets: Vec<Move>,
	typed: String,
	message: Option<String>,
}

impl LocalPlayer {
	/// A human player called `name`.
	pub fn new(name: &str) -> LocalPlayer {
		LocalPlayer {
			name: name.to_string(),
			position: None,
			selected: None,
			targets: Vec::new(),
			typed: String::new(),
			message: None,
		}
	}

	/// The move being typed.
	pub fn typed(&self) -> &str {
		&self.typed
	}

	/// Why the last input was refused, if it was.
	pub fn message(&self) -> Option<&str> {
		self.message.as_deref()
	}

	fn drop_selection(&mut self) {
		self.selected = None;
		self.targets.clear();
	}

	fn click(&mut self, at: Pos, board: GameBoard, turn: Turn) -> Option<Move> {
		self.message = None;
		if let Some(&mv) = self.targets.iter().find(|m| m.to() == at) {
			self.drop_selection();
			return Some(mv);
		}
		let selected = self.selected.take();
		self.targets.clear();
		if turn == Turn::Sheep && board.sheep_in_hand() > 0 {
			return self.checked(Move::Place { to: at }, board, turn);
		}
		if board.piece_at(at) == Some(turn) {
			self.pick_up(at, board, turn);
			return None;
		}
		let refusal = match selected {
			Some(from) => board.check_move(step_or_jump(from, at, turn), turn).err(),
			None => Some(MoveError::NoPieceThere {
				at,
				piece: piece_name(turn),
			}),
		};
		self.message = refusal.map(|e| e.to_string());
		None
	}

	fn pick_up(&mut self, at: Pos, board: GameBoard, turn: Turn) {
		self.targets = board
			.get_moves(turn)
			.iter()
			.copied()
			.filter(|m| m.from() == Some(at))
			.collect();
		if self.targets.is_empty() {
			self.message = Some(format!("the {} on {at} cannot move", piece_name(turn)));
		} else {
			self.selected = Some(at);
		}
	}

	fn key(&mut self, key: KeyEvent, board: GameBoard, turn: Turn) -> Option<Move> {
		if key
			.modifiers
			.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
		{
			return None;
		}
		match key.code {
			KeyCode::Char(c) if !is_notation_char(c) => {
				self.message = Some(format!(
					"{c:?} is never part of a move; moves look like sc3, sc3c2, ta5b4, ta5xc3"
				));
				None
			}
			KeyCode::Char(_) if self.typed.len() >= LONGEST_MOVE => {
				self.message = Some(format!(
					"a move is at most {LONGEST_MOVE} characters (ta5xc3); Enter plays, Esc clears"
				));
				None
			}
			KeyCode::Char(c) => {
				self.message = None;
				self.typed.push(c.to_ascii_lowercase());
				None
			}
			KeyCode::Backspace => {
				self.typed.pop();
				None
			}
			KeyCode::Esc => {
				self.reset();
				None
			}
			KeyCode::Enter if !self.typed.is_empty() => self.submit(board, turn),
			_ => None,
		}
	}

	/// Plays the typed move if it is legal; otherwise says why, naming what was typed, and
	/// clears the line for the next try.
	fn submit(&mut self, board: GameBoard, turn: Turn) -> Option<Move> {
		let typed = std::mem::take(&mut self.typed);
		let text = if typed.starts_with(['s', 't']) {
			typed.clone()
		} else {
			format!("{}{}", turn.letter(), typed)
		};
		let played = match text.parse::<Move>() {
			Ok(mv) => self.checked(mv, board, turn),
			Err(error) => {
				self.message = Some(error.to_string());
				None
			}
		};
		if played.is_none()
			&& let Some(message) = self.message.take()
		{
			self.message = Some(format!("{typed}: {message}"));
		}
		played
	}

	/// `mv` if the rules allow it, else `None` with their reason as the message.
	fn checked(&mut self, mv: Move, board: GameBoard, turn: Turn) -> Option<Move> {
		match board.check_move(mv, turn) {
			Ok(()) => {
				self.message = None;
				self.drop_selection();
				Some(mv)
			}
			Err(error) => {
				self.message = Some(error.to_string());
				None
			}
		}
	}

	fn instruction(board: GameBoard, turn: Turn) -> &'static str {
		match turn {
			Turn::Sheep if board.sheep_in_hand() > 0 => {
				"Click an empty point, or type a move (sc3) and Enter."
			}
			Turn::Sheep => "Click a sheep, then its goal; or type sc3c2 and Enter.",
			Turn::Tiger => "Click a tiger, then its goal; or type ta5b4 and Enter.",
		}
	}
}

/// The tiger move from `from` to `to`: a jump if the two are a jump apart, else a step.
fn step_or_jump(from: Pos, to: Pos, turn: Turn) -> Move {
	match turn {
		Turn::Sheep => Move::SheepStep { from, to },
		Turn::Tiger if jump_over(from, to).is_some() => Move::TigerJump { from, to },
		Turn::Tiger => Move::TigerStep { from, to },
	}
}

fn piece_name(turn: Turn) -> &'static str {
	match turn {
		Turn::Sheep => "sheep",
		Turn::Tiger => "tiger",
	}
}

/// Letters and digits that occur in moves: sides, files, ranks and the jump's `x`.
fn is_notation_char(c: char) -> bool {
	matches!(c.to_ascii_lowercase(), 's' | 't' | 'x' | 'a'..='e' | '1'..='5')
}

impl Player for LocalPlayer {
	fn name(&self) -> String {
		self.name.clone()
	}

	fn update(&mut self, board: GameBoard, turn: Turn) {
		self.position = Some((board, turn));
	}

	fn handle_input(&mut self, input: Input, board: GameBoard, turn: Turn) -> Option<Move> {
		match input {
			Input::Click(at) => self.click(at, board, turn),
			Input::Key(key) => self.key(key, board, turn),
		}
	}

	fn highlights(&self) -> Highlights {
		Highlights {
			selected: self.selected,
			targets: self.targets.iter().map(|m| m.to()).collect(),
		}
	}

	fn reset(&mut self) {
		self.drop_selection();
		self.typed.clear();
		self.message = None;
	}

	/// The side to move and the counts, then (most urgent first, since an 80x24 terminal leaves
	/// three lines) why the last input was refused, the move being typed, and what to do.
	fn render(&self, area: Rect, buf: &mut Buffer) {
		let mut lines = Vec::new();
		if let Some((board, turn)) = self.position {
			lines.push(Line::from(vec![
				Span::styled(
					format!("{} to move", capitalised(turn.name())),
					Style::new().add_modifier(Modifier::BOLD),
				),
				Span::raw(format!(
					" · {} in hand · {} dead",
					board.sheep_in_hand(),
					board.dead_sheep()
				)),
			]));
		}
		if let Some(message) = &self.message {
			lines.push(Line::styled(message.clone(), Style::new().fg(Color::Red)));
		}
		if !self.typed.is_empty() {
			lines.push(Line::styled(
				format!("> {}_", self.typed),
				Style::new().fg(Color::Cyan),
			));
		}
		if let Some((board, turn)) = self.position {
			lines.push(Line::raw(LocalPlayer::instruction(board, turn)));
		}
		Paragraph::new(Text::from(lines))
			.wrap(Wrap { trim: true })
			.render(area, buf);
	}
}

fn capitalised(word: &str) -> String {
	let mut chars = word.chars();
	chars.next().map_or_else(String::new, |first| {
		first.to_uppercase().chain(chars).collect()
	})
}

#[cfg(test)]
mod tests {
	use super::*;
	use tigers_core::Position;

	fn pos(name: &str) -> Pos {
		name.parse().unwrap()
	}

	fn key(c: char) -> Input {
		Input::Key(KeyEvent::from(KeyCode::Char(c)))
	}

	fn enter() -> Input {
		Input::Key(KeyEvent::from(KeyCode::Enter))
	}

	#[test]
	fn a_click_on_an_empty_point_places_a_sheep() {
		let mut you = LocalPlayer::new("You");
		let start = GameBoard::default();
		let mv = you.handle_input(Input::Click(pos("c3")), start, Turn::Sheep);
		assert_eq!(mv, Some("sc3".parse().unwrap()));
		let refused = you.handle_input(Input::Click(pos("a5")), start, Turn::Sheep);
		assert_eq!(refused, None);
		assert_eq!(you.message(), Some("a5 is not empty"));
	}

	#[test]
	fn a_tiger_is_picked_up_then_moved() {
		let mut you = LocalPlayer::new("You");
		let p: Position = "T...T/...../..S../...../T...T t 19".parse().unwrap();
		assert_eq!(
			you.handle_input(Input::Click(pos("a5")), p.board, p.turn),
			None
		);
		let mut targets = you.highlights().targets;
		targets.sort();
		assert_eq!(targets, vec![pos("b5"), pos("a4"), pos("b4")]);
		assert_eq!(you.highlights().selected, Some(pos("a5")));
		// A point it cannot reach drops the piece, with the reason.
		assert_eq!(
			you.handle_input(Input::Click(pos("a2")), p.board, p.turn),
			None
		);
		assert_eq!(you.highlights(), Highlights::default());
		assert_eq!(
			you.message(),
			Some("a5 and a2 are not neighbours along a line")
		);
		you.handle_input(Input::Click(pos("a5")), p.board, p.turn);
		let mv = you.handle_input(Input::Click(pos("b4")), p.board, p.turn);
		assert_eq!(mv, Some("ta5b4".parse().unwrap()));
		assert_eq!(you.highlights(), Highlights::default());
	}

	#[test]
	fn typed_moves_are_checked_and_the_side_letter_is_optional() {
		let mut you = LocalPlayer::new("You");
		let start = GameBoard::default();
		for c in "c3".chars() {
			assert_eq!(you.handle_input(key(c), start, Turn::Sheep), None);
		}
		// Keys that are no part of any move are not typed, and say so.
		you.handle_input(key('z'), start, Turn::Sheep);
		assert_eq!(you.typed(), "c3");
		assert!(
			you.message()
				.unwrap()
				.starts_with("'z' is never part of a move")
		);
		assert_eq!(
			you.handle_input(enter(), start, Turn::Sheep),
			Some("sc3".parse().unwrap())
		);
		assert_eq!(you.typed(), "");
		for c in "sa5".chars() {
			you.handle_input(key(c), start, Turn::Sheep);
		}
		assert_eq!(you.handle_input(enter(), start, Turn::Sheep), None);
		assert_eq!(you.message(), Some("sa5: a5 is not empty"));
		assert_eq!(you.typed(), "", "a refused move leaves the line empty");
		// The next move is typed on a clean line.
		for c in "sb4".chars() {
			you.handle_input(key(c), start, Turn::Sheep);
		}
		assert_eq!(
			you.handle_input(enter(), start, Turn::Sheep),
			Some("sb4".parse().unwrap())
		);
	}

	#[test]
	fn esc_clears_the_line_and_the_picked_up_piece() {
		let mut you = LocalPlayer::new("You");
		let p: Position = "T...T/...../..S../...../T...T t 19".parse().unwrap();
		you.handle_input(Input::Click(pos("a5")), p.board, p.turn);
		for c in "ta5".chars() {
			you.handle_input(key(c), p.board, p.turn);
		}
		let esc = Input::Key(KeyEvent::from(KeyCode::Esc));
		assert_eq!(you.handle_input(esc, p.board, p.turn), None);
		assert_eq!(you.typed(), "");
		assert_eq!(you.highlights(), Highlights::default());
		for c in "ta5b4x".chars() {
			you.handle_input(key(c), p.board, p.turn);
		}
		assert_eq!(you.typed(), "ta5b4x");
		you.handle_input(key('c'), p.board, p.turn);
		assert_eq!(you.typed(), "ta5b4x");
		assert!(
			you.message()
				.unwrap()
				.starts_with("a move is at most 6 characters")
		);
	}
}
