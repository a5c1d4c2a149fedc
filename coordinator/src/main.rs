//! The `coordinator` binary.

fn main() {}
