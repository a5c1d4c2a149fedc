//! `Rejection`: why a sample batch was refused, with its reason's kind for counting. Made by the
//! batch checks in `ingest`, counted by `live` and the metrics, and sent to the worker through
//! `ServiceError`.

/// Why a batch was refused, as a short name for counting (metrics, the dashboard).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RejectReason {
	/// Its sequence number is 0, beyond the largest the ledger stores, or not the next one
	/// expected.
	Sequence,
	/// Too few or too many samples or game records.
	Size,
	/// A sample that does not decode or is out of range.
	Sample,
	/// A sample from a generation not promoted yet.
	Generation,
	/// A game record that does not read, is too long, or names a player at too great length.
	GameRecord,
	/// Played for another run (or naming none): not stored, and the session goes on.
	Run,
}

impl RejectReason {
	/// Every reason, in a fixed order.
	pub(crate) const ALL: [RejectReason; 6] = [
		RejectReason::Sequence,
		RejectReason::Size,
		RejectReason::Sample,
		RejectReason::Generation,
		RejectReason::GameRecord,
		RejectReason::Run,
	];

	/// The short name: `sequence`, `size`, `sample`, `generation`, `game_record` or `run`.
	pub(crate) const fn name(self) -> &'static str {
		match self {
			RejectReason::Sequence => "sequence",
			RejectReason::Size => "size",
			RejectReason::Sample => "sample",
			RejectReason::Generation => "generation",
			RejectReason::GameRecord => "game_record",
			RejectReason::Run => "run",
		}
	}
}

/// A refused batch: the reason's kind and a sentence saying what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rejection {
	/// The kind, for counting.
	pub reason: RejectReason,
	/// The sentence for the worker and the log.
	pub message: String,
}

impl Rejection {
	/// A refusal for `reason`, saying `message`.
	pub(crate) fn new(reason: RejectReason, message: String) -> Rejection {
		Rejection { reason, message }
	}
}
