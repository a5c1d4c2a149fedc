//! The `worker` binary.

fn main() {}
