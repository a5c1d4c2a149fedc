//! The worker's commands beside self-play: `worker bench`, `worker loadtest` and `worker solve`.

pub mod bench;
pub mod loadtest;
pub mod solve;
