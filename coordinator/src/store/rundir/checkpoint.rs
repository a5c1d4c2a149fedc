//! The training checkpoint: saved whole or not at all, and recovered after a crash in a save.
//!
//! A checkpoint is a directory of four or five files: `net.safetensors` (the net being
//! trained), `adam.safetensors` (its optimizer state), `window.bin` (the replay window, see
//! `samples_codec`), `average.safetensors` (the running average of the weights, only if the
//! run keeps one) and `state.json` (counters and settings, plus the length and sha256 of each
//! of the others). `state.json` is written last, so a directory whose `state.json` is
//! present and whose files match it is **complete**; anything else that is not empty is
//! incomplete or corrupt.
//!
//! Saving, with every file and directory synced before the next step:
//!
//! 1. write the new checkpoint into `checkpoint.tmp/`;
//! 2. rename `checkpoint/` to `checkpoint.old/` (or remove it if it holds no checkpoint);
//! 3. rename `checkpoint.tmp/` to `checkpoint/`;
//! 4. remove `checkpoint.old/`.
//!
//! A crash leaves one of these states, which `recover` resolves when the run is opened:
//!
//! | `checkpoint/` | `checkpoint.tmp/` | `checkpoint.old/` | crash during | recovery |
//! |---|---|---|---|---|
//! | complete | any | absent | step 1 | keep it, remove the partial `.tmp` |
//! | absent | complete | complete | between 2 and 3 | promote `.tmp` (the newer), remove `.old` |
//! | absent | complete | absent | first save, between 2 and 3 | promote `.tmp` |
//! | absent | absent or incomplete | complete | (not this protocol: `.tmp` lost) | promote `.old` |
//! | complete | absent | any | step 4 | remove what is left of `.old` |
//! | absent or empty | incomplete or absent | absent | first save, step 1 | no checkpoint |
//!
//! Recovery never deletes the only copy of a checkpoint: if `checkpoint/` is corrupt it
//! touches nothing and `load_checkpoint` reports the corruption, and a corrupt `.old` that
//! would be the only copy is an error at open. Samples are not lost by falling back to an older
//! checkpoint, because the ledger keeps every batch newer than the last checkpoint that was
//! saved completely (the coordinator prunes only after `save_checkpoint` returns).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tigers_core::Network;
use tigers_core::network::file::sha256_hex;
use tigers_core::network::train::Adam;
use tigers_core::selfplay::Sample;

use super::durable::{sync_dir, write_synced};
use crate::store::samples_codec::{decode_window, encode_window};
use crate::store::storage_error::StorageError;

const CURRENT: &str = "checkpoint";
const TEMPORARY: &str = "checkpoint.tmp";
const OLD: &str = "checkpoint.old";

const NET_FILE: &str = "net.safetensors";
const AVERAGE_FILE: &str = "average.safetensors";
const ADAM_FILE: &str = "adam.safetensors";
const WINDOW_FILE: &str = "window.bin";
const STATE_FILE: &str = "state.json";

const STATE_FORMAT: &str = "tigers-and-sheep-checkpoint";
const STATE_VERSION: u64 = 1;

/// Everything training needs to continue where it stopped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Checkpoint {
	/// The net being trained (not necessarily promoted).
	pub net: Network,
	/// The running average of its weights, if the run keeps one.
	pub average: Option<Network>,
	/// Adam's state for `net`.
	pub adam: Adam,
	/// The replay window, oldest first, with each sample's use count.
	pub window: Vec<(Sample, u32)>,
	/// The most samples the window holds.
	pub window_capacity: usize,
	/// How many times a sample may be trained on.
	pub max_uses: u32,
	/// Optimiser steps taken so far in the run.
	pub training_steps: u64,
	/// The ledger batch whose samples are the newest in `window` (0 before any batch): the
	/// window is rebuilt on restart from this checkpoint plus the ledger's batches after it.
	pub last_batch_id: i64,
}

/// Saves `checkpoint` in the run directory `root` durably and atomically: after a crash at any
/// moment the run opens with either this checkpoint or the previous one, whole. The caller
/// holds the run directory's checkpoint lock.
pub(super) fn save(root: &Path, checkpoint: &Checkpoint) -> Result<(), StorageError> {
	let (current, temporary, old) = paths(root);
	remove_dir_if_present(&temporary)?;
	write_checkpoint(&temporary, checkpoint)?;
	if current.exists() {
		if is_empty_dir(&current)? {
			remove_dir_if_present(&current)?;
		} else {
			remove_dir_if_present(&old)?;
			rename(&current, &old)?;
		}
		sync_dir(root)?;
	}
	rename(&temporary, &current)?;
	sync_dir(root)?;
	remove_dir_if_present(&old)?;
	sync_dir(root)
}

/// The checkpoint saved in the run directory `root`; `None` if none was ever saved, an error if
/// it is corrupt. The caller holds the run directory's checkpoint lock.
pub(super) fn load(root: &Path) -> Result<Option<Checkpoint>, StorageError> {
	match inspect(&root.join(CURRENT))? {
		DirState::Missing | DirState::Empty => Ok(None),
		DirState::Complete(checkpoint) => Ok(Some(*checkpoint)),
		DirState::Broken(error) => Err(error),
	}
}

/// Resolves what a crash in `save_checkpoint` left (see the table in the module doc), and
/// leaves `checkpoint/` present, empty if there is no checkpoint.
pub(super) fn recover(root: &Path) -> Result<(), StorageError> {
	let (current, temporary, old) = paths(root);
	match inspect(&current)? {
		// Whatever is left of `.old` is older, and a `.tmp` beside a complete `checkpoint/`
		// is a save that never reached step 2: nothing was promised about it.
		DirState::Complete(_) => {
			remove_dir_if_present(&temporary)?;
			remove_dir_if_present(&old)?;
		}
		// The one state recovery cannot settle; it must not delete anything a person might
		// want to look at, and the coordinator will report it when it loads the checkpoint.
		DirState::Broken(_) => return Ok(()),
		DirState::Missing | DirState::Empty => {
			// `.tmp` is written after `.old` was last the current checkpoint, so when both
			// are complete `.tmp` is the newer.
			let from_old = match (inspect(&temporary)?, inspect(&old)?) {
				(DirState::Complete(_), _) => Some(false),
				(_, DirState::Complete(_)) => Some(true),
				(_, DirState::Broken(error)) => {
					return Err(StorageError::corrupt(
						old.display().to_string(),
						format!(
							"it is the only copy of the last checkpoint, and it is damaged \
							 ({error}); move it away to start without a checkpoint"
						),
					));
				}
				_ => None,
			};
			remove_dir_if_present(&current)?;
			match from_old {
				Some(false) => rename(&temporary, &current)?,
				Some(true) => rename(&old, &current)?,
				None => {}
			}
			remove_dir_if_present(&temporary)?;
			remove_dir_if_present(&old)?;
			if from_old.is_none() {
				std::fs::create_dir(&current).map_err(StorageError::io(&current, "creating"))?;
			}
		}
	}
	sync_dir(root)
}

fn paths(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
	(root.join(CURRENT), root.join(TEMPORARY), root.join(OLD))
}

/// What a checkpoint directory holds.
enum DirState {
	Missing,
	/// No files: the state of a fresh run.
	Empty,
	Complete(Box<Checkpoint>),
	/// Files that do not make a checkpoint, and why.
	Broken(StorageError),
}

/// Reads the directory fully: a checkpoint is only complete if every file decodes and matches
/// `state.json`. An I/O error (other than a missing file) is an error of its own: it says
/// nothing about whether the checkpoint is whole.
fn inspect(dir: &Path) -> Result<DirState, StorageError> {
	if !dir.exists() {
		return Ok(DirState::Missing);
	}
	if is_empty_dir(dir)? {
		return Ok(DirState::Empty);
	}
	match read_checkpoint(dir) {
		Ok(checkpoint) => Ok(DirState::Complete(Box::new(checkpoint))),
		Err(error @ StorageError::Io { .. }) => Err(error),
		Err(error) => Ok(DirState::Broken(error)),
	}
}

/// Writes the four files into a new directory `dir` and syncs them and it.
fn write_checkpoint(dir: &Path, checkpoint: &Checkpoint) -> Result<(), StorageError> {
	std::fs::create_dir(dir).map_err(StorageError::io(dir, "creating"))?;
	let net = checkpoint.net.to_bytes();
	let adam = checkpoint.adam.to_bytes(checkpoint.net.shape());
	let window = encode_window(&checkpoint.window);
	let average = checkpoint.average.as_ref().map(Network::to_bytes);
	let mut files = serde_json::Map::new();
	let all = [(NET_FILE, &net), (ADAM_FILE, &adam), (WINDOW_FILE, &window)];
	let average = average.as_ref().map(|bytes| (AVERAGE_FILE, bytes));
	for (name, bytes) in all.into_iter().chain(average) {
		write_synced(&dir.join(name), bytes)?;
		files.insert(
			name.to_string(),
			json!({ "bytes": bytes.len(), "sha256": sha256_hex(bytes) }),
		);
	}
	let state = json!({
		"format": STATE_FORMAT,
		"version": STATE_VERSION,
		"training_steps": checkpoint.training_steps,
		"last_batch_id": checkpoint.last_batch_id,
		"window_capacity": checkpoint.window_capacity,
		"window_samples": checkpoint.window.len(),
		"max_uses": checkpoint.max_uses,
		"generation": checkpoint.net.generation,
		"files": files,
	});
	let text = serde_json::to_vec_pretty(&state).expect("a JSON value always serialises");
	// Last, so that its presence means the other files are all there.
	write_synced(&dir.join(STATE_FILE), &text)?;
	sync_dir(dir)
}

/// Reads the checkpoint in `dir`, each file checked against `state.json`.
fn read_checkpoint(dir: &Path) -> Result<Checkpoint, StorageError> {
	let state = State::read(dir)?;
	let net = state.network(dir, NET_FILE)?;
	let adam_path = dir.join(ADAM_FILE);
	let adam =
		Adam::from_bytes_for(&state.checked_file(dir, ADAM_FILE)?, &net).map_err(|source| {
			StorageError::NetFile {
				path: adam_path,
				source,
			}
		})?;
	// Listed in state.json only if the run keeps an average.
	let average = if state.value["files"].get(AVERAGE_FILE).is_some() {
		Some(state.network(dir, AVERAGE_FILE)?)
	} else {
		None
	};
	let window = decode_window(&state.checked_file(dir, WINDOW_FILE)?).map_err(|e| match e {
		StorageError::Corrupt { why, .. } => {
			StorageError::corrupt(dir.join(WINDOW_FILE).display().to_string(), why)
		}
		other => other,
	})?;
	let checkpoint = Checkpoint {
		net,
		average,
		adam,
		window,
		window_capacity: state.number("window_capacity")? as usize,
		max_uses: u32::try_from(state.number("max_uses")?)
			.map_err(|_| state.corrupt("max_uses is beyond 32 bits"))?,
		training_steps: state.number("training_steps")?,
		last_batch_id: state.value["last_batch_id"]
			.as_i64()
			.ok_or_else(|| state.corrupt("last_batch_id is missing or not an integer"))?,
	};
	if checkpoint.window.len() as u64 != state.number("window_samples")? {
		return Err(state.corrupt("window_samples disagrees with window.bin"));
	}
	if checkpoint.window.len() > checkpoint.window_capacity {
		return Err(state.corrupt("the window holds more samples than its capacity"));
	}
	Ok(checkpoint)
}

/// `state.json`, parsed, with the name to give in errors.
struct State {
	what: String,
	value: Value,
}

impl State {
	/// `dir`'s `state.json`, if it is there and of the format and version this program reads.
	fn read(dir: &Path) -> Result<State, StorageError> {
		let state_path = dir.join(STATE_FILE);
		let what = state_path.display().to_string();
		let text = read_file(&state_path, || {
			StorageError::corrupt(
				dir.display().to_string(),
				"it has no state.json, so it is incomplete (a save that was interrupted?)",
			)
		})?;
		let value: Value = serde_json::from_slice(&text)
			.map_err(|e| StorageError::corrupt(&what, format!("not JSON: {e}")))?;
		let state = State { what, value };
		if state.value["format"] != STATE_FORMAT {
			return Err(state.corrupt(format!("its format is not {STATE_FORMAT:?}")));
		}
		let version = state.number("version")?;
		if version != STATE_VERSION {
			return Err(state.corrupt(format!(
				"version {version}, but this program reads {STATE_VERSION}"
			)));
		}
		Ok(state)
	}

	/// The net in the checkpoint's file `name`, checked against `state.json`.
	fn network(&self, dir: &Path, name: &str) -> Result<Network, StorageError> {
		let bytes = self.checked_file(dir, name)?;
		Network::from_bytes(&bytes).map_err(|source| StorageError::NetFile {
			path: dir.join(name),
			source,
		})
	}

	fn corrupt(&self, why: impl Into<String>) -> StorageError {
		StorageError::corrupt(&self.what, why)
	}

	fn number(&self, key: &str) -> Result<u64, StorageError> {
		self.value[key]
			.as_u64()
			.ok_or_else(|| self.corrupt(format!("{key} is missing or not a whole number")))
	}

	/// The bytes of one of the checkpoint's files, if they have the length and sha256 that
	/// `state.json` recorded for them.
	fn checked_file(&self, dir: &Path, name: &str) -> Result<Vec<u8>, StorageError> {
		let path = dir.join(name);
		let bytes = read_file(&path, || {
			StorageError::corrupt(
				path.display().to_string(),
				"missing, though state.json lists it",
			)
		})?;
		let entry = &self.value["files"][name];
		let (Some(length), Some(sha)) = (entry["bytes"].as_u64(), entry["sha256"].as_str()) else {
			return Err(self.corrupt(format!("it has no length and sha256 for {name}")));
		};
		let what = path.display().to_string();
		if bytes.len() as u64 != length {
			return Err(StorageError::corrupt(
				what,
				format!("{} bytes, but state.json says {length}", bytes.len()),
			));
		}
		if sha256_hex(&bytes) != sha {
			return Err(StorageError::corrupt(
				what,
				"its sha256 differs from state.json's",
			));
		}
		Ok(bytes)
	}
}

/// The bytes of `path`, or `missing()` if there is no such file.
fn read_file(path: &Path, missing: impl FnOnce() -> StorageError) -> Result<Vec<u8>, StorageError> {
	std::fs::read(path).map_err(|e| {
		if e.kind() == std::io::ErrorKind::NotFound {
			missing()
		} else {
			StorageError::io(path, "reading")(e)
		}
	})
}

fn is_empty_dir(dir: &Path) -> Result<bool, StorageError> {
	let mut entries = std::fs::read_dir(dir).map_err(StorageError::io(dir, "listing"))?;
	Ok(entries.next().is_none())
}

fn remove_dir_if_present(dir: &Path) -> Result<(), StorageError> {
	match std::fs::remove_dir_all(dir) {
		Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
			Err(StorageError::io(dir, "removing")(e))
		}
		_ => Ok(()),
	}
}

fn rename(from: &Path, to: &Path) -> Result<(), StorageError> {
	std::fs::rename(from, to).map_err(StorageError::io(from, "renaming"))
}

#[cfg(test)]
impl Checkpoint {
	/// The replay window as `ReplayWindow`, with its use counts.
	fn replay_window(&self) -> tigers_core::replay::ReplayWindow {
		let mut window =
			tigers_core::replay::ReplayWindow::new(self.window_capacity, self.max_uses);
		for &(sample, uses) in &self.window {
			window.push_with_uses(sample, uses);
		}
		window
	}
}

#[cfg(test)]
mod tests {
	use crate::store::rundir::RunDir;
	use tigers_core::network::Shape;
	use tigers_core::network::train::{AdamSettings, TrainingExample};

	use super::*;
	use crate::test_support::{TestDir, varied_samples};

	/// A checkpoint whose every part differs from a fresh one: trained weights, Adam moments
	/// after a step, a window with uses.
	fn checkpoint(training_steps: u64) -> Checkpoint {
		let mut net = Network::new(
			Shape {
				hidden1: 8,
				hidden2: 4,
			},
			training_steps,
		);
		net.generation = 3;
		let mut adam = Adam::new(AdamSettings::default(), net.params().len());
		let samples = varied_samples();
		let batch: Vec<TrainingExample> = samples
			.iter()
			.map(|s| TrainingExample {
				board: s.board,
				turn: s.turn,
				target: s.result,
			})
			.collect();
		net.train_step(&mut adam, &batch);
		Checkpoint {
			net,
			average: None,
			adam,
			window: samples.into_iter().zip([0, 2, 5]).collect(),
			window_capacity: 10,
			max_uses: 8,
			training_steps,
			last_batch_id: 42,
		}
	}

	fn names_in(dir: &Path) -> Vec<String> {
		let mut names: Vec<String> = std::fs::read_dir(dir)
			.unwrap()
			.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
			.collect();
		names.sort();
		names
	}

	#[test]
	fn a_checkpoint_round_trips_and_replaces_the_last() {
		let dir = TestDir::new("checkpoint-round-trip");
		let run = RunDir::open(dir.path()).unwrap();
		assert_eq!(run.load_checkpoint().unwrap(), None);
		run.save_checkpoint(&checkpoint(1)).unwrap();
		assert_eq!(run.load_checkpoint().unwrap(), Some(checkpoint(1)));
		run.save_checkpoint(&checkpoint(2)).unwrap();
		drop(run);
		let run = RunDir::open(dir.path()).unwrap();
		let loaded = run.load_checkpoint().unwrap().unwrap();
		assert_eq!(loaded, checkpoint(2));
		assert_eq!(loaded.adam.steps(), 1);
		let window = loaded.replay_window();
		assert_eq!(window.capacity(), 10);
		assert_eq!(window.uses_left(), 8 + 6 + 3);
		let leftovers: Vec<String> = names_in(dir.path())
			.into_iter()
			.filter(|name| name.starts_with("checkpoint."))
			.collect();
		assert!(leftovers.is_empty(), "{leftovers:?}");
		assert_eq!(names_in(&dir.path().join(CURRENT)).len(), 4);
	}

	#[test]
	fn a_running_average_is_saved_beside_the_net_and_read_back() {
		let dir = TestDir::new("checkpoint-average");
		let run = RunDir::open(dir.path()).unwrap();
		let mut average = checkpoint(5).net;
		average.generation = 3;
		let with_average = Checkpoint {
			average: Some(average),
			..checkpoint(1)
		};
		run.save_checkpoint(&with_average).unwrap();
		assert_eq!(run.load_checkpoint().unwrap(), Some(with_average));
		assert_eq!(names_in(&dir.path().join(CURRENT)).len(), 5);
		// A damaged average makes the checkpoint corrupt like any of its files.
		std::fs::write(dir.path().join(CURRENT).join(AVERAGE_FILE), b"damaged").unwrap();
		assert!(run.load_checkpoint().is_err());
	}

	#[test]
	fn a_partial_save_leaves_the_intact_checkpoint() {
		let dir = TestDir::new("checkpoint-partial-tmp");
		let run = RunDir::open(dir.path()).unwrap();
		run.save_checkpoint(&checkpoint(1)).unwrap();
		drop(run);
		// As if killed while writing step 1 of the next save.
		let temporary = dir.path().join(TEMPORARY);
		std::fs::create_dir(&temporary).unwrap();
		std::fs::copy(
			dir.path().join("checkpoint/net.safetensors"),
			temporary.join(NET_FILE),
		)
		.unwrap();
		let run = RunDir::open(dir.path()).unwrap();
		assert_eq!(run.load_checkpoint().unwrap(), Some(checkpoint(1)));
		assert!(!temporary.exists(), "the partial save is cleared");
	}

	#[test]
	fn a_crash_between_the_renames_is_recovered() {
		let dir = TestDir::new("checkpoint-old-only");
		let run = RunDir::open(dir.path()).unwrap();
		run.save_checkpoint(&checkpoint(1)).unwrap();
		drop(run);
		let (current, temporary, old) = paths(dir.path());
		std::fs::rename(&current, &old).unwrap();
		let run = RunDir::open(dir.path()).unwrap();
		assert_eq!(run.load_checkpoint().unwrap(), Some(checkpoint(1)));
		assert!(!old.exists());

		// Both copies complete: the temporary one is the newer and wins.
		run.save_checkpoint(&checkpoint(2)).unwrap();
		drop(run);
		std::fs::rename(&current, &old).unwrap();
		write_checkpoint(&temporary, &checkpoint(3)).unwrap();
		let run = RunDir::open(dir.path()).unwrap();
		assert_eq!(run.load_checkpoint().unwrap(), Some(checkpoint(3)));
		assert!(!old.exists() && !temporary.exists());

		// The very first save, killed between its renames.
		let fresh = TestDir::new("checkpoint-first-save");
		drop(RunDir::open(fresh.path()).unwrap());
		std::fs::remove_dir(fresh.path().join(CURRENT)).unwrap();
		write_checkpoint(&fresh.path().join(TEMPORARY), &checkpoint(4)).unwrap();
		let run = RunDir::open(fresh.path()).unwrap();
		assert_eq!(run.load_checkpoint().unwrap(), Some(checkpoint(4)));
	}

	#[test]
	fn a_corrupt_checkpoint_is_an_error_and_is_kept() {
		let dir = TestDir::new("checkpoint-corrupt");
		let run = RunDir::open(dir.path()).unwrap();
		run.save_checkpoint(&checkpoint(1)).unwrap();
		drop(run);
		let window = dir.path().join("checkpoint/window.bin");
		let bytes = std::fs::read(&window).unwrap();
		std::fs::write(&window, &bytes[..bytes.len() - 10]).unwrap();
		// A leftover save beside it must survive: it may be all that someone can rescue.
		let old = dir.path().join(OLD);
		std::fs::create_dir(&old).unwrap();
		let run = RunDir::open(dir.path()).unwrap();
		let error = run.load_checkpoint().unwrap_err().to_string();
		assert!(error.contains("window.bin is corrupt"), "{error}");
		assert!(error.contains("state.json says"), "{error}");
		assert!(old.exists());

		// Damage that state.json agrees with: the window encoding's own check.
		let mut foreign = bytes.clone();
		foreign[..8].copy_from_slice(b"NOTAWIND");
		std::fs::write(&window, &foreign).unwrap();
		let state_path = dir.path().join("checkpoint/state.json");
		let state = std::fs::read_to_string(&state_path).unwrap();
		let state = state.replace(&sha256_hex(&bytes), &sha256_hex(&foreign));
		std::fs::write(&state_path, state).unwrap();
		let error = run.load_checkpoint().unwrap_err().to_string();
		assert!(
			error.contains("window.bin is corrupt: not stored samples"),
			"{error}"
		);

		// No state.json at all.
		std::fs::remove_file(&state_path).unwrap();
		let error = run.load_checkpoint().unwrap_err().to_string();
		assert!(error.contains("no state.json"), "{error}");
	}

	#[test]
	fn a_damaged_only_copy_stops_the_open() {
		let dir = TestDir::new("checkpoint-old-damaged");
		let run = RunDir::open(dir.path()).unwrap();
		run.save_checkpoint(&checkpoint(1)).unwrap();
		drop(run);
		let (current, _, old) = paths(dir.path());
		std::fs::rename(&current, &old).unwrap();
		std::fs::remove_file(old.join(ADAM_FILE)).unwrap();
		let error = RunDir::open(dir.path()).unwrap_err().to_string();
		assert!(
			error.contains("only copy of the last checkpoint"),
			"{error}"
		);
		assert!(old.join(NET_FILE).exists(), "nothing was deleted");
	}

	mod decoding {
		use proptest::prelude::*;

		use super::*;

		proptest! {
			// Each case opens a run directory on disk.
			#![proptest_config(ProptestConfig::with_cases(64))]

			/// A damaged state.json or file is an error when loading, never a panic, and opening
			/// the run directory never deletes the damaged checkpoint.
			#[test]
			fn damaged_checkpoints_never_panic(
				file in prop_oneof![Just(STATE_FILE), Just(WINDOW_FILE), Just(NET_FILE), Just(ADAM_FILE)],
				(at, byte, keep) in (any::<prop::sample::Index>(), any::<u8>(), any::<prop::sample::Index>()),
				json in prop_oneof![
					Just(None),
					"\\{\"format\": \"tigers-and-sheep-checkpoint\", \"version\": [0-9]{1,3}, \"[a-z_]{3,15}\": (-?[0-9]{1,25}|null|\"x\")\\}".prop_map(Some),
				],
			) {
				let dir = TestDir::new("checkpoint-fuzz");
				let run = RunDir::open(dir.path()).unwrap();
				run.save_checkpoint(&checkpoint(1)).unwrap();
				let path = dir.path().join(CURRENT).join(file);
				let mut bytes = std::fs::read(&path).unwrap();
				let index = at.index(bytes.len());
				bytes[index] = byte;
				bytes.truncate(keep.index(bytes.len() + 1));
				std::fs::write(&path, json.map_or(bytes, String::into_bytes)).unwrap();
				drop(run);
				let run = RunDir::open(dir.path()).unwrap();
				if let Ok(Some(loaded)) = run.load_checkpoint() {
					// The files are checked by their sha256: if it loads, they are the ones saved.
					let saved = checkpoint(1);
					prop_assert_eq!((loaded.net, loaded.adam, loaded.window), (saved.net, saved.adam, saved.window));
				}
				prop_assert!(path.exists());
			}
		}
	}
}
