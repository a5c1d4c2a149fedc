//! Text game records: any text either reads as a record (its moves replayed and checked) or is
//! refused with an error; a record that reads writes back as text that reads the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tigers_core::GameRecord;

fuzz_target!(|text: &str| {
	if let Ok(record) = GameRecord::from_text(text) {
		let written = record.to_text();
		let again = GameRecord::from_text(&written).expect("a written record reads");
		assert_eq!(again, record, "{written}");
	}
});
