//! `Player`: one side of a game on screen, polled by the app; core's searchers are players
//! through a blanket impl.
//!
//! A player never blocks the app. An interactive player answers `pick_move` with `None` and
//! completes its moves from [`Player::handle_input`]; a computer player says so with
//! [`Player::searches`], and the app then runs its `pick_move` on a background thread (see
//! [`crate::screen::seat`]) so that the screen and the quit keys stay alive during the search.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Text};
use ratatui::widgets::{Paragraph, Widget, Wrap};
use tigers_core::search::forced_result;
use tigers_core::{GameBoard, MinimaxPlayer, Move, Turn};
use tigers_widgets::Highlights;

/// Something the user did that the player to move may care about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
	/// A click on a board point.
	Click(tigers_core::Pos),
	/// A key press that the app does not use itself.
	Key(KeyEvent),
}

/// One side of a game: a human at this terminal or a computer.
///
/// Only [`Player::name`] is required. The app calls the other methods only while it is this
/// player's turn and the game is not over, except [`Player::render_last_turn`] (during the other
/// side's turn) and [`Player::reset`] (on both players after the user goes back or forward in
/// the history). A player must only return legal moves; the app refuses anything else with a
/// message on screen.
pub trait Player: Send {
	/// A short name for panel titles and records, e.g. `"Claude"`.
	fn name(&self) -> String;

	/// Whether `pick_move` is a search worth running off the screen's thread.
	fn searches(&self) -> bool {
		false
	}

	/// Before every redraw on this player's turn: the position, for the panel.
	fn update(&mut self, _board: GameBoard, _turn: Turn) {}

	/// A move for `turn` on `board`, or `None` to wait for input. `previous` is every earlier
	/// board of the game, oldest first, for repetitions.
	fn pick_move(
		&mut self,
		_board: GameBoard,
		_turn: Turn,
		_previous: &[GameBoard],
	) -> Option<Move> {
		None
	}

	/// A click or key on this player's turn; `Some` once the input completes a move.
	fn handle_input(&mut self, _input: Input, _board: GameBoard, _turn: Turn) -> Option<Move> {
		None
	}

	/// What to highlight on the board during this player's turn.
	fn highlights(&self) -> Highlights {
		Highlights::default()
	}

	/// Forgets half-made input and comments on earlier moves: the position jumped elsewhere.
	fn reset(&mut self) {}

	/// Draws this player's panel during its turn. The default shows the name.
	fn render(&self, area: Rect, buf: &mut Buffer) {
		Paragraph::new(self.name()).render(area, buf);
	}

	/// Draws comments on `last_move`, this player's move just played, during the other side's
	/// turn. The app has already written the move itself above `area`.
	fn render_last_turn(&self, _last_move: Move, _area: Rect, _buf: &mut Buffer) {}
}

impl Widget for &dyn Player {
	fn render(self, area: Rect, buf: &mut Buffer) {
		Player::render(self, area, buf);
	}
}

/// Every core searcher (`ClaudePlayer`, `NeuralPlayer`) is a player: it searches with its own
/// settings and comments on its moves with the search's depth and score.
impl<P: MinimaxPlayer + Send> Player for P {
	fn name(&self) -> String {
		MinimaxPlayer::name(self)
	}

	fn searches(&self) -> bool {
		true
	}

	fn pick_move(&mut self, board: GameBoard, turn: Turn, previous: &[GameBoard]) -> Option<Move> {
		MinimaxPlayer::pick_move(self, board, turn, previous).map(|report| report.mv)
	}

	fn reset(&mut self) {
		self.set_last_search(None);
	}

	fn render(&self, area: Rect, buf: &mut Buffer) {
		let settings = self.settings();
		let limit = match settings.time_limit {
			Some(limit) => format!("searches for up to {:.1} s a move", limit.as_secs_f64()),
			None => format!("searches {} plies deep", settings.max_depth),
		};
		let text = Text::from(vec![
			Line::styled(
				MinimaxPlayer::name(self),
				Style::new().add_modifier(Modifier::BOLD),
			),
			Line::raw(limit),
		]);
		Paragraph::new(text)
			.wrap(Wrap { trim: true })
			.render(area, buf);
	}

	fn render_last_turn(&self, last_move: Move, area: Rect, buf: &mut Buffer) {
		let Some(report) = self.last_search().filter(|r| r.mv == last_move) else {
			return;
		};
		let text = match forced_result(report.score) {
			Some((winner, plies)) => {
				format!("depth {}, forced win for {winner} in {plies}", report.depth)
			}
			None => format!(
				"depth {}, score {}",
				report.depth,
				format_score(report.score)
			),
		};
		Paragraph::new(text)
			.wrap(Wrap { trim: true })
			.render(area, buf);
	}
}

/// A search score for people: whole numbers as they are (the hand-written evaluation counts
/// in whole points), others to three decimals (a net's values lie in `-1..1`). Zero has no
/// sign, however it was reached.
pub fn format_score(score: f32) -> String {
	// Adding 0 turns -0 into 0, which prints without the sign.
	if score.fract() == 0.0 {
		format!("{:.0}", score + 0.0)
	} else {
		format!("{:.3}", (score * 1000.0).round() / 1000.0 + 0.0)
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use tigers_core::{ClaudePlayer, Position};

	#[test]
	fn scores_print_plainly() {
		assert_eq!(format_score(24.0), "24");
		assert_eq!(format_score(-120.0), "-120");
		assert_eq!(format_score(0.12345), "0.123");
		assert_eq!(format_score(-0.0), "0");
		assert_eq!(format_score(-0.0004), "0.000");
		assert_eq!(format_score(-0.25), "-0.250");
	}

	#[test]
	fn a_searcher_is_a_player_that_searches() {
		let mut claude = ClaudePlayer::fixed_depth(1);
		let position: Position = "T...T/.S.../...../SSSSS/TSSST t 7".parse().unwrap();
		let player: &mut dyn Player = &mut claude;
		assert!(player.searches());
		assert_eq!(player.name(), "Claude");
		let mv = player.pick_move(position.board, position.turn, &[]);
		assert_eq!(mv.map(|m| m.to_string()).as_deref(), Some("ta5xc3"));
		player.reset();
		assert_eq!(claude.last_search(), None);
	}
}
