//! The computer players a visitor can ask for a move: the net (its own search, no table), the
//! perfect player (both solved phases) and `ClaudePlayer`, each for a time a move.

use std::sync::Arc;
use std::time::Duration;

use tigers_core::neural::SELF_PLAY_TABLE_BITS;
use tigers_core::search::score_to_value;
use tigers_core::search::{Evaluator, MinimaxPlayer};
use tigers_core::{ClaudePlayer, Move, Network, NeuralPlayer, Position, SearchSettings};

use tigers_core::analysis::Tables;

/// Who moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
	/// The server's net with its own search and no table.
	Net,
	/// The movement table and every placement layer: never gives a value away.
	Perfect,
	/// The hand-written evaluation.
	Claude,
}

impl Player {
	/// Every player's name, as the API takes them.
	pub const NAMES: [&'static str; 3] = ["net", "perfect", "claude"];

	/// The player named `name`.
	pub fn named(name: &str) -> Option<Player> {
		match name {
			"net" => Some(Player::Net),
			"perfect" => Some(Player::Perfect),
			"claude" => Some(Player::Claude),
			_ => None,
		}
	}

	/// The API's name.
	pub fn name(self) -> &'static str {
		match self {
			Player::Net => "net",
			Player::Perfect => "perfect",
			Player::Claude => "claude",
		}
	}
}

/// A net with its generation, as a server offers it.
#[derive(Clone)]
pub struct ServedNet {
	/// Its generation in the run it came from (0 for a file of unknown origin).
	pub generation: u64,
	/// The net.
	pub net: Arc<Network>,
}

/// Why a player cannot move here.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
	/// No net is loaded.
	#[error("this server has no net to play")]
	NoNet,
	/// The perfect player needs every table.
	#[error(
		"the perfect player needs the movement table and all 39 placement layers, which this \
		 server does not have (tui tablebase build, then tui tablebase build --placement)"
	)]
	NoTables,
}

/// The search settings for `ms` a move.
fn timed(ms: u32) -> SearchSettings {
	SearchSettings {
		max_depth: 64,
		time_limit: Some(Duration::from_millis(u64::from(ms.max(1)))),
	}
}

/// Whether `player` can move with these tables and net.
pub fn check(player: Player, tables: &Tables, net: Option<&ServedNet>) -> Result<(), Unavailable> {
	match player {
		Player::Net if net.is_none() => Err(Unavailable::NoNet),
		Player::Perfect if !tables.can_play_perfectly() => Err(Unavailable::NoTables),
		_ => Ok(()),
	}
}

/// `player`'s move in `position` after searching for `ms`, or `None` if the side to move has
/// no legal move. Blocking: call it off the async threads.
pub fn choose(
	player: Player,
	position: Position,
	previous: &[tigers_core::GameBoard],
	ms: u32,
	tables: &Tables,
	net: Option<&ServedNet>,
) -> Result<Option<Move>, Unavailable> {
	check(player, tables, net)?;
	let (board, turn) = (position.board, position.turn);
	let report = match (player, net) {
		(Player::Net, Some(net)) => {
			let mut searcher =
				NeuralPlayer::with_net(net.net.clone(), timed(ms), SELF_PLAY_TABLE_BITS);
			searcher.pick_move(board, turn, previous)
		}
		(Player::Net, None) => return Err(Unavailable::NoNet),
		(Player::Perfect, _) => {
			let mut searcher = ClaudePlayer::with_settings(timed(ms));
			searcher.set_tablebase(tables.movement.clone());
			searcher.set_placement(tables.placement.clone());
			searcher.pick_move(board, turn, previous)
		}
		(Player::Claude, _) => {
			let mut searcher = ClaudePlayer::with_settings(timed(ms));
			searcher.pick_move(board, turn, previous)
		}
	};
	Ok(report.map(|report| report.mv))
}

/// The net's own evaluation of `position` for the side to move, -1 (lost) to 1 (won).
pub fn evaluate(net: &ServedNet, position: Position) -> f32 {
	let mut player = NeuralPlayer::with_net(net.net.clone(), timed(1), 0);
	let tigers = score_to_value(
		player
			.evaluator_mut()
			.evaluate(position.board, position.turn),
	);
	tigers * position.turn.sign()
}

#[cfg(test)]
mod tests {
	use tigers_core::network::Shape;

	use super::*;

	#[test]
	fn players_go_by_their_names_and_say_what_they_lack() {
		for name in Player::NAMES {
			assert_eq!(Player::named(name).map(Player::name), Some(name));
		}
		assert_eq!(Player::named("stockfish"), None);
		let none = Tables::default();
		assert_eq!(check(Player::Net, &none, None), Err(Unavailable::NoNet));
		assert_eq!(
			check(Player::Perfect, &none, None),
			Err(Unavailable::NoTables)
		);
		assert!(
			Unavailable::NoTables
				.to_string()
				.contains("placement layers")
		);
		assert_eq!(check(Player::Claude, &none, None), Ok(()));
	}

	#[test]
	fn the_net_and_claude_answer_a_legal_move_in_time() {
		let net = ServedNet {
			generation: 3,
			net: Arc::new(Network::new(Shape::default(), 7)),
		};
		let start = Position::default();
		for player in [Player::Net, Player::Claude] {
			let mv = choose(player, start, &[], 20, &Tables::default(), Some(&net))
				.unwrap()
				.expect("a move");
			assert!(tigers_core::Game::new(start).legal_moves().contains(&mv));
		}
		let score = evaluate(&net, start);
		assert!((-1.0..=1.0).contains(&score));
	}
}
