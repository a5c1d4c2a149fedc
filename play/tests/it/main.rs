//! The play crate's integration tests: its API served on a loopback socket, with the
//! workspace's shared tables.

mod access;
mod api;
mod browser;
mod support;
