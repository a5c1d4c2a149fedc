//! `PlacementTable`: the placement layers found in a directory, probed one byte at a time from
//! disk (a format-2 layer's block inflated from its start up to the byte). Probes read with
//! positioned reads, so probes of one layer from many threads read side by side; each takes
//! an inflater from the layer's pool for the time it inflates.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::error::{PlacementError, io_error};
use super::layer_file::{BlockIndex, HEADER_BYTES, Layout, check_header, read_index, read_up_to};
use crate::board::GameBoard;
use crate::moves::Turn;
use crate::tablebase::placement::blocks::{self, BLOCK_BYTES};
use crate::tablebase::placement::index::{LayerId, LayerShape, locate};
use crate::tablebase::placement::verdict::Verdict;

/// The placement layers found in a directory, probed one byte at a time from disk.
pub struct PlacementTable {
	dir: PathBuf,
	layers: BTreeMap<LayerId, Layer>,
}

struct Layer {
	shape: LayerShape,
	/// The file, read at positions (no shared cursor).
	file: File,
	/// Inflaters that probes done with them left for the next (their tables cost more to make
	/// than a short prefix costs to inflate).
	inflaters: Mutex<Vec<blocks::Inflater>>,
	/// The blocks' offsets for format 2, `None` for format 1's entries as they are.
	blocks: Option<BlockIndex>,
	/// The header's and the index's bytes.
	before_blocks: u64,
	length: u64,
}

impl PlacementTable {
	/// Opens every layer file in `dir` whose header is right for its name; other layers are
	/// absent (a probe there answers `None`). Each layer's block index is read (8 bytes a
	/// block); entries are not read until probed.
	pub fn open(dir: &Path) -> Result<PlacementTable, PlacementError> {
		let mut layers = BTreeMap::new();
		for id in LayerId::solve_order(0) {
			let path = dir.join(id.file_name());
			let Ok(mut file) = File::open(&path) else {
				continue;
			};
			let mut head = vec![0u8; HEADER_BYTES];
			let read = read_up_to(&mut file, &mut head).map_err(io_error(&path))?;
			let header = check_header(&path, id, &head[..read], None)?;
			let blocks = match header.layout {
				Layout::Whole => None,
				Layout::Blocks => Some(read_index(&path, &mut file, header)?),
			};
			layers.insert(
				id,
				Layer {
					shape: LayerShape::of(id),
					file,
					inflaters: Mutex::new(Vec::new()),
					blocks,
					before_blocks: header.before_blocks(),
					length: header.length,
				},
			);
		}
		Ok(PlacementTable {
			dir: dir.to_path_buf(),
			layers,
		})
	}

	/// The directory the layers are in.
	pub fn dir(&self) -> &Path {
		&self.dir
	}

	/// The layers present, in solve order reversed (fewest placed first).
	pub fn layers(&self) -> impl Iterator<Item = LayerId> + '_ {
		self.layers.keys().copied()
	}

	/// Whether every placement layer is present.
	pub fn is_complete(&self) -> bool {
		self.layers.len() == LayerId::solve_order(0).len()
	}

	/// The value of a placement position for `turn`, read from its layer's file; `None` outside
	/// the placement phase or when its layer is not there.
	pub fn probe(&self, board: GameBoard, turn: Turn) -> Result<Option<Verdict>, PlacementError> {
		let Some((id, dead, class, rank)) = locate(board, turn) else {
			return Ok(None);
		};
		let Some(layer) = self.layers.get(&id) else {
			return Ok(None);
		};
		let (byte, shift) = layer.shape.address(dead, class, rank);
		let path = self.dir.join(id.file_name());
		let entry = layer.read_byte(byte).map_err(|failure| match failure {
			ReadFailure::Io(source) => PlacementError::Io {
				path: path.display().to_string(),
				source,
			},
			ReadFailure::Damaged(reason) => PlacementError::Corrupt {
				path: path.display().to_string(),
				reason,
			},
		})?;
		match Verdict::from_code((entry >> shift) & 3) {
			Some(verdict) => Ok(Some(verdict)),
			None => Err(PlacementError::Corrupt {
				path: path.display().to_string(),
				reason: format!("byte {byte} holds padding where a position should be"),
			}),
		}
	}
}

/// Why a probe could not read its byte.
enum ReadFailure {
	Io(std::io::Error),
	Damaged(String),
}

impl Layer {
	/// Byte `byte` of the layer's entries: read as it is (format 1), or inflated from the start
	/// of its block up to it (format 2).
	fn read_byte(&self, byte: u64) -> Result<u8, ReadFailure> {
		let Some(index) = &self.blocks else {
			let mut one = [0u8];
			read_exact_at(&self.file, &mut one, HEADER_BYTES as u64 + byte)
				.map_err(ReadFailure::Io)?;
			return Ok(one[0]);
		};
		let block = (byte / BLOCK_BYTES as u64) as usize;
		let (from, to) = (index.offsets[block], index.offsets[block + 1]);
		let mut stored = vec![0u8; (to - from) as usize];
		read_exact_at(&self.file, &mut stored, self.before_blocks + from)
			.map_err(ReadFailure::Io)?;
		let mut out = [0u8; BLOCK_BYTES];
		let out = &mut out[..=(byte % BLOCK_BYTES as u64) as usize];
		let mut inflater = self.lock_inflaters().pop().unwrap_or_default();
		let inflated = inflater.prefix(&stored, blocks::block_length(self.length, block), out);
		self.lock_inflaters().push(inflater);
		inflated.map_err(|reason| ReadFailure::Damaged(format!("block {block}: {reason}")))?;
		Ok(out[out.len() - 1])
	}

	fn lock_inflaters(&self) -> std::sync::MutexGuard<'_, Vec<blocks::Inflater>> {
		self.inflaters
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
	}
}

/// Fills `buffer` from `file` at `offset`, without moving a shared cursor.
#[cfg(unix)]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
	std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

/// Fills `buffer` from `file` at `offset`, without moving a shared cursor.
#[cfg(windows)]
fn read_exact_at(file: &File, mut buffer: &mut [u8], mut offset: u64) -> std::io::Result<()> {
	while !buffer.is_empty() {
		match std::os::windows::fs::FileExt::seek_read(file, buffer, offset)? {
			0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
			read => {
				buffer = &mut buffer[read..];
				offset += read as u64;
			}
		}
	}
	Ok(())
}

impl std::fmt::Debug for PlacementTable {
	fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
		write!(
			f,
			"PlacementTable({}, {} layers)",
			self.dir.display(),
			self.layers.len()
		)
	}
}
