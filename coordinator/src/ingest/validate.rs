//! Checks a sample batch before anything of it is stored: every sample a reachable, unfinished
//! position with values in range, generations known, sizes sane, game records readable; and
//! whether it is stale (from generations too far behind to train on).
//!
//! A stale batch is not malformed: it is what a worker cut off for a while has spooled. It is
//! stored and counted like any other, so every batch is still accounted for exactly once, but
//! not trained on. Refusing it instead made such a worker drop its spool one batch per
//! reconnect.

use tigers_core::selfplay::Sample;
use tigers_core::{GameRecord, Outcome, Position, Tablebase, Turn};
use tigers_proto::convert::sample_from_wire;
use tigers_proto::v1;

use crate::error::{RejectReason, Rejection};
use crate::store::ledger::NewBatch;

pub(crate) use tigers_proto::{MAX_BATCH_GAMES, MAX_BATCH_SAMPLES};
/// Most bytes of one game record. A game stops at 10,000 plies at most (the largest
/// `max_plies`), and a move takes at most 7 bytes (`ta5xc3` and a space): 70,000 bytes of moves,
/// plus the header and metadata lines.
pub(crate) const MAX_GAME_RECORD_BYTES: usize = 100_000;
/// Most characters of a player's name in a game record, as for worker names.
pub(crate) const MAX_PLAYER_NAME_CHARS: usize = 128;
/// The largest sequence number: the ledger stores sequences as SQLite's 64-bit signed integers.
pub(crate) const MAX_SEQUENCE: u64 = i64::MAX as u64;

/// What a batch must agree with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expect {
	/// The latest promoted generation.
	pub generation: u64,
	/// How many generations behind it a sample may be.
	pub max_staleness: u64,
}

/// A batch that passed: its samples as core values and its records' texts. Only
/// [`validate_batch`] makes one, so its samples have each passed `Sample::check`.
#[derive(Debug)]
pub(crate) struct ValidBatch {
	/// Per worker identity, from 1.
	pub sequence: u64,
	/// The samples, each checked; private, so that no other module can make a `ValidBatch`.
	samples: Vec<Sample>,
	/// The game records, as sent.
	pub game_records: Vec<String>,
	/// How each game ended, in record order.
	pub endings: Vec<GameEnding>,
	/// Samples from generations older than the latest.
	pub superseded: usize,
	/// Whether some sample is more than `max_staleness` generations behind: store, do not train.
	pub stale: bool,
}

impl ValidBatch {
	/// The samples.
	pub(crate) fn samples(&self) -> &[Sample] {
		&self.samples
	}

	/// The samples to train on: all of them, or none for a stale batch.
	pub(crate) fn into_trainable(self) -> Vec<Sample> {
		if self.stale { Vec::new() } else { self.samples }
	}

	/// The batch made ready for the ledger, as `worker_id`'s: its samples are not checked
	/// again.
	pub(crate) fn for_ledger(&self, worker_id: &str) -> NewBatch {
		NewBatch::checked(worker_id, self.sequence, &self.samples, &self.game_records)
	}
}

/// How a received game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnding {
	/// By the rules.
	Over(Outcome),
	/// Stopped in this position: at the ply cap, or adjudicated by the tablebase.
	Stopped(Position),
}

impl GameEnding {
	/// Who won: the rules' winner, or for a stopped game the side the tablebase says wins
	/// from where it stopped; `None` for a draw (or a stopped game nobody can judge).
	pub fn winner(&self, tablebase: Option<&Tablebase>) -> Option<Turn> {
		match *self {
			GameEnding::Over(outcome) => outcome.winner(),
			GameEnding::Stopped(position) => {
				let value = tablebase?.probe(position.board, position.turn)?;
				match value.sign() {
					1 => Some(position.turn),
					-1 => Some(position.turn.opponent()),
					_ => None,
				}
			}
		}
	}
}

/// The batch as core values, or why it is refused.
pub(crate) fn validate_batch(
	batch: v1::SampleBatch,
	expect: Expect,
) -> Result<ValidBatch, Rejection> {
	let prefix = format!("batch {}", batch.sequence);
	check_sizes(&batch, &prefix)?;
	let samples = check_samples(&batch.samples, expect, &prefix)?;
	let endings = check_records(&batch.game_records, &prefix)?;
	Ok(ValidBatch {
		sequence: batch.sequence,
		samples: samples.samples,
		game_records: batch.game_records,
		endings,
		superseded: samples.superseded,
		stale: samples.stale,
	})
}

/// Refuses a sequence number out of range, and a batch with no samples or records or too many.
fn check_sizes(batch: &v1::SampleBatch, prefix: &str) -> Result<(), Rejection> {
	if batch.sequence == 0 {
		return Err(Rejection::new(
			RejectReason::Sequence,
			format!("{prefix}: sequence numbers start at 1"),
		));
	}
	if batch.sequence > MAX_SEQUENCE {
		return Err(Rejection::new(
			RejectReason::Sequence,
			format!("{prefix}: sequence numbers go up to {MAX_SEQUENCE}"),
		));
	}
	if batch.samples.is_empty() || batch.samples.len() > MAX_BATCH_SAMPLES {
		return Err(Rejection::new(
			RejectReason::Size,
			format!(
				"{prefix}: {} samples; a batch holds 1 to {MAX_BATCH_SAMPLES}",
				batch.samples.len()
			),
		));
	}
	if batch.game_records.is_empty() || batch.game_records.len() > MAX_BATCH_GAMES {
		return Err(Rejection::new(
			RejectReason::Size,
			format!(
				"{prefix}: {} game records; a batch holds 1 to {MAX_BATCH_GAMES}",
				batch.game_records.len()
			),
		));
	}
	Ok(())
}

/// A batch's samples as core values, with how many are behind the latest generation.
struct CheckedSamples {
	samples: Vec<Sample>,
	superseded: usize,
	stale: bool,
}

/// Converts the samples, each checked by core's rule on the way, and refuses one from a
/// generation not yet promoted.
fn check_samples(
	wire: &[v1::Sample],
	expect: Expect,
	prefix: &str,
) -> Result<CheckedSamples, Rejection> {
	let oldest = expect.generation.saturating_sub(expect.max_staleness);
	let mut stale = false;
	let mut superseded = 0;
	let mut samples = Vec::with_capacity(wire.len());
	for (index, wire) in wire.iter().enumerate() {
		let sample = sample_from_wire(index, wire)
			.map_err(|e| Rejection::new(RejectReason::Sample, format!("{prefix}: {e}")))?;
		if sample.generation > expect.generation {
			return Err(Rejection::new(
				RejectReason::Generation,
				format!(
					"{prefix}: sample {index} claims generation {}, but the latest is {}",
					sample.generation, expect.generation
				),
			));
		}
		stale |= sample.generation < oldest;
		superseded += usize::from(sample.generation < expect.generation);
		samples.push(sample);
	}
	Ok(CheckedSamples {
		samples,
		superseded,
		stale,
	})
}

/// How each game record ended, refusing one that is too long, does not replay, or names a
/// player at too great a length.
fn check_records(records: &[String], prefix: &str) -> Result<Vec<GameEnding>, Rejection> {
	let mut endings = Vec::with_capacity(records.len());
	for (index, text) in records.iter().enumerate() {
		let refuse = |why: String| {
			Rejection::new(
				RejectReason::GameRecord,
				format!("{prefix}: game record {index}: {why}"),
			)
		};
		if text.len() > MAX_GAME_RECORD_BYTES {
			return Err(refuse(format!(
				"{} bytes; a game record takes at most {MAX_GAME_RECORD_BYTES}",
				text.len()
			)));
		}
		let record = GameRecord::from_text(text).map_err(|e| refuse(e.to_string()))?;
		let names = [&record.sheep_player, &record.tigers_player];
		if let Some(name) = names
			.into_iter()
			.flatten()
			.find(|name| name.as_str().chars().count() > MAX_PLAYER_NAME_CHARS)
		{
			return Err(refuse(format!(
				"the player name {} is longer than {MAX_PLAYER_NAME_CHARS} characters",
				crate::text::excerpt(name.as_str())
			)));
		}
		endings.push(match record.result {
			Some(outcome) => GameEnding::Over(outcome),
			// `from_text` replayed the moves already; this replay refuses nothing.
			None => GameEnding::Stopped(record.replay().0.position()),
		});
	}
	Ok(endings)
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
			run_id: String::new(),
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
		assert_eq!(valid.endings.len(), 1);
		assert_eq!(
			valid.superseded,
			valid.samples.len(),
			"generation 4 is behind 5"
		);
		assert_eq!(validate_batch(batch(5), EXPECT).unwrap().superseded, 0);
		assert!(!valid.stale);
	}

	#[test]
	fn an_old_batch_passes_as_stale() {
		assert!(validate_batch(batch(2), EXPECT).unwrap().stale);
		assert!(!validate_batch(batch(3), EXPECT).unwrap().stale);
	}

	#[test]
	fn a_stale_batch_has_nothing_to_train_on() {
		assert!(
			validate_batch(batch(2), EXPECT)
				.unwrap()
				.into_trainable()
				.is_empty()
		);
		let fresh = validate_batch(batch(3), EXPECT).unwrap();
		let samples = fresh.samples().to_vec();
		assert!(!samples.is_empty());
		assert_eq!(fresh.into_trainable(), samples);
	}

	#[test]
	fn bad_batches_say_why() {
		use RejectReason::*;
		let cases: Vec<(v1::SampleBatch, RejectReason, &str)> = vec![
			(
				v1::SampleBatch {
					sequence: 0,
					..batch(5)
				},
				Sequence,
				"start at 1",
			),
			(
				v1::SampleBatch {
					samples: vec![],
					..batch(5)
				},
				Size,
				"samples",
			),
			(
				v1::SampleBatch {
					game_records: vec![],
					..batch(5)
				},
				Size,
				"game records",
			),
			(
				v1::SampleBatch {
					game_records: vec!["nonsense".into()],
					..batch(5)
				},
				GameRecord,
				"game record 0",
			),
			(batch(6), Generation, "claims generation 6"),
			(
				v1::SampleBatch {
					sequence: 1 << 63,
					..batch(5)
				},
				Sequence,
				"go up to 9223372036854775807",
			),
			(
				v1::SampleBatch {
					sequence: u64::MAX,
					..batch(5)
				},
				Sequence,
				"go up to",
			),
			(
				v1::SampleBatch {
					game_records: vec![format!("{}\n", "x".repeat(MAX_GAME_RECORD_BYTES))],
					..batch(5)
				},
				GameRecord,
				"at most 100000",
			),
			(
				v1::SampleBatch {
					game_records: vec![batch(5).game_records[0].replacen(
						"record 1\n",
						&format!("record 1\nsheep {}\n", "n".repeat(129)),
						1,
					)],
					..batch(5)
				},
				GameRecord,
				"longer than 128",
			),
		];
		for (bad, reason, expected) in cases {
			let error = validate_batch(bad, EXPECT).unwrap_err();
			assert_eq!(error.reason, reason, "{}", error.message);
			assert!(
				error.message.contains(expected),
				"{error:?} should mention {expected:?}"
			);
		}
		let mut bad = batch(5);
		bad.samples[1].score = f32::INFINITY;
		let error = validate_batch(bad, EXPECT).unwrap_err();
		assert_eq!(error.reason, Sample);
		assert!(
			error.message.starts_with("batch 1: sample 1: score"),
			"{}",
			error.message
		);
	}

	mod decoding {
		use proptest::prelude::*;

		use super::*;

		proptest! {
			#![proptest_config(ProptestConfig::with_cases(256))]

			/// Any batch, however made up, is valid or refused with a reason; never a panic.
			#[test]
			fn any_batch_is_judged_without_panicking(
				sequence in prop_oneof![0u64..4, any::<u64>()],
				fields in prop::collection::vec((any::<u32>(), any::<u32>(), 0u32..30, any::<bool>(), any::<f32>(), prop_oneof![Just(0.0f32), any::<f32>()], any::<u32>(), 0u64..8), 0..8),
				records in prop::collection::vec(prop_oneof![any::<String>(), Just(batch(5).game_records[0].clone())], 0..3),
				edit in (any::<prop::sample::Index>(), any::<char>()),
			) {
				let samples = fields
					.into_iter()
					.map(|(tigers, sheep, sheep_in_hand, tigers_to_move, score, result, ply, generation)| {
						v1::Sample { tigers, sheep, sheep_in_hand, tigers_to_move, score, result, ply, generation }
					})
					.collect();
				let mut game_records = records;
				if let Some(record) = game_records.first_mut()
					&& !record.is_empty()
				{
					let at = record.char_indices().nth(edit.0.index(record.chars().count())).map_or(0, |(i, _)| i);
					record.insert(at, edit.1);
				}
				let batch = v1::SampleBatch { sequence, samples, game_records, run_id: String::new() };
				match validate_batch(batch, EXPECT) {
					Ok(valid) => prop_assert!(valid.sequence >= 1 && valid.sequence <= MAX_SEQUENCE),
					Err(rejection) => prop_assert!(!rejection.message.is_empty()),
				}
			}
		}
	}
}
