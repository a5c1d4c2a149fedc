//! `PlacementError`: why the placement layers could not be built, read or probed.

use std::path::Path;

use thiserror::Error;

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
	/// A layer file could not be written for lack of space: nothing of it is left behind.
	#[error(
		"{dir} has no room for {layer}: its file needs {needs_mib} MiB more than the disk holds \
		 free; free space there (or build in another --dir) and run the same command again: the \
		 layers built so far are kept and the build resumes after them"
	)]
	NoSpace {
		/// The directory.
		dir: String,
		/// The layer being written.
		layer: String,
		/// The size of its file, in MiB (rounded up).
		needs_mib: u64,
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

/// A failed read or write of `path`, as a [`PlacementError::Io`].
pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> PlacementError + '_ {
	move |source| PlacementError::Io {
		path: path.display().to_string(),
		source,
	}
}
