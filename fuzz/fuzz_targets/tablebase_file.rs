//! Movement-table files: any bytes either read as a table, header and digest checked, or are
//! refused with an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tigers_core::Tablebase;

fuzz_target!(|bytes: &[u8]| {
	let _ = Tablebase::from_bytes(bytes.to_vec());
});
