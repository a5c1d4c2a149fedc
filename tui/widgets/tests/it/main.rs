//! Integration tests of the `tigers-widgets` crate: the board's geometry against its drawing.

mod board_geometry;
