//! `StopReason`: how a recorded gate match ended, as the ledger's `gates.stop` column keeps it.

use thiserror::Error;
use tigers_core::stats::GateStop;

use crate::text::excerpt;

/// How a recorded gate match ended, as the ledger's `gates.stop` column keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StopReason {
	/// A candidate's match: the SPRT decided, or the match reached its cap undecided.
	Candidate(GateStop),
	/// A measurement of the incumbent on fresh openings, every pair played; a restart looks
	/// for it to know whether the incumbent was measured.
	Measured,
}

impl StopReason {
	/// The text the ledger keeps. Older builds wrote `GateStop`'s `Debug` form and "Measured":
	/// the texts are those, so that their rows read back as they were meant.
	pub(crate) const fn as_str(self) -> &'static str {
		match self {
			StopReason::Candidate(GateStop::AcceptH0) => "AcceptH0",
			StopReason::Candidate(GateStop::AcceptH1) => "AcceptH1",
			StopReason::Candidate(GateStop::Cap) => "Cap",
			StopReason::Measured => "Measured",
		}
	}

	/// The stop as a `GateRecord` holds it. A measurement plays every pair, so it ended at the
	/// cap (what its SPRT said there is not kept; the record's score is what counts).
	pub(crate) const fn gate_stop(self) -> GateStop {
		match self {
			StopReason::Candidate(stop) => stop,
			StopReason::Measured => GateStop::Cap,
		}
	}
}

impl std::str::FromStr for StopReason {
	type Err = UnknownStop;

	fn from_str(text: &str) -> Result<StopReason, UnknownStop> {
		match text {
			"AcceptH0" => Ok(StopReason::Candidate(GateStop::AcceptH0)),
			"AcceptH1" => Ok(StopReason::Candidate(GateStop::AcceptH1)),
			"Cap" => Ok(StopReason::Candidate(GateStop::Cap)),
			"Measured" => Ok(StopReason::Measured),
			_ => Err(UnknownStop(text.to_string())),
		}
	}
}

/// A gate's stop text that no build writes.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("{} is not a gate's stop (AcceptH0, AcceptH1, Cap or Measured)", excerpt(.0))]
pub(crate) struct UnknownStop(pub String);

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_stop_reads_back_as_written() {
		let all = [
			StopReason::Candidate(GateStop::AcceptH0),
			StopReason::Candidate(GateStop::AcceptH1),
			StopReason::Candidate(GateStop::Cap),
			StopReason::Measured,
		];
		for stop in all {
			assert_eq!(stop.as_str().parse(), Ok(stop));
		}
	}

	#[test]
	fn the_texts_older_builds_wrote_read_back() {
		// They wrote a candidate's stop as `GateStop`'s `Debug` form.
		for stop in [GateStop::AcceptH0, GateStop::AcceptH1, GateStop::Cap] {
			let old = format!("{stop:?}");
			assert_eq!(old.parse(), Ok(StopReason::Candidate(stop)), "{old}");
		}
		assert_eq!("Measured".parse(), Ok(StopReason::Measured));
		assert_eq!(StopReason::Measured.gate_stop(), GateStop::Cap);
	}

	#[test]
	fn an_unknown_stop_is_refused_naming_it() {
		for text in ["", "H1", "acceptH1", "Measured "] {
			let error = text.parse::<StopReason>().unwrap_err();
			assert_eq!(error, UnknownStop(text.to_string()));
			assert!(
				error.to_string().contains("is not a gate's stop"),
				"{error}"
			);
		}
		let long = "x".repeat(1000);
		assert!(long.parse::<StopReason>().unwrap_err().to_string().len() < 200);
	}
}
