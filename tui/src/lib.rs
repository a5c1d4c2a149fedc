//! Tigers and Sheep in the terminal: play against the latest net (or anyone against anyone),
//! and `tui engine`, a line protocol that lets scripts drive the search.
//!
//! The game screen, from the ground up (on the board and move list widgets of
//! `tigers_widgets`, which the training dashboard draws with too):
//!
//! - [`player`]: the polled [`Player`] trait, and core's searchers as players;
//! - [`local_player`]: [`LocalPlayer`], the person at the terminal (mouse or typed moves);
//! - [`seat`]: a side's player, at hand or away searching on a background thread;
//! - [`exact`]: the tablebase's view of the game: exact values, moves that gave one away;
//! - [`layout`]: where each pane goes;
//! - [`app`]: [`App`], the game's state and what input does to it, without a terminal;
//! - [`ui`]: drawing the app;
//! - [`terminal`]: the loop on a real terminal;
//! - [`record_io`]: saving and loading games as core's text records, one of a run's game
//!   archive among them, and listing a file's games;
//! - [`net_source`]: finding the net, in a run directory or from a coordinator;
//! - [`setup`]: the command line's choices made into an app.
//!
//! And the protocol:
//!
//! - [`engine`]: the `tui engine` commands over any reader and writer.
//!
//! And [`tablebase_command`]: `tui tablebase build | verify | stats`, and finding the table;
//! [`placement_command`]: the same with `--placement`, for the placement phase's layers;
//! [`suite_command`]: `tui tablebase suite`, the grading suite drawn from the solved game;
//! [`serve_command`]: `tui serve`, the play and analysis pages in a browser.
//!
//! The training dashboard that `tui dashboard` shows is the `tigers_dashboard` crate, which the
//! coordinator uses for its own screen too.

pub mod app;
pub mod engine;
pub mod exact;
pub mod layout;
pub mod local_player;
pub mod net_source;
pub mod placement_command;
pub mod player;
pub mod record_io;
pub mod seat;
pub mod serve_command;
pub mod setup;
pub mod suite_command;
pub mod tablebase_command;
pub mod terminal;
pub mod ui;

pub use app::App;
pub use local_player::LocalPlayer;
pub use player::{Input, Player};
pub use tigers_widgets::{BoardView, Highlights};
