//! What the workspace's integration tests share, so that each crate's tests speak to servers
//! and browsers the same way: a dev-dependency only, never linked into a binary.
//!
//! - [`disk`]: a small tmpfs to fill and free, for the tests of a full disk;
//! - [`help`]: a binary, its subcommands and a package's examples asked for `--help`;
//! - [`http`]: a plain HTTP/1.1 client of one request a connection;
//! - [`webdriver`]: headless Chromium through chromedriver;
//! - [`play_pages`]: the browser test of the play and analysis pages, for each of their servers;
//! - [`tables`]: the solved tables the tests share, solved once into the target directory;
//! - [`free_port`]: a loopback port nobody listens on.

pub mod disk;
pub mod help;
pub mod http;
pub mod play_pages;
pub mod tables;
pub mod webdriver;

/// A loopback port free a moment ago (the operating system's choice).
///
/// # Panics
///
/// If no loopback port can be bound.
pub fn free_port() -> u16 {
	std::net::TcpListener::bind("127.0.0.1:0")
		.and_then(|listener| listener.local_addr())
		.expect("a free loopback port")
		.port()
}
