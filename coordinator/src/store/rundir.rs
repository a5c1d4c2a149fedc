//! `RunDir`: the coordinator's run directory, everything it needs to restart after a crash.
//!
//! ```text
//! <run>/
//!   lock                            held (flock) while a coordinator has the run open
//!   run-id                          the run's identity: 32 lowercase hex digits, made once
//!   ledger.sqlite                   the ledger (see `ledger`), with its -wal and -shm files
//!   nets/gen-000007.safetensors     one net per promoted generation, named by generation
//!   checkpoint/                     the training state: net, Adam, replay window, counters
//!     net.safetensors  adam.safetensors  window.bin  state.json
//!   checkpoint.tmp/  checkpoint.old/   only while a checkpoint is saved, or after a crash in one
//! ```
//!
//! Every write is durable when the call returns: files are written under a temporary name,
//! synced, renamed into place, and the directory holding them is synced so that the rename
//! itself survives a power cut. The checkpoint protocol is described in `rundir::checkpoint`.

mod checkpoint;
mod durable;

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::TryRng;
use rand::rngs::SysRng;
use tigers_core::Network;
use tigers_core::network::file::sha256_hex;

pub(crate) use self::checkpoint::Checkpoint;
use self::durable::{sync_dir, write_synced};
use crate::store::ledger::Ledger;
use crate::store::storage_error::StorageError;

/// The folder of promoted nets.
const NETS: &str = "nets";

/// The file in `nets/` naming the best net by the rating ladder (docs/training.md, "The rating
/// ladder"); `tui` reads the same name.
pub(crate) const BEST_POINTER: &str = "best";
/// The ledger's file name.
const LEDGER: &str = "ledger.sqlite";
/// The lock file's name.
const LOCK: &str = "lock";
/// The file holding the run's identity.
const RUN_ID: &str = "run-id";

/// A run directory, opened and recovered.
#[derive(Debug)]
pub struct RunDir {
	root: PathBuf,
	name: String,
	id: String,
	/// Serialises checkpoint saves and loads within this process: a save moves directories
	/// around, and a load in the middle of it could find none.
	checkpoint_lock: Mutex<()>,
	/// Holding the file holds the run directory's lock, so no second coordinator (in this
	/// process or another) opens the run; the OS releases it when the file is closed, even if
	/// the process dies.
	_lock: File,
}

impl RunDir {
	/// Opens the run directory at `path`, creating `nets/`, `checkpoint/` and the ledger if they
	/// are missing, and finishing or undoing a checkpoint save that a crash interrupted. The
	/// directory stays locked until the `RunDir` is dropped: opening a run another coordinator
	/// has open is `StorageError::RunDirLocked`, and changes nothing.
	pub fn open(path: &Path) -> Result<RunDir, StorageError> {
		let nets = path.join(NETS);
		std::fs::create_dir_all(&nets).map_err(StorageError::io(&nets, "creating"))?;
		// Canonical, so that `name` is meaningful even for a path such as `.`.
		let root = std::fs::canonicalize(path).map_err(StorageError::io(path, "resolving"))?;
		let lock = lock(&root)?;
		let name = root.file_name().map_or_else(
			|| root.display().to_string(),
			|n| n.to_string_lossy().into_owned(),
		);
		checkpoint::recover(&root)?;
		let id = read_or_make_run_id(&root)?;
		let run = RunDir {
			root,
			name,
			id,
			checkpoint_lock: Mutex::new(()),
			_lock: lock,
		};
		// Creating and migrating the ledger now makes a damaged or too-new ledger fail here,
		// before anything else is done with the run.
		run.open_ledger()?;
		sync_dir(&run.root)?;
		Ok(run)
	}

	/// The run's name: the directory's last component.
	pub(crate) fn name(&self) -> &str {
		&self.name
	}

	/// The run's identity: 32 lowercase hex digits, made when the directory was first opened
	/// (by this build or a later one) and never changed. Workers stamp their batches with it,
	/// so that a batch played for one run is never stored in another.
	pub(crate) fn id(&self) -> &str {
		&self.id
	}

	/// The directory itself (canonical).
	pub(crate) fn path(&self) -> &Path {
		&self.root
	}

	/// Where the ledger lives.
	pub(crate) fn ledger_path(&self) -> PathBuf {
		self.root.join(LEDGER)
	}

	/// Opens the run's ledger.
	pub(crate) fn open_ledger(&self) -> Result<Ledger, StorageError> {
		Ledger::open(&self.ledger_path())
	}

	/// The file of the net of `generation`.
	pub(crate) fn net_path(&self, generation: u64) -> PathBuf {
		self.root.join(NETS).join(net_file_name(generation))
	}

	/// Saves `net` as the file of its generation, durably, replacing any earlier file of that
	/// generation; returns its sha256 (the net's identity).
	pub(crate) fn save_net(&self, net: &Network) -> Result<String, StorageError> {
		let bytes = net.to_bytes();
		write_durably(&self.net_path(net.generation), &bytes)?;
		Ok(sha256_hex(&bytes))
	}

	/// The file of the net of `generation`, as stored (what workers download).
	pub(crate) fn net_bytes(&self, generation: u64) -> Result<Vec<u8>, StorageError> {
		let path = self.net_path(generation);
		std::fs::read(&path).map_err(StorageError::io(path, "reading a net"))
	}

	/// The net of `generation`, checked: a file holding another generation is corrupt.
	pub(crate) fn load_net(&self, generation: u64) -> Result<Network, StorageError> {
		let path = self.net_path(generation);
		let bytes = self.net_bytes(generation)?;
		let net = Network::from_bytes(&bytes).map_err(|source| StorageError::NetFile {
			path: path.clone(),
			source,
		})?;
		if net.generation != generation {
			return Err(StorageError::corrupt(
				path.display().to_string(),
				format!("it holds generation {}", net.generation),
			));
		}
		Ok(net)
	}

	/// Names the best net by the rating ladder in `nets/best`, durably: one line holding its
	/// file's name in `nets/`, which `tui` plays by default. A pointer rather than a copy: it is
	/// rewritten whole or not at all, and never holds a net that was not promoted.
	pub(crate) fn point_to_best(&self, generation: u64) -> Result<(), StorageError> {
		let line = format!("{}\n", net_file_name(generation));
		write_durably(&self.root.join(NETS).join(BEST_POINTER), line.as_bytes())
	}

	/// The highest generation with a file in `nets/`, if any. Other files there are ignored.
	pub(crate) fn latest_generation(&self) -> Result<Option<u64>, StorageError> {
		let nets = self.root.join(NETS);
		let entries = std::fs::read_dir(&nets).map_err(StorageError::io(&nets, "listing"))?;
		let mut latest = None;
		for entry in entries {
			let entry = entry.map_err(StorageError::io(&nets, "listing"))?;
			let generation = entry.file_name().to_str().and_then(parse_net_file_name);
			latest = latest.max(generation);
		}
		Ok(latest)
	}

	/// Saves `checkpoint` durably and atomically: after a crash at any moment the run opens
	/// with either this checkpoint or the previous one, whole.
	pub(crate) fn save_checkpoint(&self, checkpoint: &Checkpoint) -> Result<(), StorageError> {
		// A poisoned lock means a save panicked part-way; the save starts by clearing what
		// such a save leaves, so carrying on is safe.
		let _guard = self
			.checkpoint_lock
			.lock()
			.unwrap_or_else(|e| e.into_inner());
		checkpoint::save(&self.root, checkpoint)
	}

	/// The saved checkpoint; `None` if none was ever saved, an error if it is corrupt.
	pub(crate) fn load_checkpoint(&self) -> Result<Option<Checkpoint>, StorageError> {
		let _guard = self
			.checkpoint_lock
			.lock()
			.unwrap_or_else(|e| e.into_inner());
		checkpoint::load(&self.root)
	}
}

/// Takes the run directory's lock, or says who holds it.
fn lock(root: &Path) -> Result<File, StorageError> {
	let path = root.join(LOCK);
	let file = File::options()
		.create(true)
		.truncate(false)
		.write(true)
		.open(&path)
		.map_err(StorageError::io(&path, "opening the lock"))?;
	match file.try_lock() {
		Ok(()) => Ok(file),
		Err(TryLockError::WouldBlock) => Err(StorageError::RunDirLocked(root.to_path_buf())),
		Err(TryLockError::Error(source)) => Err(StorageError::io(&path, "locking")(source)),
	}
}

/// The run's identity from its `run-id` file, made (durably) if the file is missing: a new run,
/// or one started by a build before run ids. A file that holds anything else is corrupt, and
/// the run is not opened, since a new identity would orphan every worker's spool.
fn read_or_make_run_id(root: &Path) -> Result<String, StorageError> {
	let path = root.join(RUN_ID);
	match std::fs::read_to_string(&path) {
		Ok(text) if tigers_proto::is_run_id(text.trim_end()) => {
			return Ok(text.trim_end().to_string());
		}
		Ok(_) => {
			return Err(StorageError::corrupt(
				path.display().to_string(),
				"it does not hold a run id (32 lowercase hex digits)",
			));
		}
		Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
		Err(source) => return Err(StorageError::io(&path, "reading the run id")(source)),
	}
	let mut bytes = [0u8; tigers_proto::RUN_ID_CHARS / 2];
	SysRng.try_fill_bytes(&mut bytes).map_err(|error| {
		StorageError::io(&path, "making the run id")(std::io::Error::other(error.to_string()))
	})?;
	let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
	write_durably(&path, format!("{id}\n").as_bytes())?;
	Ok(id)
}

/// The name of the net file of `generation`, `gen-000007.safetensors`.
pub(crate) fn net_file_name(generation: u64) -> String {
	format!("gen-{generation:06}.safetensors")
}

/// The generation a net file's name gives (`gen-000007.safetensors` is 7), if it is one.
pub(crate) fn parse_net_file_name(name: &str) -> Option<u64> {
	let digits = name.strip_prefix("gen-")?.strip_suffix(".safetensors")?;
	if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
		return None;
	}
	digits.parse().ok()
}

/// Temporary names must differ between threads and processes writing the same directory.
static NEXT_TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `bytes` so that after a crash it holds either the old or the new
/// contents, and the new contents survive a crash once this returns.
fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), StorageError> {
	let dir = path
		.parent()
		.expect("files of the run directory are inside it");
	let name = path.file_name().expect("a file name").to_string_lossy();
	let n = NEXT_TEMPORARY.fetch_add(1, Ordering::Relaxed);
	let temporary = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
	let result = write_synced(&temporary, bytes).and_then(|()| {
		std::fs::rename(&temporary, path).map_err(StorageError::io(path, "renaming into place"))
	});
	if result.is_err() {
		// Best effort: a leftover temporary file is harmless, only untidy.
		let _ = std::fs::remove_file(&temporary);
	}
	result?;
	sync_dir(dir)
}

#[cfg(test)]
mod tests {
	use tigers_core::network::Shape;

	use super::*;
	use crate::test_support::TestDir;

	fn small_net(seed: u64, generation: u64) -> Network {
		let mut net = Network::new(
			Shape {
				hidden1: 8,
				hidden2: 4,
			},
			seed,
		);
		net.generation = generation;
		net
	}

	#[test]
	fn open_creates_the_tree() {
		let dir = TestDir::new("rundir-open");
		let root = dir.path().join("run-42");
		let run = RunDir::open(&root).unwrap();
		assert_eq!(run.name(), "run-42");
		assert!(root.join("nets").is_dir());
		assert!(root.join("checkpoint").is_dir());
		assert!(root.join("ledger.sqlite").is_file());
		assert_eq!(run.latest_generation().unwrap(), None);
		drop(run);
		// Opening again keeps what is there.
		let run = RunDir::open(&root).unwrap();
		assert_eq!(run.name(), "run-42");
	}

	#[test]
	fn the_best_net_is_named_in_a_file_beside_the_nets() {
		let dir = TestDir::new("rundir-best");
		let run = RunDir::open(&dir.path().join("run")).unwrap();
		run.save_net(&small_net(1, 4)).unwrap();
		run.point_to_best(4).unwrap();
		run.point_to_best(3).unwrap();
		let pointer = std::fs::read_to_string(dir.path().join("run/nets").join(BEST_POINTER));
		assert_eq!(pointer.unwrap(), "gen-000003.safetensors\n");
		// The pointer is not a net: the newest generation is still read from the net files.
		assert_eq!(run.latest_generation().unwrap(), Some(4));
	}

	#[test]
	fn a_run_keeps_its_identity_and_a_new_run_gets_another() {
		let dir = TestDir::new("rundir-id");
		let run = RunDir::open(&dir.path().join("a")).unwrap();
		let id = run.id().to_string();
		assert!(tigers_proto::is_run_id(&id), "{id}");
		drop(run);
		assert_eq!(RunDir::open(&dir.path().join("a")).unwrap().id(), id);
		let other = RunDir::open(&dir.path().join("b")).unwrap();
		assert_ne!(other.id(), id);
		// A run from before run ids gets one at its first open, and keeps it.
		drop(other);
		std::fs::remove_file(dir.path().join("b/run-id")).unwrap();
		let made = RunDir::open(&dir.path().join("b"))
			.unwrap()
			.id()
			.to_string();
		assert!(tigers_proto::is_run_id(&made) && made != id);
		assert_eq!(RunDir::open(&dir.path().join("b")).unwrap().id(), made);
	}

	#[test]
	fn a_damaged_run_id_keeps_the_run_closed() {
		let dir = TestDir::new("rundir-bad-id");
		drop(RunDir::open(dir.path()).unwrap());
		std::fs::write(dir.path().join("run-id"), "not an id\n").unwrap();
		let error = RunDir::open(dir.path()).unwrap_err().to_string();
		assert!(error.contains("run-id is corrupt"), "{error}");
		assert!(error.contains("32 lowercase hex digits"), "{error}");
		assert_eq!(
			std::fs::read_to_string(dir.path().join("run-id")).unwrap(),
			"not an id\n"
		);
	}

	#[test]
	fn a_run_directory_has_one_coordinator_at_a_time() {
		let dir = TestDir::new("rundir-lock");
		let first = RunDir::open(dir.path()).unwrap();
		let error = RunDir::open(dir.path()).unwrap_err();
		assert!(matches!(error, StorageError::RunDirLocked(_)), "{error}");
		assert!(
			error.to_string().contains("in use by another coordinator"),
			"{error}"
		);
		drop(first);
		assert!(RunDir::open(dir.path()).is_ok());
	}

	#[test]
	fn nets_are_saved_and_loaded_by_generation() {
		let dir = TestDir::new("rundir-nets");
		let run = RunDir::open(dir.path()).unwrap();
		let (first, second) = (small_net(1, 3), small_net(2, 12));
		let sha = run.save_net(&first).unwrap();
		assert_eq!(sha, first.sha256());
		run.save_net(&second).unwrap();
		assert!(dir.path().join("nets/gen-000003.safetensors").is_file());
		assert_eq!(run.latest_generation().unwrap(), Some(12));
		assert_eq!(run.load_net(3).unwrap(), first);
		assert_eq!(run.load_net(12).unwrap(), second);
		assert_eq!(run.net_bytes(3).unwrap(), first.to_bytes());
		let missing = run.load_net(4).unwrap_err().to_string();
		assert!(missing.contains("gen-000004.safetensors"), "{missing}");
		// No temporary files are left behind, and strangers in nets/ are ignored.
		std::fs::write(dir.path().join("nets/gen-999999.safetensors.bak"), b"x").unwrap();
		std::fs::write(dir.path().join("nets/notes.txt"), b"x").unwrap();
		assert_eq!(run.latest_generation().unwrap(), Some(12));
		let names: Vec<String> = std::fs::read_dir(dir.path().join("nets"))
			.unwrap()
			.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
			.collect();
		assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
	}

	#[test]
	fn a_net_file_under_the_wrong_generation_is_refused() {
		let dir = TestDir::new("rundir-wrong-generation");
		let run = RunDir::open(dir.path()).unwrap();
		run.save_net(&small_net(1, 5)).unwrap();
		std::fs::rename(run.net_path(5), run.net_path(6)).unwrap();
		let error = run.load_net(6).unwrap_err().to_string();
		assert!(error.contains("holds generation 5"), "{error}");
		std::fs::write(run.net_path(7), b"not a net").unwrap();
		assert!(matches!(run.load_net(7), Err(StorageError::NetFile { .. })));
	}

	#[test]
	fn net_file_names_parse_back() {
		assert_eq!(parse_net_file_name(&net_file_name(7)), Some(7));
		assert_eq!(
			parse_net_file_name(&net_file_name(1_234_567)),
			Some(1_234_567)
		);
		assert_eq!(parse_net_file_name("gen-.safetensors"), None);
		assert_eq!(parse_net_file_name("gen-+7.safetensors"), None);
		assert_eq!(parse_net_file_name(".gen-000007.safetensors.1-0.tmp"), None);
	}
}
