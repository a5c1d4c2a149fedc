//! `manifest.txt`, written when the last layer is done: the versions, the movement table's
//! identity, and each layer's file with its size and sha256.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::error::{PlacementError, io_error};
use super::layer_file::PLACEMENT_FORMAT_VERSION;
use crate::network::file::hex;
use crate::tablebase::placement::index::LayerId;
use crate::tablebase::{RULES_VERSION, Tablebase};

/// The manifest's name in the directory.
pub const MANIFEST: &str = "manifest.txt";

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
