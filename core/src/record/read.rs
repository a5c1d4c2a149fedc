//! Reading a record's text: its lines, their order and their values.

use super::error::RecordError;
use super::header::{FORMAT_NAME, HEADER};
use super::name::PlayerName;
use crate::moves::Move;
use crate::outcome::Outcome;
use crate::position::Position;

/// The keys, in the order their lines must come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
	Sheep,
	Tigers,
	Generation,
	Seed,
	Start,
	Moves,
	Result,
}

impl Key {
	pub(super) const ALL: [Key; 7] = [
		Key::Sheep,
		Key::Tigers,
		Key::Generation,
		Key::Seed,
		Key::Start,
		Key::Moves,
		Key::Result,
	];

	/// The key as written in a record.
	pub(super) const fn name(self) -> &'static str {
		match self {
			Key::Sheep => "sheep",
			Key::Tigers => "tigers",
			Key::Generation => "generation",
			Key::Seed => "seed",
			Key::Start => "start",
			Key::Moves => "moves",
			Key::Result => "result",
		}
	}

	/// Whether every record has this line.
	pub(super) const fn is_required(self) -> bool {
		matches!(self, Key::Start | Key::Moves | Key::Result)
	}
}

/// One `key value` line: its number and what follows the key's space, if there is a space.
#[derive(Clone, Copy)]
pub(super) struct Line<'a> {
	pub(super) number: usize,
	value: Option<&'a str>,
}

/// The lines of a record by key, checked for order, duplicates and missing keys.
pub(super) struct Lines<'a>([Option<Line<'a>>; Key::ALL.len()]);

impl<'a> Lines<'a> {
	pub(super) fn get(&self, key: Key) -> Option<Line<'a>> {
		self.0[key as usize]
	}

	pub(super) fn required(&self, key: Key) -> Line<'a> {
		debug_assert!(key.is_required());
		self.get(key)
			.expect("read_lines refuses a text without every required key")
	}

	/// Checks that `key`, read on line `number` after the key at `last` in `Key::ALL`, is new,
	/// in order, and skips no required key.
	fn check_place(&self, key: Key, number: usize, last: Option<usize>) -> Result<(), RecordError> {
		let k = key as usize;
		if let Some(first) = self.0[k] {
			return Err(RecordError::DuplicateKey {
				line: number,
				key: key.name(),
				first: first.number,
			});
		}
		if let Some(after) = last.filter(|&l| l > k) {
			return Err(RecordError::OutOfOrder {
				line: number,
				key: key.name(),
				after: Key::ALL[after].name(),
			});
		}
		let skipped = &Key::ALL[last.map_or(0, |l| l + 1)..k];
		match skipped.iter().find(|key| key.is_required()) {
			Some(missing) => Err(RecordError::MissingKey {
				line: number,
				key: missing.name(),
				before: key.name(),
			}),
			None => Ok(()),
		}
	}
}

/// Splits a record into its lines, checking the header, the final newline and the keys' order.
pub(super) fn read_lines(text: &str) -> Result<Lines<'_>, RecordError> {
	check_header(text)?;
	let Some(body) = text.strip_suffix('\n') else {
		let line = text.split('\n').count();
		return Err(RecordError::NoFinalNewline { line });
	};
	let mut lines = Lines([None; Key::ALL.len()]);
	// The index in `Key::ALL` of the last key read; every later line needs a greater one.
	let mut last: Option<usize> = None;
	for (index, text) in body.split('\n').enumerate().skip(1) {
		let number = index + 1;
		let (key, line) = read_line(number, text)?;
		lines.check_place(key, number, last)?;
		lines.0[key as usize] = Some(line);
		last = Some(key as usize);
	}
	let rest = &Key::ALL[last.map_or(0, |l| l + 1)..];
	if let Some(missing) = rest.iter().find(|key| key.is_required()) {
		return Err(RecordError::Truncated {
			line: body.split('\n').count() + 1,
			key: missing.name(),
		});
	}
	Ok(lines)
}

/// Checks the first line names the format and this version.
fn check_header(text: &str) -> Result<(), RecordError> {
	let header = text.split('\n').next().unwrap_or_default();
	if header == HEADER {
		return Ok(());
	}
	Err(match header.strip_prefix(FORMAT_NAME) {
		Some(version) => RecordError::UnsupportedVersion {
			line: 1,
			found: version.to_string(),
		},
		None => RecordError::BadHeader {
			line: 1,
			found: header.to_string(),
		},
	})
}

/// Splits one line into its key and value.
fn read_line(number: usize, text: &str) -> Result<(Key, Line<'_>), RecordError> {
	if text.is_empty() {
		return Err(RecordError::BlankLine { line: number });
	}
	let (key, value) = match text.split_once(' ') {
		Some((key, value)) => (key, Some(value)),
		None => (text, None),
	};
	let key = Key::ALL
		.into_iter()
		.find(|k| k.name() == key)
		.ok_or_else(|| RecordError::UnknownKey {
			line: number,
			key: key.to_string(),
		})?;
	Ok((key, Line { number, value }))
}

impl<'a> Line<'a> {
	/// The value, or the empty string for a key alone on its line.
	fn value(self) -> &'a str {
		self.value.unwrap_or_default()
	}

	pub(super) fn player_name(self, key: Key) -> Result<PlayerName, RecordError> {
		PlayerName::new(self.value()).map_err(|source| RecordError::Name {
			line: self.number,
			key: key.name(),
			source,
		})
	}

	/// A decimal number written without sign or leading zeros, as `to_text` writes it.
	pub(super) fn generation(self) -> Result<u64, RecordError> {
		let found = self.value();
		let canonical =
			found.bytes().all(|b| b.is_ascii_digit()) && (found == "0" || !found.starts_with('0'));
		canonical
			.then(|| found.parse().ok())
			.flatten()
			.ok_or_else(|| RecordError::BadGeneration {
				line: self.number,
				found: found.to_string(),
			})
	}

	/// Exactly 16 lowercase hex digits, as `to_text` writes it.
	pub(super) fn seed(self) -> Result<u64, RecordError> {
		let found = self.value();
		let canonical = found.len() == 16
			&& found
				.bytes()
				.all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
		canonical
			.then(|| u64::from_str_radix(found, 16).ok())
			.flatten()
			.ok_or_else(|| RecordError::BadSeed {
				line: self.number,
				found: found.to_string(),
			})
	}

	pub(super) fn position(self) -> Result<Position, RecordError> {
		self.value()
			.parse()
			.map_err(|source| RecordError::BadPosition {
				line: self.number,
				source,
			})
	}

	/// The moves; `moves` alone is none, and every space after it starts one more move.
	pub(super) fn moves(self) -> Result<Vec<Move>, RecordError> {
		let Some(list) = self.value else {
			return Ok(Vec::new());
		};
		list.split(' ')
			.enumerate()
			.map(|(index, text)| {
				text.parse().map_err(|source| RecordError::BadMove {
					line: self.number,
					number: index + 1,
					source,
				})
			})
			.collect()
	}

	pub(super) fn result(self) -> Result<Option<Outcome>, RecordError> {
		match self.value() {
			"*" => Ok(None),
			code => Outcome::from_code(code)
				.map(Some)
				.ok_or_else(|| RecordError::UnknownResult {
					line: self.number,
					found: code.to_string(),
				}),
		}
	}
}
