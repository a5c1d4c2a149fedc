//! The placement layers on disk: one file per layer, a manifest, a solve that resumes, and a
//! probe that reads one byte.
//!
//! - `layer_file`: a layer's file, its header (format, rules, layer, the movement table it was
//!   solved from, the entries' sha256) and its entries in blocks deflated apart
//!   ([`blocks`](super::blocks));
//! - `build`: the solve that keeps every finished layer and a layer's finished slices, and
//!   starts again at the first missing one;
//! - `manifest`: `manifest.txt`, written when the last layer is done, listing each layer's file
//!   with its size and sha256 and the movement table's identity;
//! - `table`: [`PlacementTable`], a position's value read from its layer's file;
//! - `error`: [`PlacementError`].
//!
//! A layer is written to a `.tmp` file, synced, then renamed, so a file under its own name is
//! whole.

mod build;
mod error;
mod layer_file;
mod manifest;
mod table;

pub use self::build::{BuildProgress, BuildReport, PartialSlices, build, has_layer};
pub use self::error::PlacementError;
pub use self::layer_file::{
	HEADER_BYTES, MAGIC, PLACEMENT_FORMAT_VERSION, PLACEMENT_INDEX_VERSION, layer_entries,
	read_layer, write_layer,
};
pub use self::manifest::{MANIFEST, check_manifest, write_manifest_if_complete};
pub use self::table::PlacementTable;
