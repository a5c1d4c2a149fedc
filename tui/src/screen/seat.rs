//! `Seat`: one side's player, either at hand or away on a background thread searching.
//!
//! A search cannot be interrupted (core's search stops only at its time limit), so the app
//! never waits for one: it moves the player onto a thread of its own and polls a channel for it
//! to come back with its move. The thread owns the player while it searches; the seat owns the
//! receiving end. If the user goes elsewhere in the game meanwhile, the search is marked stale:
//! its move is thrown away when the player comes back, and the player is reset. If the user
//! quits, the thread is simply abandoned; the process exits without waiting for it.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

use tigers_core::{GameBoard, Move, Turn};

use crate::screen::player::Player;

/// A side of the game and the state of its player.
pub struct Seat {
	name: String,
	searches: bool,
	state: State,
}

enum State {
	/// The player is here to be asked and drawn.
	Home(Box<dyn Player>),
	/// The player is searching on another thread.
	Away(Search),
	/// The search thread died (a panic) and took the player with it.
	Lost,
}

struct Search {
	receiver: Receiver<Returned>,
	started: Instant,
	/// The number of moves played when the search started: the position it is for.
	ply: usize,
	stale: bool,
}

/// A player back from its thread with the move it chose.
struct Returned {
	player: Box<dyn Player>,
	mv: Option<Move>,
}

/// What a poll found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchEvent {
	/// A search for the position after `ply` moves finished with `mv`.
	Finished {
		/// The number of moves played when the search started.
		ply: usize,
		/// The move chosen; `None` only if the side had no legal move.
		mv: Option<Move>,
	},
	/// The search thread panicked; the player is gone.
	Failed,
}

impl Seat {
	/// A seat for `player`.
	pub fn new(player: Box<dyn Player>) -> Seat {
		Seat {
			name: player.name(),
			searches: player.searches(),
			state: State::Home(player),
		}
	}

	/// The player's name, also while it is away.
	pub fn name(&self) -> &str {
		&self.name
	}

	/// Whether the player is a person (its moves come from input, not a search).
	pub fn is_interactive(&self) -> bool {
		!self.searches
	}

	/// The player, if it is at hand.
	pub fn player(&self) -> Option<&dyn Player> {
		match &self.state {
			State::Home(player) => Some(player.as_ref()),
			_ => None,
		}
	}

	/// The player, if it is at hand, to ask or tell something.
	pub fn player_mut(&mut self) -> Option<&mut dyn Player> {
		match &mut self.state {
			State::Home(player) => Some(player.as_mut()),
			_ => None,
		}
	}

	/// When the current search started, if one is running and still wanted.
	pub fn search_started(&self) -> Option<Instant> {
		match &self.state {
			State::Away(search) if !search.stale => Some(search.started),
			_ => None,
		}
	}

	/// Whether a search is running, wanted or not.
	pub fn is_away(&self) -> bool {
		matches!(self.state, State::Away(_))
	}

	/// Whether the search thread died and took the player with it.
	pub fn is_lost(&self) -> bool {
		matches!(self.state, State::Lost)
	}

	/// Sends the player off to search `board` with `turn` to move, after `ply` moves. Does
	/// nothing unless the player is at hand.
	pub fn start_search(
		&mut self,
		board: GameBoard,
		turn: Turn,
		previous: Vec<GameBoard>,
		ply: usize,
	) {
		let mut player = match std::mem::replace(&mut self.state, State::Lost) {
			State::Home(player) => player,
			other => {
				self.state = other;
				return;
			}
		};
		let (sender, receiver) = mpsc::channel();
		thread::spawn(move || {
			let mv = player.pick_move(board, turn, &previous);
			// The app may have quit and dropped the receiver; then nobody wants the move.
			let _ = sender.send(Returned { player, mv });
		});
		self.state = State::Away(Search {
			receiver,
			started: Instant::now(),
			ply,
			stale: false,
		});
	}

	/// Marks a running search as unwanted: its move will be dropped and the player reset.
	pub fn abandon_search(&mut self) {
		if let State::Away(search) = &mut self.state {
			search.stale = true;
		}
	}

	/// Takes back a player whose search is over, waiting up to `wait` for it. Returns what
	/// happened if a wanted search finished or the thread died.
	pub fn poll(&mut self, wait: Duration) -> Option<SearchEvent> {
		let State::Away(search) = &self.state else {
			return None;
		};
		let received = if wait.is_zero() {
			search.receiver.try_recv().map_err(|e| match e {
				TryRecvError::Empty => RecvTimeoutError::Timeout,
				TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
			})
		} else {
			search.receiver.recv_timeout(wait)
		};
		let (ply, stale) = (search.ply, search.stale);
		match received {
			Ok(Returned { mut player, mv }) => {
				if stale {
					player.reset();
				}
				self.state = State::Home(player);
				(!stale).then_some(SearchEvent::Finished { ply, mv })
			}
			Err(RecvTimeoutError::Timeout) => None,
			Err(RecvTimeoutError::Disconnected) => {
				self.state = State::Lost;
				Some(SearchEvent::Failed)
			}
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use tigers_core::{ClaudePlayer, Position};

	#[test]
	fn a_search_comes_back_with_its_player() {
		let mut seat = Seat::new(Box::new(ClaudePlayer::fixed_depth(1)));
		assert!(!seat.is_interactive());
		let p: Position = "T...T/.S.../...../SSSSS/TSSST t 7".parse().unwrap();
		seat.start_search(p.board, p.turn, Vec::new(), 5);
		assert!(seat.player().is_none());
		assert_eq!(seat.name(), "Claude");
		let event = seat.poll(Duration::from_secs(60));
		assert_eq!(
			event,
			Some(SearchEvent::Finished {
				ply: 5,
				mv: Some("ta5xc3".parse().unwrap())
			})
		);
		assert!(seat.player().is_some());
	}

	#[test]
	fn an_abandoned_search_returns_no_move() {
		let mut seat = Seat::new(Box::new(ClaudePlayer::fixed_depth(1)));
		seat.start_search(GameBoard::default(), Turn::Sheep, Vec::new(), 0);
		seat.abandon_search();
		assert_eq!(seat.search_started(), None);
		while seat.is_away() {
			assert_eq!(seat.poll(Duration::from_secs(60)), None);
		}
		assert!(seat.player().is_some());
	}
}
