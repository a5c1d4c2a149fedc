//! Conversions between wire messages and core types. From the wire, everything is checked: a
//! message that does not describe a possible value is refused with a sentence saying why.

use thiserror::Error;
use tigers_core::Turn;
use tigers_core::board::GameBoard;
use tigers_core::search::MAX_DEPTH;
use tigers_core::selfplay::{Sample, SampleError, SelfPlaySettings};

use crate::v1;

/// Why a wire message does not convert.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConvertError {
	/// A sample that self-play could not have produced (core's [`Sample::check`]).
	#[error("sample {index}: {error}")]
	Sample {
		/// The sample's index in its batch.
		index: usize,
		/// What is wrong with it.
		error: SampleError,
	},
	/// An assignment setting is outside its range.
	#[error("assignment: {field} is {value}, outside {range}")]
	Assignment {
		/// The field.
		field: &'static str,
		/// Its value, printed.
		value: String,
		/// The allowed range.
		range: &'static str,
	},
}

/// A core sample as a wire message.
pub fn sample_to_wire(sample: &Sample) -> v1::Sample {
	v1::Sample {
		tigers: sample.board.tigers(),
		sheep: sample.board.sheep(),
		sheep_in_hand: u32::from(sample.board.sheep_in_hand()),
		tigers_to_move: sample.turn == Turn::Tiger,
		score: sample.score,
		result: sample.result,
		ply: sample.ply,
		generation: sample.generation,
	}
}

/// A wire sample (the `index`-th of its batch) as a core sample, if it passes core's one rule
/// for samples ([`Sample::check`]): a position a game can reach and not yet finished, with
/// values in range.
pub fn sample_from_wire(index: usize, wire: &v1::Sample) -> Result<Sample, ConvertError> {
	let refuse = |error: SampleError| ConvertError::Sample { index, error };
	let board = GameBoard::new(wire.tigers, wire.sheep, wire.sheep_in_hand)
		.map_err(|e| refuse(e.into()))?;
	let sample = Sample {
		board,
		turn: if wire.tigers_to_move {
			Turn::Tiger
		} else {
			Turn::Sheep
		},
		score: wire.score,
		result: wire.result,
		ply: wire.ply,
		generation: wire.generation,
	};
	sample.check().map_err(refuse)?;
	Ok(sample)
}

/// What a worker plays: a net and the self-play settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
	/// The net's generation.
	pub generation: u64,
	/// The net's sha256.
	pub sha256: String,
	/// Search depth in plies.
	pub depth: u32,
	/// Exploration and the ply cap.
	pub selfplay: SelfPlaySettings,
	/// Games per sample batch.
	pub games_per_batch: u32,
	/// The identity of the tablebase self-play searches with, if any.
	pub tablebase_sha256: Option<String>,
	/// Whether games stop at their first movement-phase position with the exact result.
	pub adjudicate: bool,
	/// With adjudication, the share of games played to their end by the net's own search,
	/// without the tablebase (0 to 1).
	pub play_out_share: f32,
}

/// Whether a text is a sha256 as this protocol writes them: 64 lowercase hex digits.
pub fn is_sha256_hex(text: &str) -> bool {
	text.len() == 64
		&& text
			.bytes()
			.all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// A run's setup in a few words, for the dashboard and the web page: "net 64x32, encoding 2,
/// gate incumbent". `None` (a coordinator from before the setup was sent) is
/// "unknown".
pub fn setup_summary(setup: Option<&v1::RunSetup>) -> String {
	setup.map_or("unknown".to_string(), |s| {
		format!(
			"net {}, encoding {}, gate {}",
			s.net_shape, s.input_version, s.gate
		)
	})
}

impl Assignment {
	/// As a wire message.
	pub fn to_wire(&self) -> v1::Assignment {
		v1::Assignment {
			generation: self.generation,
			sha256: self.sha256.clone(),
			depth: self.depth,
			random_plies: self.selfplay.random_plies,
			softmax_plies: self.selfplay.softmax_plies,
			temperature: self.selfplay.temperature,
			max_plies: self.selfplay.max_plies,
			games_per_batch: self.games_per_batch,
			tablebase_sha256: self.tablebase_sha256.clone().unwrap_or_default(),
			adjudicate: self.adjudicate,
			play_out_share: self.play_out_share,
		}
	}

	/// From a wire message, if every setting is in range.
	pub fn from_wire(wire: &v1::Assignment) -> Result<Assignment, ConvertError> {
		check_assignment(wire)?;
		let table = &wire.tablebase_sha256;
		Ok(Assignment {
			generation: wire.generation,
			sha256: wire.sha256.clone(),
			depth: wire.depth,
			selfplay: SelfPlaySettings {
				random_plies: wire.random_plies,
				softmax_plies: wire.softmax_plies,
				temperature: wire.temperature,
				max_plies: wire.max_plies,
			},
			games_per_batch: wire.games_per_batch,
			tablebase_sha256: (!table.is_empty()).then(|| table.clone()),
			adjudicate: wire.adjudicate,
			play_out_share: wire.play_out_share,
		})
	}
}

/// The first of an assignment's settings out of its range, as an error; the checks are made in
/// the order of the message's fields.
fn check_assignment(wire: &v1::Assignment) -> Result<(), ConvertError> {
	let mut checks = play_checks(wire).into_iter().chain(source_checks(wire));
	match checks.find(|(ok, ..)| !ok) {
		None => Ok(()),
		Some((_, field, value, range)) => Err(ConvertError::Assignment {
			field,
			value,
			range,
		}),
	}
}

/// One of an assignment's checks: (in range, field, value, range).
type Check = (bool, &'static str, String, &'static str);

/// The checks of how the games are played: the search's depth and the self-play settings.
fn play_checks(wire: &v1::Assignment) -> [Check; 6] {
	let (t, share) = (wire.temperature, wire.play_out_share);
	[
		(
			(1..=MAX_DEPTH).contains(&wire.depth),
			"depth",
			wire.depth.to_string(),
			"1..=64",
		),
		(
			wire.random_plies <= 100,
			"random_plies",
			wire.random_plies.to_string(),
			"0..=100",
		),
		(
			wire.softmax_plies <= 100,
			"softmax_plies",
			wire.softmax_plies.to_string(),
			"0..=100",
		),
		(
			t.is_finite() && t > 0.0 && t <= 10.0,
			"temperature",
			t.to_string(),
			"(0, 10]",
		),
		(
			(1..=10_000).contains(&wire.max_plies),
			"max_plies",
			wire.max_plies.to_string(),
			"1..=10000",
		),
		(
			(0.0..=1.0).contains(&share),
			"play_out_share",
			share.to_string(),
			"[0, 1]",
		),
	]
}

/// The checks of how many games a batch holds and the files they are played with: the net's
/// and the tablebase's, which adjudication needs.
fn source_checks(wire: &v1::Assignment) -> [Check; 4] {
	let table = &wire.tablebase_sha256;
	[
		(
			(1..=1000).contains(&wire.games_per_batch),
			"games_per_batch",
			wire.games_per_batch.to_string(),
			"1..=1000",
		),
		(
			is_sha256_hex(&wire.sha256),
			"sha256",
			format!("{:?}", wire.sha256),
			"64 lowercase hex digits",
		),
		(
			table.is_empty() || is_sha256_hex(table),
			"tablebase_sha256",
			format!("{table:?}"),
			"empty or 64 lowercase hex digits",
		),
		(
			!wire.adjudicate || !table.is_empty(),
			"adjudicate",
			"true".to_string(),
			"false without a tablebase",
		),
	]
}

#[cfg(test)]
mod tests {
	use proptest::prelude::*;
	use tigers_core::Position;

	use super::*;

	#[test]
	fn a_setup_reads_as_a_line() {
		let setup = v1::RunSetup {
			net_shape: "64x32".into(),
			input_version: 2,
			gate: "incumbent".into(),
		};
		assert_eq!(
			setup_summary(Some(&setup)),
			"net 64x32, encoding 2, gate incumbent"
		);
		assert_eq!(setup_summary(None), "unknown");
	}

	fn sample() -> Sample {
		let position: Position = "T.S.T/.SSS./..T../S...S/...T. t 12".parse().unwrap();
		Sample {
			board: position.board,
			turn: position.turn,
			score: 0.25,
			result: -1.0,
			ply: 15,
			generation: 3,
		}
	}

	#[test]
	fn samples_round_trip() {
		let wire = sample_to_wire(&sample());
		assert_eq!(sample_from_wire(0, &wire), Ok(sample()));
	}

	#[test]
	fn impossible_samples_are_refused_with_a_reason() {
		let good = sample_to_wire(&sample());
		let cases: Vec<(v1::Sample, &str)> = vec![
			(
				v1::Sample {
					tigers: good.tigers | 1 << 30,
					..good
				},
				"beyond the 25 points",
			),
			(
				v1::Sample {
					tigers: good.tigers & !1,
					..good
				},
				"exactly 4 tigers",
			),
			(
				v1::Sample {
					sheep: good.sheep | good.tigers,
					..good
				},
				"both stand on",
			),
			(
				v1::Sample {
					sheep_in_hand: 21,
					..good
				},
				"at most 20",
			),
			(
				v1::Sample {
					sheep_in_hand: 19,
					..good
				},
				"more than 20",
			),
			(
				v1::Sample {
					score: f32::NAN,
					..good
				},
				"score",
			),
			(v1::Sample { score: 1.5, ..good }, "score"),
			(
				v1::Sample {
					result: 0.5,
					..good
				},
				"result",
			),
			(
				v1::Sample {
					ply: 20_000,
					..good
				},
				"ply",
			),
			(
				v1::Sample {
					sheep_in_hand: 20,
					sheep: 0,
					..good
				},
				"before the first sheep",
			),
		];
		for (wire, expected) in cases {
			let error = sample_from_wire(7, &wire).unwrap_err().to_string();
			assert!(error.starts_with("sample 7: "), "{error}");
			assert!(
				error.contains(expected),
				"{error:?} should mention {expected:?}"
			);
		}
	}

	#[test]
	fn finished_positions_are_not_samples() {
		let position: Position = "T...T/SSSSS/SSSSS/SSSSS/T...T s 0".parse().unwrap();
		let over = Sample {
			board: position.board,
			turn: Turn::Sheep,
			..sample()
		};
		let error = sample_from_wire(0, &sample_to_wire(&over)).unwrap_err();
		assert!(error.to_string().contains("already over"), "{error}");
	}

	fn assignment() -> Assignment {
		Assignment {
			generation: 4,
			sha256: "ab".repeat(32),
			depth: 3,
			selfplay: SelfPlaySettings::default(),
			games_per_batch: 8,
			tablebase_sha256: Some("cd".repeat(32)),
			adjudicate: true,
			play_out_share: 0.25,
		}
	}

	#[test]
	fn assignments_round_trip_and_check_ranges() {
		assert_eq!(
			Assignment::from_wire(&assignment().to_wire()),
			Ok(assignment())
		);
		let bad = [
			v1::Assignment {
				depth: 0,
				..assignment().to_wire()
			},
			v1::Assignment {
				depth: 65,
				..assignment().to_wire()
			},
			v1::Assignment {
				temperature: 0.0,
				..assignment().to_wire()
			},
			v1::Assignment {
				games_per_batch: 0,
				..assignment().to_wire()
			},
			v1::Assignment {
				sha256: "AB".repeat(32),
				..assignment().to_wire()
			},
			v1::Assignment {
				max_plies: 0,
				..assignment().to_wire()
			},
			v1::Assignment {
				play_out_share: 1.5,
				..assignment().to_wire()
			},
			v1::Assignment {
				play_out_share: f32::NAN,
				..assignment().to_wire()
			},
			v1::Assignment {
				tablebase_sha256: "CD".repeat(32),
				..assignment().to_wire()
			},
			v1::Assignment {
				tablebase_sha256: String::new(),
				adjudicate: true,
				..assignment().to_wire()
			},
		];
		for wire in bad {
			assert!(Assignment::from_wire(&wire).is_err(), "{wire:?}");
		}
		let without = v1::Assignment {
			tablebase_sha256: String::new(),
			adjudicate: false,
			..assignment().to_wire()
		};
		let read = Assignment::from_wire(&without).unwrap();
		assert_eq!((read.tablebase_sha256, read.adjudicate), (None, false));
	}

	fn wire_sample() -> impl Strategy<Value = v1::Sample> {
		// Masks mostly within the board, and values mostly near their ranges, so that some
		// samples convert and the checks past the first are reached too.
		let mask = prop_oneof![0u32..(1 << 25), any::<u32>()];
		let float = prop_oneof![
			-1.5f32..1.5,
			Just(f32::NAN),
			Just(f32::INFINITY),
			any::<f32>()
		];
		(
			(mask.clone(), mask, 0u32..25, any::<bool>()),
			(float.clone(), float, 0u32..11_000, any::<u64>()),
		)
			.prop_map(
				|(
					(tigers, sheep, sheep_in_hand, tigers_to_move),
					(score, result, ply, generation),
				)| {
					v1::Sample {
						tigers,
						sheep,
						sheep_in_hand,
						tigers_to_move,
						score,
						result,
						ply,
						generation,
					}
				},
			)
	}

	proptest! {
		#![proptest_config(ProptestConfig::with_cases(512))]

		#[test]
		fn wire_samples_never_panic_and_what_converts_goes_back(wire in wire_sample()) {
			if let Ok(sample) = sample_from_wire(3, &wire) {
				prop_assert_eq!(sample_to_wire(&sample), wire);
			}
		}

		#[test]
		fn wire_assignments_never_panic_and_what_converts_goes_back(
			(generation, depth, random_plies, softmax_plies) in (any::<u64>(), 0u32..70, 0u32..110, 0u32..110),
			(temperature, max_plies, games_per_batch) in (-1.0f32..12.0, 0u32..11_000, 0u32..1100),
			sha256 in prop_oneof!["[0-9a-f]{64}", "[0-9a-fA-F]{60,66}", any::<String>()],
			(tablebase_sha256, adjudicate) in (prop_oneof![Just(String::new()), "[0-9a-f]{64}", any::<String>()], any::<bool>()),
			play_out_share in prop_oneof![0.0f32..=1.0, -0.5f32..1.5, Just(f32::NAN)],
		) {
			let wire = v1::Assignment {
				generation,
				sha256,
				depth,
				random_plies,
				softmax_plies,
				temperature,
				max_plies,
				games_per_batch,
				tablebase_sha256,
				adjudicate,
				play_out_share,
			};
			if let Ok(assignment) = Assignment::from_wire(&wire) {
				prop_assert_eq!(assignment.to_wire(), wire);
			}
		}
	}
}
