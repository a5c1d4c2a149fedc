//! Every decoder of outside input, fed arbitrary and damaged input: position and move text, game
//! records, net, optimizer and tablebase files. None may panic; what they accept must write back the same.
//!
//! Damaged input starts from a valid text or file and changes a few bytes, which reaches far
//! deeper into a decoder than random bytes, most of which fail at the first check.

use proptest::prelude::*;
use tigers_core::network::Shape;
use tigers_core::network::train::{Adam, AdamSettings};
use tigers_core::selfplay::{SelfPlaySettings, play_self_play_game};
use tigers_core::tablebase::file::HEADER_BYTES;
use tigers_core::{ClaudePlayer, GameRecord, Move, Network, Position, Tablebase};

/// Cases per property: enough to reach every branch of these small decoders, few enough that
/// the suite stays quick in CI.
const CASES: u32 = 256;

/// An edit of a byte string: where (as a fraction of its length), and what.
#[derive(Clone, Debug)]
enum Edit {
	Replace(f64, u8),
	Insert(f64, u8),
	Delete(f64),
	Truncate(f64),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
	let at = 0.0..1.0f64;
	let edit = prop_oneof![
		(at.clone(), any::<u8>()).prop_map(|(at, b)| Edit::Replace(at, b)),
		(at.clone(), any::<u8>()).prop_map(|(at, b)| Edit::Insert(at, b)),
		at.clone().prop_map(Edit::Delete),
		at.prop_map(Edit::Truncate),
	];
	prop::collection::vec(edit, 1..6)
}

/// `bytes` with `edits` applied.
fn damaged(bytes: &[u8], edits: &[Edit]) -> Vec<u8> {
	let mut bytes = bytes.to_vec();
	for edit in edits {
		let index = |at: f64, len: usize| ((at * len as f64) as usize).min(len);
		match *edit {
			Edit::Replace(at, b) if !bytes.is_empty() => {
				let i = index(at, bytes.len() - 1);
				bytes[i] = b;
			}
			Edit::Insert(at, b) => bytes.insert(index(at, bytes.len()), b),
			Edit::Delete(at) if !bytes.is_empty() => {
				bytes.remove(index(at, bytes.len() - 1));
			}
			Edit::Truncate(at) => bytes.truncate(index(at, bytes.len())),
			_ => {}
		}
	}
	bytes
}

fn record_text() -> String {
	let mut a = ClaudePlayer::fixed_depth(1);
	let mut b = ClaudePlayer::fixed_depth(1);
	let settings = SelfPlaySettings {
		max_plies: 60,
		..SelfPlaySettings::default()
	};
	play_self_play_game(&mut a, &mut b, &settings, 5, 3)
		.record
		.to_text()
}

/// The first bytes of the shared test table's file.
fn tablebase_start() -> &'static [u8] {
	static START: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
	START.get_or_init(|| {
		let mut bytes = crate::tablebase::table().to_bytes();
		bytes.truncate(HEADER_BYTES + 4096);
		bytes
	})
}

fn small_net() -> Network {
	Network::new(
		Shape {
			hidden1: 8,
			hidden2: 4,
		},
		7,
	)
}

proptest! {
	#![proptest_config(ProptestConfig::with_cases(CASES))]

	#[test]
	fn position_text_never_panics_and_round_trips(
		text in prop_oneof![any::<String>(), "[TtSs.x/ 0-9]{0,40}", "[TS.]{5}(/[TS.]{5}){4} [st] [0-9]{1,2}"]
	) {
		if let Ok(position) = text.parse::<Position>() {
			prop_assert_eq!(position.to_string().parse::<Position>().ok(), Some(position));
		}
	}

	#[test]
	fn move_text_never_panics_and_round_trips(
		text in prop_oneof![any::<String>(), "[stx]?[a-f]?[0-6]?x?[a-f]?[0-6]?[a-f]?[0-6]?"]
	) {
		if let Ok(mv) = text.parse::<Move>() {
			prop_assert_eq!(mv.to_string().parse::<Move>().ok(), Some(mv));
		}
	}

	#[test]
	fn game_records_never_panic_and_what_reads_writes_back(
		edits in edits(),
		random in any::<String>(),
	) {
		let valid = record_text();
		let text = String::from_utf8_lossy(&damaged(valid.as_bytes(), &edits)).into_owned();
		for text in [text, random] {
			if let Ok(record) = GameRecord::from_text(&text) {
				// Reading accepts only canonical text.
				prop_assert_eq!(record.to_text(), text);
			}
		}
	}

	#[test]
	fn net_files_never_panic(edits in edits(), random in prop::collection::vec(any::<u8>(), 0..512)) {
		let valid = small_net().to_bytes();
		for bytes in [damaged(&valid, &edits), random] {
			if let Ok(net) = Network::from_bytes(&bytes) {
				prop_assert_eq!(Network::from_bytes(&net.to_bytes()).ok(), Some(net));
			}
		}
	}

	#[test]
	fn tablebase_files_never_panic(
		edits in edits(),
		tail in 0usize..4096,
		random in prop::collection::vec(any::<u8>(), 0..512),
	) {
		// The real header and the start of the entries, damaged: every header check is reached
		// (a whole damaged table is checked by the tablebase tests, its digest included).
		let start = tablebase_start();
		let cut = (HEADER_BYTES + tail).min(start.len());
		for bytes in [damaged(&start[..cut], &edits), random] {
			prop_assert!(Tablebase::from_bytes(bytes).is_err());
		}
	}

	#[test]
	fn optimizer_files_never_panic(edits in edits()) {
		let net = small_net();
		let adam = Adam::new(AdamSettings::default(), net.params().len());
		let bytes = damaged(&adam.to_bytes(net.shape()), &edits);
		let _ = Adam::from_bytes(&bytes, net.shape());
	}
}
