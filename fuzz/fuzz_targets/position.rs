//! Position notation: any text either reads as a position or is refused with an error, and a
//! position that reads writes back as text that reads as the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tigers_core::Position;

fuzz_target!(|text: &str| {
	if let Ok(position) = text.parse::<Position>() {
		let written = position.to_string();
		let again: Position = written.parse().expect("a written position reads");
		assert_eq!(again, position, "{written}");
	}
});
