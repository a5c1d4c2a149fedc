//! Integration tests of the `tui` crate: screens, input handling, records, finding nets, and the
//! engine protocol through the real binary.

mod engine;
mod help;
mod input;
mod net_source;
mod no_room;
mod placement;
mod records;
mod screens;
mod serve;
mod support;
