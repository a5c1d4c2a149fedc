//! `StateDir`: the worker's directory of things that outlive the process: its identity, a lock
//! so that two workers never share it, and the spool.
//!
//! ```text
//! <state dir>/
//!   worker_id        the identity sent to Join, generated once (name + 16 random hex digits)
//!   worker_secret    the identity's secret, as the coordinator's first Join handed it (mode 0600)
//!   lock             held (flock) while a worker runs
//!   spool/           unacknowledged batches, the next sequence number and their run (see `spool`)
//!   spool-aside/     batches of runs the coordinator no longer serves, kept for a week
//! ```

use std::fs::{self, File, TryLockError};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::config::path_safe;
use crate::error::WorkerError;
use crate::seed::random_u64;
use crate::spool::write_durably;

const WORKER_ID_FILE: &str = "worker_id";
const WORKER_SECRET_FILE: &str = "worker_secret";
const LOCK_FILE: &str = "lock";
const SPOOL_DIR: &str = "spool";

/// The longest worker id the coordinator accepts.
const MAX_WORKER_ID_CHARS: usize = 128;

/// An open state directory, locked for this worker until dropped.
#[derive(Debug)]
pub(crate) struct StateDir {
	path: PathBuf,
	worker_id: String,
	/// Holding the file holds the lock; the OS releases it when the file is closed, even if
	/// the process dies.
	_lock: File,
}

impl StateDir {
	/// Opens (creating) the state directory at `path`, locks it, and reads the worker id or
	/// makes one from `name`.
	pub(crate) fn open(path: &Path, name: &str) -> Result<StateDir, WorkerError> {
		let state_error = |path: &Path| {
			let path = path.to_path_buf();
			move |source| WorkerError::State { path, source }
		};
		fs::create_dir_all(path).map_err(state_error(path))?;
		let lock_path = path.join(LOCK_FILE);
		let lock = File::options()
			.create(true)
			.truncate(false)
			.write(true)
			.open(&lock_path)
			.map_err(state_error(&lock_path))?;
		match lock.try_lock() {
			Ok(()) => {}
			Err(TryLockError::WouldBlock) => {
				return Err(WorkerError::StateLocked(path.to_path_buf()));
			}
			Err(TryLockError::Error(source)) => return Err(state_error(&lock_path)(source)),
		}
		let worker_id = read_or_create_worker_id(&path.join(WORKER_ID_FILE), name)?;
		Ok(StateDir {
			path: path.to_path_buf(),
			worker_id,
			_lock: lock,
		})
	}

	/// The identity's secret, kept in this directory: read now, written when a join hands one.
	pub(crate) fn secret(&self) -> Result<Secret, WorkerError> {
		let path = self.path.join(WORKER_SECRET_FILE);
		let current = match fs::read_to_string(&path) {
			Ok(text) if is_valid_secret(text.trim()) => Some(text.trim().to_string()),
			Ok(_) => {
				return Err(WorkerError::StateContents {
					path,
					reason: "not a worker secret (64 lowercase hex digits)".into(),
				});
			}
			Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
			Err(source) => return Err(WorkerError::State { path, source }),
		};
		Ok(Secret {
			path,
			current: Mutex::new(current),
		})
	}

	/// The worker's stable identity.
	pub(crate) fn worker_id(&self) -> &str {
		&self.worker_id
	}

	/// Where the spool lives.
	pub(crate) fn spool_dir(&self) -> PathBuf {
		self.path.join(SPOOL_DIR)
	}
}

/// The secret binding this worker's identity at the coordinator, and its file.
#[derive(Debug)]
pub(crate) struct Secret {
	path: PathBuf,
	current: Mutex<Option<String>>,
}

impl Secret {
	/// The secret, or an empty string before the first join handed one.
	pub(crate) fn get(&self) -> String {
		self.lock().clone().unwrap_or_default()
	}

	/// Keeps `secret` durably (readable by this user only) before it is used. Disk work: call
	/// it from a blocking thread.
	pub(crate) fn store(&self, secret: &str) -> Result<(), WorkerError> {
		if !is_valid_secret(secret) {
			return Err(WorkerError::StateContents {
				path: self.path.clone(),
				reason: "the coordinator handed a secret that is not 64 lowercase hex digits"
					.into(),
			});
		}
		write_private(&self.path, format!("{secret}\n").as_bytes()).map_err(|source| {
			WorkerError::State {
				path: self.path.clone(),
				source,
			}
		})?;
		*self.lock() = Some(secret.to_string());
		Ok(())
	}

	fn lock(&self) -> std::sync::MutexGuard<'_, Option<String>> {
		self.current
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
	}
}

fn is_valid_secret(secret: &str) -> bool {
	secret.len() == 64
		&& secret
			.bytes()
			.all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Writes `bytes` to `path` as a file only its owner can read, durably: a synced temporary file
/// renamed into place, then the directory synced.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
	let temp = path.with_extension("tmp");
	let mut options = File::options();
	options.create(true).truncate(true).write(true);
	#[cfg(unix)]
	std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
	let written = options.open(&temp).and_then(|mut file| {
		file.write_all(bytes)?;
		file.sync_all()
	});
	if let Err(error) = written {
		let _ = fs::remove_file(&temp);
		return Err(error);
	}
	fs::rename(&temp, path)?;
	File::open(path.parent().unwrap_or(Path::new(".")))?.sync_all()
}

fn read_or_create_worker_id(path: &Path, name: &str) -> Result<String, WorkerError> {
	match fs::read_to_string(path) {
		Ok(text) => {
			let id = text.trim();
			if is_valid_worker_id(id) {
				Ok(id.to_string())
			} else {
				Err(WorkerError::StateContents {
					path: path.to_path_buf(),
					reason: format!(
						"{id:?} is not a worker id (1 to 128 printable characters); remove the \
						 file to get a new identity"
					),
				})
			}
		}
		Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
			let id = new_worker_id(name);
			write_durably(path, format!("{id}\n").as_bytes()).map_err(|error| {
				WorkerError::StateContents {
					path: path.to_path_buf(),
					reason: error.to_string(),
				}
			})?;
			Ok(id)
		}
		Err(source) => Err(WorkerError::State {
			path: path.to_path_buf(),
			source,
		}),
	}
}

/// `name` made path-safe and cut short, then 16 random hex digits: readable in logs, and
/// unique even when two machines share a name.
fn new_worker_id(name: &str) -> String {
	let random = random_u64();
	let prefix: String = path_safe(name)
		.chars()
		.take(MAX_WORKER_ID_CHARS - 17)
		.collect();
	format!("{prefix}-{random:016x}")
}

fn is_valid_worker_id(id: &str) -> bool {
	let chars = id.chars().count();
	(1..=MAX_WORKER_ID_CHARS).contains(&chars) && id.chars().all(|c| !c.is_control())
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::testing::TempDir;

	#[test]
	fn the_worker_id_is_made_once_and_kept() {
		let dir = TempDir::new("state-id");
		let first = StateDir::open(dir.path(), "box 7").unwrap();
		let id = first.worker_id().to_string();
		assert!(id.starts_with("box_7-"), "{id}");
		assert_eq!(id.len(), "box_7-".len() + 16);
		drop(first);
		let again = StateDir::open(dir.path(), "another name").unwrap();
		assert_eq!(again.worker_id(), id);
		assert_eq!(again.spool_dir(), dir.path().join("spool"));
	}

	#[test]
	fn different_directories_get_different_ids() {
		let (a, b) = (TempDir::new("state-a"), TempDir::new("state-b"));
		let a = StateDir::open(a.path(), "same").unwrap();
		let b = StateDir::open(b.path(), "same").unwrap();
		assert_ne!(a.worker_id(), b.worker_id());
	}

	#[test]
	fn a_state_dir_has_one_worker_at_a_time() {
		let dir = TempDir::new("state-lock");
		let first = StateDir::open(dir.path(), "w").unwrap();
		assert!(matches!(
			StateDir::open(dir.path(), "w"),
			Err(WorkerError::StateLocked(_))
		));
		drop(first);
		assert!(StateDir::open(dir.path(), "w").is_ok());
	}

	#[test]
	fn the_secret_is_kept_privately_and_read_back() {
		let dir = TempDir::new("state-secret");
		let state = StateDir::open(dir.path(), "w").unwrap();
		let secret = state.secret().unwrap();
		assert_eq!(secret.get(), "");
		assert!(secret.store("not a secret").is_err());
		let value = "0123456789abcdef".repeat(4);
		secret.store(&value).unwrap();
		assert_eq!(secret.get(), value);
		let path = dir.path().join(WORKER_SECRET_FILE);
		#[cfg(unix)]
		{
			use std::os::unix::fs::PermissionsExt;
			let mode = fs::metadata(&path).unwrap().permissions().mode();
			assert_eq!(mode & 0o777, 0o600);
		}
		drop(state);
		let again = StateDir::open(dir.path(), "w").unwrap();
		assert_eq!(again.secret().unwrap().get(), value);
		fs::write(&path, "garbage\n").unwrap();
		let error = again.secret().unwrap_err().to_string();
		assert!(error.contains("not a worker secret"), "{error}");
	}

	#[test]
	fn a_damaged_worker_id_is_an_error_not_a_new_identity() {
		let dir = TempDir::new("state-bad-id");
		fs::write(dir.path().join(WORKER_ID_FILE), "\n").unwrap();
		let error = StateDir::open(dir.path(), "w").unwrap_err().to_string();
		assert!(error.contains("not a worker id"), "{error}");
	}

	proptest::proptest! {
		#![proptest_config(proptest::test_runner::Config::with_cases(64))]

		/// Whatever the identity files hold, opening the state directory never panics: it is a
		/// worker id and secret, or an error naming the file.
		#[test]
		fn arbitrary_identity_files_never_panic(
			id in proptest::prelude::any::<String>(),
			secret in proptest::prelude::any::<String>(),
		) {
			let dir = TempDir::new("state-fuzz");
			fs::write(dir.path().join(WORKER_ID_FILE), &id).unwrap();
			fs::write(dir.path().join(WORKER_SECRET_FILE), &secret).unwrap();
			if let Ok(state) = StateDir::open(dir.path(), "w") {
				proptest::prop_assert!(is_valid_worker_id(state.worker_id()));
				if let Ok(secret) = state.secret() {
					let value = secret.get();
					proptest::prop_assert!(value.is_empty() || is_valid_secret(&value));
				}
			}
		}
	}
}
