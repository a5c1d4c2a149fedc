//! The `coordinator` binary's subcommands, one file each (the arguments and the function that
//! runs them on the library), and what they share.
//!
//! - `serve` (no subcommand): a training run, with its dashboard on the terminal if it has
//!   one; its flags in `serve::service`, `serve::training` and `serve::gating`;
//! - `status`, `solve`, `measure`, `grade`, `tls`: one subcommand each;
//! - `common`: the failure and its exit status, the result on stdout, the library's defaults
//!   and the value parsers of names.

pub(crate) mod common;
pub(crate) mod grade;
pub(crate) mod measure;
pub(crate) mod serve;
pub(crate) mod solve;
pub(crate) mod status;
pub(crate) mod tls;
