//! The training dashboard: a live view of a coordinator's run drawn from its `WatchProgress`
//! stream, shown by `tui dashboard` and by the coordinator itself on a terminal. A crate of its
//! own so that the coordinator shows it without linking the game screen; the Game pane draws
//! with the game screen's board and move list from `tigers_widgets`.
//!
//! - [`model`]: [`Dashboard`], the state and what keys do, without a terminal;
//! - [`alarms`]: what is wrong with a run, from one snapshot;
//! - [`fleet`]: the fleet summed up, for the Fleet pane and the coordinator's Workers page;
//! - [`replay`]: the latest self-play game, stepped through;
//! - [`format`](mod@format): durations, counts and rates as printed;
//! - [`fit`]: text packed and wrapped to the width at hand;
//! - [`view`]: the frame (title, tabs, alarms, keys) and, in its children, the panes
//!   [`view::run`], [`view::gates`], [`view::fleet`] and [`view::game`], or for a placement
//!   solve [`view::solve`];
//! - [`feed`]: following the stream over gRPC, reconnecting;
//! - [`recording`]: snapshots saved to a file and read back;
//! - [`screen`]: the loop on a real terminal;
//! - [`remote`]: `tui dashboard`, the feed and the screen together.

pub mod alarms;
pub mod feed;
pub mod fit;
pub mod fleet;
pub mod format;
pub mod model;
pub mod recording;
pub mod remote;
pub mod replay;
pub mod screen;
pub mod view;

pub use feed::{FeedEvent, FeedSettings, follow};
pub use model::{Dashboard, Pane};
pub use screen::{Closed, show};
