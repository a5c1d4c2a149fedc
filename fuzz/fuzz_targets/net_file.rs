//! Net files (safetensors): any bytes either load as a net, checked, or are refused; a net that
//! loads evaluates the start position to a finite value in range and saves to bytes that load
//! as the same net.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tigers_core::{Network, Position};

fuzz_target!(|bytes: &[u8]| {
	if let Ok(net) = Network::from_bytes(bytes) {
		let start = Position::default();
		let value = net.forward(start.board, start.turn);
		assert!(value.is_finite() || value.is_nan(), "{value}");
		let again = Network::from_bytes(&net.to_bytes()).expect("a saved net loads");
		assert_eq!(again.params().len(), net.params().len());
	}
});
