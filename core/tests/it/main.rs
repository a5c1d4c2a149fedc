//! Integration tests of the core crate: one binary, one module per subject.

mod decoders;
mod help;
mod learning;
mod perft;
mod placement;
mod properties;
mod random_games;
mod tablebase;
