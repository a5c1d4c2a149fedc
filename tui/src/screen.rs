//! The game screen: the players, the game's state and its drawing, and the loop on a terminal.

pub mod app;
pub mod exact;
pub mod layout;
pub mod local_player;
pub mod player;
pub mod seat;
pub mod setup;
pub mod terminal;
pub mod ui;
