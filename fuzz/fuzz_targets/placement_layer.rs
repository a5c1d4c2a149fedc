//! Placement layer files: the first byte picks the layer the file claims to be, the rest is
//! the file; it either reads, header and digest checked, or is refused with an error.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tigers_core::tablebase::placement::LayerId;
use tigers_core::tablebase::placement::layer_entries;

fuzz_target!(|bytes: &[u8]| {
	let Some((&pick, file)) = bytes.split_first() else {
		return;
	};
	let layers = LayerId::solve_order(0);
	let id = layers[usize::from(pick) % layers.len()];
	let _ = layer_entries(Path::new("fuzzed.layer"), id, file, None);
});
