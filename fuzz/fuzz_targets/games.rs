//! Files of game records as the archive keeps them (gzip members one after another) or as
//! text: every game reads or the file is refused naming the first that does not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tigers_proto::games::parse_games;

fuzz_target!(|bytes: &[u8]| {
	if let Ok(games) = parse_games(bytes) {
		for game in games {
			let _ = game.to_text();
		}
	}
});
