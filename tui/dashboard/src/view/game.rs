//! The Game pane: the latest finished self-play game on the board widget the game screen
//! uses, with its moves beside it, stepped through with the arrow keys.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};
use tigers_core::GameRecord;
use tigers_widgets::{BoardView, Highlights, HistoryView};

use crate::model::Dashboard;
use crate::replay::Replay;

/// Columns for the move list.
const MOVES_WIDTH: u16 = 16;

/// Draws the pane.
pub fn render(dashboard: &Dashboard, area: Rect, buf: &mut Buffer) {
	let replay = dashboard.replay();
	let [info_area, main_area] =
		Layout::vertical([Constraint::Length(3), Constraint::Min(0)]).areas(area);
	let Some(record) = replay.record() else {
		let text = replay
			.problem()
			.map_or("no self-play game received yet".to_string(), |why| {
				format!("the latest game cannot be shown: {why}")
			});
		Paragraph::new(text)
			.wrap(Wrap { trim: true })
			.render(area, buf);
		return;
	};
	Paragraph::new(info_lines(replay, record)).render(info_area, buf);

	let [board_area, moves_area] =
		Layout::horizontal([Constraint::Min(0), Constraint::Length(MOVES_WIDTH)]).areas(main_area);
	render_board(replay, board_area, buf);
	render_moves(replay, moves_area, buf);
}

/// The lines above the board: the game, where the replay stands, and a newer game waiting or
/// a problem with it.
fn info_lines(replay: &Replay, record: &GameRecord) -> Vec<Line<'static>> {
	let mut first = format!(
		"latest self-play game · generation {}",
		record.generation.map_or("?".to_string(), |g| g.to_string())
	);
	if let Some(seed) = record.seed {
		first.push_str(&format!(" · seed {seed}"));
	}
	let second = format!(
		"{} · {} moves · after move {}",
		record
			.result
			.map_or("unfinished".to_string(), |o| o.to_string()),
		replay.len(),
		replay.cursor()
	);
	let mut lines = vec![Line::from(first), Line::from(second)];
	if replay.newer_waiting() {
		lines.push(Line::styled(
			"a newer game has arrived: l shows it",
			Style::new().fg(Color::Yellow),
		));
	} else if let Some(problem) = replay.problem() {
		lines.push(Line::styled(
			problem.to_string(),
			Style::new().fg(Color::Red),
		));
	}
	lines
}

/// The board as it stands at the replay's cursor, centred in a border.
fn render_board(replay: &Replay, area: Rect, buf: &mut Buffer) {
	let block = Block::bordered();
	let inner = block.inner(area);
	block.render(area, buf);
	if let (Some((board, last)), Some(scale)) =
		(replay.board(), BoardView::scale_to_fit(inner.as_size()))
	{
		let size = BoardView::size(scale);
		let centred = Rect {
			x: inner.x + (inner.width.saturating_sub(size.width)) / 2,
			y: inner.y + (inner.height.saturating_sub(size.height)) / 2,
			width: size.width.min(inner.width),
			height: size.height.min(inner.height),
		};
		let highlights = Highlights::default();
		BoardView::new(board, &highlights, last).render(centred, buf);
	}
}

/// The game's moves, those after the cursor shown as undone.
fn render_moves(replay: &Replay, area: Rect, buf: &mut Buffer) {
	let moves = replay.moves();
	let (played, undone) = moves.split_at(replay.cursor().min(moves.len()));
	let block = Block::bordered().title("moves");
	let inner = block.inner(area);
	block.render(area, buf);
	HistoryView::new(played, undone).render(inner, buf);
}
