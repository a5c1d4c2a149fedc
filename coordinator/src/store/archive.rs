//! `GameArchive`: every self-play game the run stores, kept in the run directory by generation
//! (`games/gen-000012.records.gz`, in the format of `tigers_proto::games`), for `tui --load`,
//! `zcat` and any script.
//!
//! **Exactly once.** A batch's games reach the ledger compressed, in the transaction that
//! stores its samples (`batch_games`), so a game is kept if and only if its batch was
//! acknowledged. Once a second, the archive's thread moves those gathered since to the
//! archive: it appends them to each generation's file (a batch's own gzip member, or a new one
//! for the games of a batch that straddles a promotion), syncs the files, and then, in one
//! transaction, deletes the batches' `batch_games` rows and records each file's new length and
//! count (`game_files`). A crash between the sync and the commit leaves a file
//! longer than its row; the next start cuts it back to the row's length (and deletes a file
//! without a row), and the games are written again from their batches. Compaction keeps a
//! batch row until its games are archived.
//!
//! **Pruning.** With a keep setting of N generations (`--keep-game-generations`; 0, the
//! default, keeps every game), the files of generations N or more below the newest promoted
//! one are deleted: the row is marked pruned first, then the file goes, so a crash between
//! leaves a file the next start deletes. Games of a pruned generation that arrive later (from
//! a worker still on an old net) are counted as pruned and not written.
//!
//! Ownership: the archive's thread (started by the committer) owns the `GameArchive` and is
//! its only writer; the counts are atomics that the progress snapshot reads, and whose
//! pending games the ledger's writer adds to, under the ledger's lock, as it commits.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use tigers_core::record::{generation_in, split_records};
use tigers_proto::games::{self, compress, file_name, generation_of};
use tigers_proto::v1;
use tracing::{info, warn};

use crate::clock::unix_now;
use crate::store::disk::{Disk, is_out_of_space};
use crate::store::ledger::{GameFileRow, Ledger, PendingGames};
use crate::store::storage_error::StorageError;

/// How often games are moved to the archive. A round costs two syncs (the files, then the
/// ledger's commit), so it comes once a second and takes what has gathered.
const ARCHIVE_EVERY: Duration = Duration::from_secs(1);

/// The most batches one round moves: more than ten seconds of the ingest measured at 1,000
/// sessions (about 3,000 batches a second), some 60 MB of text for a round that catches up
/// after a restart.
const ARCHIVE_CHUNK: usize = 32_768;

/// What the archive holds, for the progress snapshot; written by the committer's thread only.
#[derive(Debug, Default)]
pub(crate) struct ArchiveCounts {
	/// Games in the archive's kept files.
	pub archived: AtomicU64,
	/// Games stored in the ledger and not yet written to the archive.
	pub pending: AtomicU64,
	/// Games deleted, or never written, because of the keep setting.
	pub pruned: AtomicU64,
	/// The kept files.
	pub files: AtomicU64,
	/// Their bytes, compressed.
	pub bytes: AtomicU64,
}

impl ArchiveCounts {
	/// The counts as the progress snapshot shows them, with the keep setting.
	pub(crate) fn summary(&self, keep_generations: u64) -> v1::GameArchive {
		let archived = self.archived.load(Ordering::Relaxed);
		let pending = self.pending.load(Ordering::Relaxed);
		v1::GameArchive {
			kept: archived + pending,
			pending,
			pruned: self.pruned.load(Ordering::Relaxed),
			files: self.files.load(Ordering::Relaxed),
			bytes: self.bytes.load(Ordering::Relaxed),
			keep_generations,
		}
	}
}

/// The run's game archive (see the module's documentation).
#[derive(Debug)]
pub(crate) struct GameArchive {
	dir: PathBuf,
	keep_generations: u64,
	counts: Arc<ArchiveCounts>,
	/// Every generation's file as the ledger has it, once [`GameArchive::open`] has read them.
	files: BTreeMap<u64, GameFileRow>,
	opened: bool,
	/// Every batch below this id is archived.
	next_id: i64,
}

impl GameArchive {
	/// The archive in `dir`, keeping the newest `keep_generations` generations' games (every
	/// game if 0). Nothing is read before the first [`GameArchive::work`].
	pub(crate) fn new(dir: PathBuf, keep_generations: u64) -> GameArchive {
		GameArchive {
			dir,
			keep_generations,
			counts: Arc::default(),
			files: BTreeMap::new(),
			opened: false,
			next_id: 0,
		}
	}

	/// The counts, shared with whoever shows them.
	pub(crate) fn counts(&self) -> Arc<ArchiveCounts> {
		self.counts.clone()
	}

	/// The keep setting: generations kept, 0 for all.
	pub(crate) fn keep_generations(&self) -> u64 {
		self.keep_generations
	}

	/// Starts the thread that moves stored games here once every [`ARCHIVE_EVERY`] (at once
	/// again while a round fills its chunk), off the ledger's writer: sessions wait for the
	/// writer's commits, so its time is ingest's. The thread takes the ledger's lock only to
	/// read the games and to record them archived (a failure is logged, and the games wait in
	/// the ledger for the next round; while `disk` is short of space it does nothing);
	/// dropping the returned sender stops it after a last round.
	pub(crate) fn spawn(
		mut self,
		ledger: Arc<Mutex<Ledger>>,
		disk: Arc<Disk>,
	) -> Result<(Sender<()>, JoinHandle<()>), std::io::Error> {
		let (stop, stopping) = channel::<()>();
		let thread = std::thread::Builder::new()
			.name("archive".into())
			.spawn(move || {
				let mut wait = Duration::ZERO;
				loop {
					let last = matches!(
						stopping.recv_timeout(wait),
						Err(RecvTimeoutError::Disconnected)
					);
					if disk.is_low() {
						// The games wait in the ledger until space returns.
						wait = ARCHIVE_EVERY;
						if last {
							break;
						}
						continue;
					}
					wait = match self.work(&ledger, ARCHIVE_CHUNK) {
						Ok(written) if written >= ARCHIVE_CHUNK => Duration::ZERO,
						Ok(_) => ARCHIVE_EVERY,
						Err(e) if is_out_of_space(&e) => {
							disk.write_failed("writing games to the archive");
							ARCHIVE_EVERY
						}
						Err(e) => {
							warn!(%e, "writing games to the archive failed; trying again later");
							ARCHIVE_EVERY
						}
					};
					if last {
						break;
					}
				}
			})?;
		Ok((stop, thread))
	}

	/// One round: brings the files in line with the ledger if this is the first, writes the
	/// games of at most `limit` batches, and prunes. How many batches' games it wrote; as
	/// many as `limit` means more may wait.
	pub(crate) fn work(
		&mut self,
		ledger: &Mutex<Ledger>,
		limit: usize,
	) -> Result<usize, StorageError> {
		if !self.opened {
			self.open(&mut lock(ledger))?;
			self.opened = true;
		}
		let latest = lock(ledger).latest_generation()?;
		let written = self.archive_some(ledger, limit, latest)?;
		self.prune(ledger, latest)?;
		Ok(written)
	}

	/// Reads the files' rows and cuts each file back to what the ledger says it holds: longer
	/// means written but never committed, missing means deleted by hand (counted as pruned).
	fn open(&mut self, ledger: &mut Ledger) -> Result<(), StorageError> {
		std::fs::create_dir_all(&self.dir)
			.map_err(StorageError::io(&self.dir, "creating the game archive"))?;
		self.files = ledger
			.game_files()?
			.into_iter()
			.map(|row| (row.generation, row))
			.collect();
		let mut changed = Vec::new();
		for row in self.files.values_mut() {
			if reconcile(&self.dir, row)? {
				changed.push(*row);
			}
		}
		for generation in self.unknown_files()? {
			let path = self.dir.join(file_name(generation));
			info!(path = %path.display(), "deleting games written but never committed");
			remove(&path)?;
		}
		if !changed.is_empty() {
			ledger.begin()?;
			let put = changed.iter().try_for_each(|row| ledger.put_game_file(row));
			match put {
				Ok(()) => ledger.commit()?,
				Err(e) => {
					ledger.rollback();
					return Err(e);
				}
			}
		}
		self.counts
			.pending
			.store(ledger.pending_game_count()?, Ordering::Relaxed);
		self.publish_counts();
		Ok(())
	}

	/// Generations with a file in the directory and no row.
	fn unknown_files(&self) -> Result<Vec<u64>, StorageError> {
		let entries = std::fs::read_dir(&self.dir)
			.map_err(StorageError::io(&self.dir, "listing the game archive"))?;
		let mut unknown = Vec::new();
		for entry in entries {
			let entry = entry.map_err(StorageError::io(&self.dir, "listing the game archive"))?;
			let name = entry.file_name();
			if let Some(generation) = name.to_str().and_then(generation_of)
				&& !self.files.contains_key(&generation)
			{
				unknown.push(generation);
			}
		}
		Ok(unknown)
	}

	/// Writes the games of at most `limit` pending batches, then records them as archived;
	/// if either fails, the files are cut back to where they were and nothing is recorded.
	fn archive_some(
		&mut self,
		ledger: &Mutex<Ledger>,
		limit: usize,
		latest: Option<u64>,
	) -> Result<usize, StorageError> {
		let pending = lock(ledger).pending_games(self.next_id, limit)?;
		if pending.is_empty() {
			return Ok(0);
		}
		let texts = decompressed(&pending);
		let by_generation = sort_by_generation(&pending, &texts);
		let before = self.files.clone();
		let written = self.append(&by_generation, latest).and_then(|changed| {
			let ids: Vec<i64> = pending.iter().map(|batch| batch.id).collect();
			record_archived(&mut lock(ledger), &ids, &changed)
		});
		if let Err(e) = written {
			self.cut_back(&before);
			self.files = before;
			return Err(e);
		}
		self.next_id = pending.last().map_or(self.next_id, |batch| batch.id + 1);
		let games: u64 = pending.iter().map(|batch| batch.game_count).sum();
		// The ledger's writer adds to the count as it commits, from its own thread.
		let _ = self
			.counts
			.pending
			.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |pending| {
				Some(pending.saturating_sub(games))
			});
		self.publish_counts();
		Ok(pending.len())
	}

	/// Appends each generation's games to its file and syncs it, or counts them as pruned if
	/// the generation is; the rows that changed.
	fn append(
		&mut self,
		by_generation: &BTreeMap<u64, ToWrite<'_>>,
		latest: Option<u64>,
	) -> Result<Vec<GameFileRow>, StorageError> {
		let mut changed = Vec::new();
		for (&generation, to_write) in by_generation {
			let row = self.files.entry(generation).or_insert(GameFileRow {
				generation,
				bytes: 0,
				games: 0,
				pruned_at: None,
			});
			let is_pruned = row.pruned_at.is_some()
				|| is_past_keeping(generation, latest, self.keep_generations);
			if is_pruned {
				row.pruned_at.get_or_insert_with(unix_now);
			} else {
				let bytes = to_write.bytes();
				append_synced(&self.dir.join(file_name(generation)), &bytes)?;
				row.bytes += bytes.len() as u64;
			}
			row.games += to_write.games;
			changed.push(*row);
		}
		Ok(changed)
	}

	/// Cuts every file back to its length in `before` (deleting those it did not have), after
	/// a write or commit failed; a failure here is only logged, and the next start cuts again.
	fn cut_back(&self, before: &BTreeMap<u64, GameFileRow>) {
		for (generation, row) in &self.files {
			let path = self.dir.join(file_name(*generation));
			let cut = match before.get(generation) {
				Some(old) if old.pruned_at.is_none() && old.bytes != row.bytes => {
					truncate(&path, old.bytes)
				}
				None if row.pruned_at.is_none() => remove(&path),
				_ => Ok(()),
			};
			if let Err(e) = cut {
				warn!(%e, "cannot cut an archive file back; the next start does");
			}
		}
	}

	/// Deletes the files of generations past keeping: marked in the ledger first, then gone.
	fn prune(&mut self, ledger: &Mutex<Ledger>, latest: Option<u64>) -> Result<(), StorageError> {
		let now = unix_now();
		let doomed: Vec<GameFileRow> = self
			.files
			.values()
			.filter(|row| row.pruned_at.is_none())
			.filter(|row| is_past_keeping(row.generation, latest, self.keep_generations))
			.map(|row| GameFileRow {
				pruned_at: Some(now),
				..*row
			})
			.collect();
		if doomed.is_empty() {
			return Ok(());
		}
		record_archived(&mut lock(ledger), &[], &doomed)?;
		for row in doomed {
			self.files.insert(row.generation, row);
			let path = self.dir.join(file_name(row.generation));
			info!(path = %path.display(), games = row.games, "pruning a generation's games");
			remove(&path)?;
		}
		self.publish_counts();
		Ok(())
	}

	/// Copies the files' totals into the counts.
	fn publish_counts(&self) {
		let kept = self.files.values().filter(|row| row.pruned_at.is_none());
		let (mut files, mut bytes, mut archived) = (0, 0, 0);
		for row in kept {
			files += 1;
			bytes += row.bytes;
			archived += row.games;
		}
		let pruned = self
			.files
			.values()
			.filter(|row| row.pruned_at.is_some())
			.map(|row| row.games)
			.sum();
		let counts = &self.counts;
		counts.files.store(files, Ordering::Relaxed);
		counts.bytes.store(bytes, Ordering::Relaxed);
		counts.archived.store(archived, Ordering::Relaxed);
		counts.pruned.store(pruned, Ordering::Relaxed);
	}
}

/// Whether `generation`'s games are past keeping: `keep` generations or more below `latest`
/// (never, with `keep` 0 or no generation yet).
fn is_past_keeping(generation: u64, latest: Option<u64>, keep: u64) -> bool {
	keep > 0 && latest.is_some_and(|latest| generation.saturating_add(keep) <= latest)
}

/// Each pending batch's records as text, in `pending`'s order; `None` for a batch whose games
/// do not decompress (damaged on disk), left out with a warning rather than holding up every
/// batch after it.
fn decompressed(pending: &[PendingGames]) -> Vec<Option<String>> {
	pending
		.iter()
		.map(|batch| match games::records_text(&batch.games) {
			Ok(text) => Some(text),
			Err(e) => {
				warn!(batch = batch.id, %e, "a batch's games are damaged in the ledger; skipped");
				None
			}
		})
		.collect()
}

/// What a round writes to one generation's file: the stored members of batches whose games
/// are all of that generation, appended as they are, and the records of batches that straddle
/// a promotion, compressed into one new member. Compressing again costs about as much as the
/// first compression (`cargo bench -p tigers-proto`, docs/benchmarks.md), and nearly every
/// batch is of one generation.
#[derive(Debug, Default)]
struct ToWrite<'a> {
	members: Vec<&'a [u8]>,
	records: Vec<&'a str>,
	games: u64,
}

impl ToWrite<'_> {
	/// The bytes to append.
	fn bytes(&self) -> Vec<u8> {
		let mut bytes = self.members.concat();
		if !self.records.is_empty() {
			bytes.extend(compress(self.records.iter().copied()));
		}
		bytes
	}
}

/// The games of `pending` (with their `texts`), by the generation each record names (else its
/// batch's oldest, else 0), in order.
fn sort_by_generation<'a>(
	pending: &'a [PendingGames],
	texts: &'a [Option<String>],
) -> BTreeMap<u64, ToWrite<'a>> {
	let mut by_generation: BTreeMap<u64, ToWrite<'a>> = BTreeMap::new();
	for (batch, text) in pending.iter().zip(texts) {
		let Some(text) = text else {
			continue;
		};
		let fallback = batch.generation_min.unwrap_or(0);
		let records: Vec<(u64, &str)> = split_records(text)
			.map(|record| (generation_in(record).unwrap_or(fallback), record))
			.collect();
		let Some(&(first, _)) = records.first() else {
			continue;
		};
		if records.iter().all(|&(generation, _)| generation == first) {
			let to_write = by_generation.entry(first).or_default();
			to_write.members.push(&batch.games);
			to_write.games += records.len() as u64;
		} else {
			for (generation, record) in records {
				let to_write = by_generation.entry(generation).or_default();
				to_write.records.push(record);
				to_write.games += 1;
			}
		}
	}
	by_generation
}

/// Records the batches `ids` as archived and `rows` as the files' rows, in a transaction.
fn record_archived(
	ledger: &mut Ledger,
	ids: &[i64],
	rows: &[GameFileRow],
) -> Result<(), StorageError> {
	ledger.begin()?;
	if let Err(e) = ledger.record_archived(ids, rows) {
		ledger.rollback();
		return Err(e);
	}
	ledger.commit()
}

/// Brings a kept file in line with its row; whether the row changed.
fn reconcile(dir: &Path, row: &mut GameFileRow) -> Result<bool, StorageError> {
	let path = dir.join(file_name(row.generation));
	if row.pruned_at.is_some() {
		remove(&path)?;
		return Ok(false);
	}
	let length = match std::fs::metadata(&path) {
		Ok(metadata) => metadata.len(),
		Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
			warn!(path = %path.display(), games = row.games,
				"a generation's game file is missing; its games are counted as pruned");
			row.pruned_at = Some(unix_now());
			return Ok(true);
		}
		Err(e) => return Err(StorageError::io(&path, "reading the length of")(e)),
	};
	if length > row.bytes {
		info!(path = %path.display(), "cutting back games written but never committed");
		truncate(&path, row.bytes)?;
	} else if length < row.bytes {
		warn!(path = %path.display(), length, expected = row.bytes,
			"a generation's game file is shorter than the ledger says; its last games are lost");
		row.bytes = length;
		return Ok(true);
	}
	Ok(false)
}

/// Appends `bytes` to the file at `path` (created if missing) and syncs it.
fn append_synced(path: &Path, bytes: &[u8]) -> Result<(), StorageError> {
	let mut file = OpenOptions::new()
		.create(true)
		.append(true)
		.open(path)
		.map_err(StorageError::io(path, "opening for appending"))?;
	file.write_all(bytes)
		.map_err(StorageError::io(path, "appending games to"))?;
	file.sync_data().map_err(StorageError::io(path, "syncing"))
}

/// Cuts the file at `path` to `length` bytes and syncs it.
fn truncate(path: &Path, length: u64) -> Result<(), StorageError> {
	let file = OpenOptions::new()
		.write(true)
		.open(path)
		.map_err(StorageError::io(path, "opening to cut back"))?;
	file.set_len(length)
		.map_err(StorageError::io(path, "cutting back"))?;
	file.sync_data().map_err(StorageError::io(path, "syncing"))
}

/// Deletes the file at `path`, if it is there.
fn remove(path: &Path) -> Result<(), StorageError> {
	match std::fs::remove_file(path) {
		Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
			Err(StorageError::io(path, "deleting")(e))
		}
		_ => Ok(()),
	}
}

fn lock(ledger: &Mutex<Ledger>) -> MutexGuard<'_, Ledger> {
	// As the committer's own lock: a panic mid-write leaves SQLite to roll back.
	ledger
		.lock()
		.unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
