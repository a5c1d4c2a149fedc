//! `Encoding`: the input encodings a net may read, by the version its file records.
//!
//! | version | inputs |
//! |---|---|
//! | 1 | 0..54: tigers, sheep, sheep in hand, dead sheep, side to move, placement |
//! | 2 | version 1's 54, then 54..79: the sheep a tiger could capture right now |
//!
//! A net reads one encoding for its whole life: a run chooses it for generation 0, and every
//! net trained from that one keeps it.

use thiserror::Error;

use crate::pos::POINTS;

/// Inputs of version 1: pieces (50) and the scalar inputs (4).
pub const INPUTS: usize = 54;

/// The first input of version 2's plane: one input per point, 1 where a sheep stands that a
/// tiger could capture at once if the tigers were to move.
pub(crate) const JUMP_INPUTS: usize = INPUTS;

/// Inputs of the widest encoding: version 2's 79.
pub const MAX_INPUTS: usize = INPUTS + POINTS;

/// Which inputs a net reads, as the `input_version` of its file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
	/// Version 1: the pieces' points, sheep in hand and dead, side to move, placement (54).
	#[default]
	V1,
	/// Version 2: version 1's inputs, then one per point, 1 where a sheep stands that some tiger
	/// could jump over onto an empty point right now, were the tigers to move (79).
	V2,
}

impl Encoding {
	/// Every encoding this program reads, oldest first.
	pub const ALL: [Encoding; 2] = [Encoding::V1, Encoding::V2];

	/// The newest encoding this program reads: what a worker tells a coordinator it can play.
	pub const NEWEST: Encoding = Encoding::V2;

	/// The version number, as net files and the cluster's messages carry it.
	pub const fn version(self) -> u32 {
		match self {
			Encoding::V1 => 1,
			Encoding::V2 => 2,
		}
	}

	/// The encoding of a version number, if this program reads it.
	pub const fn from_version(version: u32) -> Option<Encoding> {
		match version {
			1 => Some(Encoding::V1),
			2 => Some(Encoding::V2),
			_ => None,
		}
	}

	/// How many inputs a net of this encoding reads: the rows of its first layer.
	pub const fn inputs(self) -> usize {
		match self {
			Encoding::V1 => INPUTS,
			Encoding::V2 => MAX_INPUTS,
		}
	}

	/// Whether the net reads the plane of sheep the tigers could capture.
	pub const fn has_jump_plane(self) -> bool {
		matches!(self, Encoding::V2)
	}
}

/// The version number, as settings take it.
impl std::fmt::Display for Encoding {
	fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
		write!(f, "{}", self.version())
	}
}

/// Why a version's text was refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
	"{0:?} is not an input encoding this program reads: 1 (pieces and counts) or 2 (version 1 \
	 and the sheep a tiger could capture)"
)]
pub struct EncodingError(pub String);

impl std::str::FromStr for Encoding {
	type Err = EncodingError;

	fn from_str(text: &str) -> Result<Encoding, EncodingError> {
		text.trim()
			.parse()
			.ok()
			.and_then(Encoding::from_version)
			.ok_or_else(|| EncodingError(text.to_string()))
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn versions_read_and_print_as_their_numbers() {
		for encoding in Encoding::ALL {
			assert_eq!(Encoding::from_version(encoding.version()), Some(encoding));
			assert_eq!(encoding.to_string().parse(), Ok(encoding));
		}
		assert_eq!(Encoding::default(), Encoding::V1);
		assert_eq!((Encoding::V1.inputs(), Encoding::V2.inputs()), (54, 79));
		for bad in ["", "0", "3", "v2", "-1", "1.0"] {
			let error = bad.parse::<Encoding>().expect_err(bad);
			assert!(
				error.to_string().contains("1 (pieces and counts)"),
				"{error}"
			);
		}
	}
}
