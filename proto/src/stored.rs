//! Samples at rest: the one encoding in which samples are stored, the wire's `Sample` messages
//! inside a `StoredSamples` (see `tigers/v1/cluster.proto`). The coordinator's ledger keeps each
//! batch's samples this way and its checkpoint the replay window with use counts; a worker's
//! spool holds whole `SampleBatch` messages ([`crate::encode_batch`]). Reading back checks every
//! sample with core's one rule ([`Sample::check`]), as a batch from the wire is checked.

use prost::Message;
use thiserror::Error;
use tigers_core::selfplay::Sample;

use crate::convert::{ConvertError, sample_from_wire, sample_to_wire};
use crate::v1;

/// Why bytes are not stored samples.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StoredError {
	/// Not a `StoredSamples` message.
	#[error("not stored samples: {0}")]
	Decode(#[from] prost::DecodeError),
	/// The count written last disagrees with the samples read: the copy was cut short.
	#[error("{found} samples where {count} were written; the copy is cut short")]
	Count {
		/// The count written.
		count: u64,
		/// The samples found.
		found: usize,
	},
	/// Use counts present, but not one per sample.
	#[error("{uses} use counts for {samples} samples")]
	Uses {
		/// Use counts found.
		uses: usize,
		/// Samples found.
		samples: usize,
	},
	/// A sample self-play could not have produced.
	#[error(transparent)]
	Sample(#[from] ConvertError),
}

/// Samples (one stored batch) as bytes.
pub fn encode_samples(samples: &[Sample]) -> Vec<u8> {
	encode(samples.iter().map(sample_to_wire).collect(), Vec::new())
}

/// Samples from [`encode_samples`]'s bytes, every one checked; an error if they are not such
/// bytes, were cut short, carry use counts, or hold an impossible sample.
pub fn decode_samples(bytes: &[u8]) -> Result<Vec<Sample>, StoredError> {
	let (samples, uses) = decode(bytes)?;
	if !uses.is_empty() {
		return Err(StoredError::Uses {
			uses: uses.len(),
			samples: samples.len(),
		});
	}
	Ok(samples)
}

/// A replay window (samples, oldest first, with how many times each was used) as bytes.
pub fn encode_window(window: &[(Sample, u32)]) -> Vec<u8> {
	encode(
		window
			.iter()
			.map(|(sample, _)| sample_to_wire(sample))
			.collect(),
		window.iter().map(|&(_, uses)| uses).collect(),
	)
}

/// A replay window from [`encode_window`]'s bytes, every sample checked; an error if they are
/// not such bytes, were cut short, lack a use count for a sample, or hold an impossible sample.
pub fn decode_window(bytes: &[u8]) -> Result<Vec<(Sample, u32)>, StoredError> {
	let (samples, uses) = decode(bytes)?;
	if uses.len() != samples.len() {
		return Err(StoredError::Uses {
			uses: uses.len(),
			samples: samples.len(),
		});
	}
	Ok(samples.into_iter().zip(uses).collect())
}

fn encode(samples: Vec<v1::Sample>, uses: Vec<u32>) -> Vec<u8> {
	let count = samples.len() as u64;
	v1::StoredSamples {
		samples,
		uses,
		count,
	}
	.encode_to_vec()
}

fn decode(bytes: &[u8]) -> Result<(Vec<Sample>, Vec<u32>), StoredError> {
	let stored = v1::StoredSamples::decode(bytes)?;
	if stored.count != stored.samples.len() as u64 {
		return Err(StoredError::Count {
			count: stored.count,
			found: stored.samples.len(),
		});
	}
	let samples = stored
		.samples
		.iter()
		.enumerate()
		.map(|(index, wire)| sample_from_wire(index, wire))
		.collect::<Result<Vec<_>, _>>()?;
	Ok((samples, stored.uses))
}

#[cfg(test)]
mod tests {
	use proptest::prelude::*;
	use tigers_core::{Position, Turn};

	use super::*;

	fn samples() -> Vec<Sample> {
		[
			"T...T/...../...../...../T...T s 20",
			"T...T/..S../...../...../T...T t 19",
			"T.S.T/.SSS./..T../S...S/...T. s 12",
		]
		.iter()
		.enumerate()
		.map(|(i, text)| {
			let position: Position = text.parse().unwrap();
			Sample {
				board: position.board,
				turn: position.turn,
				score: [-0.0, 0.75, -1.0][i],
				result: [1.0, 0.0, -1.0][i],
				ply: i as u32 * 7,
				generation: 3 + i as u64,
			}
		})
		.collect()
	}

	#[test]
	fn samples_and_windows_round_trip() {
		let read = decode_samples(&encode_samples(&samples())).unwrap();
		assert_eq!(read, samples());
		// As on the wire, a zero is not written, so -0.0 reads back as 0.0 (an equal value).
		assert!(read[0].score.is_sign_positive());
		assert_eq!(read[1].score.to_bits(), samples()[1].score.to_bits());
		assert!(decode_samples(&encode_samples(&[])).unwrap().is_empty());
		let window: Vec<(Sample, u32)> = samples().into_iter().zip([0, 3, u32::MAX]).collect();
		assert_eq!(decode_window(&encode_window(&window)).unwrap(), window);
	}

	#[test]
	fn cut_short_mixed_up_or_impossible_bytes_are_refused() {
		let bytes = encode_samples(&samples());
		let error = decode_samples(&bytes[..bytes.len() - 2]).unwrap_err();
		assert!(
			matches!(error, StoredError::Count { count: 0, found: 3 }),
			"{error}"
		);
		let error = decode_samples(&bytes[..bytes.len() - 5]).unwrap_err();
		assert!(error.to_string().contains("not stored samples"), "{error}");

		let window = encode_window(&[(samples()[1], 2)]);
		assert!(matches!(
			decode_samples(&window),
			Err(StoredError::Uses {
				uses: 1,
				samples: 1
			})
		));
		assert!(matches!(
			decode_window(&bytes),
			Err(StoredError::Uses {
				uses: 0,
				samples: 3
			})
		));

		let mut impossible = samples();
		impossible[2].turn = Turn::Tiger;
		impossible[0].turn = Turn::Tiger;
		let error = decode_samples(&encode_samples(&impossible))
			.unwrap_err()
			.to_string();
		assert!(error.starts_with("sample 0: "), "{error}");
	}

	proptest! {
		#![proptest_config(ProptestConfig::with_cases(512))]

		#[test]
		fn damaged_bytes_never_panic_and_what_reads_writes_back(
			random in prop::collection::vec(any::<u8>(), 0..256),
			(at, byte, keep) in (any::<prop::sample::Index>(), any::<u8>(), any::<prop::sample::Index>()),
		) {
			let window: Vec<(Sample, u32)> = samples().into_iter().zip([1, 2, 3]).collect();
			let mut damaged = encode_window(&window);
			let index = at.index(damaged.len());
			damaged[index] = byte;
			damaged.truncate(keep.index(damaged.len() + 1));
			for bytes in [&damaged, &random] {
				if let Ok(read) = decode_window(bytes) {
					prop_assert_eq!(decode_window(&encode_window(&read)).unwrap(), read);
				}
				if let Ok(read) = decode_samples(bytes) {
					prop_assert_eq!(decode_samples(&encode_samples(&read)).unwrap(), read);
				}
			}
		}
	}
}
