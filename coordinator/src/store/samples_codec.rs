//! Samples at rest: the ledger's sample blobs (one per batch) and the checkpoint's
//! `window.bin` (the replay window with use counts).
//!
//! Both are written in the one storage encoding of samples, `tigers_proto::stored` (the wire's
//! `Sample` messages in a `StoredSamples`, its count written last so a copy cut short is
//! refused). Reading checks every sample with core's rule ([`Sample::check`]), the same rule a
//! batch from a worker passes, so what is stored can always be read back.
//!
//! Builds before this encoding wrote a fixed 30-byte record per sample, little endian:
//! tigers mask `u32`, sheep mask `u32`, sheep in hand `u8`, side to move `u8` (0 sheep, 1
//! tigers), score `f32`, result `f32`, ply `u32`, generation `u64`. A blob was the magic
//! `TSSB`, version `u32` = 1, the count `u32` and the records; a window file the magic
//! `TSWINDOW`, version `u32` = 1, per sample a record and its use count `u32`, then the count
//! `u64` and the magic `TSWEND01`. Those are still read ([`legacy`]), so a run started by an
//! older build resumes; they are never written. Neither magic can begin a `StoredSamples`
//! message (its first byte is a field tag, `0x0a` or `0x18`), so the first bytes tell them
//! apart.

mod legacy;

use tigers_core::selfplay::Sample;
use tigers_proto::stored;

use crate::store::storage_error::StorageError;

/// Samples as a ledger blob.
pub(crate) fn encode_samples(samples: &[Sample]) -> Vec<u8> {
	stored::encode_samples(samples)
}

/// Samples from a ledger blob, refusing bytes that do not decode, were cut short, or hold an
/// impossible sample.
pub(crate) fn decode_samples(bytes: &[u8]) -> Result<Vec<Sample>, StorageError> {
	let decoded = if bytes.starts_with(legacy::BLOB_MAGIC) {
		legacy::decode_blob(bytes)
	} else {
		stored::decode_samples(bytes).map_err(|e| e.to_string())
	};
	decoded.map_err(|why| StorageError::corrupt("a sample blob", why))
}

/// A replay window (samples with their use counts, oldest first) as a window file.
pub(crate) fn encode_window(window: &[(Sample, u32)]) -> Vec<u8> {
	stored::encode_window(window)
}

/// A replay window from a window file, refusing bytes that do not decode, were cut short, lack
/// a use count, or hold an impossible sample.
pub(crate) fn decode_window(bytes: &[u8]) -> Result<Vec<(Sample, u32)>, StorageError> {
	let decoded = if bytes.starts_with(legacy::WINDOW_MAGIC) {
		legacy::decode_window(bytes)
	} else {
		stored::decode_window(bytes).map_err(|e| e.to_string())
	};
	decoded.map_err(|why| StorageError::corrupt("a window file", why))
}

/// Checks every sample with core's rule before it is stored, so that what is stored can be
/// read back.
pub(crate) fn check_samples(samples: &[Sample]) -> Result<(), StorageError> {
	for (index, sample) in samples.iter().enumerate() {
		sample
			.check()
			.map_err(|error| StorageError::InvalidSample { index, error })?;
	}
	Ok(())
}

#[cfg(test)]
mod tests {
	use tigers_core::Turn;
	use tigers_core::selfplay::SampleError;

	use super::*;
	use crate::test_support::varied_samples;

	fn bits(samples: &[Sample]) -> Vec<(u64, u8, u32, u32, u32, u64)> {
		samples
			.iter()
			.map(|s| {
				let turn = s.turn as u8;
				(
					s.board.to_bits(),
					turn,
					s.score.to_bits(),
					s.result.to_bits(),
					s.ply,
					s.generation,
				)
			})
			.collect()
	}

	#[test]
	fn blobs_and_windows_round_trip() {
		let samples = varied_samples();
		let back = decode_samples(&encode_samples(&samples)).unwrap();
		assert_eq!(bits(&back), bits(&samples));
		assert!(decode_samples(&encode_samples(&[])).unwrap().is_empty());
		let window: Vec<(Sample, u32)> = samples.into_iter().zip([0, 3, u32::MAX]).collect();
		assert_eq!(decode_window(&encode_window(&window)).unwrap(), window);
	}

	#[test]
	fn damaged_or_mixed_up_bytes_are_refused_as_corrupt() {
		let blob = encode_samples(&varied_samples());
		let error = decode_samples(&blob[..blob.len() - 1])
			.unwrap_err()
			.to_string();
		assert!(error.starts_with("a sample blob is corrupt"), "{error}");
		let window = encode_window(&[(varied_samples()[1], 2)]);
		let error = decode_samples(&window).unwrap_err().to_string();
		assert!(error.contains("1 use counts for 1 samples"), "{error}");
		let error = decode_window(&blob).unwrap_err().to_string();
		assert!(error.starts_with("a window file is corrupt"), "{error}");
	}

	#[test]
	fn what_older_builds_wrote_is_still_read() {
		let samples = varied_samples();
		let blob = legacy::tests::encode_blob(&samples);
		assert_eq!(bits(&decode_samples(&blob).unwrap()), bits(&samples));
		let window: Vec<(Sample, u32)> = samples.into_iter().zip([0, 3, u32::MAX]).collect();
		let file = legacy::tests::encode_window(&window);
		assert_eq!(decode_window(&file).unwrap(), window);
		let error = decode_window(&file[..file.len() - 1])
			.unwrap_err()
			.to_string();
		assert!(error.contains("cut short"), "{error}");
	}

	#[test]
	fn samples_are_checked_before_they_are_stored() {
		assert!(check_samples(&varied_samples()).is_ok());
		let mut samples = varied_samples();
		samples[2].result = 1.5;
		match check_samples(&samples) {
			Err(StorageError::InvalidSample { index, error }) => {
				assert_eq!(index, 2);
				assert!(error.to_string().contains("result 1.5"), "{error}");
			}
			other => panic!("expected an invalid sample, got {other:?}"),
		}
		samples[2].result = 0.0;
		samples[0].turn = Turn::Tiger;
		assert!(
			matches!(
				check_samples(&samples),
				Err(StorageError::InvalidSample {
					index: 0,
					error: SampleError::Position(_)
				})
			),
			"tigers cannot move before any sheep"
		);
	}
}
