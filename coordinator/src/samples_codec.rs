//! The binary layouts of samples: the ledger's sample blobs and the checkpoint's `window.bin`.
//!
//! Both are little endian and built from one fixed-size record per sample (30 bytes):
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 4 | tigers mask, `u32`, bit `i` = point `i` |
//! | 4 | 4 | sheep mask, `u32` (points only, no in-hand bits) |
//! | 8 | 1 | sheep in hand, `u8`, 0..=20 |
//! | 9 | 1 | side to move, `u8`: 0 sheep, 1 tigers |
//! | 10 | 4 | search score, `f32`, tigers' view, -1..=1 |
//! | 14 | 4 | game result, `f32`, tigers' view, -1..=1 |
//! | 18 | 4 | ply, `u32` |
//! | 22 | 8 | generation of the net that played, `u64` |
//!
//! A **sample blob** (one ledger batch) is the magic `TSSB`, the version `u32` = 1, the sample
//! count `u32`, then the records. A **window file** is the magic `TSWINDOW`, the version `u32`
//! = 1, then per sample a record followed by its use count `u32` (34 bytes), then a trailer: the
//! sample count `u64` and the magic `TSWEND01`. Readers demand the exact length the count implies,
//! so a truncated file or blob is refused rather than read short, and every record must be a
//! position a game can reach ([`GameBoard::new`], [`Position::new`]) with finite values in range.

use tigers_core::selfplay::Sample;
use tigers_core::{GameBoard, Position, Turn};

use crate::storage_error::StorageError;

/// Bytes per sample record.
const RECORD_BYTES: usize = 30;
/// Bytes per sample record in a window file, with its use count.
const WINDOW_RECORD_BYTES: usize = RECORD_BYTES + 4;

const BLOB_MAGIC: &[u8; 4] = b"TSSB";
const BLOB_VERSION: u32 = 1;
const BLOB_HEADER_BYTES: usize = 12;

const WINDOW_MAGIC: &[u8; 8] = b"TSWINDOW";
const WINDOW_VERSION: u32 = 1;
const WINDOW_HEADER_BYTES: usize = 12;
const WINDOW_END_MAGIC: &[u8; 8] = b"TSWEND01";
const WINDOW_TRAILER_BYTES: usize = 16;

/// Samples as a ledger blob.
pub fn encode_samples(samples: &[Sample]) -> Vec<u8> {
	let mut bytes = Vec::with_capacity(BLOB_HEADER_BYTES + RECORD_BYTES * samples.len());
	bytes.extend_from_slice(BLOB_MAGIC);
	bytes.extend_from_slice(&BLOB_VERSION.to_le_bytes());
	let count = u32::try_from(samples.len()).expect("a batch holds far fewer than 2^32 samples");
	bytes.extend_from_slice(&count.to_le_bytes());
	for sample in samples {
		put_record(&mut bytes, sample);
	}
	bytes
}

/// Samples from a ledger blob, refusing a wrong header, a wrong length or an impossible sample.
pub fn decode_samples(bytes: &[u8]) -> Result<Vec<Sample>, StorageError> {
	decode_blob(bytes).map_err(|why| StorageError::corrupt("a sample blob", why))
}

fn decode_blob(bytes: &[u8]) -> Result<Vec<Sample>, String> {
	let header = bytes
		.get(..BLOB_HEADER_BYTES)
		.ok_or_else(|| format!("{} bytes, shorter than the header", bytes.len()))?;
	if &header[..4] != BLOB_MAGIC {
		return Err(format!("the magic is {:?}, not \"TSSB\"", &header[..4]));
	}
	let version = u32_at(header, 4);
	if version != BLOB_VERSION {
		return Err(format!(
			"version {version}, but this program reads {BLOB_VERSION}"
		));
	}
	let count = u32_at(header, 8) as usize;
	let records = &bytes[BLOB_HEADER_BYTES..];
	if records.len() != count * RECORD_BYTES {
		return Err(format!(
			"{count} samples need {} bytes of records, found {}",
			count * RECORD_BYTES,
			records.len()
		));
	}
	records
		.chunks_exact(RECORD_BYTES)
		.enumerate()
		.map(|(i, record)| read_record(record).map_err(|why| format!("sample {i}: {why}")))
		.collect()
}

/// A replay window (samples with their use counts, oldest first) as a window file.
pub fn encode_window(window: &[(Sample, u32)]) -> Vec<u8> {
	let mut bytes = Vec::with_capacity(
		WINDOW_HEADER_BYTES + WINDOW_RECORD_BYTES * window.len() + WINDOW_TRAILER_BYTES,
	);
	bytes.extend_from_slice(WINDOW_MAGIC);
	bytes.extend_from_slice(&WINDOW_VERSION.to_le_bytes());
	for (sample, uses) in window {
		put_record(&mut bytes, sample);
		bytes.extend_from_slice(&uses.to_le_bytes());
	}
	bytes.extend_from_slice(&(window.len() as u64).to_le_bytes());
	bytes.extend_from_slice(WINDOW_END_MAGIC);
	bytes
}

/// A replay window from a window file, refusing a wrong header, a missing trailer, a length
/// that disagrees with the count or an impossible sample.
pub fn decode_window(bytes: &[u8]) -> Result<Vec<(Sample, u32)>, StorageError> {
	decode_window_records(bytes).map_err(|why| StorageError::corrupt("a window file", why))
}

fn decode_window_records(bytes: &[u8]) -> Result<Vec<(Sample, u32)>, String> {
	if bytes.len() < WINDOW_HEADER_BYTES + WINDOW_TRAILER_BYTES {
		return Err(format!(
			"{} bytes, too short for a header and trailer",
			bytes.len()
		));
	}
	if &bytes[..8] != WINDOW_MAGIC {
		return Err(format!("the magic is {:?}, not \"TSWINDOW\"", &bytes[..8]));
	}
	let version = u32_at(bytes, 8);
	if version != WINDOW_VERSION {
		return Err(format!(
			"version {version}, but this program reads {WINDOW_VERSION}"
		));
	}
	let trailer = &bytes[bytes.len() - WINDOW_TRAILER_BYTES..];
	if &trailer[8..] != WINDOW_END_MAGIC {
		return Err("the end marker is missing: the file was cut short".to_string());
	}
	let count = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
	let records = &bytes[WINDOW_HEADER_BYTES..bytes.len() - WINDOW_TRAILER_BYTES];
	if count.checked_mul(WINDOW_RECORD_BYTES as u64) != Some(records.len() as u64) {
		return Err(format!(
			"the trailer counts {count} samples but {} bytes of records follow the header",
			records.len()
		));
	}
	records
		.chunks_exact(WINDOW_RECORD_BYTES)
		.enumerate()
		.map(|(i, record)| {
			let sample =
				read_record(&record[..RECORD_BYTES]).map_err(|why| format!("sample {i}: {why}"))?;
			Ok((sample, u32_at(record, RECORD_BYTES)))
		})
		.collect()
}

fn put_record(bytes: &mut Vec<u8>, sample: &Sample) {
	let board = sample.board;
	bytes.extend_from_slice(&board.tigers().to_le_bytes());
	bytes.extend_from_slice(&board.sheep().to_le_bytes());
	bytes.push(board.sheep_in_hand());
	bytes.push(match sample.turn {
		Turn::Sheep => 0,
		Turn::Tiger => 1,
	});
	bytes.extend_from_slice(&sample.score.to_le_bytes());
	bytes.extend_from_slice(&sample.result.to_le_bytes());
	bytes.extend_from_slice(&sample.ply.to_le_bytes());
	bytes.extend_from_slice(&sample.generation.to_le_bytes());
}

/// Checks that every sample is one the readers accept, so that what is stored can be read
/// back: a position a game can reach, with score and result finite and in `-1..=1`.
pub fn check_samples(samples: &[Sample]) -> Result<(), StorageError> {
	for (index, sample) in samples.iter().enumerate() {
		check_sample(sample).map_err(|why| StorageError::InvalidSample { index, why })?;
	}
	Ok(())
}

fn check_sample(sample: &Sample) -> Result<(), String> {
	let board = sample.board;
	// A `GameBoard` may have been built unchecked from raw bits; rebuild it with the checks.
	GameBoard::new(
		board.tigers(),
		board.sheep(),
		u32::from(board.sheep_in_hand()),
	)
	.map_err(|e| e.to_string())?;
	Position::new(board, sample.turn).map_err(|e| e.to_string())?;
	for (name, value) in [("score", sample.score), ("result", sample.result)] {
		if !(-1.0..=1.0).contains(&value) {
			return Err(format!("{name} {value} is not a number in -1..=1"));
		}
	}
	Ok(())
}

/// One record, checked: the caller passes exactly `RECORD_BYTES` bytes.
fn read_record(record: &[u8]) -> Result<Sample, String> {
	debug_assert_eq!(record.len(), RECORD_BYTES);
	let board = GameBoard::new(u32_at(record, 0), u32_at(record, 4), u32::from(record[8]))
		.map_err(|e| e.to_string())?;
	let turn = match record[9] {
		0 => Turn::Sheep,
		1 => Turn::Tiger,
		other => {
			return Err(format!(
				"side to move {other} is neither 0 (sheep) nor 1 (tigers)"
			));
		}
	};
	let sample = Sample {
		board,
		turn,
		score: f32_at(record, 10),
		result: f32_at(record, 14),
		ply: u32_at(record, 18),
		generation: u64::from_le_bytes(record[22..30].try_into().expect("8 bytes")),
	};
	check_sample(&sample)?;
	Ok(sample)
}

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
	u32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes"))
}

fn f32_at(bytes: &[u8], offset: usize) -> f32 {
	f32::from_bits(u32_at(bytes, offset))
}

#[cfg(test)]
mod tests {
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
	fn blobs_round_trip_bit_exactly() {
		let samples = varied_samples();
		let bytes = encode_samples(&samples);
		assert_eq!(bytes.len(), 12 + 30 * samples.len());
		let back = decode_samples(&bytes).unwrap();
		assert_eq!(bits(&back), bits(&samples));
		assert!(back[0].score.is_sign_negative(), "-0.0 stays negative");
		assert!(decode_samples(&encode_samples(&[])).unwrap().is_empty());
	}

	#[test]
	fn truncated_or_foreign_blobs_are_refused() {
		let bytes = encode_samples(&varied_samples());
		let error = decode_samples(&bytes[..bytes.len() - 1])
			.unwrap_err()
			.to_string();
		assert!(error.contains("3 samples need 90 bytes"), "{error}");
		let mut foreign = bytes.clone();
		foreign[0] = b'X';
		assert!(
			decode_samples(&foreign)
				.unwrap_err()
				.to_string()
				.contains("magic")
		);
		assert!(decode_samples(&bytes[..5]).is_err());
	}

	#[test]
	fn impossible_samples_are_refused() {
		let mut bytes = encode_samples(&varied_samples()[..1]);
		// Five tigers: set one more bit in the tigers mask of the first record.
		bytes[12] |= 0b10;
		let error = decode_samples(&bytes).unwrap_err().to_string();
		assert!(
			error.contains("sample 0") && error.contains("4 tigers"),
			"{error}"
		);

		// Tigers to move before any sheep is placed.
		let mut bytes = encode_samples(&varied_samples()[..1]);
		bytes[12 + 9] = 1;
		assert!(decode_samples(&bytes).is_err());

		// A NaN score.
		let mut bytes = encode_samples(&varied_samples()[..1]);
		bytes[12 + 10..12 + 14].copy_from_slice(&f32::NAN.to_le_bytes());
		let error = decode_samples(&bytes).unwrap_err().to_string();
		assert!(error.contains("score NaN"), "{error}");
	}

	#[test]
	fn samples_are_checked_before_they_are_stored() {
		assert!(check_samples(&varied_samples()).is_ok());
		let mut samples = varied_samples();
		samples[2].result = 1.5;
		match check_samples(&samples) {
			Err(StorageError::InvalidSample { index, why }) => {
				assert_eq!(index, 2);
				assert!(why.contains("result 1.5"), "{why}");
			}
			other => panic!("expected an invalid sample, got {other:?}"),
		}
		samples[2].result = 0.0;
		samples[0].turn = Turn::Tiger;
		assert!(
			check_samples(&samples).is_err(),
			"tigers cannot move before any sheep"
		);
	}

	#[test]
	fn windows_round_trip_with_their_uses() {
		let window: Vec<(Sample, u32)> =
			varied_samples().into_iter().zip([0, 3, u32::MAX]).collect();
		let bytes = encode_window(&window);
		assert_eq!(bytes.len(), 12 + 34 * 3 + 16);
		let back = decode_window(&bytes).unwrap();
		assert_eq!(back, window);
		let samples: Vec<Sample> = back.iter().map(|(s, _)| *s).collect();
		assert_eq!(bits(&samples), bits(&varied_samples()));
	}

	#[test]
	fn truncated_or_foreign_windows_are_refused() {
		let bytes = encode_window(&[(varied_samples()[1], 2)]);
		for cut in [1, 16, 20, bytes.len() - 1] {
			let error = decode_window(&bytes[..bytes.len() - cut])
				.unwrap_err()
				.to_string();
			assert!(error.starts_with("a window file is corrupt"), "{error}");
		}
		// A whole record cut from the middle, trailer kept: the count no longer matches.
		let two = encode_window(&[(varied_samples()[1], 2), (varied_samples()[2], 0)]);
		let mut cut = two[..12 + 34].to_vec();
		cut.extend_from_slice(&two[two.len() - 16..]);
		let error = decode_window(&cut).unwrap_err().to_string();
		assert!(error.contains("counts 2 samples"), "{error}");
		let mut foreign = bytes.clone();
		foreign[..8].copy_from_slice(b"NOTAWIND");
		assert!(
			decode_window(&foreign)
				.unwrap_err()
				.to_string()
				.contains("magic")
		);
	}

	mod decoding {
		use proptest::prelude::*;

		use super::*;

		/// `bytes` with a byte replaced and the length cut, both anywhere.
		fn damage(
			mut bytes: Vec<u8>,
			at: prop::sample::Index,
			byte: u8,
			keep: prop::sample::Index,
		) -> Vec<u8> {
			let index = at.index(bytes.len());
			bytes[index] = byte;
			bytes.truncate(keep.index(bytes.len() + 1));
			bytes
		}

		proptest! {
			#![proptest_config(ProptestConfig::with_cases(512))]

			#[test]
			fn blobs_and_windows_never_panic_and_what_reads_writes_back(
				random in prop::collection::vec(any::<u8>(), 0..256),
				(at, byte, keep) in (any::<prop::sample::Index>(), any::<u8>(), any::<prop::sample::Index>()),
			) {
				let samples = varied_samples();
				let blob = damage(encode_samples(&samples), at, byte, keep);
				for bytes in [&blob, &random] {
					if let Ok(read) = decode_samples(bytes) {
						prop_assert_eq!(&encode_samples(&read), bytes);
					}
				}
				let window: Vec<(Sample, u32)> = samples.into_iter().zip([1, 2, 3]).collect();
				let file = damage(encode_window(&window), at, byte, keep);
				for bytes in [&file, &random] {
					if let Ok(read) = decode_window(bytes) {
						prop_assert_eq!(&encode_window(&read), bytes);
					}
				}
			}
		}
	}
}
