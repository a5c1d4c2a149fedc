//! Reading the fixed-record sample layouts of older builds (described in `samples_codec`):
//! decoders only, so a run those builds started can resume.

use tigers_core::selfplay::Sample;
use tigers_core::{GameBoard, Turn};

/// Bytes per sample record.
const RECORD_BYTES: usize = 30;
/// Bytes per sample record in a window file, with its use count.
const WINDOW_RECORD_BYTES: usize = RECORD_BYTES + 4;

pub(super) const BLOB_MAGIC: &[u8; 4] = b"TSSB";
const BLOB_VERSION: u32 = 1;
const BLOB_HEADER_BYTES: usize = 12;

pub(super) const WINDOW_MAGIC: &[u8; 8] = b"TSWINDOW";
const WINDOW_VERSION: u32 = 1;
const WINDOW_HEADER_BYTES: usize = 12;
const WINDOW_END_MAGIC: &[u8; 8] = b"TSWEND01";
const WINDOW_TRAILER_BYTES: usize = 16;

/// The samples of a blob: the exact length its count implies, every record checked.
pub(super) fn decode_blob(bytes: &[u8]) -> Result<Vec<Sample>, String> {
	let header = bytes
		.get(..BLOB_HEADER_BYTES)
		.ok_or_else(|| format!("{} bytes, shorter than the header", bytes.len()))?;
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

/// The samples and use counts of a window file: header, records and trailer all present and
/// agreeing, every record checked.
pub(super) fn decode_window(bytes: &[u8]) -> Result<Vec<(Sample, u32)>, String> {
	if bytes.len() < WINDOW_HEADER_BYTES + WINDOW_TRAILER_BYTES {
		return Err(format!(
			"{} bytes, too short for a header and trailer",
			bytes.len()
		));
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

/// One record, checked with core's rule: the caller passes exactly `RECORD_BYTES` bytes.
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
		score: f32::from_bits(u32_at(record, 10)),
		result: f32::from_bits(u32_at(record, 14)),
		ply: u32_at(record, 18),
		generation: u64::from_le_bytes(record[22..30].try_into().expect("8 bytes")),
	};
	sample.check().map_err(|e| e.to_string())?;
	Ok(sample)
}

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
	u32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes"))
}

#[cfg(test)]
pub(super) mod tests {
	use proptest::prelude::*;

	use super::*;
	use crate::test_support::varied_samples;

	fn put_record(bytes: &mut Vec<u8>, sample: &Sample) {
		let board = sample.board;
		bytes.extend_from_slice(&board.tigers().to_le_bytes());
		bytes.extend_from_slice(&board.sheep().to_le_bytes());
		bytes.push(board.sheep_in_hand());
		bytes.push(u8::from(sample.turn == Turn::Tiger));
		bytes.extend_from_slice(&sample.score.to_le_bytes());
		bytes.extend_from_slice(&sample.result.to_le_bytes());
		bytes.extend_from_slice(&sample.ply.to_le_bytes());
		bytes.extend_from_slice(&sample.generation.to_le_bytes());
	}

	/// A blob as older builds wrote it.
	pub(in crate::store::samples_codec) fn encode_blob(samples: &[Sample]) -> Vec<u8> {
		let mut bytes = BLOB_MAGIC.to_vec();
		bytes.extend_from_slice(&BLOB_VERSION.to_le_bytes());
		bytes.extend_from_slice(&(samples.len() as u32).to_le_bytes());
		for sample in samples {
			put_record(&mut bytes, sample);
		}
		bytes
	}

	/// A window file as older builds wrote it.
	pub(in crate::store::samples_codec) fn encode_window(window: &[(Sample, u32)]) -> Vec<u8> {
		let mut bytes = WINDOW_MAGIC.to_vec();
		bytes.extend_from_slice(&WINDOW_VERSION.to_le_bytes());
		for (sample, uses) in window {
			put_record(&mut bytes, sample);
			bytes.extend_from_slice(&uses.to_le_bytes());
		}
		bytes.extend_from_slice(&(window.len() as u64).to_le_bytes());
		bytes.extend_from_slice(WINDOW_END_MAGIC);
		bytes
	}

	#[test]
	fn truncated_or_impossible_records_are_refused() {
		let bytes = encode_blob(&varied_samples());
		let error = decode_blob(&bytes[..bytes.len() - 1]).unwrap_err();
		assert!(error.contains("3 samples need 90 bytes"), "{error}");
		assert!(decode_blob(&bytes[..5]).is_err());

		// Five tigers: one more bit in the tigers mask of the first record.
		let mut five = encode_blob(&varied_samples()[..1]);
		five[12] |= 0b10;
		let error = decode_blob(&five).unwrap_err();
		assert!(
			error.contains("sample 0") && error.contains("4 tigers"),
			"{error}"
		);
		// A NaN score.
		let mut nan = encode_blob(&varied_samples()[..1]);
		nan[12 + 10..12 + 14].copy_from_slice(&f32::NAN.to_le_bytes());
		assert!(decode_blob(&nan).unwrap_err().contains("score NaN"));

		// A whole record cut from the middle of a window, trailer kept.
		let two = encode_window(&[(varied_samples()[1], 2), (varied_samples()[2], 0)]);
		let mut cut = two[..12 + 34].to_vec();
		cut.extend_from_slice(&two[two.len() - 16..]);
		let error = decode_window(&cut).unwrap_err();
		assert!(error.contains("counts 2 samples"), "{error}");
	}

	proptest! {
		#![proptest_config(ProptestConfig::with_cases(256))]

		#[test]
		fn damaged_files_never_panic_and_what_reads_is_what_was_written(
			random in prop::collection::vec(any::<u8>(), 0..256),
			(at, byte, keep) in (any::<prop::sample::Index>(), any::<u8>(), any::<prop::sample::Index>()),
		) {
			let samples = varied_samples();
			let mut blob = encode_blob(&samples);
			let index = at.index(blob.len());
			blob[index] = byte;
			blob.truncate(keep.index(blob.len() + 1));
			for bytes in [&blob, &random] {
				if let Ok(read) = decode_blob(bytes) {
					prop_assert_eq!(&encode_blob(&read)[4..], &bytes[4..]);
				}
			}
			let window: Vec<(Sample, u32)> = samples.into_iter().zip([1, 2, 3]).collect();
			let mut file = encode_window(&window);
			let index = at.index(file.len());
			file[index] = byte;
			file.truncate(keep.index(file.len() + 1));
			for bytes in [&file, &random] {
				if let Ok(read) = decode_window(bytes) {
					prop_assert_eq!(&encode_window(&read)[8..], &bytes[8..]);
				}
			}
		}
	}
}
