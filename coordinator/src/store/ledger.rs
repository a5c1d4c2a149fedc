//! `Ledger`: the run's SQLite database, the record of everything that must outlive the
//! coordinator process: every sample batch acknowledged to a worker, the workers, the promoted
//! generations, the gate matches, the training loss and throughput.
//!
//! The database is in WAL mode with `synchronous = FULL`, so a transaction is on disk when its
//! commit returns: a batch is acknowledged to its worker only after the transaction that stores
//! it has committed ([`Ledger::insert_batch`] for one batch; the coordinator's `committer`
//! stores batches in groups with [`Ledger::begin`], [`Ledger::store_batch`] and
//! [`Ledger::commit`]). (WAL's usual `synchronous = NORMAL` may lose the last commits on power
//! loss.)
//! Foreign keys are on. The schema version is `PRAGMA user_version`, migrated from 0 (a new
//! file) by `ledger::schema`. Times are unix seconds as `REAL`; generations, steps and counts
//! are `INTEGER`; a `NULL` `REAL` reads back as NaN (SQLite stores NaN as `NULL`).
//!
//! Schema, version 12:
//!
//! - `batches`: one row per sample batch received, compacted into its worker's totals once it
//!   is old (see `ledger::compaction`: its samples pruned, ten minutes old, and not the
//!   worker's newest). `id INTEGER PRIMARY KEY AUTOINCREMENT` (never reused, orders batches,
//!   checkpoints refer to it), `worker_id TEXT NOT NULL REFERENCES workers`, `sequence INTEGER
//!   NOT NULL` (the worker's batch number, from 1), `received_at REAL`, `sample_count
//!   INTEGER`, `game_count INTEGER`, `generation_min INTEGER`, `generation_max INTEGER` (of the
//!   samples, `NULL` if none), `UNIQUE (worker_id, sequence)`.
//! - `batch_samples`: a stored batch's samples until a checkpoint holds them (version 10),
//!   then the row is deleted ("pruned"). `batch_id INTEGER PRIMARY KEY` (the batch's `id`),
//!   `samples BLOB` (see `samples_codec`). A table of its own so that pruning frees whole
//!   pages, which the next batches reuse (see version 10 in `ledger::schema`).
//! - `last_game`: the newest game record received, for the dashboard after a restart
//!   (version 10). One row: `only INTEGER PRIMARY KEY` (always 1), `batch_id INTEGER` (the
//!   batch it came in), `record TEXT`.
//! - `batch_games`: the games of stored batches not yet in the game archive (version 7, see
//!   `archive`), a row per batch with games, deleted once they are archived.
//!   `batch_id INTEGER PRIMARY KEY` (the batch's `id`), `generation_min INTEGER` (as in
//!   `batches`), `game_count INTEGER`, `games BLOB` (all its game records as one gzip member,
//!   `tigers_proto::games`). A table of its own, so that archiving deletes a small row rather
//!   than rewriting the batch's row with its samples.
//! - `workers`: `worker_id TEXT PRIMARY KEY`, `name TEXT`, `host TEXT`, `threads INTEGER`,
//!   `build_version TEXT`, `first_seen REAL`, `last_seen REAL` (the last session or batch),
//!   `samples INTEGER` (all the worker's samples), `sessions INTEGER`, `flagged INTEGER` (times
//!   flagged, 0 if never), `secret_sha256 TEXT` (hex sha256 of the identity's secret, `NULL`
//!   until it is given one), `secret_confirmed INTEGER` (1 once a session presented it),
//!   `last_sequence INTEGER` (the highest sequence dealt with, stored or refused; the next batch
//!   must be one above it), `compacted_through INTEGER` (the highest sequence compacted, 0 if
//!   none), `compacted_batches`, `compacted_samples`, `compacted_games` (`INTEGER`, the counts
//!   of its compacted batches).
//! - `refused`: the worker's sequence numbers dealt with but never stored (refused as
//!   malformed, or left unstored by a program older than version 3), as ranges.
//!   `worker_id TEXT REFERENCES workers`, `first_sequence INTEGER`, `last_sequence INTEGER`,
//!   primary key `(worker_id, first_sequence)`.
//! - `generations`: one row per promoted net. `generation INTEGER PRIMARY KEY`, `sha256 TEXT`
//!   (of the net file), `training_steps INTEGER`, `promoted_at REAL`,
//!   `samples_at_promotion INTEGER` (samples received in the run until then).
//! - `gates`: one row per finished gate match. `id INTEGER PRIMARY KEY AUTOINCREMENT`,
//!   `candidate_generation INTEGER` (the generation it would get), `training_steps INTEGER`,
//!   `promoted INTEGER` (0 or 1), `tigers_wins`, `tigers_draws`, `tigers_losses`,
//!   `sheep_wins`, `sheep_draws`, `sheep_losses` (`INTEGER`, games by the candidate's side),
//!   `score REAL` (0..1), `score_low REAL`, `score_high REAL` (its interval), `elo REAL`,
//!   `stop TEXT` (why the match stopped), `reason TEXT` (why it was or was not promoted),
//!   `finished_at REAL`, `pairs TEXT` (the pair counts), `cpu_seconds REAL` (worker
//!   CPU-seconds over the run when it finished; 0 in rows from version 1),
//!   `candidate_exact_moves`, `candidate_exact_kept`, `reference_exact_moves`,
//!   `reference_exact_kept` (`INTEGER`: the candidate's and ClaudePlayer's movement-phase moves,
//!   and those that kept the exact result, judged by the tablebase; 0 without one, or in rows
//!   from before version 4).
//! - `timed`: one row per promoted net measured at equal time per move against ClaudePlayer
//!   (version 5). `generation INTEGER PRIMARY KEY`, `move_ms INTEGER` (each player's time a
//!   move), the six game counts, `score`, `score_low`, `score_high`, `elo`, `pairs` and the four
//!   exact-accuracy counts as in `gates`, `started_at REAL`, `finished_at REAL`, `cpu_seconds
//!   REAL` (worker CPU-seconds over the run when it finished), `tablebase TEXT` (version 8:
//!   `play`, `judge` or `none`, what the tablebase did in the games; `NULL` in older rows,
//!   measured when it only judged).
//! - `grades`: one row per promoted net graded on the grading suite (version 12).
//!   `generation INTEGER PRIMARY KEY`, `depth INTEGER`, `suite_sha256 TEXT`, and by phase
//!   (`placement_`, `movement_`) `positions`, `class_right` and `moves_kept`, `graded_at REAL`,
//!   `cpu_seconds REAL`.
//! - `game_files`: one row per generation with games in the run's game archive (version 7,
//!   see `archive`). `generation INTEGER PRIMARY KEY`, `bytes INTEGER` (the file's length as
//!   of the last archiving committed), `games INTEGER` (the games in it), `pruned_at REAL`
//!   (when the file was deleted by the keep setting, `NULL` while it is kept).
//! - `losses`: `step INTEGER PRIMARY KEY`, `loss REAL`, `recorded_at REAL`.
//! - `throughput`: periodic snapshots. `at REAL PRIMARY KEY`, `samples_total INTEGER`,
//!   `games_total INTEGER`, `training_steps INTEGER`, `workers_connected INTEGER`,
//!   `cpu_seconds REAL` (self-play threads times seconds connected, over the run).

mod batches;
mod compaction;
mod connection;
mod games;
mod grade_rows;
mod listing;
mod match_rows;
mod records;
mod samples;
mod schema;
mod stop_reason;
mod worker_rows;

pub(crate) use self::batches::{BatchInsert, NewBatch};
pub(crate) use self::compaction::{COMPACT_AFTER, FORGET_SILENT_AFTER};
pub use self::connection::Ledger;
pub(crate) use self::games::{GameFileRow, PendingGames};
pub(crate) use self::grade_rows::GradeRow;
pub(crate) use self::listing::NetListing;
pub(crate) use self::match_rows::{GateRow, TimedRow, table_role_text};
pub(crate) use self::records::{BatchSummary, GenerationRow, ThroughputRow};
// Named only by tests: the rest of the crate takes it from `Ledger::totals`.
#[cfg(test)]
pub(crate) use self::samples::Totals;
pub(crate) use self::stop_reason::StopReason;
pub(crate) use self::worker_rows::{StoredSecret, WorkerRow};

#[cfg(test)]
mod tests;
