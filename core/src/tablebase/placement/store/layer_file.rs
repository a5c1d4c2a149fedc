//! A layer's file: its header, checked against the layer its name says and the movement table
//! it was solved from, and its entries in blocks deflated apart, read whole or written whole.
//!
//! A layer file is a 104-byte header and the layer's bytes ([`LayerShape`]: two bits per entry,
//! four to a byte, lowest bits first), cut into blocks deflated apart ([`blocks`]):
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `TIGERSPL` |
//! | 8 | 4 | format version ([`PLACEMENT_FORMAT_VERSION`]) |
//! | 12 | 4 | rules version ([`RULES_VERSION`]) |
//! | 16 | 4 | sheep placed |
//! | 20 | 4 | side to move: 0 the sheep, 1 the tigers |
//! | 24 | 4 | tiger classes (1,666) |
//! | 28 | 4 | the layer's bytes a block holds ([`BLOCK_BYTES`]) |
//! | 32 | 8 | the layer's bytes |
//! | 40 | 32 | sha256 of the layer's bytes |
//! | 72 | 32 | sha256 of the movement table's file the solve started from |
//! | 104 | ... | the blocks' index, then the blocks |
//!
//! Numbers are little-endian. Format 1, which earlier builds wrote, held the layer's bytes as
//! they are from offset 104 (and zero at 28); it is still read, and a build rewrites such a
//! layer in today's format without solving it again. A layer is written to a `.tmp` file,
//! synced, then renamed, so a file under its own name is whole.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::error::{PlacementError, io_error};
use crate::moves::Turn;
use crate::network::file::hex;
use crate::tablebase::index::TIGER_CLASSES;
use crate::tablebase::placement::blocks::{self, BLOCK_BYTES};
use crate::tablebase::placement::index::{LayerId, LayerShape};
use crate::tablebase::{RULES_VERSION, Tablebase};

/// The layout of the layer files: 2 since the blocks were deflated.
pub const PLACEMENT_FORMAT_VERSION: u32 = 2;

/// Which entry of a layer is which position ([`LayerShape`]): the same in formats 1 and 2, so
/// their files share a directory (`placement-f1-r1`) and a build can rewrite one in the other.
pub const PLACEMENT_INDEX_VERSION: u32 = 1;

/// The format that held the entries as they are, still read.
const WHOLE_FORMAT_VERSION: u32 = 1;

/// The first eight bytes of every layer file.
pub const MAGIC: [u8; 8] = *b"TIGERSPL";
/// Bytes before a layer's entries.
pub const HEADER_BYTES: usize = 104;

/// The header of a layer's file.
fn header(id: LayerId, bytes: &[u8], movement: &Tablebase) -> [u8; HEADER_BYTES] {
	let mut header = [0u8; HEADER_BYTES];
	header[0..8].copy_from_slice(&MAGIC);
	header[8..12].copy_from_slice(&PLACEMENT_FORMAT_VERSION.to_le_bytes());
	header[12..16].copy_from_slice(&RULES_VERSION.to_le_bytes());
	header[16..20].copy_from_slice(&id.placed.to_le_bytes());
	header[20..24].copy_from_slice(&turn_number(id.turn).to_le_bytes());
	header[24..28].copy_from_slice(&(TIGER_CLASSES as u32).to_le_bytes());
	header[28..32].copy_from_slice(&(BLOCK_BYTES as u32).to_le_bytes());
	header[32..40].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
	header[40..72].copy_from_slice(&Sha256::digest(bytes));
	header[72..104].copy_from_slice(&movement_digest(movement));
	header
}

/// The sha256 of the movement table's file, as bytes: its identity's 64 hex digits read.
pub(super) fn movement_digest(movement: &Tablebase) -> [u8; 32] {
	let mut digest = [0u8; 32];
	for (i, byte) in digest.iter_mut().enumerate() {
		*byte = u8::from_str_radix(&movement.identity()[2 * i..2 * i + 2], 16)
			.expect("an identity is 64 hex digits");
	}
	digest
}

fn turn_number(turn: Turn) -> u32 {
	match turn {
		Turn::Sheep => 0,
		Turn::Tiger => 1,
	}
}

/// How a layer file holds its entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layout {
	/// Format 1: as they are.
	Whole,
	/// Format 2: an index, then blocks deflated apart.
	Blocks,
}

/// What a layer file's header says: how it holds the entries, and their length.
#[derive(Clone, Copy, Debug)]
pub(super) struct Header {
	pub(super) layout: Layout,
	pub(super) length: u64,
}

impl Header {
	/// The header's and the index's bytes before the blocks (the index's only in format 2).
	pub(super) fn before_blocks(self) -> u64 {
		match self.layout {
			Layout::Whole => HEADER_BYTES as u64,
			Layout::Blocks => HEADER_BYTES as u64 + blocks::index_bytes(self.length),
		}
	}
}

/// The layout a format version stands for, and the block length its header holds.
fn layout_of(version: u32) -> Result<(Layout, u32), String> {
	match version {
		PLACEMENT_FORMAT_VERSION => Ok((Layout::Blocks, BLOCK_BYTES as u32)),
		WHOLE_FORMAT_VERSION => Ok((Layout::Whole, 0)),
		other => Err(format!(
			"the header's format version is {other}, expected {PLACEMENT_FORMAT_VERSION} \
			 (or {WHOLE_FORMAT_VERSION}, which is still read)"
		)),
	}
}

/// Checks a layer file's header against the layer it should hold; `movement`, if given, must be
/// the table it was solved from.
pub(super) fn check_header(
	path: &Path,
	id: LayerId,
	header: &[u8],
	movement: Option<&Tablebase>,
) -> Result<Header, PlacementError> {
	let corrupt = |reason: String| PlacementError::Corrupt {
		path: path.display().to_string(),
		reason,
	};
	if header.len() < HEADER_BYTES {
		return Err(corrupt(format!(
			"{} bytes, too short for a layer header (truncated?)",
			header.len()
		)));
	}
	let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
	if header[0..8] != MAGIC {
		return Err(corrupt("not a placement layer of Tigers and Sheep".into()));
	}
	let (layout, block) = layout_of(word(8)).map_err(corrupt)?;
	let fields = [
		("rules version", word(12), RULES_VERSION),
		("sheep placed", word(16), id.placed),
		("side to move", word(20), turn_number(id.turn)),
		("tiger classes", word(24), TIGER_CLASSES as u32),
		("block length", word(28), block),
	];
	for (field, found, expected) in fields {
		if found != expected {
			return Err(corrupt(format!(
				"the header's {field} is {found}, expected {expected}"
			)));
		}
	}
	let length = u64::from_le_bytes(header[32..40].try_into().expect("8 bytes"));
	let expected = LayerShape::of(id).bytes();
	if length != expected {
		return Err(corrupt(format!(
			"the header announces {length} bytes of entries, expected {expected}"
		)));
	}
	if let Some(movement) = movement
		&& header[72..104] != movement_digest(movement)
	{
		return Err(corrupt(format!(
			"solved from the movement table {}, not from {}",
			hex(&header[72..104]),
			movement.identity()
		)));
	}
	Ok(Header { layout, length })
}

/// Reads a whole layer file and checks its header and digest; the layer's bytes.
pub fn read_layer(
	dir: &Path,
	id: LayerId,
	movement: Option<&Tablebase>,
) -> Result<Vec<u8>, PlacementError> {
	let path = dir.join(id.file_name());
	let file = std::fs::read(&path).map_err(io_error(&path))?;
	layer_entries(&path, id, &file, movement)
}

/// Layer `id`'s bytes from its whole file in memory (`path` names it in errors), the header
/// and the digest checked; `movement`, if given, must be the table it was solved from.
pub fn layer_entries(
	path: &Path,
	id: LayerId,
	file: &[u8],
	movement: Option<&Tablebase>,
) -> Result<Vec<u8>, PlacementError> {
	let header = check_header(path, id, &file[..file.len().min(HEADER_BYTES)], movement)?;
	let corrupt = |reason: String| PlacementError::Corrupt {
		path: path.display().to_string(),
		reason,
	};
	let body = &file[HEADER_BYTES..];
	let entries = match header.layout {
		Layout::Whole if body.len() as u64 != header.length => {
			return Err(corrupt(format!(
				"the file holds {} bytes of entries, but the header announces {} (truncated?)",
				body.len(),
				header.length
			)));
		}
		Layout::Whole => body.to_vec(),
		Layout::Blocks => blocks::decode(body, header.length, threads())
			.map_err(|reason| corrupt(format!("{reason} (truncated or damaged?)")))?,
	};
	if Sha256::digest(&entries)[..] != file[40..72] {
		return Err(corrupt(
			"the entries do not match the header's sha256".into(),
		));
	}
	Ok(entries)
}

/// Threads to deflate and inflate a layer on: every core (the result does not depend on it).
fn threads() -> usize {
	std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Reads into `buffer` until it is full or the file ends; the bytes read.
pub(super) fn read_up_to(file: &mut File, buffer: &mut [u8]) -> std::io::Result<usize> {
	let mut read = 0;
	while read < buffer.len() {
		match file.read(&mut buffer[read..])? {
			0 => break,
			n => read += n,
		}
	}
	Ok(read)
}

/// Writes a layer file whole, its entries deflated block by block: to a `.tmp` file, synced,
/// then renamed into place. `bytes` are the layer's entries, solved from `movement`.
pub fn write_layer(
	dir: &Path,
	id: LayerId,
	bytes: &[u8],
	movement: &Tablebase,
) -> Result<(), PlacementError> {
	let path = dir.join(id.file_name());
	let tmp = path.with_extension("tmp");
	let encoded = blocks::encode(bytes, threads());
	let head = header(id, bytes, movement);
	let written = File::create(&tmp).and_then(|mut file| {
		file.write_all(&head)?;
		file.write_all(&encoded)?;
		file.sync_all()
	});
	if let Err(source) = written {
		if matches!(
			source.kind(),
			std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
		) {
			// The part written would only take the space the next try needs.
			let _ = std::fs::remove_file(&tmp);
			let needs = (head.len() + encoded.len()) as u64;
			return Err(PlacementError::NoSpace {
				dir: dir.display().to_string(),
				layer: id.file_name(),
				needs_mib: needs.div_ceil(1 << 20),
			});
		}
		return Err(io_error(&tmp)(source));
	}
	std::fs::rename(&tmp, &path).map_err(io_error(&path))?;
	Ok(())
}

/// Checks a layer file's header, index and length without reading its entries; the header.
pub(super) fn read_header_only(
	dir: &Path,
	id: LayerId,
	movement: &Tablebase,
) -> Result<Header, PlacementError> {
	let path = dir.join(id.file_name());
	let mut file = File::open(&path).map_err(io_error(&path))?;
	let mut head = vec![0u8; HEADER_BYTES];
	let read = read_up_to(&mut file, &mut head).map_err(io_error(&path))?;
	let header = check_header(&path, id, &head[..read], Some(movement))?;
	let expected = match header.layout {
		Layout::Whole => HEADER_BYTES as u64 + header.length,
		Layout::Blocks => header.before_blocks() + read_index(&path, &mut file, header)?.data,
	};
	let size = file.metadata().map_err(io_error(&path))?.len();
	if size != expected {
		return Err(PlacementError::Corrupt {
			path: path.display().to_string(),
			reason: format!("{size} bytes, expected {expected}"),
		});
	}
	Ok(header)
}

/// Where a format-2 layer's blocks lie in its file.
pub(super) struct BlockIndex {
	/// `n + 1` offsets from the first block's byte.
	pub(super) offsets: Vec<u64>,
	/// The blocks' bytes in all.
	pub(super) data: u64,
}

/// Reads and checks a format-2 layer's index from its file, just after the header.
pub(super) fn read_index(
	path: &Path,
	file: &mut File,
	header: Header,
) -> Result<BlockIndex, PlacementError> {
	let mut index = vec![0u8; blocks::index_bytes(header.length) as usize];
	file.seek(SeekFrom::Start(HEADER_BYTES as u64))
		.and_then(|_| read_up_to(file, &mut index))
		.map_err(io_error(path))
		.and_then(|read| {
			blocks::read_index(&index[..read], header.length).map_err(|reason| {
				PlacementError::Corrupt {
					path: path.display().to_string(),
					reason: format!("{reason} (truncated or damaged?)"),
				}
			})
		})
		.map(|offsets| BlockIndex {
			data: *offsets.last().expect("n + 1 offsets"),
			offsets,
		})
}
