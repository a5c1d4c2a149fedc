//! Self-play on a rayon pool: every thread plays `NeuralPlayer` games with the current
//! assignment and hands each finished game to the batcher over a channel.
//!
//! Who owns what: the session writes the assignment into [`Control`] when the coordinator sends
//! one (after fetching and checking its net); the pool's threads read it at the start of every
//! game, so a new net is in play no later than the end of each game in progress. A game is
//! played and tagged with one assignment from start to end.

use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use rayon::{ThreadPool, ThreadPoolBuilder};
use tigers_core::neural::SELF_PLAY_TABLE_BITS;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{SelfPlayGame, is_played_out, play_self_play_game_with};
use tigers_core::{Network, NeuralPlayer, Tablebase};
use tigers_proto::convert::Assignment;

use crate::seed::random_u64;

/// What to play: an assignment with its net, checked against the announced sha256, and the
/// tablebase it names once the worker has it.
#[derive(Debug)]
pub(crate) struct Playing {
	/// The run the games are played for (its id, as the join answered it).
	pub(crate) run_id: Arc<str>,
	/// The coordinator's settings.
	pub(crate) assignment: Assignment,
	/// The assignment's net.
	pub(crate) net: Arc<Network>,
	/// The assignment's tablebase, when it names one and the worker holds it.
	pub(crate) tablebase: Option<Arc<Tablebase>>,
}

/// The assignment in force and the stop flag, shared by the session (writer) and the self-play
/// threads (readers, who wait here until there is something to play).
#[derive(Debug, Default)]
pub(crate) struct Control {
	state: Mutex<ControlState>,
	changed: Condvar,
}

#[derive(Debug, Default)]
struct ControlState {
	playing: Option<Arc<Playing>>,
	is_stopping: bool,
}

impl Control {
	/// Plays `playing` from each thread's next game on.
	pub(crate) fn set(&self, playing: Playing) {
		self.lock().playing = Some(Arc::new(playing));
		self.changed.notify_all();
	}

	/// Plays the assignment in force with `table` from each thread's next game on, if that
	/// assignment names it (a fetch can finish after a newer assignment named another).
	pub(crate) fn give_tablebase(&self, table: &Arc<Tablebase>) {
		let mut state = self.lock();
		let Some(current) = &state.playing else {
			return;
		};
		if current.assignment.tablebase_sha256.as_deref() != Some(table.identity()) {
			return;
		}
		state.playing = Some(Arc::new(Playing {
			run_id: current.run_id.clone(),
			assignment: current.assignment.clone(),
			net: current.net.clone(),
			tablebase: Some(table.clone()),
		}));
		drop(state);
		self.changed.notify_all();
	}

	/// Whether the assignment in force names the table `identity`.
	pub(crate) fn wants_tablebase(&self, identity: &str) -> bool {
		self.lock()
			.playing
			.as_ref()
			.is_some_and(|p| p.assignment.tablebase_sha256.as_deref() == Some(identity))
	}

	/// The assignment in force, if any has arrived yet.
	pub(crate) fn current(&self) -> Option<Arc<Playing>> {
		self.lock().playing.clone()
	}

	/// Asks the threads to start no more games.
	pub(crate) fn stop(&self) {
		self.lock().is_stopping = true;
		self.changed.notify_all();
	}

	/// Whether [`Control::stop`] was called.
	pub(crate) fn is_stopping(&self) -> bool {
		self.lock().is_stopping
	}

	/// Blocks until there is an assignment to play (returning it) or a stop (returning `None`).
	fn next_game(&self) -> Option<Arc<Playing>> {
		let state = self
			.changed
			.wait_while(self.lock(), |state| {
				state.playing.is_none() && !state.is_stopping
			})
			.unwrap_or_else(std::sync::PoisonError::into_inner);
		if state.is_stopping {
			None
		} else {
			state.playing.clone()
		}
	}

	fn lock(&self) -> MutexGuard<'_, ControlState> {
		// The state is replaced in single assignments, so a poisoned lock still holds it whole.
		self.state
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
	}
}

/// The self-play threads. Dropping the pool lets them finish the game they are in and exit.
#[derive(Debug)]
pub(crate) struct SelfPlayPool {
	_pool: ThreadPool,
}

impl SelfPlayPool {
	/// Starts `threads` threads playing what `control` says and sending games to `games`.
	/// A thread stops when `control` is stopped or the receiving end is dropped.
	pub(crate) fn start(
		threads: usize,
		control: &Arc<Control>,
		games: &SyncSender<Played>,
	) -> Result<SelfPlayPool, rayon::ThreadPoolBuildError> {
		let pool = ThreadPoolBuilder::new()
			.num_threads(threads)
			.thread_name(|index| format!("selfplay-{index}"))
			.build()?;
		let (control, games) = (control.clone(), games.clone());
		pool.spawn_broadcast(move |_| play_games(&control, &games));
		Ok(SelfPlayPool { _pool: pool })
	}
}

/// Two players (each side searches with its own table) and the assignment they were made for.
pub(crate) struct Players {
	playing: Arc<Playing>,
	sheep: NeuralPlayer,
	tigers: NeuralPlayer,
}

impl Players {
	/// Players for `playing`'s net at its depth, with self-play's table size, searching with
	/// its tablebase if it has one.
	pub(crate) fn new(playing: Arc<Playing>) -> Players {
		let search = SearchSettings::fixed_depth(playing.assignment.depth);
		let player = || {
			let mut player =
				NeuralPlayer::with_net(playing.net.clone(), search, SELF_PLAY_TABLE_BITS);
			player.set_tablebase(playing.tablebase.clone());
			player
		};
		Players {
			sheep: player(),
			tigers: player(),
			playing,
		}
	}

	/// Plays one game from `seed`, its samples tagged with the assignment's generation. With
	/// adjudication and the table, it stops at the first movement-phase position, unless the
	/// seed makes it one of the assignment's share played out: that game is played to its end
	/// by the net's own search, without the table.
	pub(crate) fn play(&mut self, seed: u64) -> SelfPlayGame {
		let assignment = &self.playing.assignment;
		let table = self.playing.tablebase.as_ref();
		let played_out = table.is_some()
			&& assignment.adjudicate
			&& is_played_out(seed, assignment.play_out_share);
		let searched_with = table.filter(|_| !played_out);
		for player in [&mut self.sheep, &mut self.tigers] {
			if player.tablebase().map(Arc::as_ptr) != searched_with.map(Arc::as_ptr) {
				player.set_tablebase(searched_with.cloned());
			}
		}
		let adjudicate_with = searched_with
			.map(Arc::as_ref)
			.filter(|_| assignment.adjudicate);
		play_self_play_game_with(
			&mut self.sheep,
			&mut self.tigers,
			&assignment.selfplay,
			seed,
			assignment.generation,
			adjudicate_with,
		)
	}
}

/// A finished game and the run it was played for.
#[derive(Clone, Debug)]
pub(crate) struct Played {
	/// The run of the assignment that played it.
	pub(crate) run_id: Arc<str>,
	/// The game.
	pub(crate) game: SelfPlayGame,
}

/// One thread's loop: a game per assignment in force, until stopped.
fn play_games(control: &Control, games: &SyncSender<Played>) {
	let mut players: Option<Players> = None;
	while let Some(playing) = control.next_game() {
		let players = match &mut players {
			Some(players) if Arc::ptr_eq(&players.playing, &playing) => players,
			// A new assignment: new players, whose tables know nothing of the old net.
			_ => players.insert(Players::new(playing)),
		};
		// Every game gets its own random seed, which its record keeps, so any game the
		// coordinator receives can be replayed exactly.
		let game = Played {
			run_id: players.playing.run_id.clone(),
			game: players.play(random_u64()),
		};
		// A full spool makes the batcher stop taking games, and this send then blocks:
		// self-play pauses rather than drop what it has played.
		if games.send(game).is_err() {
			break;
		}
	}
}

#[cfg(test)]
mod tests {
	use std::sync::mpsc::sync_channel;
	use std::time::Duration;

	use super::*;
	use crate::testing::playing;

	#[test]
	fn threads_wait_for_an_assignment_then_play_it_and_switch_to_a_new_one() {
		let control = Arc::new(Control::default());
		let (sender, games) = sync_channel(1);
		let pool = SelfPlayPool::start(2, &control, &sender).unwrap();
		drop(sender);
		assert!(games.recv_timeout(Duration::from_millis(50)).is_err());
		control.set(playing(3, 1, 1));
		let played = games.recv_timeout(Duration::from_secs(20)).unwrap();
		assert_eq!(&*played.run_id, crate::testing::TEST_RUN);
		let game = played.game;
		assert!(!game.samples.is_empty());
		assert!(game.samples.iter().all(|s| s.generation == 3));
		assert_eq!(game.record.generation, Some(3));
		control.set(playing(4, 2, 1));
		// Games begun before the switch may still arrive, but the switch must happen.
		let switched = (0..100)
			.map(|_| games.recv_timeout(Duration::from_secs(20)).unwrap().game)
			.find(|game| game.record.generation == Some(4))
			.expect("the new assignment is played");
		assert!(switched.samples.iter().all(|s| s.generation == 4));
		control.stop();
		// Once stopped, the threads finish their games and hang up.
		while games.recv_timeout(Duration::from_secs(20)).is_ok() {}
		drop(pool);
	}
}
