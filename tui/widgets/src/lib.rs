//! The terminal widgets that the game screen (`tigers-tui`) and the training dashboard
//! (`tigers-dashboard`) both draw a game with:
//!
//! - [`board_view`]: [`BoardView`], the board at a whole-number scale, `pos_at` (which point a
//!   cell shows), and [`Highlights`], what it marks for the player to move;
//! - [`history`]: [`HistoryView`], the move list, which move a click lands on, and [`Slip`], a
//!   move the tablebase says gave away a win or a draw.
//!
//! And, outside the screens, [`progress`]: the progress bar of long commands run by hand.

pub mod board_view;
pub mod history;
pub mod progress;

pub use board_view::{BoardView, Highlights};
pub use history::{HistoryView, Slip};
pub use progress::progress_bar;
