//! Tigers and Sheep: what the binaries (`coordinator`, `worker` and `tui`) share around their
//! libraries, so that all of them start, print, log, report and stop the same way. Nothing here
//! knows the wire format.
//!
//! - [`console`]: lines for the terminal that end quietly on a closed pipe;
//! - [`dates`]: calendar dates and times of day in UTC from Unix time;
//! - [`disk`]: the free space on a filesystem, before a large file is written;
//! - [`locations`]: where the binaries keep shared files by default (the tablebase, saved games,
//!   a worker's state);
//! - [`logging`]: logs to the terminal, or to a file while the terminal shows a dashboard;
//! - [`signal`]: a future that completes when the process is asked to stop;
//! - [`metrics`]: the Prometheus scrape endpoint and its recorder;
//! - [`token`]: the environment variable the run's token is read from without `--token`;
//! - [`doc_commands`]: the command lines the README and docs show for a binary, for the
//!   binaries' tests that they parse.

pub mod console;
pub mod dates;
pub mod disk;
pub mod doc_commands;
pub mod locations;
pub mod logging;
pub mod metrics;
pub mod signal;
pub mod token;
