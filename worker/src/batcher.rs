//! The batcher: a plain thread that gathers finished games into sample batches and writes each
//! to the spool (durably, before the session may send it), then tells the session.
//!
//! A batch holds `games_per_batch` games, or fewer when more would pass the wire's limits. When
//! the spool is full the batcher waits for room; the game channel then fills and the self-play
//! threads block on it, so self-play pauses and no game is dropped. On stop it drains the
//! channel and spools what it has as a last, shorter batch.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tigers_core::selfplay::SelfPlayGame;
use tigers_proto::convert::sample_to_wire;
use tigers_proto::v1::SampleBatch;
use tokio::sync::Notify;

use crate::selfplay::{Control, Played};
use crate::spool::{Spool, SpoolError};
use crate::stats::Stats;

pub use tigers_proto::MAX_BATCH_SAMPLES;

/// The most bytes a batch should take on the wire. gRPC implementations refuse messages above
/// 4 MiB unless told otherwise; 3 MiB leaves room for framing and for the estimate's error.
pub const MAX_BATCH_BYTES: usize = 3 << 20;

/// An upper bound on a wire sample's encoded size: two fixed32, three varints up to 10 bytes,
/// two floats, one bool, tags and the length prefix.
const SAMPLE_BYTES_BOUND: usize = 48;

/// How often the batcher looks at the stop flag while it waits for games or room.
const POLL: Duration = Duration::from_millis(100);

/// Games gathered for the next batch.
#[derive(Debug, Default)]
pub(crate) struct PendingBatch {
	batch: SampleBatch,
	bytes: usize,
}

impl PendingBatch {
	/// Games gathered.
	pub(crate) fn games(&self) -> usize {
		self.batch.game_records.len()
	}

	/// Whether adding `game` would pass the wire's limits (never for the first game: a single
	/// game is far below them).
	pub(crate) fn would_overflow(&self, game: &SelfPlayGame, record: &str) -> bool {
		self.games() > 0
			&& (self.batch.samples.len() + game.samples.len() > MAX_BATCH_SAMPLES
				|| self.bytes + game_bytes(game, record) > MAX_BATCH_BYTES)
	}

	/// The run of the games gathered, if any.
	pub(crate) fn run_id(&self) -> Option<&str> {
		(self.games() > 0).then_some(self.batch.run_id.as_str())
	}

	/// Adds a game played for `run` with its record text; the batch's games are all of one run.
	pub(crate) fn add(&mut self, run: &str, game: &SelfPlayGame, record: String) {
		if self.games() == 0 {
			run.clone_into(&mut self.batch.run_id);
		}
		debug_assert_eq!(self.batch.run_id, run, "one run a batch");
		self.bytes += game_bytes(game, &record);
		self.batch
			.samples
			.extend(game.samples.iter().map(sample_to_wire));
		self.batch.game_records.push(record);
	}

	/// The batch gathered so far (its sequence to be set by the spool), leaving this empty.
	pub(crate) fn take(&mut self) -> SampleBatch {
		self.bytes = 0;
		std::mem::take(&mut self.batch)
	}
}

fn game_bytes(game: &SelfPlayGame, record: &str) -> usize {
	game.samples.len() * SAMPLE_BYTES_BOUND + record.len() + 8
}

/// The batcher's inputs and outputs.
pub(crate) struct Batcher {
	/// Finished games from the self-play threads.
	pub(crate) games: Receiver<Played>,
	/// Where batches go.
	pub(crate) spool: Arc<Spool>,
	/// The assignment (for `games_per_batch`) and the stop flag.
	pub(crate) control: Arc<Control>,
	/// Counts every game received.
	pub(crate) stats: Arc<Stats>,
	/// Woken after every batch spooled, so the session sends it.
	pub(crate) spooled: Arc<Notify>,
}

impl Batcher {
	/// Runs until stopped (or until every self-play thread has gone), then spools what is left.
	pub(crate) fn run(self) {
		let mut pending = PendingBatch::default();
		loop {
			match self.games.recv_timeout(POLL) {
				Ok(game) => self.take_game(&mut pending, &game),
				Err(RecvTimeoutError::Timeout) => {}
				Err(RecvTimeoutError::Disconnected) => break,
			}
			if self.control.is_stopping() {
				while let Ok(game) = self.games.try_recv() {
					self.take_game(&mut pending, &game);
				}
				break;
			}
		}
		if pending.games() > 0 {
			self.spool_batch(&mut pending);
		}
	}

	/// Counts `game`, adds it to the pending batch, and spools the batch once it is complete.
	/// A game of another run than the pending ones' sends those first: a batch is one run's.
	fn take_game(&self, pending: &mut PendingBatch, played: &Played) {
		let game = &played.game;
		self.stats
			.record_game(game.samples.len() as u64, Instant::now());
		let record = game.record.to_text();
		let other_run = pending.run_id().is_some_and(|run| run != &*played.run_id);
		if other_run || pending.would_overflow(game, &record) {
			self.spool_batch(pending);
		}
		pending.add(&played.run_id, game, record);
		let games_per_batch = self
			.control
			.current()
			.map_or(1, |playing| playing.assignment.games_per_batch as usize);
		if pending.games() >= games_per_batch {
			self.spool_batch(pending);
		}
	}

	/// Writes the pending batch to the spool, waiting while it is full. Gives up (dropping the
	/// games, loudly) only when stopping with a spool that stays full.
	fn spool_batch(&self, pending: &mut PendingBatch) {
		let mut paused_since: Option<Instant> = None;
		loop {
			match self.spool.push(&mut pending.batch) {
				Ok(sequence) => {
					pending.take();
					if let Some(since) = paused_since {
						tracing::info!(paused = ?since.elapsed(), "the spool takes batches again; self-play resumes");
					}
					tracing::debug!(sequence, "batch spooled");
					self.spooled.notify_one();
					return;
				}
				Err(error @ SpoolError::OtherRun { .. }) => {
					// Played with an earlier run's net after the coordinator changed runs.
					tracing::warn!(%error, games = pending.games(), "games of a run this worker no longer serves are not kept");
					pending.take();
					return;
				}
				Err(SpoolError::Full { capacity }) => {
					if paused_since.is_none() {
						tracing::warn!(
							capacity,
							"spool full: self-play pauses until the coordinator acknowledges batches"
						);
						paused_since = Some(Instant::now());
					}
					if !self.spool.wait_for_room(POLL) && self.control.is_stopping() {
						break;
					}
				}
				Err(error) => {
					// A disk that is full or failing may recover; meanwhile self-play waits, and
					// the games played stay in memory. Said once, until a write works again.
					if paused_since.is_none() {
						let why = if is_out_of_space(&error) {
							"the spool's disk is full: self-play pauses, keeping its games, \
							 until space returns"
						} else {
							"cannot write a batch to the spool: self-play pauses, keeping its \
							 games, and the write is tried again"
						};
						tracing::error!(%error, games = pending.games(), "{why}");
						paused_since = Some(Instant::now());
					}
					if self.control.is_stopping() {
						break;
					}
					std::thread::sleep(POLL * 10);
				}
			}
		}
		tracing::warn!(
			games = pending.games(),
			"stopping with the spool full or failing: the last games are not kept"
		);
		pending.take();
	}
}

/// Whether `error` is a write that failed for lack of space on the spool's disk.
fn is_out_of_space(error: &SpoolError) -> bool {
	matches!(error, SpoolError::Io { source, .. }
		if matches!(source.kind(), std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded))
}

#[cfg(test)]
mod tests;
