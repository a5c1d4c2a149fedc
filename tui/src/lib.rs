//! Tigers and Sheep in the terminal: play against the latest net (or anyone against anyone),
//! and `tui engine`, a line protocol that lets scripts drive the search.
//!
//! - [`screen`]: the game screen, from the ground up (on the board and move list widgets of
//!   `tigers_widgets`, which the training dashboard draws with too): [`screen::player`], the
//!   polled [`Player`] trait and core's searchers as players; [`screen::local_player`],
//!   [`LocalPlayer`], the person at the terminal (mouse or typed moves); [`screen::seat`], a
//!   side's player, at hand or away searching on a background thread; [`screen::exact`], the
//!   tablebase's view of the game (exact values, moves that gave one away); [`screen::layout`],
//!   where each pane goes; [`screen::app`], [`App`], the game's state and what input does to it,
//!   without a terminal; [`screen::ui`], drawing the app; [`screen::terminal`], the loop on a
//!   real terminal; [`screen::setup`], the command line's choices made into an app;
//! - [`record_io`]: saving and loading games as core's text records, one of a run's game
//!   archive among them, and listing a file's games;
//! - [`net_source`]: finding the net, in a run directory or from a coordinator;
//! - [`engine`]: the `tui engine` protocol's commands over any reader and writer;
//! - [`commands`]: the other subcommands: [`commands::tablebase`], `tui tablebase build |
//!   verify | stats` and finding the table; [`commands::placement`], the same with
//!   `--placement`, for the placement phase's layers; [`commands::suite`], `tui tablebase
//!   suite`, the grading suite drawn from the solved game; [`commands::serve`], `tui serve`,
//!   the play and analysis pages in a browser.
//!
//! The training dashboard that `tui dashboard` shows is the `tigers_dashboard` crate, which the
//! coordinator uses for its own screen too.

pub mod commands;
pub mod engine;
pub mod net_source;
pub mod record_io;
pub mod screen;

pub use screen::app::App;
pub use screen::local_player::LocalPlayer;
pub use screen::player::{Input, Player};
pub use tigers_widgets::{BoardView, Highlights};
