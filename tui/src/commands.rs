//! The subcommands beside the game screen and the engine: the tablebase's and the placement
//! layers' builds and checks, the grading suite, and `tui serve`.

pub mod placement;
pub mod serve;
pub mod suite;
pub mod tablebase;
