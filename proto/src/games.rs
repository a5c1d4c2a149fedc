//! Games at rest: the format of a run's game archive, read by `tui --load` and `tui games`.
//!
//! The coordinator keeps every self-play game it stores in its run directory, under
//! [`ARCHIVE_DIR`], one file per generation of the net that played ([`file_name`]:
//! `gen-000012.records.gz`). A file is a gzip stream of core's text records
//! ([`tigers_core::GameRecord`]) written one after another, no separator between them: each
//! starts with its header line. The stream is made of gzip members, one per write (the
//! coordinator appends a member each time it archives), which any gzip reader takes as one
//! stream: `zcat gen-000012.records.gz` prints the records.
//!
//! [`read_games`] reads such a file, a plain text file of records one after another, or a single
//! record file: a gzip stream is recognised by its first two bytes.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use thiserror::Error;
use tigers_core::record::split_records;
use tigers_core::{GameRecord, RecordError};

/// The run directory's folder that holds the archive.
pub const ARCHIVE_DIR: &str = "games";

/// How every gzip stream begins (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The file of generation `generation`'s games: `gen-` and six digits or more, so that the
/// files sort by generation.
pub fn file_name(generation: u64) -> String {
	format!("gen-{generation:06}.records.gz")
}

/// The generation whose games a file named `name` holds, if it is named as [`file_name`]
/// names them.
pub fn generation_of(name: &str) -> Option<u64> {
	let digits = name.strip_prefix("gen-")?.strip_suffix(".records.gz")?;
	if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
		return None;
	}
	let generation: u64 = digits.parse().ok()?;
	(file_name(generation) == name).then_some(generation)
}

/// Records (each a whole record's text, ending in a newline) as one gzip member, ready to be
/// appended to an archive file.
pub fn compress<'a>(records: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
	// The fastest level: a batch of 16 games compresses in about a third of the default
	// level's time to a third more bytes (1,804 against 1,361 of 5,730; `cargo bench -p
	// tigers-proto`, docs/benchmarks.md), and the coordinator compresses every batch it
	// stores, thousands a second at full ingest.
	let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
	for record in records {
		encoder
			.write_all(record.as_bytes())
			.expect("writing to a Vec cannot fail");
	}
	encoder.finish().expect("writing to a Vec cannot fail")
}

/// Why games could not be read.
#[derive(Debug, Error)]
pub enum GamesError {
	/// The file could not be read.
	#[error("cannot read {path}: {source}")]
	Read {
		/// The file.
		path: PathBuf,
		/// What the system said.
		source: std::io::Error,
	},
	/// The gzip stream is damaged or cut short.
	#[error("the gzip stream is damaged or cut short after {read} bytes of records: {source}")]
	Compressed {
		/// The bytes of records read before the damage.
		read: usize,
		/// What the decoder said.
		source: std::io::Error,
	},
	/// The records are not UTF-8 text.
	#[error("the records are not text: {0}")]
	NotText(#[from] std::string::FromUtf8Error),
	/// A record does not read.
	#[error("game {number} does not read: {source}")]
	Record {
		/// The game's number in the file, from 1.
		number: usize,
		/// What is wrong with it, and on which of its lines.
		source: RecordError,
	},
}

/// The records' text in `bytes`: decompressed if they are a gzip stream (of any number of
/// members), else as they are.
pub fn records_text(bytes: &[u8]) -> Result<String, GamesError> {
	if !bytes.starts_with(&GZIP_MAGIC) {
		return Ok(String::from_utf8(bytes.to_vec())?);
	}
	let mut text = Vec::new();
	MultiGzDecoder::new(bytes)
		.read_to_end(&mut text)
		.map_err(|source| GamesError::Compressed {
			read: text.len(),
			source,
		})?;
	Ok(String::from_utf8(text)?)
}

/// Every game in `bytes` (see [`records_text`]), in order, each read and replayed by
/// [`GameRecord::from_text`]; the first that does not read is an error naming its number.
pub fn parse_games(bytes: &[u8]) -> Result<Vec<GameRecord>, GamesError> {
	let text = records_text(bytes)?;
	split_records(&text)
		.enumerate()
		.map(|(index, record)| {
			GameRecord::from_text(record).map_err(|source| GamesError::Record {
				number: index + 1,
				source,
			})
		})
		.collect()
}

/// Every game in the file at `path`: an archive file, records one after another, or one record.
pub fn read_games(path: &Path) -> Result<Vec<GameRecord>, GamesError> {
	let bytes = std::fs::read(path).map_err(|source| GamesError::Read {
		path: path.to_path_buf(),
		source,
	})?;
	parse_games(&bytes)
}

#[cfg(test)]
mod tests {
	use tigers_core::Game;

	use super::*;

	fn record(moves: &[&str], generation: u64) -> String {
		let mut game = Game::default();
		for mv in moves {
			game.play(mv.parse().unwrap()).unwrap();
		}
		GameRecord {
			generation: Some(generation),
			..GameRecord::from_game(&game)
		}
		.to_text()
	}

	#[test]
	fn file_names_sort_by_generation_and_read_back() {
		assert_eq!(file_name(12), "gen-000012.records.gz");
		assert_eq!(file_name(1_234_567), "gen-1234567.records.gz");
		for generation in [0, 12, 999_999, 1_234_567, u64::MAX] {
			assert_eq!(generation_of(&file_name(generation)), Some(generation));
		}
		for name in [
			"gen-12.records.gz",
			"gen-0000012.records.gz",
			"gen-00001x.records.gz",
			"gen-000012.records",
			"gen-000012.records.gz.tmp",
			"gen--00012.records.gz",
		] {
			assert_eq!(generation_of(name), None, "{name}");
		}
	}

	#[test]
	fn appended_members_read_as_one_archive_in_order() {
		let (a, b, c) = (
			record(&["sc3"], 4),
			record(&["sc3", "ta5b4"], 4),
			record(&[], 5),
		);
		let mut file = compress([a.as_str(), b.as_str()]);
		file.extend(compress([c.as_str()]));
		let games = parse_games(&file).unwrap();
		let texts: Vec<String> = games.iter().map(GameRecord::to_text).collect();
		assert_eq!(texts, [a.clone(), b.clone(), c.clone()]);
		// The same records as plain text, and a single record, read the same way.
		assert_eq!(parse_games(format!("{a}{b}{c}").as_bytes()).unwrap(), games);
		assert_eq!(parse_games(a.as_bytes()).unwrap(), games[..1]);
		assert!(parse_games(&[]).unwrap().is_empty());
	}

	#[test]
	fn damage_is_named_not_skipped() {
		let good = record(&["sc3"], 1);
		let mut file = compress([good.as_str()]);
		file.extend(compress([good.replace("sc3", "sc9").as_str()]));
		assert!(matches!(
			parse_games(&file),
			Err(GamesError::Record { number: 2, .. })
		));
		let whole = compress([good.as_str(), good.as_str()]);
		let cut = &whole[..whole.len() - 6];
		assert!(matches!(
			parse_games(cut),
			Err(GamesError::Compressed { .. })
		));
		assert!(matches!(
			parse_games(&[0xff, 0xfe, 0x00]),
			Err(GamesError::NotText(_))
		));
		let missing = Path::new("/nonexistent/gen-000001.records.gz");
		let message = read_games(missing).unwrap_err().to_string();
		assert!(message.contains("gen-000001.records.gz"), "{message}");
	}
}
