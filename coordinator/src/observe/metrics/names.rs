//! The names of the metrics recorded where the work happens (ingest, the ledger's writer) rather
//! than copied from the live state by [`figures`](super::figures).

/// Seconds from receiving a sample batch to its acknowledgement being ready: validation and the
/// ledger's durable insert. A histogram.
pub(crate) const INGEST_SECONDS: &str = "tigers_ingest_seconds";

/// Transactions the ledger's writer committed with writes in them: batches that arrive together
/// share one (group commit). A counter.
pub(crate) const LEDGER_COMMITS: &str = "tigers_ledger_commits_total";

/// Batch rows folded into their workers' totals by compaction. A counter.
pub(crate) const LEDGER_COMPACTED: &str = "tigers_ledger_batches_compacted_total";
