//! The gRPC messages a coordinator takes from workers and a worker from its coordinator, as
//! bytes off the wire: the first byte picks the message; the rest either decodes or is
//! refused, and what decodes converts to the game's types or is refused with a sentence.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use tigers_proto::convert::{Assignment, sample_from_wire};
use tigers_proto::v1;

fuzz_target!(|bytes: &[u8]| {
	let Some((&pick, message)) = bytes.split_first() else {
		return;
	};
	match pick % 3 {
		0 => {
			if let Ok(batch) = v1::SampleBatch::decode(message) {
				for (index, sample) in batch.samples.iter().enumerate() {
					let _ = sample_from_wire(index, sample);
				}
				for record in &batch.game_records {
					let _ = tigers_core::GameRecord::from_text(record);
				}
			}
		}
		1 => {
			if let Ok(assignment) = v1::Assignment::decode(message) {
				if let Ok(checked) = Assignment::from_wire(&assignment) {
					let again = Assignment::from_wire(&checked.to_wire()).expect("round trip");
					assert_eq!(again, checked);
				}
			}
		}
		_ => {
			if let Ok(file) = v1::NetFile::decode(message) {
				let _ = tigers_proto::client::check_net(&file.safetensors, &file.sha256);
			}
		}
	}
});
