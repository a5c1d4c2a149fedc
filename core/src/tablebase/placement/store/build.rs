//! The solve on disk: every layer from some number of sheep placed up, keeping the layers
//! already there and a layer's finished slices, so that a solve that stops starts again where
//! it was.

use std::fs::File;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::{PlacementError, io_error};
use super::layer_file::{Layout, movement_digest, read_header_only, read_layer, write_layer};
use super::manifest::write_manifest_if_complete;
use crate::tablebase::Tablebase;
use crate::tablebase::placement::index::{LAST_PLACED, LayerId, LayerShape};
use crate::tablebase::placement::solve::{Children, LayerProgress, Slice, SliceStore, solve_layer};

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
