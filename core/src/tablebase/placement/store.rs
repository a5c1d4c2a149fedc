//! The placement layers on disk: one file per layer, a manifest, a solve that resumes, and a
//! probe that reads one byte.
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
//! layer in today's format without solving it again. A layer is written to a `.tmp` file, synced, then renamed, so a
//! file under its own name is whole; a solve that stops keeps every finished layer and starts
//! again at the first missing one. `manifest.txt`, written when the last layer is done, lists
//! each layer's file with its size and sha256 and the movement table's identity.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::board::GameBoard;
use crate::moves::Turn;
use crate::network::file::hex;
use crate::tablebase::index::TIGER_CLASSES;
use crate::tablebase::placement::blocks::{self, BLOCK_BYTES};
use crate::tablebase::placement::index::{LAST_PLACED, LayerId, LayerShape, locate};
use crate::tablebase::placement::solve::{Children, LayerProgress, Slice, SliceStore, solve_layer};
use crate::tablebase::placement::verdict::Verdict;
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
/// The manifest's name in the directory.
pub const MANIFEST: &str = "manifest.txt";

/// Why the placement layers could not be built, read or probed.
#[derive(Debug, Error)]
pub enum PlacementError {
	/// Reading or writing a file failed.
	#[error("{path}: {source}")]
	Io {
		/// The file.
		path: String,
		/// What the system said.
		source: std::io::Error,
	},
	/// A layer file is not what its name says or is damaged.
	#[error("{path}: {reason}; delete it and build again")]
	Corrupt {
		/// The file.
		path: String,
		/// What is wrong.
		reason: String,
	},
	/// A layer the solve needs is missing.
	#[error("{path}: missing, but the layer {layer} needs it; build from a lower --from-placed")]
	Missing {
		/// The missing file.
		path: String,
		/// The layer that needs it.
		layer: String,
	},
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> PlacementError + '_ {
	move |source| PlacementError::Io {
		path: path.display().to_string(),
		source,
	}
}

/// How far a build has got, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildProgress {
	/// The layer being solved.
	pub layer: LayerId,
	/// Entries decided in the layers this build solves, finished layers included.
	pub done: u64,
	/// Entries of every layer this build solves (layers found on disk left out).
	pub total: u64,
}

/// What a build did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildReport {
	/// Layers solved now.
	pub solved: Vec<LayerId>,
	/// Layers found whole on disk and kept.
	pub kept: Vec<LayerId>,
	/// Of those kept, the layers found in format 1 and rewritten in today's format.
	pub converted: Vec<LayerId>,
}

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

fn movement_digest(movement: &Tablebase) -> [u8; 32] {
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
enum Layout {
	/// Format 1: as they are.
	Whole,
	/// Format 2: an index, then blocks deflated apart.
	Blocks,
}

/// What a layer file's header says: how it holds the entries, and their length.
#[derive(Clone, Copy, Debug)]
struct Header {
	layout: Layout,
	length: u64,
}

impl Header {
	/// The header's and the index's bytes before the blocks (the index's only in format 2).
	fn before_blocks(self) -> u64 {
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
fn check_header(
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

fn read_up_to(file: &mut File, buffer: &mut [u8]) -> std::io::Result<usize> {
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
	let mut file = File::create(&tmp).map_err(io_error(&tmp))?;
	file.write_all(&header(id, bytes, movement))
		.map_err(io_error(&tmp))?;
	file.write_all(&encoded).map_err(io_error(&tmp))?;
	file.sync_all().map_err(io_error(&tmp))?;
	drop(file);
	std::fs::rename(&tmp, &path).map_err(io_error(&path))?;
	Ok(())
}

/// The sha256 of a whole file, in hex.
fn file_digest(path: &Path) -> Result<String, PlacementError> {
	let mut file = File::open(path).map_err(io_error(path))?;
	let mut hasher = Sha256::new();
	let mut buffer = vec![0u8; 1 << 20];
	loop {
		let n = file.read(&mut buffer).map_err(io_error(path))?;
		if n == 0 {
			break;
		}
		hasher.update(&buffer[..n]);
	}
	Ok(hex(&hasher.finalize()))
}

/// Solves every layer from `from_placed` sheep placed up into `dir`, on `threads` threads,
/// keeping the layers already there (checked whole and solved from `movement`) and writing each
/// new one as it finishes; then writes the manifest if every layer is present.
pub fn build(
	dir: &Path,
	movement: &Tablebase,
	from_placed: u32,
	threads: usize,
	progress: &(dyn Fn(BuildProgress) + Sync),
) -> Result<BuildReport, PlacementError> {
	let _lock = lock_dir(dir)?;
	let order = LayerId::solve_order(from_placed.min(LAST_PLACED));
	let (kept, missing): (Vec<LayerId>, Vec<LayerId>) = order
		.into_iter()
		.partition(|&id| read_header_only(dir, id, movement).is_ok());
	let converted = convert_whole_layers(dir, &kept, movement)?;
	let mut report = BuildReport {
		solved: Vec::new(),
		kept,
		converted,
	};
	let total: u64 = missing.iter().map(|id| LayerShape::of(*id).entries()).sum();
	let mut finished = 0u64;
	let mut previous: Option<(LayerId, Vec<u8>)> = None;
	for id in missing {
		let child_bytes = child_layer(dir, id, movement, &mut previous)?;
		let children = match &child_bytes {
			None => Children::Movement(movement),
			Some(bytes) => Children::Layer(bytes),
		};
		let report_layer = |p: LayerProgress| {
			progress(BuildProgress {
				layer: id,
				done: finished + p.done,
				total,
			});
		};
		let partial = PartialSlices::new(dir, id, movement)?;
		let bytes = solve_layer(id, children, threads, &partial, &report_layer);
		drop(child_bytes);
		write_layer(dir, id, &bytes, movement)?;
		partial.remove();
		finished += LayerShape::of(id).entries();
		report.solved.push(id);
		previous = Some((id, bytes));
	}
	write_manifest_if_complete(dir, movement)?;
	Ok(report)
}

/// Rewrites the layers of `kept` that are in format 1 (the entries as they are) in today's
/// format, each checked by its digest first; the layers rewritten.
fn convert_whole_layers(
	dir: &Path,
	kept: &[LayerId],
	movement: &Tablebase,
) -> Result<Vec<LayerId>, PlacementError> {
	let mut converted = Vec::new();
	for &id in kept {
		if read_header_only(dir, id, movement)?.layout == Layout::Whole {
			let entries = read_layer(dir, id, Some(movement))?;
			write_layer(dir, id, &entries, movement)?;
			converted.push(id);
		}
	}
	Ok(converted)
}

/// Makes `dir` if it is missing and locks its `.lock` file, for as long as the returned file
/// is open.
fn lock_dir(dir: &Path) -> Result<File, PlacementError> {
	std::fs::create_dir_all(dir).map_err(io_error(dir))?;
	let lock_path = dir.join(".lock");
	let lock = File::create(&lock_path).map_err(io_error(&lock_path))?;
	lock.lock().map_err(io_error(&lock_path))?;
	Ok(lock)
}

/// The entries that layer `id`'s moves lead to: `None` where they lead to the movement table,
/// else the child layer's, taken from `previous` (the layer solved just before) if it is the
/// child, or read from `dir`.
fn child_layer(
	dir: &Path,
	id: LayerId,
	movement: &Tablebase,
	previous: &mut Option<(LayerId, Vec<u8>)>,
) -> Result<Option<Vec<u8>>, PlacementError> {
	let Some(child) = id.child() else {
		return Ok(None);
	};
	if previous.as_ref().is_some_and(|(p, _)| *p == child) {
		return Ok(previous.take().map(|(_, bytes)| bytes));
	}
	let path = dir.join(child.file_name());
	if !path.exists() {
		return Err(PlacementError::Missing {
			path: path.display().to_string(),
			layer: id.file_name(),
		});
	}
	read_layer(dir, child, Some(movement)).map(Some)
}

/// Writes the manifest if every layer's file is in `dir`; whether it did.
pub fn write_manifest_if_complete(
	dir: &Path,
	movement: &Tablebase,
) -> Result<bool, PlacementError> {
	let complete = LayerId::solve_order(0)
		.iter()
		.all(|id| dir.join(id.file_name()).exists());
	if complete {
		write_manifest(dir, movement)?;
	}
	Ok(complete)
}

/// Whether `dir` holds layer `id` whole, solved from `movement`: its header right and its
/// length the layer's (the entries are not read).
pub fn has_layer(dir: &Path, id: LayerId, movement: &Tablebase) -> bool {
	read_header_only(dir, id, movement).is_ok()
}

/// A layer's finished slices while it is solved, in `DIR/placed-PP-SIDE.partial/`: each slice's
/// bytes followed by the sha256 of the movement table's identity and those bytes, so that a
/// damaged slice, or one solved from another movement table, is solved again.
pub struct PartialSlices {
	dir: PathBuf,
	movement: [u8; 32],
}

impl PartialSlices {
	/// The kept slices of layer `id` in `dir`, the directory made if missing.
	pub fn new(
		dir: &Path,
		id: LayerId,
		movement: &Tablebase,
	) -> Result<PartialSlices, PlacementError> {
		let dir = dir.join(format!(
			"{}.partial",
			id.file_name().trim_end_matches(".tbp")
		));
		std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
		Ok(PartialSlices {
			dir,
			movement: movement_digest(movement),
		})
	}

	fn digest(&self, bytes: &[u8]) -> [u8; 32] {
		let mut hasher = Sha256::new();
		hasher.update(self.movement);
		hasher.update(bytes);
		hasher.finalize().into()
	}

	/// Drops one kept slice, so that it is solved again (one found wrong, say).
	pub fn forget(&self, slice: Slice) {
		let _ = std::fs::remove_file(self.dir.join(slice.name()));
	}

	/// Drops the slices once the layer's file is written; a failure leaves only litter.
	pub fn remove(self) {
		let _ = std::fs::remove_dir_all(&self.dir);
	}
}

impl SliceStore for PartialSlices {
	fn load(&self, slice: Slice, length: usize) -> Option<Vec<u8>> {
		let mut bytes = std::fs::read(self.dir.join(slice.name())).ok()?;
		if bytes.len() != length + 32 {
			return None;
		}
		let trailer = bytes.split_off(length);
		(trailer[..] == self.digest(&bytes)).then_some(bytes)
	}

	/// Keeps a slice; one that cannot be written is only solved again after a stop.
	fn save(&self, slice: Slice, bytes: &[u8]) {
		let path = self.dir.join(slice.name());
		let tmp = path.with_extension("tmp");
		let mut content = bytes.to_vec();
		content.extend_from_slice(&self.digest(bytes));
		if std::fs::write(&tmp, &content).is_ok() {
			let _ = std::fs::rename(&tmp, &path);
		}
	}
}

/// Checks a layer file's header, index and length without reading its entries; the header.
fn read_header_only(
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
struct BlockIndex {
	/// `n + 1` offsets from the first block's byte.
	offsets: Vec<u64>,
	/// The blocks' bytes in all.
	data: u64,
}

/// Reads and checks a format-2 layer's index from its file, just after the header.
fn read_index(path: &Path, file: &mut File, header: Header) -> Result<BlockIndex, PlacementError> {
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

/// The manifest's text: the versions, the movement table, and each layer's file.
fn manifest_text(dir: &Path, movement: &Tablebase) -> Result<String, PlacementError> {
	let mut text = format!(
		"tigers-and-sheep placement layers\nformat {PLACEMENT_FORMAT_VERSION}\nrules {RULES_VERSION}\nmovement {}\n",
		movement.identity()
	);
	for id in LayerId::solve_order(0) {
		let path = dir.join(id.file_name());
		let size = std::fs::metadata(&path).map_err(io_error(&path))?.len();
		let digest = file_digest(&path)?;
		text.push_str(&format!("layer {} {size} {digest}\n", id.file_name()));
	}
	Ok(text)
}

fn write_manifest(dir: &Path, movement: &Tablebase) -> Result<(), PlacementError> {
	let text = manifest_text(dir, movement)?;
	let path = dir.join(MANIFEST);
	std::fs::write(&path, text).map_err(io_error(&path))
}

/// Checks the manifest against the files: the same versions, movement table, sizes and digests.
pub fn check_manifest(dir: &Path, movement: &Tablebase) -> Result<(), PlacementError> {
	let path = dir.join(MANIFEST);
	let written = std::fs::read_to_string(&path).map_err(io_error(&path))?;
	let now = manifest_text(dir, movement)?;
	if written != now {
		let line = written
			.lines()
			.zip(now.lines())
			.find(|(a, b)| a != b)
			.map_or_else(|| "its length".to_string(), |(a, _)| format!("`{a}`"));
		return Err(PlacementError::Corrupt {
			path: path.display().to_string(),
			reason: format!("the files no longer match the manifest at {line}"),
		});
	}
	Ok(())
}

/// The placement layers found in a directory, probed one byte at a time from disk.
pub struct PlacementTable {
	dir: PathBuf,
	layers: BTreeMap<LayerId, Layer>,
}

struct Layer {
	shape: LayerShape,
	/// The file and the inflater that probes share, one probe at a time.
	file: Mutex<(File, blocks::Inflater)>,
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
					file: Mutex::new((file, blocks::Inflater::default())),
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
		let mut held = self.file.lock().expect("no probe panics holding it");
		let (file, inflater) = &mut *held;
		let Some(index) = &self.blocks else {
			let mut one = [0u8];
			file.seek(SeekFrom::Start(HEADER_BYTES as u64 + byte))
				.and_then(|_| file.read_exact(&mut one))
				.map_err(ReadFailure::Io)?;
			return Ok(one[0]);
		};
		let block = (byte / BLOCK_BYTES as u64) as usize;
		let (from, to) = (index.offsets[block], index.offsets[block + 1]);
		let mut stored = vec![0u8; (to - from) as usize];
		file.seek(SeekFrom::Start(self.before_blocks + from))
			.and_then(|_| file.read_exact(&mut stored))
			.map_err(ReadFailure::Io)?;
		let mut out = [0u8; BLOCK_BYTES];
		let out = &mut out[..=(byte % BLOCK_BYTES as u64) as usize];
		inflater
			.prefix(&stored, blocks::block_length(self.length, block), out)
			.map_err(|reason| ReadFailure::Damaged(format!("block {block}: {reason}")))?;
		Ok(out[out.len() - 1])
	}
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
