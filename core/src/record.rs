//! A whole game as text: start, moves, result and metadata.
