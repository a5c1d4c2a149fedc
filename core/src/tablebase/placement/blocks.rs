//! A layer's entries cut into blocks of [`BLOCK_BYTES`] and each deflated on its own, so that a
//! probe reads and inflates one block rather than the layer.
//!
//! The encoded form is an index then the blocks: `n + 1` little-endian `u64` offsets into the
//! blocks' data (the first 0, the last the data's length), where `n` is the entries' length
//! divided by [`BLOCK_BYTES`], rounded up; then each block's raw deflate stream, or the block's
//! bytes as they are when deflate would not make them shorter (a block is stored as it is
//! exactly when its stored length is its length). Deflate at a fixed level is deterministic,
//! and the blocks are independent, so the encoding does not depend on the thread count.

use flate2::{Compress, Compression, FlushCompress, Status};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};

/// Entry bytes a block holds (the last block of a layer may hold fewer): 16,384 entries.
pub const BLOCK_BYTES: usize = 4096;

/// The deflate level: 6 packed the solved layers to about 30 to 40% of their bytes on 4 KiB
/// blocks, where 1 left 32 to 42% and 9 gained under 1% at a third of the speed.
const LEVEL: u32 = 6;

/// Blocks of `length` entry bytes.
pub fn block_count(length: u64) -> u64 {
	length.div_ceil(BLOCK_BYTES as u64)
}

/// Bytes of the index before the blocks of `length` entry bytes.
pub fn index_bytes(length: u64) -> u64 {
	8 * (block_count(length) + 1)
}

/// The longest an encoding of `length` entry bytes can be: its index and every block stored
/// as it is.
pub fn max_encoded_bytes(length: u64) -> u64 {
	index_bytes(length) + length
}

/// `entries` encoded: the index, then the blocks, deflated on `threads` threads.
pub fn encode(entries: &[u8], threads: usize) -> Vec<u8> {
	let blocks: Vec<&[u8]> = entries.chunks(BLOCK_BYTES).collect();
	let per_thread = blocks.len().div_ceil(threads.max(1)).max(1);
	let packed: Vec<Vec<Vec<u8>>> = std::thread::scope(|scope| {
		let workers: Vec<_> = blocks
			.chunks(per_thread)
			.map(|run| scope.spawn(move || run.iter().map(|block| deflate(block)).collect()))
			.collect();
		workers
			.into_iter()
			.map(|worker| worker.join().expect("deflating does not panic"))
			.collect()
	});
	let data: u64 = packed.iter().flatten().map(|b| b.len() as u64).sum();
	let mut out = Vec::with_capacity((index_bytes(entries.len() as u64) + data) as usize);
	let mut offset = 0u64;
	out.extend_from_slice(&offset.to_le_bytes());
	for block in packed.iter().flatten() {
		offset += block.len() as u64;
		out.extend_from_slice(&offset.to_le_bytes());
	}
	for block in packed.iter().flatten() {
		out.extend_from_slice(block);
	}
	out
}

/// One block deflated, or as it is if deflate does not make it shorter.
fn deflate(block: &[u8]) -> Vec<u8> {
	let mut compress = Compress::new(Compression::new(LEVEL), false);
	let mut out = Vec::with_capacity(block.len() + 64);
	let status = compress
		.compress_vec(block, &mut out, FlushCompress::Finish)
		.expect("deflating into a large enough buffer succeeds");
	if status == Status::StreamEnd && out.len() < block.len() {
		out
	} else {
		block.to_vec()
	}
}

/// The index of an encoding of `length` entry bytes, read from its first bytes and checked:
/// offsets that never fall, the first 0. Returns the offsets.
pub fn read_index(index: &[u8], length: u64) -> Result<Vec<u64>, String> {
	let count = block_count(length) as usize;
	if (index.len() as u64) < index_bytes(length) {
		return Err(format!(
			"{} bytes, too short for the index of {} blocks",
			index.len(),
			count
		));
	}
	let offsets: Vec<u64> = index[..8 * (count + 1)]
		.chunks_exact(8)
		.map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
		.collect();
	if offsets[0] != 0 {
		return Err(format!("the index starts at {}, not 0", offsets[0]));
	}
	for (block, pair) in offsets.windows(2).enumerate() {
		let raw = block_length(length, block);
		if pair[1] < pair[0] || pair[1] - pair[0] > raw as u64 {
			return Err(format!(
				"block {block} runs from byte {} to byte {}, which cannot hold {raw} bytes",
				pair[0], pair[1]
			));
		}
	}
	Ok(offsets)
}

/// Entry bytes block `block` holds in an encoding of `length` entry bytes.
pub fn block_length(length: u64, block: usize) -> usize {
	let start = block as u64 * BLOCK_BYTES as u64;
	(length - start).min(BLOCK_BYTES as u64) as usize
}

/// The entries back from their encoding (index and blocks), on `threads` threads.
pub fn decode(encoded: &[u8], length: u64, threads: usize) -> Result<Vec<u8>, String> {
	let offsets = read_index(encoded, length)?;
	let data = &encoded[index_bytes(length) as usize..];
	let end = *offsets.last().expect("the index has n + 1 offsets");
	if data.len() as u64 != end {
		return Err(format!(
			"{} bytes of blocks, but the index announces {end}",
			data.len()
		));
	}
	let mut entries = vec![0u8; length as usize];
	let per_thread = offsets
		.len()
		.saturating_sub(1)
		.div_ceil(threads.max(1))
		.max(1);
	std::thread::scope(|scope| {
		let workers: Vec<_> = entries
			.chunks_mut(per_thread * BLOCK_BYTES)
			.enumerate()
			.map(|(run, out)| {
				let offsets = &offsets;
				scope.spawn(move || {
					let mut inflater = Inflater::default();
					for (i, block_out) in out.chunks_mut(BLOCK_BYTES).enumerate() {
						let block = run * per_thread + i;
						let stored = &data[offsets[block] as usize..offsets[block + 1] as usize];
						inflater
							.whole(stored, block_out)
							.map_err(|reason| format!("block {block}: {reason}"))?;
					}
					Ok::<(), String>(())
				})
			})
			.collect();
		workers
			.into_iter()
			.try_for_each(|worker| worker.join().expect("inflating does not panic"))
	})?;
	Ok(entries)
}

/// Inflates blocks into the caller's buffers, its tables kept from one block to the next
/// (making them anew costs more than inflating a short prefix).
#[derive(Default)]
pub struct Inflater {
	state: Box<DecompressorOxide>,
}

impl Inflater {
	/// Fills `out` with the first `out.len()` bytes of a block whose whole length is `whole`,
	/// from its stored form: all of them must come out.
	pub fn prefix(&mut self, stored: &[u8], whole: usize, out: &mut [u8]) -> Result<(), String> {
		if stored.len() == whole {
			out.copy_from_slice(&stored[..out.len()]);
			return Ok(());
		}
		let (status, produced) = self.inflate(stored, out);
		match status {
			TINFLStatus::Done | TINFLStatus::HasMoreOutput if produced == out.len() => Ok(()),
			_ => Err(format!(
				"it inflates to {produced} bytes, short of {} ({status:?})",
				out.len()
			)),
		}
	}

	/// Fills `out` with a whole block from its stored form, which must inflate to exactly
	/// `out.len()` bytes.
	pub fn whole(&mut self, stored: &[u8], out: &mut [u8]) -> Result<(), String> {
		if stored.len() == out.len() {
			out.copy_from_slice(stored);
			return Ok(());
		}
		match self.inflate(stored, out) {
			(TINFLStatus::Done, produced) if produced == out.len() => Ok(()),
			(TINFLStatus::Done, produced) => Err(format!(
				"it inflates to {produced} bytes, not {}",
				out.len()
			)),
			(TINFLStatus::HasMoreOutput, _) => Err(format!(
				"its deflate stream does not end after the {} bytes it should hold",
				out.len()
			)),
			(status, _) => Err(format!("not a deflate stream ({status:?})")),
		}
	}

	/// Inflates `stored`, the whole stream, into `out` until either ends; the status and the
	/// bytes written.
	fn inflate(&mut self, stored: &[u8], out: &mut [u8]) -> (TINFLStatus, usize) {
		self.state.init();
		let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
		let (status, _, produced) = decompress(&mut self.state, stored, out, 0, flags);
		(status, produced)
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	/// Entry-like bytes: long runs of one code with some noise, as solved layers look.
	fn layer_like(length: usize, seed: u64) -> Vec<u8> {
		let mut state = seed | 1;
		(0..length)
			.map(|i| {
				state ^= state << 13;
				state ^= state >> 7;
				state ^= state << 17;
				if (i / 700) % 3 == 0 {
					state as u8
				} else {
					0b0101_0101
				}
			})
			.collect()
	}

	#[test]
	fn entries_come_back_whatever_the_length_and_threads() {
		for length in [
			1,
			100,
			BLOCK_BYTES,
			BLOCK_BYTES + 1,
			5 * BLOCK_BYTES - 3,
			40_000,
		] {
			let entries = layer_like(length, length as u64);
			let one = encode(&entries, 1);
			assert_eq!(
				one,
				encode(&entries, 3),
				"the encoding does not depend on threads"
			);
			for threads in [1, 2, 5] {
				assert_eq!(
					decode(&one, length as u64, threads).unwrap(),
					entries,
					"length {length}, {threads} threads"
				);
			}
			assert!(one.len() as u64 <= max_encoded_bytes(length as u64));
		}
	}

	#[test]
	fn runs_shrink_and_noise_is_stored_as_it_is() {
		let runs = vec![0b0101_0101u8; 10 * BLOCK_BYTES];
		let encoded = encode(&runs, 1);
		assert!(encoded.len() < runs.len() / 20, "{} bytes", encoded.len());

		let mut state = 7u64;
		let noise: Vec<u8> = (0..2 * BLOCK_BYTES)
			.map(|_| {
				state = state
					.wrapping_mul(6364136223846793005)
					.wrapping_add(1442695040888963407);
				(state >> 56) as u8
			})
			.collect();
		let encoded = encode(&noise, 1);
		assert_eq!(encoded.len() as u64, max_encoded_bytes(noise.len() as u64));
		assert_eq!(decode(&encoded, noise.len() as u64, 1).unwrap(), noise);
	}

	#[test]
	fn a_prefix_of_any_block_inflates_alone() {
		let entries = layer_like(3 * BLOCK_BYTES + 10, 3);
		let encoded = encode(&entries, 1);
		let offsets = read_index(&encoded, entries.len() as u64).unwrap();
		let data = &encoded[index_bytes(entries.len() as u64) as usize..];
		for block in 0..offsets.len() - 1 {
			let whole = block_length(entries.len() as u64, block);
			let stored = &data[offsets[block] as usize..offsets[block + 1] as usize];
			for want in [1, whole / 2, whole] {
				let mut out = vec![0u8; want];
				Inflater::default().prefix(stored, whole, &mut out).unwrap();
				let start = block * BLOCK_BYTES;
				assert_eq!(
					out,
					entries[start..start + want],
					"block {block}, {want} bytes"
				);
			}
		}
	}

	#[test]
	fn damage_is_caught_and_named() {
		let entries = layer_like(4 * BLOCK_BYTES, 9);
		let length = entries.len() as u64;
		let encoded = encode(&entries, 1);

		let mut shorter = encoded.clone();
		shorter.pop();
		assert!(
			decode(&shorter, length, 1)
				.unwrap_err()
				.contains("index announces")
		);

		let mut falling = encoded.clone();
		falling[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
		assert!(
			decode(&falling, length, 1)
				.unwrap_err()
				.contains("block 0 runs")
		);

		let mut garbled = encoded.clone();
		let first_block = index_bytes(length) as usize;
		for byte in &mut garbled[first_block..first_block + 8] {
			*byte = 0xff;
		}
		let error = decode(&garbled, length, 1).unwrap_err();
		assert!(error.starts_with("block 0:"), "{error}");

		assert!(
			read_index(&encoded[..10], length)
				.unwrap_err()
				.contains("too short")
		);
	}
}
