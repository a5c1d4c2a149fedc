//! `Spool`: the on-disk queue of sample batches the coordinator has not acknowledged yet, and
//! the next sequence number.
//!
//! Layout of the spool directory:
//!
//! - `00000000000000000042.batch`: batch 42 in the wire encoding ([`tigers_proto::encode_batch`]);
//!   zero-padded so that names sort as numbers;
//! - `next_sequence`: the sequence number the next batch gets, as decimal text;
//! - `run`: the run the batches were played for (the coordinator's run id), absent until the
//!   first join (and in a spool written before run ids, which adopts the first run it joins);
//! - `*.tmp`: a write in progress; removed when the spool is opened.
//!
//! A batch is written to a temporary file, synced, renamed into place and the directory synced,
//! all before [`Spool::push`] returns: so a batch is either wholly on disk or not at all, and
//! once the worker may send it, it survives a crash. Deleting after an acknowledgement is not
//! synced: a deletion lost in a crash only makes the worker send the batch again, which the
//! coordinator drops as a duplicate.
//!
//! The counter file is rewritten after each batch. On opening, the next sequence is the larger
//! of the counter and one past the highest batch present, so a crash between writing a batch
//! and the counter neither reuses nor skips a number. A batch's sequence is its file's name;
//! the one encoded inside is replaced by it when the batch is read, so renumbering is renaming.
//!
//! The coordinator takes a worker's batches only in order, one above the last it dealt with
//! (the `last_acked_sequence` of a join). [`Spool::acknowledge_through`] keeps the spool in step
//! with it: it deletes what the coordinator has, renumbers the rest to follow on without a gap
//! (a batch set aside as corrupt leaves one), and never deletes a batch on the word of a
//! coordinator that claims more than this spool ever numbered.
//!
//! Runs: every batch is played for one run and names it. The spool holds one run's batches:
//! [`Spool::push`] refuses a batch of another run, and when a join answers with another run
//! than the spool's, [`Spool::begin_run`] sets the whole spool aside in one rename (see
//! `spool::aside`) and starts an empty one for the new run, numbered after what the new run has.
//!
//! Concurrency: one `Spool` is shared by the batcher thread (which pushes) and the session
//! (which reads, and removes on acknowledgement). The index (the sequences present and the next
//! number) has its own mutex, never held across disk I/O, so the queries that touch only the
//! index ([`Spool::len`], [`Spool::sequences_after`], ...) are quick enough for async code. The
//! writer mutex serialises the operations that hand out or move the sequence counter, so numbers
//! go out in order. A batch enters the index only once its file is durable and leaves it before
//! its file is deleted. The other operations do disk I/O: call them from plain threads or
//! `spawn_blocking`.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use thiserror::Error;
use tigers_proto::v1::SampleBatch;
use tigers_proto::{decode_batch, encode_batch, is_run_id};

pub use self::aside::KEEP_SET_ASIDE;

mod aside;

const BATCH_EXTENSION: &str = "batch";
const TEMP_EXTENSION: &str = "tmp";
const CORRUPT_EXTENSION: &str = "corrupt";
const COUNTER_FILE: &str = "next_sequence";
const RUN_FILE: &str = "run";

/// Why a spool operation failed.
#[derive(Debug, Error)]
pub enum SpoolError {
	/// Reading or writing a file failed.
	#[error("spool {path}: {source}")]
	Io {
		/// The file or directory.
		path: PathBuf,
		/// What the system said.
		source: std::io::Error,
	},
	/// The spool already holds its capacity.
	#[error("the spool is full ({capacity} batches wait for an acknowledgement)")]
	Full {
		/// Its capacity.
		capacity: usize,
	},
	/// A file does not hold what its name says; it was renamed to `*.corrupt` and left out.
	#[error("spool {path}: {reason}; set aside as .corrupt")]
	Corrupt {
		/// The file (before renaming).
		path: PathBuf,
		/// What is wrong.
		reason: String,
	},
	/// A batch played for another run than the spool's: not spooled.
	#[error("the batch was played for run {batch_run:?}, but the spool holds run {spool_run}'s")]
	OtherRun {
		/// The batch's run.
		batch_run: String,
		/// The spool's run.
		spool_run: String,
	},
	/// The coordinator claims batches this spool never numbered; nothing was deleted.
	#[error(
		"the coordinator says it has this worker's batches up to {last_acked}, but this worker \
		 has numbered only {numbered}: the coordinator's ledger is not the one this worker sent \
		 to, or this state directory is older than the worker's; the spool's {spooled} batches \
		 are kept and not sent"
	)]
	CoordinatorAhead {
		/// What the coordinator claims.
		last_acked: u64,
		/// The highest sequence this spool gave out.
		numbered: u64,
		/// Batches waiting.
		spooled: usize,
	},
}

/// What [`Spool::acknowledge_through`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acknowledged {
	/// Batches deleted: the coordinator has them.
	pub deleted: usize,
	/// Batches given new numbers to follow on from the coordinator's last without a gap.
	pub renumbered: usize,
}

/// What [`Spool::begin_run`] set aside: a spool of another run, moved whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetAside {
	/// The run its batches were played for.
	pub run: String,
	/// Batches in it.
	pub batches: usize,
	/// Where it is now.
	pub path: PathBuf,
}

/// The batches on disk and the next sequence number; see the [module docs](self).
#[derive(Debug)]
pub struct Spool {
	dir: PathBuf,
	capacity: usize,
	index: Mutex<Index>,
	/// Held by [`Spool::push`] and [`Spool::acknowledge_through`], which write the counter.
	writer: Mutex<()>,
	/// Signalled whenever a batch is removed, for [`Spool::wait_for_room`].
	room: Condvar,
}

#[derive(Debug)]
struct Index {
	sequences: BTreeSet<u64>,
	next_sequence: u64,
	/// The run the batches belong to; `None` until the first [`Spool::begin_run`].
	run: Option<String>,
}

impl Spool {
	/// Opens (creating if needed) the spool in `dir`, holding at most `capacity` batches.
	/// Removes unfinished writes; files it cannot read are an error.
	pub fn open(dir: &Path, capacity: usize) -> Result<Spool, SpoolError> {
		fs::create_dir_all(dir).map_err(io_error(dir))?;
		let mut sequences = BTreeSet::new();
		for entry in fs::read_dir(dir).map_err(io_error(dir))? {
			let path = entry.map_err(io_error(dir))?.path();
			match path.extension().and_then(|e| e.to_str()) {
				Some(TEMP_EXTENSION) => fs::remove_file(&path).map_err(io_error(&path))?,
				Some(BATCH_EXTENSION) => {
					sequences.insert(sequence_of(&path)?);
				}
				_ => {}
			}
		}
		let counter = read_counter(&dir.join(COUNTER_FILE))?;
		let past_files = sequences.last().map_or(1, |last| last + 1);
		let run = read_run(&dir.join(RUN_FILE))?;
		aside::prune(&aside::aside_root(dir), aside::unix_now(), KEEP_SET_ASIDE);
		Ok(Spool {
			dir: dir.to_path_buf(),
			capacity,
			index: Mutex::new(Index {
				sequences,
				next_sequence: counter.max(past_files),
				run,
			}),
			writer: Mutex::new(()),
			room: Condvar::new(),
		})
	}

	/// The directory.
	pub fn dir(&self) -> &Path {
		&self.dir
	}

	/// The most batches the spool holds.
	pub fn capacity(&self) -> usize {
		self.capacity
	}

	/// Batches waiting for an acknowledgement.
	pub fn len(&self) -> usize {
		self.lock().sequences.len()
	}

	/// Whether no batch waits.
	pub fn is_empty(&self) -> bool {
		self.lock().sequences.is_empty()
	}

	/// Whether another batch fits.
	pub fn has_room(&self) -> bool {
		self.lock().sequences.len() < self.capacity
	}

	/// The run the spooled batches were played for; `None` before the first join.
	pub fn run_id(&self) -> Option<String> {
		self.lock().run.clone()
	}

	/// The sequence number the next batch will get.
	pub fn next_sequence(&self) -> u64 {
		self.lock().next_sequence
	}

	/// The sequence numbers waiting above `after`, in order.
	pub fn sequences_after(&self, after: u64) -> Vec<u64> {
		self.lock()
			.sequences
			.range(after.saturating_add(1)..)
			.copied()
			.collect()
	}

	/// Gives `batch` the next sequence number and writes it durably; returns the number.
	/// [`SpoolError::Full`] if the spool holds its capacity. On an error the batch is not
	/// spooled and may be pushed again.
	pub fn push(&self, batch: &mut SampleBatch) -> Result<u64, SpoolError> {
		let _writer = lock(&self.writer);
		let sequence = {
			let index = self.lock();
			if let Some(run) = &index.run
				&& *run != batch.run_id
			{
				return Err(SpoolError::OtherRun {
					batch_run: batch.run_id.clone(),
					spool_run: run.clone(),
				});
			}
			if index.sequences.len() >= self.capacity {
				return Err(SpoolError::Full {
					capacity: self.capacity,
				});
			}
			index.next_sequence
		};
		batch.sequence = sequence;
		write_durably(&self.batch_path(sequence), &encode_batch(batch))?;
		{
			let mut index = self.lock();
			index.sequences.insert(sequence);
			index.next_sequence = sequence + 1;
		}
		// The batch is safely spooled whatever happens to the counter: opening the spool again
		// also counts past the highest batch present, so a failure here is only logged.
		if let Err(error) = self.write_counter(sequence + 1) {
			tracing::warn!(%error, "could not update the spool's sequence counter");
		}
		Ok(sequence)
	}

	/// Reads batch `sequence`; `None` if it is not spooled (acknowledged in the meantime).
	/// A file that does not decode is set aside as `*.corrupt` and reported.
	pub fn read(&self, sequence: u64) -> Result<Option<SampleBatch>, SpoolError> {
		if !self.lock().sequences.contains(&sequence) {
			return Ok(None);
		}
		let path = self.batch_path(sequence);
		let bytes = match fs::read(&path) {
			Ok(bytes) => bytes,
			// Removed since the check above: acknowledged.
			Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
			Err(source) => return Err(SpoolError::Io { path, source }),
		};
		let reason = match decode_batch(&bytes) {
			// The name says which batch it is; the number inside may be from before a renumbering.
			// A batch spooled before run ids names none: it belongs to the spool's run.
			Ok(mut batch) => {
				if batch.run_id.is_empty() {
					batch.run_id = self.run_id().unwrap_or_default();
				}
				return Ok(Some(SampleBatch { sequence, ..batch }));
			}
			Err(error) => format!("does not decode: {error}"),
		};
		self.forget(&[sequence]);
		let aside = path.with_extension(CORRUPT_EXTENSION);
		fs::rename(&path, &aside).map_err(io_error(&path))?;
		Err(SpoolError::Corrupt { path, reason })
	}

	/// Deletes batch `sequence` after its acknowledgement; whether it was spooled.
	pub fn remove(&self, sequence: u64) -> Result<bool, SpoolError> {
		if !self.forget(&[sequence]) {
			return Ok(false);
		}
		remove_if_present(&self.batch_path(sequence))?;
		Ok(true)
	}

	/// Makes `run` the spool's run, as a join answered it, before any batch is sent. A spool of
	/// that run, or of none yet, keeps its batches (a spool from before run ids adopts the first
	/// run it joins). A spool of another run is set aside whole, in one rename, and an empty
	/// one takes its place, numbering from `last_acked + 1` (the new run's count for this
	/// identity): its batches are never sent to `run`. A crash part-way leaves either the old
	/// spool, or none, which opens empty and adopts the run of the next join.
	pub fn begin_run(&self, run: &str, last_acked: u64) -> Result<Option<SetAside>, SpoolError> {
		let _writer = lock(&self.writer);
		let (old, batches) = {
			let index = self.lock();
			(index.run.clone(), index.sequences.len())
		};
		let Some(old) = old.filter(|old| old != run) else {
			if self.lock().run.is_none() {
				write_durably(&self.dir.join(RUN_FILE), format!("{run}\n").as_bytes())?;
				self.lock().run = Some(run.to_string());
			}
			return Ok(None);
		};
		let root = aside::aside_root(&self.dir);
		let now = aside::unix_now();
		aside::prune(&root, now, KEEP_SET_ASIDE);
		fs::create_dir_all(&root).map_err(io_error(&root))?;
		let path = aside::new_folder(&root, now, &old);
		fs::rename(&self.dir, &path).map_err(io_error(&self.dir))?;
		sync_dir(&root)?;
		{
			let mut index = self.lock();
			index.sequences.clear();
			index.run = None;
			self.room.notify_all();
		}
		fs::create_dir(&self.dir).map_err(io_error(&self.dir))?;
		self.set_next_sequence(last_acked.saturating_add(1))?;
		write_durably(&self.dir.join(RUN_FILE), format!("{run}\n").as_bytes())?;
		self.lock().run = Some(run.to_string());
		Ok(Some(SetAside {
			run: old,
			batches,
			path,
		}))
	}

	/// Moves batch `sequence`, which the coordinator refused as another run's, out of the
	/// spool into a folder of refused batches beside it; returns where it went, or `None` if it
	/// was not spooled. Like any batch that is gone, it leaves a gap that the next join closes.
	pub fn set_aside(&self, sequence: u64) -> Result<Option<PathBuf>, SpoolError> {
		if !self.forget(&[sequence]) {
			return Ok(None);
		}
		let root = aside::aside_root(&self.dir);
		let folder = aside::new_folder(&root, aside::unix_now(), "refused");
		fs::create_dir_all(&folder).map_err(io_error(&folder))?;
		let from = self.batch_path(sequence);
		let to = folder.join(from.file_name().expect("a batch file has a name"));
		fs::rename(&from, &to).map_err(io_error(&from))?;
		sync_dir(&folder)?;
		Ok(Some(to))
	}

	/// Brings the spool in step with a coordinator that has dealt with this worker's batches up
	/// to `last_acked` and takes the one above next: deletes every batch at or below it,
	/// renumbers the others from `last_acked + 1` on if they do not follow on (renaming them in
	/// ascending order, so a crash part-way leaves every batch once), and numbers new batches
	/// after them.
	///
	/// A `last_acked` at or above the next sequence this spool would give claims batches it
	/// never numbered. With batches waiting that is [`SpoolError::CoordinatorAhead`] and
	/// nothing changes; with none, new batches are numbered above it, as nothing can be lost.
	pub fn acknowledge_through(&self, last_acked: u64) -> Result<Acknowledged, SpoolError> {
		let _writer = lock(&self.writer);
		let (next_sequence, spooled) = {
			let index = self.lock();
			(index.next_sequence, index.sequences.len())
		};
		if last_acked >= next_sequence {
			if spooled > 0 {
				return Err(SpoolError::CoordinatorAhead {
					last_acked,
					numbered: next_sequence - 1,
					spooled,
				});
			}
			tracing::warn!(
				last_acked,
				next_sequence,
				"the coordinator has batches numbered above this worker's counter; skipping ahead"
			);
			self.set_next_sequence(last_acked.saturating_add(1))?;
			return Ok(Acknowledged::default());
		}
		let acked: Vec<u64> = self
			.lock()
			.sequences
			.range(..=last_acked)
			.copied()
			.collect();
		self.forget(&acked);
		for sequence in &acked {
			remove_if_present(&self.batch_path(*sequence))?;
		}
		let renumbered = self.follow_on(last_acked + 1)?;
		Ok(Acknowledged {
			deleted: acked.len(),
			renumbered,
		})
	}

	/// Renumbers the waiting batches from `first` on, in order, and the counter after them, if
	/// they do not already follow on from `first`; returns how many batches moved.
	fn follow_on(&self, first: u64) -> Result<usize, SpoolError> {
		let waiting: Vec<u64> = self.lock().sequences.iter().copied().collect();
		let next = first + waiting.len() as u64;
		if waiting.first().is_none_or(|lowest| *lowest == first) && next == self.next_sequence() {
			return Ok(0);
		}
		let mut moved = 0;
		for (new, old) in (first..).zip(&waiting) {
			if new == *old {
				continue;
			}
			// Every number below `old` that is still in use is below `new` by now.
			let (from, to) = (self.batch_path(*old), self.batch_path(new));
			fs::rename(&from, &to).map_err(io_error(&from))?;
			let mut index = self.lock();
			index.sequences.remove(old);
			index.sequences.insert(new);
			moved += 1;
		}
		sync_dir(&self.dir)?;
		tracing::warn!(
			first,
			moved,
			"the spool's batches did not follow on from the coordinator's last; renumbered"
		);
		self.set_next_sequence(next)?;
		Ok(moved)
	}

	/// Makes `next` the sequence the next batch gets, in the index and the counter file.
	fn set_next_sequence(&self, next: u64) -> Result<(), SpoolError> {
		self.lock().next_sequence = next;
		self.write_counter(next)
	}

	/// Takes `sequences` out of the index and wakes whoever waits for room; whether any was
	/// there.
	fn forget(&self, sequences: &[u64]) -> bool {
		let mut index = self.lock();
		let mut any = false;
		for sequence in sequences {
			any |= index.sequences.remove(sequence);
		}
		if any {
			self.room.notify_all();
		}
		any
	}

	/// Waits up to `timeout` for room for another batch; whether there is room.
	pub fn wait_for_room(&self, timeout: Duration) -> bool {
		let index = self.lock();
		let (index, _) = self
			.room
			.wait_timeout_while(index, timeout, |index| {
				index.sequences.len() >= self.capacity
			})
			.unwrap_or_else(std::sync::PoisonError::into_inner);
		index.sequences.len() < self.capacity
	}

	fn lock(&self) -> MutexGuard<'_, Index> {
		lock(&self.index)
	}

	fn batch_path(&self, sequence: u64) -> PathBuf {
		self.dir.join(format!("{sequence:020}.{BATCH_EXTENSION}"))
	}

	fn write_counter(&self, next: u64) -> Result<(), SpoolError> {
		write_durably(&self.dir.join(COUNTER_FILE), format!("{next}\n").as_bytes())
	}
}

/// Locks `mutex`. Every operation changes the index in single steps that leave it consistent
/// with the files, so a lock poisoned by a panic elsewhere still guards a usable index.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
	mutex
		.lock()
		.unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SpoolError + '_ {
	move |source| SpoolError::Io {
		path: path.to_path_buf(),
		source,
	}
}

/// The sequence number a batch file's name gives.
fn sequence_of(path: &Path) -> Result<u64, SpoolError> {
	path.file_stem()
		.and_then(|stem| stem.to_str())
		.and_then(|stem| stem.parse().ok())
		.filter(|sequence| *sequence > 0)
		.ok_or_else(|| SpoolError::Corrupt {
			path: path.to_path_buf(),
			reason: "the name is not a sequence number".into(),
		})
}

/// The run a spool's `run` file names; `None` if there is no file.
fn read_run(path: &Path) -> Result<Option<String>, SpoolError> {
	match fs::read_to_string(path) {
		Ok(text) if is_run_id(text.trim_end()) => Ok(Some(text.trim_end().to_string())),
		Ok(text) => Err(SpoolError::Corrupt {
			path: path.to_path_buf(),
			reason: format!("{:?} is not a run id", text.trim_end()),
		}),
		Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
		Err(source) => Err(SpoolError::Io {
			path: path.to_path_buf(),
			source,
		}),
	}
}

/// The counter's value, 1 if there is no counter yet.
fn read_counter(path: &Path) -> Result<u64, SpoolError> {
	match fs::read_to_string(path) {
		Ok(text) => text
			.trim()
			.parse()
			.ok()
			.filter(|next| *next > 0)
			.ok_or_else(|| SpoolError::Corrupt {
				path: path.to_path_buf(),
				reason: format!("{:?} is not a sequence number", text.trim()),
			}),
		Err(error) if error.kind() == ErrorKind::NotFound => Ok(1),
		Err(source) => Err(SpoolError::Io {
			path: path.to_path_buf(),
			source,
		}),
	}
}

/// Writes `bytes` to `path` so that after a crash the file holds either its old content or all
/// of `bytes`: a synced temporary file renamed into place, then the directory synced so the
/// rename itself is on disk.
pub(crate) fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), SpoolError> {
	let temp = path.with_extension(TEMP_EXTENSION);
	let write = || -> std::io::Result<()> {
		let mut file = File::create(&temp)?;
		file.write_all(bytes)?;
		file.sync_all()
	};
	if let Err(source) = write() {
		let _ = fs::remove_file(&temp);
		return Err(SpoolError::Io { path: temp, source });
	}
	fs::rename(&temp, path).map_err(io_error(path))?;
	sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Syncs a directory, so that files renamed in it stay so after a crash.
fn sync_dir(dir: &Path) -> Result<(), SpoolError> {
	File::open(dir)
		.and_then(|dir| dir.sync_all())
		.map_err(io_error(dir))
}

fn remove_if_present(path: &Path) -> Result<(), SpoolError> {
	match fs::remove_file(path) {
		Err(error) if error.kind() != ErrorKind::NotFound => Err(SpoolError::Io {
			path: path.to_path_buf(),
			source: error,
		}),
		_ => Ok(()),
	}
}

#[cfg(test)]
mod tests;
