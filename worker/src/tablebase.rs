//! The tablebase a worker's self-play searches with, when its assignment names one: found in
//! this process (a coordinator's local workers share its copy), read from the file on disk, or
//! fetched from the coordinator with `FetchTablebase` and checked against the identity the
//! assignment gave, in the background while self-play goes on without it.
//!
//! Ownership: one [`TablebaseStore`] per worker. Only its fetching task writes the file (to a
//! `.partial` file renamed into place once it hashes to the identity wanted, so a reader never
//! sees half a table) and the held table; the session reads it when an assignment arrives.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use sha2::{Digest, Sha256};
use thiserror::Error;
use tigers_core::Tablebase;
use tigers_core::network::file::hex;
use tigers_core::tablebase::TablebaseFileError;
use tigers_proto::v1::{FetchTablebaseRequest, TablebaseChunk};

use crate::client::Connector;

/// The longest file accepted, in bytes: the table is about 93 MB; anything far larger is not it.
const MAX_FILE_BYTES: u64 = 200 << 20;

/// How long to wait before trying again after a failed fetch, at first and at most.
const RETRY_FIRST: Duration = Duration::from_secs(15);
const RETRY_MAX: Duration = Duration::from_secs(300);

/// Tables loaded in this process, so that a coordinator and its local workers hold one copy.
static IN_PROCESS: Mutex<Vec<Weak<Tablebase>>> = Mutex::new(Vec::new());

/// Offers `table` to workers in this process whose assignments name it (the coordinator calls
/// this for its own table, so its local workers do not read or fetch another copy).
pub fn share_tablebase(table: &Arc<Tablebase>) {
	let mut shared = IN_PROCESS
		.lock()
		.unwrap_or_else(std::sync::PoisonError::into_inner);
	shared.retain(|weak| weak.strong_count() > 0);
	shared.push(Arc::downgrade(table));
}

fn shared_in_process(identity: &str) -> Option<Arc<Tablebase>> {
	IN_PROCESS
		.lock()
		.unwrap_or_else(std::sync::PoisonError::into_inner)
		.iter()
		.filter_map(Weak::upgrade)
		.find(|table| table.identity() == identity)
}

/// Why a fetched table was refused, or a fetch could not be made.
#[derive(Debug, Error)]
pub enum FetchError {
	/// The call failed.
	#[error("FetchTablebase failed: {} ({})", .0.message(), .0.code())]
	Rpc(tonic::Status),
	/// No connection.
	#[error("cannot connect: {0}")]
	Connect(tonic::transport::Error),
	/// The pieces did not make the file announced.
	#[error("the tablebase received is not the one announced: {0}")]
	Mismatch(String),
	/// Writing or reading the file failed.
	#[error("{path}: {source}")]
	Io {
		/// The file.
		path: String,
		/// What the system said.
		source: std::io::Error,
	},
	/// The file hashed right but is not a table this program reads.
	#[error(transparent)]
	File(#[from] TablebaseFileError),
	/// A blocking task failed.
	#[error("internal error: {0}")]
	Internal(String),
}

/// Where the worker keeps its table, and the table once it has it.
#[derive(Debug)]
pub(crate) struct TablebaseStore {
	/// Where the file goes; `None` when the worker runs without a table.
	path: Option<PathBuf>,
	/// Whether the path was given (a wrong file there is refused, not replaced).
	explicit: bool,
	held: Mutex<Option<Arc<Tablebase>>>,
	/// The identity being fetched, if a fetch runs.
	fetching: Mutex<Option<String>>,
}

impl TablebaseStore {
	/// A store keeping its table at `path` (given explicitly or not); `None` for none.
	pub(crate) fn new(path: Option<PathBuf>, explicit: bool) -> TablebaseStore {
		TablebaseStore {
			path,
			explicit,
			held: Mutex::new(None),
			fetching: Mutex::new(None),
		}
	}

	/// The table with this identity, if the store holds it.
	pub(crate) fn held(&self, identity: &str) -> Option<Arc<Tablebase>> {
		self.held
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
			.clone()
			.filter(|table| table.identity() == identity)
	}

	/// Gets the table `identity` in the background, unless it is held or already being got,
	/// then calls `ready` with it. `wanted` tells whether it is still wanted (a later
	/// assignment may name another); retries after failures while it is.
	pub(crate) fn obtain(
		self: &Arc<Self>,
		identity: &str,
		connector: Connector,
		wanted: impl Fn(&str) -> bool + Send + Sync + 'static,
		ready: impl Fn(Arc<Tablebase>) + Send + Sync + 'static,
	) {
		let Some(path) = self.path.clone() else {
			return;
		};
		{
			let mut fetching = self
				.fetching
				.lock()
				.unwrap_or_else(std::sync::PoisonError::into_inner);
			if self.held(identity).is_some() || fetching.as_deref() == Some(identity) {
				return;
			}
			*fetching = Some(identity.to_string());
		}
		let store = self.clone();
		let identity = identity.to_string();
		tokio::spawn(async move {
			let mut delay = RETRY_FIRST;
			loop {
				match store.get(&identity, &path, &connector).await {
					Ok(table) => {
						*store
							.held
							.lock()
							.unwrap_or_else(std::sync::PoisonError::into_inner) = Some(table.clone());
						ready(table);
						break;
					}
					Err(error) => {
						tracing::warn!(%error, retry_in = ?delay, "the tablebase is not here yet; self-play goes on without it");
					}
				}
				tokio::time::sleep(delay).await;
				delay = (delay * 2).min(RETRY_MAX);
				if !wanted(&identity) {
					break;
				}
			}
			*store
				.fetching
				.lock()
				.unwrap_or_else(std::sync::PoisonError::into_inner) = None;
		});
	}

	/// The table: from this process, from the file, or fetched into the file.
	async fn get(
		&self,
		identity: &str,
		path: &Path,
		connector: &Connector,
	) -> Result<Arc<Tablebase>, FetchError> {
		if let Some(table) = shared_in_process(identity) {
			tracing::info!(identity, "tablebase shared in this process");
			return Ok(table);
		}
		let at = path.to_path_buf();
		let on_disk = blocking(move || Tablebase::read_if_present(&at)).await?;
		match on_disk {
			Ok(Some(table)) if table.identity() == identity => {
				tracing::info!(identity, path = %path.display(), "tablebase loaded");
				return Ok(Arc::new(table));
			}
			Ok(None) => {}
			Ok(Some(other)) if !self.explicit => tracing::warn!(
				path = %path.display(), found = other.identity(), wanted = identity,
				"the tablebase file is another one; fetching the coordinator's"
			),
			Err(error) if !self.explicit => tracing::warn!(
				path = %path.display(), %error,
				"the tablebase file cannot be used; fetching the coordinator's"
			),
			Ok(Some(other)) => {
				return Err(FetchError::Mismatch(format!(
					"{} (given with --tablebase) is table {}, and the coordinator's is {identity}; \
					 it is not replaced",
					path.display(),
					other.identity()
				)));
			}
			Err(error) => return Err(error.into()),
		}
		tracing::info!(identity, path = %path.display(), "fetching the tablebase from the coordinator");
		fetch(connector, TableFrom::Training, identity, path).await?;
		let at = path.to_path_buf();
		let table = blocking(move || Tablebase::read(&at)).await??;
		tracing::info!(identity, path = %path.display(), "tablebase fetched");
		Ok(Arc::new(table))
	}
}

/// Fetches the tablebase `identity` from the coordinator `config` names into `path`: streamed
/// into `path.partial`, hashed on the way, and renamed into place only if the whole file hashes
/// to `identity` (otherwise nothing is left behind).
pub async fn fetch_tablebase(
	config: &crate::WorkerConfig,
	identity: &str,
	path: &Path,
) -> Result<(), FetchError> {
	let connector =
		crate::client::connector(config).map_err(|e| FetchError::Internal(e.to_string()))?;
	fetch(&connector, TableFrom::Training, identity, path).await
}

/// The kind of coordinator a table is fetched from: each serves `FetchTablebase` in its own
/// service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TableFrom {
	/// A coordinator that trains (`tigers.v1.Coordinator`).
	Training,
	/// A coordinator that solves the placement phase (`tigers.v1.Solve`).
	Solving,
}

/// [`fetch_tablebase`] with a connector at hand, from the kind of coordinator it reaches.
pub(crate) async fn fetch(
	connector: &Connector,
	from: TableFrom,
	identity: &str,
	path: &Path,
) -> Result<(), FetchError> {
	let request = FetchTablebaseRequest {
		sha256: identity.to_string(),
	};
	let answer = match from {
		TableFrom::Training => {
			let mut client = connector
				.connect_training()
				.await
				.map_err(FetchError::Connect)?;
			client.fetch_tablebase(request).await
		}
		TableFrom::Solving => {
			let mut client = connector
				.connect_solving()
				.await
				.map_err(FetchError::Connect)?;
			client.fetch_tablebase(request).await
		}
	};
	let mut stream = answer.map_err(FetchError::Rpc)?.into_inner();
	let partial = path.with_extension("partial");
	let mut writer = {
		let partial = partial.clone();
		blocking(move || PartialFile::create(&partial)).await??
	};
	let mut total = None;
	let mut progress = Tenths::new(std::time::Instant::now());
	while let Some(chunk) = stream.message().await.map_err(FetchError::Rpc)? {
		check_piece(&chunk, identity, &mut total, writer.written)?;
		// Hashing and writing a megabyte is CPU and disk work: off the async threads.
		let total_bytes = chunk.total_bytes;
		writer = blocking(move || writer.append(&chunk.data).map(|()| writer)).await??;
		progress.log(writer.written, total_bytes);
	}
	let expected = total.unwrap_or(0);
	if writer.written != expected || expected == 0 {
		return Err(FetchError::Mismatch(format!(
			"the stream ended after {} of {expected} bytes",
			writer.written
		)));
	}
	let target = path.to_path_buf();
	let identity = identity.to_string();
	blocking(move || writer.finish(&identity, &target)).await?
}

/// An error unless `chunk` is the next piece of table `identity`, `written` bytes in: the same
/// length as the pieces before (`total`, set by the first) and within it.
fn check_piece(
	chunk: &TablebaseChunk,
	identity: &str,
	total: &mut Option<u64>,
	written: u64,
) -> Result<(), FetchError> {
	let mismatch = |why: String| Err(FetchError::Mismatch(why));
	if chunk.sha256 != identity {
		return mismatch(format!("a piece names table {:.16}…", chunk.sha256));
	}
	if chunk.total_bytes > MAX_FILE_BYTES
		|| *total.get_or_insert(chunk.total_bytes) != chunk.total_bytes
	{
		return mismatch(format!(
			"the file's length changes or is {} bytes",
			chunk.total_bytes
		));
	}
	if chunk.offset != written {
		return mismatch(format!(
			"a piece starts at byte {} where byte {written} was due",
			chunk.offset
		));
	}
	if written + chunk.data.len() as u64 > chunk.total_bytes {
		return mismatch("more bytes than the file's length".into());
	}
	Ok(())
}

/// Where a transfer stands each time it passes another tenth of the file: for the log, so that
/// a slow download says how far it has got and how long it has left.
struct Tenths {
	started: std::time::Instant,
	logged: u64,
}

/// A tenth passed.
#[derive(Debug, PartialEq)]
struct Passed {
	percent: u64,
	bytes_per_second: f64,
	seconds_left: f64,
}

impl Tenths {
	fn new(started: std::time::Instant) -> Tenths {
		Tenths { started, logged: 0 }
	}

	/// Logs the transfer's progress when `written` of `total` bytes is past another tenth.
	fn log(&mut self, written: u64, total: u64) {
		if let Some(done) = self.passed(written, total, std::time::Instant::now()) {
			tracing::info!(
				percent = done.percent,
				megabytes = format!("{:.1}", written as f64 / 1e6),
				megabytes_per_second = format!("{:.1}", done.bytes_per_second / 1e6),
				seconds_left = format!("{:.0}", done.seconds_left),
				"fetching the tablebase"
			);
		}
	}

	/// `Some` when `written` of `total` bytes at `now` is past a tenth not yet reported (the
	/// last tenth, the whole file, is left to the line that says it is done).
	fn passed(&mut self, written: u64, total: u64, now: std::time::Instant) -> Option<Passed> {
		let tenth = (written.saturating_mul(10)).checked_div(total)?;
		if tenth <= self.logged || tenth >= 10 {
			return None;
		}
		self.logged = tenth;
		let seconds = now.saturating_duration_since(self.started).as_secs_f64();
		let bytes_per_second = if seconds > 0.0 {
			written as f64 / seconds
		} else {
			0.0
		};
		let seconds_left = if bytes_per_second > 0.0 {
			(total - written) as f64 / bytes_per_second
		} else {
			0.0
		};
		Some(Passed {
			percent: tenth * 10,
			bytes_per_second,
			seconds_left,
		})
	}
}

/// A file being received: written and hashed piece by piece, and removed unless it is kept
/// (however the transfer ends: a refused piece, a broken stream, a wrong digest).
struct PartialFile {
	path: PathBuf,
	file: std::fs::File,
	hasher: Sha256,
	written: u64,
	kept: bool,
}

impl Drop for PartialFile {
	fn drop(&mut self) {
		if !self.kept {
			let _ = std::fs::remove_file(&self.path);
		}
	}
}

impl PartialFile {
	fn create(path: &Path) -> Result<PartialFile, FetchError> {
		if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
			std::fs::create_dir_all(dir).map_err(io_error(dir))?;
		}
		let file = std::fs::File::create(path).map_err(io_error(path))?;
		Ok(PartialFile {
			path: path.to_path_buf(),
			file,
			hasher: Sha256::new(),
			written: 0,
			kept: false,
		})
	}

	fn append(&mut self, data: &[u8]) -> Result<(), FetchError> {
		self.hasher.update(data);
		self.file.write_all(data).map_err(io_error(&self.path))?;
		self.written += data.len() as u64;
		Ok(())
	}

	/// Renames the file to `target` if it hashes to `identity`; removes it otherwise.
	fn finish(mut self, identity: &str, target: &Path) -> Result<(), FetchError> {
		let digest = hex(&std::mem::take(&mut self.hasher).finalize());
		if digest != identity {
			return Err(FetchError::Mismatch(format!(
				"the file received hashes to {digest}, not {identity}"
			)));
		}
		self.file.sync_all().map_err(io_error(&self.path))?;
		std::fs::rename(&self.path, target).map_err(io_error(target))?;
		self.kept = true;
		Ok(())
	}
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> FetchError + '_ {
	move |source| FetchError::Io {
		path: path.display().to_string(),
		source,
	}
}

async fn blocking<T: Send + 'static>(
	work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, FetchError> {
	tokio::task::spawn_blocking(work)
		.await
		.map_err(|e| FetchError::Internal(e.to_string()))
}

#[cfg(test)]
mod tests {
	use std::time::{Duration, Instant};

	use super::*;

	#[test]
	fn a_download_reports_each_tenth_once_with_its_rate_and_time_left() {
		let start = Instant::now();
		let mut tenths = Tenths::new(start);
		let at = |seconds| start + Duration::from_secs(seconds);
		// Below the first tenth: nothing.
		assert_eq!(tenths.passed(5, 100, at(1)), None);
		// 25 of 100 bytes in 5 s: past the second tenth, 5 bytes a second, 15 s left.
		assert_eq!(
			tenths.passed(25, 100, at(5)),
			Some(Passed {
				percent: 20,
				bytes_per_second: 5.0,
				seconds_left: 15.0,
			})
		);
		// Still within the same tenth: nothing more.
		assert_eq!(tenths.passed(29, 100, at(6)), None);
		assert_eq!(tenths.passed(31, 100, at(6)).map(|p| p.percent), Some(30));
		// The whole file is for the line that says it is done; an unknown length says nothing.
		assert_eq!(tenths.passed(100, 100, at(9)), None);
		assert_eq!(Tenths::new(start).passed(10, 0, at(1)), None);
	}
}
