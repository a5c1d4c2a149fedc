//! What the run did lately, for the dashboard's staleness figure and alarms: the samples
//! stored in the last few minutes (and how many were from superseded generations), and how the
//! last games ended.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tigers_core::Turn;
use tigers_proto::v1;

use crate::store::ledger::BatchSummary;

/// How far back "recent samples" reaches.
pub(crate) const RECENT_SAMPLES: Duration = Duration::from_secs(300);

/// How many of the latest games the tally covers.
pub(crate) const RECENT_GAMES: usize = 200;

/// Sample batches stored in the last [`RECENT_SAMPLES`].
#[derive(Debug, Default)]
pub(crate) struct RecentSamples {
	batches: VecDeque<(Instant, u64, u64)>,
}

impl RecentSamples {
	/// Records a batch of `samples` stored at `now`, `superseded` of them from generations
	/// older than the one promoted then.
	pub(crate) fn push(&mut self, now: Instant, samples: u64, superseded: u64) {
		self.forget_before(now);
		self.batches.push_back((now, samples, superseded));
	}

	/// Samples and superseded samples stored in the window ending at `now`.
	pub(crate) fn totals(&mut self, now: Instant) -> (u64, u64) {
		self.forget_before(now);
		self.batches
			.iter()
			.fold((0, 0), |(n, s), (_, samples, superseded)| {
				(n + samples, s + superseded)
			})
	}

	/// Starts the window from batches stored before this process started, as the ledger has
	/// them (`ago`: seconds before `now` that each arrived), so that a restart does not start
	/// the share of stale samples over from nothing. `promoted_at(t)` is the generation
	/// promoted at Unix time `t`. A batch counts as superseded if its newest generation is older
	/// than the one promoted when it arrived; one that straddles a promotion, which the ledger
	/// cannot split, counts as current. Batches older than the window, or too old for the
	/// monotonic clock to place (a machine up for less than the window), are left out.
	pub(crate) fn seed(
		&mut self,
		batches: &[BatchSummary],
		promoted_at: impl Fn(f64) -> u64,
		now_unix: f64,
		now: Instant,
	) {
		let mut placed: Vec<(Instant, u64, u64)> = batches
			.iter()
			.filter_map(|batch| {
				let ago = Duration::try_from_secs_f64((now_unix - batch.received_at).max(0.0))
					.ok()
					.filter(|ago| *ago <= RECENT_SAMPLES)?;
				let at = now.checked_sub(ago)?;
				let superseded = batch
					.generation_max
					.is_some_and(|newest| newest < promoted_at(batch.received_at));
				Some((
					at,
					batch.samples,
					if superseded { batch.samples } else { 0 },
				))
			})
			.collect();
		placed.sort_by_key(|(at, _, _)| *at);
		for (at, samples, superseded) in placed {
			self.push(at, samples, superseded);
		}
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
pub(crate) struct RecentGames {
	winners: VecDeque<Option<Turn>>,
}

impl RecentGames {
	/// Records games by their winners; `None` is a draw (games cut off by the move limit count
	/// as draws, since they taught the net nothing about winning either).
	pub(crate) fn push(&mut self, winners: impl IntoIterator<Item = Option<Turn>>) {
		for winner in winners {
			if self.winners.len() == RECENT_GAMES {
				self.winners.pop_front();
			}
			self.winners.push_back(winner);
		}
	}

	/// The tally for the progress message.
	pub(crate) fn tally(&self) -> v1::GameTally {
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
	fn a_restart_starts_from_the_ledgers_recent_batches() {
		let (now_unix, now) = (10_000.0, Instant::now());
		let batch = |ago: f64, samples, generations: Option<(u64, u64)>| BatchSummary {
			received_at: now_unix - ago,
			samples,
			generation_min: generations.map(|g| g.0),
			generation_max: generations.map(|g| g.1),
		};
		let batches = [
			// Newest first, as the ledger gives them.
			batch(10.0, 40, Some((3, 3))),
			// Before generation 3 was promoted (100 s ago): current then.
			batch(150.0, 30, Some((2, 2))),
			// After: superseded.
			batch(60.0, 20, Some((2, 2))),
			// Straddling the promotion: current.
			batch(50.0, 10, Some((2, 3))),
			batch(20.0, 5, None),
			// Older than the window.
			batch(301.0, 1000, Some((0, 0))),
		];
		let promoted_at = |t: f64| if t >= now_unix - 100.0 { 3 } else { 2 };
		let mut recent = RecentSamples::default();
		recent.seed(&batches, promoted_at, now_unix, now);
		assert_eq!(recent.totals(now), (105, 20));
		// They leave the window when they would have.
		assert_eq!(recent.totals(now + Duration::from_secs(160)), (75, 20));
		assert_eq!(recent.totals(now + Duration::from_secs(285)), (40, 0));
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
