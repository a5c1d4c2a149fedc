//! Turning the command line's choices into an [`App`]: the players, the net they need, and a
//! game loaded from a record.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;
use tigers_core::claude::DEFAULT_TABLE_BITS;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::{ClaudePlayer, Game, NeuralPlayer, Tablebase};

use tigers_proto::client::ClientSettings;

use crate::net_source::{
	self, DEFAULT_COORDINATOR, DEFAULT_RUN_DIR, LoadedNet, NetSource, NetSourceError,
};
use crate::record_io::{self, RecordIoError};
use crate::screen::app::{App, DEFAULT_SAVE_PATH};
use crate::screen::local_player::LocalPlayer;
use crate::screen::player::Player;
use tigers_process::locations;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerKind {
	/// The person at this terminal.
	Human,
	/// The search with the hand-written evaluation.
	Claude,
	/// The search with the net.
	Net,
	/// The search with the hand-written evaluation, choosing only among moves that keep the
	/// exact value of the position: it needs the solved placement phase as well as the
	/// movement table, and then never gives a value away.
	Perfect,
}

/// Why a text names no kind of player.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{0:?} is not a player; use human, claude, net or perfect")]
pub struct ParsePlayerKindError(String);

impl FromStr for PlayerKind {
	type Err = ParsePlayerKindError;

	fn from_str(text: &str) -> Result<PlayerKind, ParsePlayerKindError> {
		match text {
			"human" => Ok(PlayerKind::Human),
			"claude" => Ok(PlayerKind::Claude),
			"net" => Ok(PlayerKind::Net),
			"perfect" => Ok(PlayerKind::Perfect),
			other => Err(ParsePlayerKindError(other.to_string())),
		}
	}
}

/// Everything a game on screen is set up from.
#[derive(Clone, Debug)]
pub struct PlayConfig {
	/// Who plays the sheep.
	pub sheep: PlayerKind,
	/// Who plays the tigers.
	pub tigers: PlayerKind,
	/// How long a computer player may think about a move.
	pub time_limit: Duration,
	/// The net for `net` players; `None` looks in `run_dir`, then asks the default coordinator.
	pub net: Option<NetSource>,
	/// Where to look for the latest net when none is named.
	pub run_dir: PathBuf,
	/// The coordinator to ask for the latest net when none is named and `run_dir` has none.
	pub coordinator: String,
	/// How to reach a coordinator.
	pub client: ClientSettings,
	/// A record to continue.
	pub load: Option<PathBuf>,
	/// Which game of `load` to continue, from 1, if it holds many (a run's game archive).
	pub game: Option<usize>,
	/// Where `w` writes the record; `None` is a new file in the platform's data directory.
	pub save: Option<PathBuf>,
	/// The solved movement phase, for the computer players and the exact values on screen.
	pub tablebase: Option<Arc<Tablebase>>,
	/// The solved placement phase, for the `perfect` player.
	pub placement: Option<Arc<PlacementTable>>,
}

impl Default for PlayConfig {
	/// You as the sheep against the latest net, two seconds a move.
	fn default() -> PlayConfig {
		PlayConfig {
			sheep: PlayerKind::Human,
			tigers: PlayerKind::Net,
			time_limit: Duration::from_secs(2),
			net: None,
			run_dir: PathBuf::from(DEFAULT_RUN_DIR),
			coordinator: DEFAULT_COORDINATOR.to_string(),
			client: ClientSettings::default(),
			load: None,
			game: None,
			save: None,
			tablebase: None,
			placement: None,
		}
	}
}

/// Why a game could not be set up.
#[derive(Debug, Error)]
pub enum SetupError {
	/// The record to continue is unreadable or corrupt.
	#[error(transparent)]
	Record(#[from] RecordIoError),
	/// The net named on the command line did not load.
	#[error(transparent)]
	Net(#[from] NetSourceError),
	/// A `perfect` player without both solved phases.
	#[error(
		"the perfect player needs the movement table and every placement layer; \
		 `tui tablebase build` and `tui tablebase build --placement` make them"
	)]
	NoPerfectPlay,
}

/// A game ready to play, and why no net was found if `net` players became Claude.
pub struct Setup {
	/// The game on screen.
	pub app: App,
	/// Why the latest net could not be found, when a `net` player fell back to Claude.
	pub no_net_because: Option<String>,
}

/// Builds the app for `config`: loads the record, finds the net if a side needs one, and makes
/// the players. Without a named net and with none to be found, `net` players become Claude,
/// and the status line says so.
pub fn build(config: &PlayConfig) -> Result<Setup, SetupError> {
	let (record, game) = match &config.load {
		Some(path) => {
			let (record, game) = record_io::load_game(path, config.game)?;
			(Some(record), game)
		}
		None => (None, Game::default()),
	};
	let wants_net = [config.sheep, config.tigers].contains(&PlayerKind::Net);
	let (net, no_net_because) = if !wants_net {
		(None, None)
	} else if let Some(source) = &config.net {
		(Some(net_source::load(source, &config.client)?), None)
	} else {
		match net_source::find_best(&config.run_dir, &config.coordinator, &config.client) {
			Ok(net) => (Some(net), None),
			Err(why) => (None, Some(why.to_string())),
		}
	};
	let wants_perfect = [config.sheep, config.tigers].contains(&PlayerKind::Perfect);
	let complete = config.placement.as_ref().is_some_and(|p| p.is_complete());
	if wants_perfect && (config.tablebase.is_none() || !complete) {
		return Err(SetupError::NoPerfectPlay);
	}
	let make = |kind| make_player(kind, net.as_ref(), config.time_limit, config);
	let save = config.save.clone().unwrap_or_else(default_save_path);
	let mut app = App::new(game, make(config.sheep), make(config.tigers)).with_save_path(&save);
	if let Some(table) = &config.tablebase {
		app = app.with_tablebase(table.clone());
	}
	// A game from a run's archive was played by its own generation, which the net that plays
	// on need not be: the notice tells them apart.
	let generation = record.and_then(|record| record.generation);
	let notice = match (generation, &no_net_because, &net) {
		(None, Some(_), _) => Some("no net found; playing Claude instead".to_string()),
		(None, None, Some(net)) => Some(format!("net: {}", net.origin)),
		(None, None, None) => None,
		(Some(g), Some(_), _) => Some(format!(
			"a game of generation {g}; no net found, Claude plays on"
		)),
		(Some(g), None, Some(net)) => Some(format!(
			"a game of generation {g}; playing on: net {}",
			net.origin
		)),
		(Some(g), None, None) => Some(format!("a game of generation {g}")),
	};
	let app = match notice {
		Some(notice) => app.with_notice(&notice),
		None => app,
	};
	Ok(Setup {
		app,
		no_net_because,
	})
}

/// A new file for this game in the platform's data directory; in the working directory if the
/// system has no home directory.
fn default_save_path() -> PathBuf {
	let name = record_io::default_file_name(std::time::SystemTime::now());
	match locations::games_dir() {
		Ok(dir) => dir.join(name),
		Err(_) => PathBuf::from(DEFAULT_SAVE_PATH),
	}
}

/// A player of `kind`; a `net` player without a net is Claude. Computer players search with
/// the tablebase when there is one.
fn make_player(
	kind: PlayerKind,
	net: Option<&LoadedNet>,
	time_limit: Duration,
	config: &PlayConfig,
) -> Box<dyn Player> {
	let tablebase = &config.tablebase;
	match (kind, net) {
		(PlayerKind::Human, _) => Box::new(LocalPlayer::new("You")),
		(PlayerKind::Net, Some(net)) => {
			let mut player = NeuralPlayer::new(net.net.clone(), time_limit, DEFAULT_TABLE_BITS);
			player.set_tablebase(tablebase.clone());
			Box::new(player)
		}
		(PlayerKind::Claude | PlayerKind::Net, _) => {
			let mut player = ClaudePlayer::new(time_limit);
			player.set_tablebase(tablebase.clone());
			Box::new(player)
		}
		(PlayerKind::Perfect, _) => {
			let mut player = ClaudePlayer::new(time_limit);
			player.set_tablebase(tablebase.clone());
			player.set_placement(config.placement.clone());
			Box::new(player)
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn kinds_parse() {
		assert_eq!("human".parse(), Ok(PlayerKind::Human));
		assert_eq!("net".parse(), Ok(PlayerKind::Net));
		assert!(
			"robot"
				.parse::<PlayerKind>()
				.unwrap_err()
				.to_string()
				.contains("human")
		);
	}
}
