//! The copies of the template batch one simulated worker sends: each stamped with the
//! generation of the session's latest assignment, as a worker that follows the promotions would
//! send it, and when the next is due.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tigers_proto::v1::SampleBatch;

/// The copies one session sends, and when the next is due.
pub(super) struct Copies {
	template: Arc<SampleBatch>,
	/// The template stamped with the generation of the last copy sent, and that generation.
	stamped: (u64, Arc<SampleBatch>),
	/// When the next copy is due.
	pub(super) next_due: Instant,
}

impl Copies {
	/// Copies of `template` (played by `generation`), the first due at `first_due`.
	pub(super) fn new(template: Arc<SampleBatch>, generation: u64, first_due: Instant) -> Copies {
		Copies {
			stamped: (generation, template.clone()),
			template,
			next_due: first_due,
		}
	}

	/// The next copy: stamped with `generation`, sent under `sequence`.
	pub(super) fn batch(&mut self, generation: u64, sequence: u64) -> SampleBatch {
		if self.stamped.0 != generation {
			self.stamped = (generation, Arc::new(stamp(&self.template, generation)));
		}
		SampleBatch {
			sequence,
			..(*self.stamped.1).clone()
		}
	}

	/// Moves the schedule past a copy sent at `now` (every `interval`, or at once when
	/// saturating); when its acknowledgement's time counts from.
	pub(super) fn sent(&mut self, interval: Option<Duration>, now: Instant) -> Instant {
		// Saturating, a batch is timed from when it went; at a rate, from when it was due.
		match interval {
			Some(every) => {
				let due = self.next_due;
				self.next_due += every;
				due
			}
			None => {
				self.next_due = now;
				Instant::now()
			}
		}
	}
}

/// `template` as played by `generation`: each sample and each game record says so.
fn stamp(template: &SampleBatch, generation: u64) -> SampleBatch {
	let mut batch = template.clone();
	for sample in &mut batch.samples {
		sample.generation = generation;
	}
	for record in &mut batch.game_records {
		*record = record
			.lines()
			.map(|line| match line.strip_prefix("generation ") {
				Some(_) => format!("generation {generation}"),
				None => line.to_string(),
			})
			.collect::<Vec<_>>()
			.join("\n")
			+ "\n";
	}
	batch
}

#[cfg(test)]
mod tests {
	use tigers_core::ClaudePlayer;
	use tigers_core::record::GameRecord;
	use tigers_core::search::SearchSettings;
	use tigers_core::selfplay::{SelfPlaySettings, play_self_play_game};
	use tigers_proto::convert::sample_to_wire;
	use tigers_proto::v1;

	use super::*;

	#[test]
	fn a_stamped_copy_is_of_the_new_generation_and_otherwise_the_same() {
		let mut sheep = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
		let mut tigers = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
		let settings = SelfPlaySettings {
			max_plies: 30,
			..SelfPlaySettings::default()
		};
		let game = play_self_play_game(&mut sheep, &mut tigers, &settings, 5, 0);
		let template = SampleBatch {
			sequence: 1,
			samples: game.samples.iter().map(sample_to_wire).collect(),
			game_records: vec![game.record.to_text()],
			run_id: "run".into(),
		};
		let stamped = stamp(&template, 7);
		assert!(stamped.samples.iter().all(|s| s.generation == 7));
		let record = GameRecord::from_text(&stamped.game_records[0]).unwrap();
		assert_eq!(record.generation, Some(7));
		let original = GameRecord::from_text(&template.game_records[0]).unwrap();
		assert_eq!(record.moves, original.moves);
		let unchanged = |s: &v1::Sample| v1::Sample {
			generation: 0,
			..*s
		};
		let again: Vec<_> = stamped.samples.iter().map(unchanged).collect();
		assert_eq!(again, template.samples);
		assert_eq!(
			stamped.game_records[0].lines().count(),
			template.game_records[0].lines().count()
		);
	}
}
