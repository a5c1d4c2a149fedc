//! Compiles `tigers/v1/*.proto` with protox (pure Rust, no `protoc` needed) into tonic code.

fn main() -> Result<(), Box<dyn std::error::Error>> {
	// compile_fds prints no rerun-if-changed lines of its own.
	println!("cargo:rerun-if-changed=tigers");
	let descriptors = protox::compile(["tigers/v1/cluster.proto"], ["."])?;
	// A message that does not decode is the sender's fault: INVALID_ARGUMENT (src/codec.rs).
	tonic_prost_build::configure()
		.codec_path("crate::codec::WireCodec")
		.compile_fds(descriptors)?;
	Ok(())
}
