//! The header line that opens every record: the format's name and version.

/// The first line of every record: the format's name and version.
pub const HEADER: &str = "tigers-and-sheep record 1";

/// What the header starts with whatever the version.
pub(super) const FORMAT_NAME: &str = "tigers-and-sheep record ";
