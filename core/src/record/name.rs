//! A player's name as a record holds it: one trimmed line.

use std::fmt;

use thiserror::Error;

/// A player's name: one line of text, not empty, without surrounding whitespace.
///
/// ```
/// use tigers_core::record::PlayerName;
/// assert_eq!(PlayerName::new("Ada Lovelace").unwrap().as_str(), "Ada Lovelace");
/// assert!(PlayerName::new("Ada\nLovelace").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlayerName(String);

/// Why a text cannot be a player's name.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PlayerNameError {
	/// Nothing to read.
	#[error("a name cannot be empty; leave the line out for an unknown player")]
	Empty,
	/// A newline, tab or other control character.
	#[error("a name is one line without control characters, but it contains {0:?}")]
	Control(char),
	/// Whitespace at either end, which would be invisible in the record.
	#[error("a name cannot begin or end with whitespace: {0:?}")]
	SurroundingSpace(String),
}

impl PlayerName {
	/// The name, if it is not empty, has no control characters and is trimmed.
	pub fn new(name: &str) -> Result<PlayerName, PlayerNameError> {
		if name.is_empty() {
			return Err(PlayerNameError::Empty);
		}
		if let Some(c) = name.chars().find(|c| c.is_control()) {
			return Err(PlayerNameError::Control(c));
		}
		if name.trim() != name {
			return Err(PlayerNameError::SurroundingSpace(name.to_string()));
		}
		Ok(PlayerName(name.to_string()))
	}

	/// The name as text.
	pub fn as_str(&self) -> &str {
		&self.0
	}
}

impl fmt::Display for PlayerName {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		f.write_str(&self.0)
	}
}
