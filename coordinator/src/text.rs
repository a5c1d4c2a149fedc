//! Bounded text for messages: what a peer sent is never echoed whole into a status or a log,
//! since a status's message travels in an HTTP/2 header and an over-long one turns the real
//! refusal into a transport error.

/// Characters of a peer's text quoted in a message.
pub(crate) const EXCERPT_CHARS: usize = 64;

/// The most characters of a status message.
pub(crate) const MAX_MESSAGE_CHARS: usize = 512;

/// `text` quoted for a message: whole if it is short, else its first [`EXCERPT_CHARS`]
/// characters and how long it was. Control characters are escaped.
pub(crate) fn excerpt(text: &str) -> String {
	let chars = text.chars().count();
	if chars <= EXCERPT_CHARS {
		return format!("{text:?}");
	}
	let head: String = text.chars().take(EXCERPT_CHARS).collect();
	format!("{head:?}... ({chars} characters)")
}

/// `message` cut to [`MAX_MESSAGE_CHARS`] characters, marked as cut if it was.
pub(crate) fn bounded(message: String) -> String {
	if message.chars().count() <= MAX_MESSAGE_CHARS {
		return message;
	}
	let mut cut: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
	cut.push_str("... (cut)");
	cut
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn long_text_is_cut_and_short_text_kept() {
		assert_eq!(excerpt("w1"), "\"w1\"");
		let long = "x".repeat(1 << 20);
		let quoted = excerpt(&long);
		assert!(quoted.len() < 100, "{quoted}");
		assert!(quoted.ends_with("(1048576 characters)"), "{quoted}");
		assert_eq!(excerpt("a\nb"), "\"a\\nb\"");
		assert_eq!(bounded("short".into()), "short");
		let cut = bounded(long);
		assert_eq!(cut.chars().count(), MAX_MESSAGE_CHARS + "... (cut)".len());
	}
}
