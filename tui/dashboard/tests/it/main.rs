//! Integration tests of the `tigers-dashboard` crate: its screens drawn from progress snapshots
//! recorded from a real run, at 120x40 and at 80x24, and what keys and trouble do to them.

mod screens;
mod screens_80x24;
