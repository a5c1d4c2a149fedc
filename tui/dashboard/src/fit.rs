//! Text fitted to the width at hand, so that nothing that matters is cut at 80 columns: parts
//! of a line packed onto as few lines as they need, and sentences wrapped at word boundaries.
//! Widths are counted in characters, which is what the dashboard's text (ASCII, `·`, `…`)
//! takes on a terminal.

use ratatui::text::{Line, Span};

/// What separates packed parts on a line.
pub const SEPARATOR: &str = " · ";

/// Columns `spans` take.
pub fn width(spans: &[Span<'_>]) -> usize {
	spans.iter().map(|s| s.content.chars().count()).sum()
}

/// Packs `parts` onto lines of at most `columns`, in order and joined by [`SEPARATOR`], each part
/// whole on one line (a part wider than a line gets a line of its own and is cut at its edge).
pub fn pack(parts: Vec<Vec<Span<'static>>>, columns: usize) -> Vec<Line<'static>> {
	let mut lines: Vec<Vec<Span<'static>>> = Vec::new();
	for part in parts {
		match lines.last_mut() {
			Some(line) if width(line) + SEPARATOR.chars().count() + width(&part) <= columns => {
				line.push(Span::raw(SEPARATOR));
				line.extend(part);
			}
			_ => lines.push(part),
		}
	}
	lines.into_iter().map(Line::from).collect()
}

/// `text` wrapped at spaces into lines of at most `columns` characters; a word longer than a
/// line is split. Always at least one line.
pub fn wrap(text: &str, columns: usize) -> Vec<String> {
	wrap_hanging(text, columns, columns)
}

/// [`wrap`], with a first line of `first` columns and the others of `columns`: for a value
/// that starts right of a label and goes on under it.
pub fn wrap_hanging(text: &str, first: usize, columns: usize) -> Vec<String> {
	let room = |lines: &Vec<String>| if lines.is_empty() { first } else { columns }.max(1);
	let mut lines: Vec<String> = Vec::new();
	let mut line = String::new();
	for word in text.split(' ').filter(|w| !w.is_empty()) {
		let mut word: Vec<char> = word.chars().collect();
		let used = line.chars().count();
		if used > 0 && used + 1 + word.len() <= room(&lines) {
			line.push(' ');
			line.extend(word);
			continue;
		}
		if used > 0 {
			lines.push(std::mem::take(&mut line));
		}
		while word.len() > room(&lines) {
			let cut = room(&lines);
			lines.push(word.drain(..cut).collect());
		}
		line.extend(word);
	}
	if !line.is_empty() || lines.is_empty() {
		lines.push(line);
	}
	lines
}

/// The first of `choices` that fits in `columns`, else the last (which should be the
/// shortest).
pub fn first_fitting(choices: &[String], columns: usize) -> String {
	choices
		.iter()
		.find(|c| c.chars().count() <= columns)
		.or(choices.last())
		.cloned()
		.unwrap_or_default()
}

#[cfg(test)]
mod tests {
	use super::*;

	fn texts(lines: &[Line<'_>]) -> Vec<String> {
		lines.iter().map(ToString::to_string).collect()
	}

	#[test]
	fn parts_share_a_line_while_they_fit_and_are_never_split() {
		let part = |s: &'static str| vec![Span::raw(s)];
		let parts = || vec![part("run one"), part("up 5m 00s"), part("LIVE")];
		assert_eq!(texts(&pack(parts(), 80)), ["run one · up 5m 00s · LIVE"]);
		// Exactly the width: still one line.
		assert_eq!(texts(&pack(parts(), 26)).len(), 1);
		assert_eq!(texts(&pack(parts(), 25)), ["run one · up 5m 00s", "LIVE"]);
		assert_eq!(texts(&pack(parts(), 8)), ["run one", "up 5m 00s", "LIVE"]);
	}

	#[test]
	fn sentences_wrap_at_spaces() {
		assert_eq!(
			wrap("keep the incumbent: the SPRT accepted H0", 20),
			["keep the incumbent:", "the SPRT accepted H0"]
		);
		assert_eq!(wrap("abcdefghij xy", 4), ["abcd", "efgh", "ij", "xy"]);
		assert_eq!(wrap("", 10), [""]);
		for line in wrap(&"word ".repeat(50), 13) {
			assert!(line.chars().count() <= 13, "{line}");
		}
	}

	#[test]
	fn a_hanging_wrap_has_a_first_line_of_its_own_width() {
		assert_eq!(
			wrap_hanging("failed: cannot write /a/long/path: disk full", 14, 20),
			["failed: cannot", "write /a/long/path:", "disk full"]
		);
		assert_eq!(wrap_hanging("abcdefgh", 3, 4), ["abc", "defg", "h"]);
	}

	#[test]
	fn the_first_choice_that_fits_wins() {
		let choices = ["a long title".to_string(), "short".to_string()];
		assert_eq!(first_fitting(&choices, 20), "a long title");
		assert_eq!(first_fitting(&choices, 6), "short");
		assert_eq!(first_fitting(&choices, 2), "short");
	}
}
