//! Progress recordings: the snapshots a dashboard received, saved as length-delimited protobuf
//! messages one after another, for looking at a run again later and for the screen tests.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;
use tigers_proto::{decode_progress_entries, encode_progress_entry, v1};

/// Why a recording could not be written or read.
#[derive(Debug, Error)]
pub enum RecordingError {
	/// The file could not be created, written or read.
	#[error("{path}: {error}")]
	Io {
		/// The file.
		path: PathBuf,
		/// What the system said.
		error: io::Error,
	},
	/// The bytes are not a sequence of progress messages.
	#[error("{path}: snapshot {index} does not decode: {reason}")]
	Corrupt {
		/// The file.
		path: PathBuf,
		/// Which snapshot, from 0.
		index: usize,
		/// What the decoder said.
		reason: String,
	},
}

/// Appends snapshots to a file.
#[derive(Debug)]
pub struct Recorder {
	path: PathBuf,
	out: BufWriter<File>,
	/// Snapshots written so far.
	written: u64,
}

impl Recorder {
	/// Creates (or truncates) `path`.
	pub fn create(path: &Path) -> Result<Recorder, RecordingError> {
		let file = File::create(path).map_err(|error| RecordingError::Io {
			path: path.to_path_buf(),
			error,
		})?;
		Ok(Recorder {
			path: path.to_path_buf(),
			out: BufWriter::new(file),
			written: 0,
		})
	}

	/// Ends the recording; a file that got no snapshot (the coordinator never answered) is
	/// removed rather than left empty, since it would not play back.
	pub fn finish(self) {
		if self.written == 0 {
			drop(self.out);
			let _ = std::fs::remove_file(&self.path);
		}
	}

	/// Writes one snapshot and flushes it, so an interrupted recording keeps what it had.
	pub fn write(&mut self, progress: &v1::Progress) -> Result<(), RecordingError> {
		let bytes = encode_progress_entry(progress);
		self.out
			.write_all(&bytes)
			.and_then(|()| self.out.flush())
			.map_err(|error| RecordingError::Io {
				path: self.path.clone(),
				error,
			})?;
		self.written += 1;
		Ok(())
	}
}

/// Every snapshot in a recording, in order.
pub fn read_recording(path: &Path) -> Result<Vec<v1::Progress>, RecordingError> {
	let bytes = std::fs::read(path).map_err(|error| RecordingError::Io {
		path: path.to_path_buf(),
		error,
	})?;
	decode_progress_entries(&bytes).map_err(|(index, e)| RecordingError::Corrupt {
		path: path.to_path_buf(),
		index,
		reason: e.to_string(),
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn snapshots_read_back_and_damage_is_named() {
		// Removed when the test ends, however it ends.
		let dir = tempfile::tempdir().unwrap();
		let path = dir.path().join("run.pb");
		let mut recorder = Recorder::create(&path).unwrap();
		for samples in [10, 20] {
			recorder
				.write(&v1::Progress {
					samples_total: samples,
					..v1::Progress::default()
				})
				.unwrap();
		}
		let read = read_recording(&path).unwrap();
		assert_eq!(
			read.iter().map(|p| p.samples_total).collect::<Vec<_>>(),
			[10, 20]
		);
		let mut bytes = std::fs::read(&path).unwrap();
		bytes.truncate(bytes.len() - 1);
		std::fs::write(&path, bytes).unwrap();
		let error = read_recording(&path).unwrap_err().to_string();
		assert!(error.contains("snapshot 1 does not decode"), "{error}");
		// A recording that got nothing leaves no file; one that got something keeps it.
		let empty = dir.path().join("empty.pb");
		Recorder::create(&empty).unwrap().finish();
		assert!(!empty.exists());
		recorder.finish();
		assert!(path.exists());
	}
}
