//! Checks a sample batch before anything of it is stored: every sample a reachable, unfinished
//! position with values in range, generations known, sizes sane, game records readable; and
//! whether it is stale (from generations too far behind to train on).
//!
//! A stale batch is not malformed: it is what a worker cut off for a while has spooled. It is
//! stored and counted like any other, so every batch is still accounted for exactly once, but
//! not trained on. Refusing it instead made such a worker drop its spool one batch per
//! reconnect.

use tigers_core::GameRecord;
use tigers_core::selfplay::Sample;
use tigers_proto::convert::sample_from_wire;
use tigers_proto::v1;

/// Most samples in one batch.
pub const MAX_BATCH_SAMPLES: usize = 100_000;
/// Most game records in one batch.
pub const MAX_BATCH_GAMES: usize = 1_000;

/// What a batch must agree with.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
	/// The latest promoted generation.
	pub generation: u64,
	/// How many generations behind it a sample may be.
	pub max_staleness: u64,
}

/// A batch that passed: its samples as core values and its records' texts.
#[derive(Debug)]
pub struct ValidBatch {
	/// Per worker identity, from 1.
	pub sequence: u64,
	/// The samples.
	pub samples: Vec<Sample>,
	/// The game records, as sent.
	pub game_records: Vec<String>,
	/// Whether some sample is more than `max_staleness` generations behind: store, do not train.
	pub stale: bool,
}

/// The batch as core values, or a sentence saying what is wrong with it.
pub fn validate_batch(batch: v1::SampleBatch, expect: Expect) -> Result<ValidBatch, String> {
	let prefix = format!("batch {}", batch.sequence);
	if batch.sequence == 0 {
		return Err(format!("{prefix}: sequence numbers start at 1"));
	}
	if batch.samples.is_empty() || batch.samples.len() > MAX_BATCH_SAMPLES {
		return Err(format!(
			"{prefix}: {} samples; a batch holds 1 to {MAX_BATCH_SAMPLES}",
			batch.samples.len()
		));
	}
	if batch.game_records.is_empty() || batch.game_records.len() > MAX_BATCH_GAMES {
		return Err(format!(
			"{prefix}: {} game records; a batch holds 1 to {MAX_BATCH_GAMES}",
			batch.game_records.len()
		));
	}
	let oldest = expect.generation.saturating_sub(expect.max_staleness);
	let mut stale = false;
	let mut samples = Vec::with_capacity(batch.samples.len());
	for (index, wire) in batch.samples.iter().enumerate() {
		let sample = sample_from_wire(index, wire).map_err(|e| format!("{prefix}: {e}"))?;
		if sample.generation > expect.generation {
			return Err(format!(
				"{prefix}: sample {index} claims generation {}, but the latest is {}",
				sample.generation, expect.generation
			));
		}
		stale |= sample.generation < oldest;
		samples.push(sample);
	}
	for (index, text) in batch.game_records.iter().enumerate() {
		GameRecord::from_text(text).map_err(|e| format!("{prefix}: game record {index}: {e}"))?;
	}
	Ok(ValidBatch {
		sequence: batch.sequence,
		samples,
		game_records: batch.game_records,
		stale,
	})
}

#[cfg(test)]
mod tests {
	use super::*;
	use tigers_core::selfplay::{SelfPlaySettings, play_self_play_game};
	use tigers_core::{ClaudePlayer, search::SearchSettings};
	use tigers_proto::convert::sample_to_wire;

	fn batch(generation: u64) -> v1::SampleBatch {
		let mut a = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
		let mut b = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
		let settings = SelfPlaySettings {
			max_plies: 40,
			..SelfPlaySettings::default()
		};
		let game = play_self_play_game(&mut a, &mut b, &settings, 3, generation);
		v1::SampleBatch {
			sequence: 1,
			samples: game
				.samples
				.iter()
				.map(|s| sample_to_wire(&Sample { score: 0.0, ..*s }))
				.collect(),
			game_records: vec![game.record.to_text()],
		}
	}

	const EXPECT: Expect = Expect {
		generation: 5,
		max_staleness: 2,
	};

	#[test]
	fn a_good_batch_passes() {
		let valid = validate_batch(batch(4), EXPECT).unwrap();
		assert!(!valid.samples.is_empty());
		assert_eq!(valid.game_records.len(), 1);
		assert!(!valid.stale);
	}

	#[test]
	fn an_old_batch_passes_as_stale() {
		assert!(validate_batch(batch(2), EXPECT).unwrap().stale);
		assert!(!validate_batch(batch(3), EXPECT).unwrap().stale);
	}

	#[test]
	fn bad_batches_say_why() {
		let cases: Vec<(v1::SampleBatch, &str)> = vec![
			(
				v1::SampleBatch {
					sequence: 0,
					..batch(5)
				},
				"start at 1",
			),
			(
				v1::SampleBatch {
					samples: vec![],
					..batch(5)
				},
				"samples",
			),
			(
				v1::SampleBatch {
					game_records: vec![],
					..batch(5)
				},
				"game records",
			),
			(
				v1::SampleBatch {
					game_records: vec!["nonsense".into()],
					..batch(5)
				},
				"game record 0",
			),
			(batch(6), "claims generation 6"),
		];
		for (bad, expected) in cases {
			let error = validate_batch(bad, EXPECT).unwrap_err();
			assert!(
				error.contains(expected),
				"{error:?} should mention {expected:?}"
			);
		}
		let mut bad = batch(5);
		bad.samples[1].score = f32::INFINITY;
		let error = validate_batch(bad, EXPECT).unwrap_err();
		assert!(error.starts_with("batch 1: sample 1: score"), "{error}");
	}
}
