//! What the run did lately, for the dashboard's staleness figure and alarms: the samples
//! stored in the last few minutes (and how many were from superseded generations), and how the
//! last games ended.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tigers_core::Turn;
use tigers_proto::v1;

/// How far back "recent samples" reaches.
pub const RECENT_SAMPLES: Duration = Duration::from_secs(300);

/// How many of the latest games the tally covers.
pub const RECENT_GAMES: usize = 200;

/// Sample batches stored in the last [`RECENT_SAMPLES`].
#[derive(Debug, Default)]
pub struct RecentSamples {
	batches: VecDeque<(Instant, u64, u64)>,
}

impl RecentSamples {
	/// Records a batch of `samples` stored at `now`, `superseded` of them from generations
	/// older than the one promoted then.
	pub fn push(&mut self, now: Instant, samples: u64, superseded: u64) {
		self.forget_before(now);
		self.batches.push_back((now, samples, superseded));
	}

	/// Samples and superseded samples stored in the window ending at `now`.
	pub fn totals(&mut self, now: Instant) -> (u64, u64) {
		self.forget_before(now);
		self.batches
			.iter()
			.fold((0, 0), |(n, s), (_, samples, superseded)| {
				(n + samples, s + superseded)
			})
	}

	fn forget_before(&mut self, now: Instant) {
		while let Some((at, _, _)) = self.batches.front() {
			if now.saturating_duration_since(*at) <= RECENT_SAMPLES {
				break;
			}
			self.batches.pop_front();
		}
	}
}

/// How the last [`RECENT_GAMES`] finished games ended.
#[derive(Debug, Default)]
pub struct RecentGames {
	winners: VecDeque<Option<Turn>>,
}

impl RecentGames {
	/// Records games by their winners; `None` is a draw (games cut off by the move limit count
	/// as draws, since they taught the net nothing about winning either).
	pub fn push(&mut self, winners: impl IntoIterator<Item = Option<Turn>>) {
		for winner in winners {
			if self.winners.len() == RECENT_GAMES {
				self.winners.pop_front();
			}
			self.winners.push_back(winner);
		}
	}

	/// The tally for the progress message.
	pub fn tally(&self) -> v1::GameTally {
		let mut tally = v1::GameTally::default();
		for winner in &self.winners {
			match winner {
				Some(Turn::Tiger) => tally.tiger_wins += 1,
				Some(Turn::Sheep) => tally.sheep_wins += 1,
				None => tally.draws += 1,
			}
		}
		tally
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn old_batches_leave_the_window() {
		let start = Instant::now();
		let mut recent = RecentSamples::default();
		recent.push(start, 100, 100);
		recent.push(start + Duration::from_secs(200), 50, 0);
		assert_eq!(recent.totals(start + Duration::from_secs(250)), (150, 100));
		assert_eq!(recent.totals(start + Duration::from_secs(400)), (50, 0));
		assert_eq!(recent.totals(start + Duration::from_secs(600)), (0, 0));
	}

	#[test]
	fn the_games_tally_keeps_the_latest() {
		let mut games = RecentGames::default();
		games.push([Some(Turn::Sheep); RECENT_GAMES]);
		games.push([Some(Turn::Tiger), None, None]);
		let tally = games.tally();
		assert_eq!(
			(tally.tiger_wins, tally.sheep_wins, tally.draws),
			(1, RECENT_GAMES as u32 - 3, 2)
		);
	}
}
