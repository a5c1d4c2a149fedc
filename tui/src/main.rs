//! The `tui` binary.

fn main() {}
