//! Placeholder, filled in by the crate's own commit.
