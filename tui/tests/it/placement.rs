//! `tui tablebase verify --placement`: a verify that was stopped goes on where it was, by the
//! record of the layers it finished.

use std::path::PathBuf;

use tigers_core::tablebase::placement;
use tigers_tui::commands::placement as placement_command;

use crate::support::tablebase;

#[test]
fn a_verify_takes_the_layers_it_finished_on_the_record_while_their_files_stay() {
	let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("placement-verify-record");
	let _ = std::fs::remove_dir_all(&dir);
	placement::build(&dir, tablebase(), 19, 2, &|_| {}).expect("the last layers solve");
	let verify = |again| placement_command::verify(&dir, tablebase(), 2, again).unwrap();

	let first = verify(false);
	assert!(first.contains("verified 2 layers (2 now"), "{first}");
	let record = dir.join("verified.txt");
	assert_eq!(std::fs::read_to_string(&record).unwrap().lines().count(), 2);

	let second = verify(false);
	assert!(
		second.contains("verified 2 layers (0 now, 0 entries"),
		"{second}"
	);
	assert_eq!(second.matches("verified before").count(), 2, "{second}");

	// A layer whose file is not the one recorded is checked anew; the layer above it, whose
	// own file and child's are as recorded, is not.
	let text = std::fs::read_to_string(&record).unwrap();
	let changed = text.replacen("placed-19-sheep.tbp ", "placed-19-sheep.tbp 00", 1);
	std::fs::write(&record, changed).unwrap();
	let third = verify(false);
	assert!(third.contains("verified 2 layers (1 now"), "{third}");
	let line = |name: &str| {
		third
			.lines()
			.find(|l| l.starts_with(name))
			.unwrap()
			.to_string()
	};
	assert!(
		line("placed-19-sheep.tbp").contains("hold the best value"),
		"{third}"
	);
	assert!(
		line("placed-19-tigers.tbp").contains("verified before"),
		"{third}"
	);

	// `--again` checks every layer, whatever the record says.
	let again = verify(true);
	assert!(again.contains("verified 2 layers (2 now"), "{again}");
	std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_suite_is_drawn_only_from_the_whole_solved_game() {
	use tigers_core::grade::SuiteShape;
	use tigers_tui::commands::suite::{self as suite_command, SuiteCommandError};

	let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("placement-suite-refused");
	let _ = std::fs::remove_dir_all(&dir);
	placement::build(&dir, tablebase(), 19, 2, &|_| {}).expect("the last layers solve");
	let out = dir.join("suite.txt");
	let shape = SuiteShape {
		seed: 1,
		placement: 5,
		movement: 5,
	};
	let refused = suite_command::suite(&dir, tablebase(), shape, &out).unwrap_err();
	assert!(
		matches!(refused, SuiteCommandError::Incomplete(_)),
		"{refused}"
	);
	assert!(
		refused
			.to_string()
			.contains("tui tablebase build --placement"),
		"{refused}"
	);
	assert!(!out.exists(), "nothing is written");
}
