//! Drawing the game screen from an [`App`]: the board, the move list, the player to move's
//! panel and the last move's panel, laid out by [`ScreenLayout`].

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::merge::MergeStrategy;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};
use tigers_core::Turn;
use tigers_widgets::{BoardView, HistoryView};

use crate::screen::app::App;
use crate::screen::exact;
use crate::screen::layout::{ScreenLayout, inner};

/// The app's keys, shown on the board's bottom border. Keep in step with `App::handle_key`.
pub const KEY_BINDS: &str = " ←→ step · u undo · w save · p pause · q quit ";

impl Widget for &App {
	fn render(self, area: Rect, buf: &mut Buffer) {
		let Some(layout) = ScreenLayout::new(area) else {
			Paragraph::new("The terminal is too small for the board: make it at least 44x16.")
				.wrap(Wrap { trim: true })
				.render(area, buf);
			return;
		};
		// The bottom row first: its top border is the board's bottom border, and the key binds
		// written there by the board's pane must win.
		draw_current(self, layout.current_pane, buf);
		draw_last_turn(self, layout.last_turn_pane, buf);
		draw_board(self, &layout, buf);
		draw_history(self, layout.history_pane, buf);
	}
}

/// A pane whose borders join its neighbours' where they overlap.
fn pane<'a>() -> Block<'a> {
	Block::bordered().merge_borders(MergeStrategy::Exact)
}

fn side_title(side: Turn) -> &'static str {
	match side {
		Turn::Sheep => "Sheep",
		Turn::Tiger => "Tigers",
	}
}

fn draw_board(app: &App, layout: &ScreenLayout, buf: &mut Buffer) {
	let mut block = pane()
		.title_top(Line::styled(
			" Tigers and Sheep ",
			Style::new().add_modifier(Modifier::BOLD),
		))
		.title_bottom(Line::from(KEY_BINDS).centered());
	let game = app.game();
	if let Some(table) = app.tablebase()
		&& !game.is_over()
		&& let Some(value) = exact::describe_position(table, game.board(), game.turn())
	{
		block = block.title_top(Line::styled(
			format!(" exact: {value} "),
			Style::new().fg(Color::Cyan),
		));
	}
	block.render(layout.board_pane, buf);
	let highlights = app.highlights();
	let last_move = game.history().last().map(|(mv, _)| *mv);
	BoardView::new(game.board(), &highlights, last_move).render(layout.board, buf);
}

fn draw_history(app: &App, area: Rect, buf: &mut Buffer) {
	pane()
		.title_top(" Moves ")
		.title_bottom(Line::from(" click: go back ").centered())
		.render(area, buf);
	let played = app.game().moves();
	let slips = app
		.tablebase()
		.map(|table| exact::slips(table, app.game()))
		.unwrap_or_default();
	HistoryView::new(&played, app.undone())
		.with_slips(&slips)
		.render(inner(area), buf);
}

fn draw_current(app: &App, area: Rect, buf: &mut Buffer) {
	let game = app.game();
	let turn = game.turn();
	let seat = app.seat(turn);
	let title = format!(" {}: {} ", side_title(turn), seat.name());
	pane()
		.title_bottom(Line::from(title).alignment(Alignment::Center))
		.render(area, buf);
	let area = draw_status(app, inner(area), buf);
	let bold = Style::new().add_modifier(Modifier::BOLD);
	let message = if let Some(outcome) = game.outcome() {
		vec![
			Line::styled(format!("Game over: {outcome}."), bold),
			Line::raw("Click a move or press ← to go back; w saves, q quits."),
		]
	} else if let Some(started) = seat.search_started() {
		let seconds = started.elapsed().as_secs();
		vec![Line::raw(format!(
			"{} is thinking… {seconds} s",
			seat.name()
		))]
	} else if seat.is_lost() {
		vec![Line::styled(
			format!("{}'s search failed; go back or quit.", seat.name()),
			Style::new().fg(Color::Red),
		)]
	} else if app.is_paused() && !seat.is_interactive() {
		vec![Line::raw(format!(
			"{} is paused: p lets it play.",
			seat.name()
		))]
	} else {
		if let Some(player) = seat.player() {
			player.render(area, buf);
		}
		return;
	};
	Paragraph::new(message)
		.wrap(Wrap { trim: true })
		.render(area, buf);
}

/// The question `q` asks before moves are lost, over the whole of the player's pane; else the
/// app's last word (a confirmation or an error) on the pane's last lines. Returns what is left
/// of `area` for the player to move.
fn draw_status(app: &App, area: Rect, buf: &mut Buffer) -> Rect {
	if app.is_asking_to_save() {
		let question = vec![
			Line::styled(
				"Quit: save the game first?",
				Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
			),
			Line::raw("y saves it and quits · n quits without saving · Esc plays on"),
		];
		Paragraph::new(question)
			.wrap(Wrap { trim: true })
			.render(area, buf);
		return Rect { height: 0, ..area };
	}
	let Some(status) = app.status() else {
		return area;
	};
	let colour = if status.is_error {
		Color::Red
	} else {
		Color::Yellow
	};
	let lines = wrap(&status.text, usize::from(area.width));
	let height = u16::try_from(lines.len())
		.unwrap_or(u16::MAX)
		.min(area.height);
	let below = area.height - height;
	for (row, line) in (below..area.height).zip(lines) {
		let line_area = Rect {
			y: area.y + row,
			height: 1,
			..area
		};
		Line::styled(line, Style::new().fg(colour)).render(line_area, buf);
	}
	Rect {
		height: below,
		..area
	}
}

/// `text` in lines of at most `width` characters, broken between words, or after a `/` in a
/// path too long for a line (anywhere, if a piece is longer still).
fn wrap(text: &str, width: usize) -> Vec<String> {
	let width = width.max(1);
	let mut lines = Vec::new();
	let mut line = String::new();
	for word in text.split_whitespace() {
		for (index, piece) in word.split_inclusive('/').enumerate() {
			// A word's first piece follows a space; the others continue the word.
			let space = index == 0 && !line.is_empty();
			let joined = line.chars().count() + usize::from(space) + piece.chars().count();
			if joined <= width {
				if space {
					line.push(' ');
				}
				line.push_str(piece);
				continue;
			}
			if !line.is_empty() {
				lines.push(std::mem::take(&mut line));
			}
			let chars: Vec<char> = piece.chars().collect();
			let mut parts = chars.chunks(width).peekable();
			while let Some(part) = parts.next() {
				let part: String = part.iter().collect();
				if parts.peek().is_some() {
					lines.push(part);
				} else {
					line = part;
				}
			}
		}
	}
	if !line.is_empty() {
		lines.push(line);
	}
	lines
}

fn draw_last_turn(app: &App, area: Rect, buf: &mut Buffer) {
	let Some((last_move, _)) = app.game().history().last() else {
		pane().render(area, buf);
		return;
	};
	let mover = last_move.side();
	let title = format!(" Last: {} ", side_title(mover));
	pane()
		.title_bottom(Line::from(title).centered())
		.render(area, buf);
	let area = inner(area);
	Line::styled(
		format!("Played {last_move}"),
		Style::new().add_modifier(Modifier::BOLD),
	)
	.render(area, buf);
	let mut below = 1;
	if let Some(table) = app.tablebase() {
		let history = app.game().history();
		let before = match history.len() {
			1 => app.game().start().board,
			n => history[n - 2].1,
		};
		if let Some(slip) = exact::slip(table, before, *last_move) {
			let line = Rect {
				y: area.y + 1,
				height: 1,
				..area
			};
			Line::styled(slip.describe(), Style::new().fg(Color::Red)).render(line, buf);
			below = 2;
		}
	}
	let comments = Rect {
		y: area.y + below,
		height: area.height.saturating_sub(below),
		..area
	};
	if let Some(player) = app.seat(mover).player() {
		player.render_last_turn(*last_move, comments, buf);
	}
}

#[cfg(test)]
mod tests {
	use super::wrap;

	#[test]
	fn a_status_wraps_between_words_and_breaks_a_long_path() {
		assert_eq!(wrap("saved to game.txt", 40), ["saved to game.txt"]);
		assert_eq!(wrap("saved to game.txt", 10), ["saved to", "game.txt"]);
		assert_eq!(
			wrap("saved to /a/very/long/path.txt", 16),
			["saved to /a/", "very/long/", "path.txt"]
		);
		assert_eq!(
			wrap("saved to averylongname", 8),
			["saved to", "averylon", "gname"]
		);
		assert!(wrap("", 10).is_empty());
	}
}
