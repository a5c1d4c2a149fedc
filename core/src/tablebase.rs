//! The movement phase solved exactly: for every position with all sheep placed, who wins with
//! perfect play and in how many plies.
//!
//! - [`Value`]: a position's value and the byte an entry keeps it in;
//! - [`index`]: where a position sits in the table (tiger classes, ranks of empty points);
//! - [`solve`]: the retrograde solve, layer by layer, on scoped threads;
//! - [`file`](mod@file): the file format, its checks and its sha256 identity;
//! - [`Tablebase`]: the table in memory, solved, read or written, and probed;
//! - [`Accuracy`]: how many of a player's moves kept the exact result;
//! - [`census`]: counts of positions and of wins, draws and losses;
//! - [`verify`]: every stored value recomputed from its children with the game's own rules;
//! - [`placement`]: the placement phase solved from this table, layer by layer.
//!
//! Values are from the side to move's point of view. A win in `n` plies ends the game on the
//! winner's move with the loser delaying as long as possible, so `n` is odd for a win and even
//! for a loss (a loss in 0: the side to move has no move). Repetitions never matter to a value:
//! the winning side can always make progress without repeating, and a side that can only avoid
//! losing by going round for ever is held to a draw, as the third-repetition rule would have it.

mod accuracy;
pub mod census;
pub mod file;
pub mod index;
pub mod placement;
pub mod solve;
mod table;
mod value;
pub mod verify;

pub use accuracy::Accuracy;
pub use census::{Census, LayerCensus, Wdl};
pub use file::{RULES_VERSION, TABLEBASE_FORMAT_VERSION, TablebaseFileError};
pub use index::{POSITIONS, POSITIONS_UP_TO_SYMMETRY};
pub use solve::{SolveError, SolveProgress};
pub use table::{Origin, Tablebase, TablebaseError};
pub use value::{MAX_DISTANCE, Value};
pub use verify::{VerifyError, VerifyProgress, VerifyReport};
