//! Integration tests of the core crate: one binary, one module per subject.
