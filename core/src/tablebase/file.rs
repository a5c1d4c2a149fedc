//! The table's file: an 80-byte header, then one byte per entry.
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `TIGERSTB` |
//! | 8 | 4 | format version ([`TABLEBASE_FORMAT_VERSION`]) |
//! | 12 | 4 | rules version ([`RULES_VERSION`]) |
//! | 16 | 4 | tiger classes in the index (1,666) |
//! | 20 | 4 | zero |
//! | 24 | 8 | entries |
//! | 32 | 8 | positions up to symmetry |
//! | 40 | 8 | positions counting every image |
//! | 48 | 32 | sha256 of the entries |
//! | 80 | entries | one byte per entry (see [`super::index`]); 0 a draw, else distance + 1 |
//!
//! Numbers are little-endian. The table's identity is the sha256 of the whole file, as a net's
//! is of its file. Reading checks every header field and the entries' digest before anything is
//! probed, so a truncated, corrupt or foreign file is refused with the reason, never half used.

use std::io::Write as _;
use std::path::Path;

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::network::file::hex;
use crate::tablebase::index::Layout;
use crate::tablebase::index::{POSITIONS, POSITIONS_UP_TO_SYMMETRY};

/// The rules the table was solved under; a table solved under other rules is refused. Raise it
/// with any change to `docs/rules.md` that changes a movement-phase value.
pub const RULES_VERSION: u32 = 1;

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"TIGERSTB";
/// The layout of the file and its index.
pub const TABLEBASE_FORMAT_VERSION: u32 = 1;
/// Bytes before the entries.
pub const HEADER_BYTES: usize = 80;

/// Why a table file could not be read or written.
#[derive(Debug, Error)]
pub enum TablebaseFileError {
	/// Reading or writing the file failed.
	#[error("{path}: {source}")]
	Io {
		/// The file.
		path: String,
		/// What the system said.
		source: std::io::Error,
	},
	/// Too short to hold a header.
	#[error("the file is {0} bytes long, too short for a tablebase header (truncated?)")]
	TooShort(usize),
	/// The file does not start with the magic.
	#[error("not a Tigers and Sheep tablebase: the file starts with {0:?}")]
	Magic(String),
	/// Another version of the layout.
	#[error(
		"tablebase format version {0}, but this program reads version {TABLEBASE_FORMAT_VERSION}"
	)]
	FormatVersion(u32),
	/// Solved under other rules.
	#[error(
		"the tablebase was solved under rules version {0}, but this program plays version {RULES_VERSION}"
	)]
	RulesVersion(u32),
	/// The header describes another index or other counts.
	#[error("the header's {field} is {found}, expected {expected}")]
	Header {
		/// The field.
		field: &'static str,
		/// What the header says.
		found: u64,
		/// What this program's index has.
		expected: u64,
	},
	/// Fewer or more entry bytes than the header announces.
	#[error(
		"the file holds {found} bytes of entries, but the header announces {expected} (truncated?)"
	)]
	Length {
		/// Bytes after the header.
		found: u64,
		/// Entries in the header.
		expected: u64,
	},
	/// The disk (or a quota) has no room for the file; no part of it is left behind.
	#[error(
		"no room in {dir} for the tablebase ({needs_mib} MiB): free some space there (or give \
		 another path) and build it again"
	)]
	NoSpace {
		/// The directory.
		dir: String,
		/// The file's size, in MiB (rounded up).
		needs_mib: u64,
	},
	/// The entries do not hash to the header's digest.
	#[error("the entries' sha256 is {found}, but the header says {expected}: the file is corrupt")]
	Digest {
		/// The digest computed.
		found: String,
		/// The digest in the header.
		expected: String,
	},
}

/// The size in bytes of a table file of this program's index: its header and one byte an
/// entry. A build checks that the disk has room for it before solving.
pub fn table_file_bytes() -> u64 {
	HEADER_BYTES as u64 + u64::from(Layout::get().len())
}

/// The checked entries of a table file's bytes, with the file's header and identity (its
/// sha256 in hex).
pub(crate) fn checked_entries(
	mut bytes: Vec<u8>,
) -> Result<(Vec<u8>, [u8; HEADER_BYTES], String), TablebaseFileError> {
	let header = Header::parse(&bytes)?;
	let identity = hex(&Sha256::digest(&bytes));
	bytes.drain(..HEADER_BYTES);
	let digest: [u8; 32] = Sha256::digest(&bytes).into();
	if digest != header.entries_sha256 {
		return Err(TablebaseFileError::Digest {
			found: hex(&digest),
			expected: hex(&header.entries_sha256),
		});
	}
	Ok((bytes, header.bytes, identity))
}

/// Writes a table file from its header and entries, through a temporary file renamed into
/// place, so that a reader never sees half a table. A write that fails leaves no temporary
/// file; one that fails for lack of room says so ([`TablebaseFileError::NoSpace`]).
pub(crate) fn write_file(
	path: &Path,
	header: &[u8],
	values: &[u8],
) -> Result<(), TablebaseFileError> {
	let io = |source| TablebaseFileError::Io {
		path: path.display().to_string(),
		source,
	};
	let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
	if let Some(dir) = dir {
		std::fs::create_dir_all(dir).map_err(io)?;
	}
	let partial = path.with_extension("partial");
	let written = (|| {
		let mut file = std::fs::File::create(&partial)?;
		file.write_all(header)?;
		file.write_all(values)?;
		file.sync_all()
	})();
	if let Err(source) = written {
		// Whatever was written is of no use, and may fill the disk.
		let _ = std::fs::remove_file(&partial);
		let full = matches!(
			source.kind(),
			std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
		);
		return Err(if full {
			TablebaseFileError::NoSpace {
				dir: dir.map_or_else(|| ".".to_string(), |d| d.display().to_string()),
				needs_mib: (header.len() + values.len()).div_ceil(1 << 20) as u64,
			}
		} else {
			io(source)
		});
	}
	std::fs::rename(&partial, path).map_err(io)
}

/// The hex sha256 of the file made of this header and these entries.
pub(crate) fn identity_of(header: &[u8], values: &[u8]) -> String {
	let mut hasher = Sha256::new();
	hasher.update(header);
	hasher.update(values);
	hex(&hasher.finalize())
}

/// The header of the file that holds these entries.
pub(crate) fn header_bytes(values: &[u8]) -> [u8; HEADER_BYTES] {
	let mut header = [0u8; HEADER_BYTES];
	header[..8].copy_from_slice(&MAGIC);
	header[8..12].copy_from_slice(&TABLEBASE_FORMAT_VERSION.to_le_bytes());
	header[12..16].copy_from_slice(&RULES_VERSION.to_le_bytes());
	header[16..20].copy_from_slice(&(Layout::get().class_count() as u32).to_le_bytes());
	header[24..32].copy_from_slice(&(values.len() as u64).to_le_bytes());
	header[32..40].copy_from_slice(&POSITIONS_UP_TO_SYMMETRY.to_le_bytes());
	header[40..48].copy_from_slice(&POSITIONS.to_le_bytes());
	header[48..80].copy_from_slice(&Sha256::digest(values));
	header
}

/// The header's bytes, and the one field not checked against a constant.
struct Header {
	bytes: [u8; HEADER_BYTES],
	entries_sha256: [u8; 32],
}

impl Header {
	fn parse(bytes: &[u8]) -> Result<Header, TablebaseFileError> {
		if bytes.len() < HEADER_BYTES {
			return Err(TablebaseFileError::TooShort(bytes.len()));
		}
		if bytes[..8] != MAGIC {
			return Err(TablebaseFileError::Magic(
				String::from_utf8_lossy(&bytes[..8]).into_owned(),
			));
		}
		let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
		let long = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
		if word(8) != TABLEBASE_FORMAT_VERSION {
			return Err(TablebaseFileError::FormatVersion(word(8)));
		}
		if word(12) != RULES_VERSION {
			return Err(TablebaseFileError::RulesVersion(word(12)));
		}
		let layout = Layout::get();
		let expect = |field, found: u64, expected: u64| {
			if found == expected {
				Ok(())
			} else {
				Err(TablebaseFileError::Header {
					field,
					found,
					expected,
				})
			}
		};
		expect(
			"tiger classes",
			u64::from(word(16)),
			layout.class_count() as u64,
		)?;
		expect("reserved word", u64::from(word(20)), 0)?;
		expect("entry count", long(24), u64::from(layout.len()))?;
		expect(
			"positions up to symmetry",
			long(32),
			POSITIONS_UP_TO_SYMMETRY,
		)?;
		expect("positions", long(40), POSITIONS)?;
		let found = (bytes.len() - HEADER_BYTES) as u64;
		if found != long(24) {
			return Err(TablebaseFileError::Length {
				found,
				expected: long(24),
			});
		}
		Ok(Header {
			bytes: bytes[..HEADER_BYTES].try_into().expect("a whole header"),
			entries_sha256: bytes[48..80].try_into().expect("32 bytes"),
		})
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_table_that_finds_no_room_says_so_and_leaves_no_partial_file() {
		let dir = tempfile::tempdir().unwrap();
		let path = dir.path().join("movement.tb");
		// The file being written is /dev/full, where every write fails for lack of space.
		let partial = path.with_extension("partial");
		std::os::unix::fs::symlink("/dev/full", &partial).unwrap();
		let values = vec![7u8; 3 << 20];
		let refused = write_file(&path, &header_bytes(&values), &values).unwrap_err();
		assert!(
			matches!(refused, TablebaseFileError::NoSpace { needs_mib: 4, .. }),
			"{refused}"
		);
		let sentence = refused.to_string();
		assert!(
			sentence.contains("no room in") && sentence.contains("4 MiB"),
			"{sentence}"
		);
		assert!(!partial.exists() && partial.symlink_metadata().is_err());
		assert!(!path.exists());
		// With room, the same write succeeds.
		write_file(&path, &header_bytes(&values), &values).unwrap();
		assert_eq!(std::fs::metadata(&path).unwrap().len(), 80 + (3 << 20));
	}
}
