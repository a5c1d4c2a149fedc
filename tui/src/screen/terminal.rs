//! The interactive loop: the app on a real terminal, with the mouse, until the user quits.

use std::io;
use std::time::Duration;

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;

use crate::screen::app::App;

/// How long to wait for input before redrawing: often enough for the thinking clock, seldom
/// enough to cost nothing.
const FRAME: Duration = Duration::from_millis(100);

/// Plays `app` on the terminal until the user quits, then puts the terminal back as it was
/// (also when drawing fails). A search still running at that point is abandoned.
pub fn play(app: &mut App) -> io::Result<()> {
	let mut terminal = ratatui::try_init()?;
	let result = execute!(io::stdout(), EnableMouseCapture).and_then(|()| run(&mut terminal, app));
	let mouse = execute!(io::stdout(), DisableMouseCapture);
	ratatui::try_restore()?;
	result.and(mouse)
}

fn run(terminal: &mut DefaultTerminal, app: &mut App) -> io::Result<()> {
	while !app.should_quit() {
		let size = terminal.size()?;
		app.set_screen(ratatui::layout::Rect::new(0, 0, size.width, size.height));
		app.tick();
		terminal.draw(|frame| frame.render_widget(&*app, frame.area()))?;
		if event::poll(FRAME)? {
			// Take everything that is waiting, so that a quit typed during a burst of mouse
			// events is seen at once.
			loop {
				app.handle_event(&event::read()?);
				if app.should_quit() || !event::poll(Duration::ZERO)? {
					break;
				}
			}
		}
	}
	Ok(())
}
