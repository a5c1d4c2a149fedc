//! The run's token as every program takes it: `--token`, or else an environment variable, so
//! that a token need not stand in a command line that others on the machine can read.

/// The environment variable the programs read the run's token from when `--token` is not
/// given: the coordinator, its subcommands, workers and `tui` alike.
pub const TOKEN_ENV: &str = "TIGERS_TOKEN";
