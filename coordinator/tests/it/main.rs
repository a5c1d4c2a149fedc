//! Integration tests of the coordinator: one binary, one module per subject.

mod common;
mod service;
