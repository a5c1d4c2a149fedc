//! A rating ladder: every match a run played, fitted at once into ratings with 95% intervals.
//!
//! Ratings chained from one promotion to the next drift: each link's error adds to the next,
//! and a candidate promoted because it scored well in its gate carries that luck forward.
//! Fitting all matches together (gates, measurements against `ClaudePlayer`, head-to-heads)
//! lets every game inform every rating it touches, as BayesElo and Ordo do for engine lists.
//!
//! The model is Bradley-Terry on the Elo scale: a player rated `d` above its opponent, with the
//! side's advantage `t` added for the tigers and taken away for the sheep, is expected to score
//! `1 / (1 + 10^(-(d ± t) / 400))` a game, a draw counting half. The ratings maximise the
//! likelihood of the points scored, a draw as half a win and half a loss (a quasi-likelihood:
//! the expected score is the model's, as Ordo fits it), with one virtual draw added to each
//! match's games on each side, so a player that won every game still gets a finite rating, and
//! a very wide normal prior on every rating (standard deviation [`PRIOR_ELO`]), so a player that no
//! match ties to the anchor gets a wide interval instead of none.
//!
//! The binomial variance of a game's score overstates it when games are drawn, as most games
//! of this game are. The intervals scale the fit's variance by the Pearson dispersion (the
//! mean squared standardised residual of every game), with four pseudo-games (two wins and two
//! losses at even odds) keeping it above zero when every game was drawn, as the Agresti-Coull
//! interval adds pseudo-counts to a proportion.
//!
//! The fit is Newton's method on the ratings and the side's advantage together. Its matrix is
//! the match graph's: a run's matches are mostly between neighbouring generations and against
//! the anchor, so with players in generation order the matrix is nearly banded, and a profile
//! (skyline) Cholesky factors it in time linear in the players rather than cubic.

use std::collections::BTreeMap;

use crate::stats::Z_95;
use crate::versus::SideResult;

/// The standard deviation of the prior on every rating, in Elo: wide enough to leave every
/// rating a match supports all but untouched (a chain of 300 gates of 200 games, 5,000 Elo
/// long, loses under 0.2% at its far end), narrow enough to keep the fit defined for a player
/// no match ties to the anchor, whose interval then says it is unknown.
pub const PRIOR_ELO: f64 = 100_000.0;

/// Virtual draws added to each match's games on each side: keeps a player that won (or lost)
/// every game at a finite rating. One draw is noise beside a gate's hundreds of games.
pub const VIRTUAL_DRAWS: f64 = 1.0;

/// Pseudo-games added to the dispersion's sum, two won and two lost at even odds: each adds 1
/// to the Pearson sum, so a ladder of drawn games alone still has intervals.
const DISPERSION_PSEUDO_GAMES: f64 = 4.0;

/// Natural-log units per Elo point: a difference of `d` Elo is `d * ELO_SCALE` in the logistic.
const ELO_SCALE: f64 = std::f64::consts::LN_10 / 400.0;

/// Newton steps at most; a ladder of thousands of players settles in under ten.
const MAX_STEPS: usize = 100;

/// The fit stops once no rating moves by more than this many Elo in a step.
const SETTLED_ELO: f64 = 1e-6;

/// Matches between players, collected for a fit; one player is the anchor, rated 0.
#[derive(Clone, Debug)]
pub struct LadderBook<K> {
	anchor: K,
	matches: BTreeMap<(K, K), Results>,
}

/// One pairing's games, from the first player's side, summed over every match between them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Results {
	as_tigers: SideResult,
	as_sheep: SideResult,
	matches: u64,
}

/// A player's place on the ladder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
	/// Elo above the anchor (negative below it).
	pub rating: f64,
	/// The 95% interval's ends, in Elo; both 0 for the anchor.
	pub low: f64,
	/// See `low`.
	pub high: f64,
	/// Games the player played in the matches fitted (virtual draws not counted).
	pub games: u64,
}

/// The ratings of every player in a book's matches, fitted together.
#[derive(Clone, Debug, PartialEq)]
pub struct Ladder<K> {
	/// Every player, the anchor among them, in the key's order.
	pub ratings: Vec<(K, Rating)>,
	/// Elo added for the player on the tigers' side (negative when the sheep's side is the
	/// easier one).
	pub tigers_advantage: f64,
	/// The Pearson dispersion the intervals were scaled by (1 for games as decisive as coin
	/// flips, near 0 when nearly every game was drawn).
	pub dispersion: f64,
	/// Matches and games fitted.
	pub matches: u64,
	/// See `matches`.
	pub games: u64,
}

impl<K: Ord + Clone> LadderBook<K> {
	/// An empty book whose ratings are measured from `anchor` (rated 0).
	pub fn new(anchor: K) -> LadderBook<K> {
		LadderBook {
			anchor,
			matches: BTreeMap::new(),
		}
	}

	/// Records a match: `first`'s wins, draws and losses against `second` as tigers and as
	/// sheep. A match of a player against itself, or of no games, tells nothing and is left out.
	pub fn record(&mut self, first: K, second: K, as_tigers: SideResult, as_sheep: SideResult) {
		if first == second || as_tigers.games() + as_sheep.games() == 0 {
			return;
		}
		// One key per pairing, whichever side recorded it: the second player's view swaps
		// wins and losses and keeps the sides (its tigers games are the first's sheep games).
		let (key, tigers, sheep) = if first < second {
			((first, second), as_tigers, as_sheep)
		} else {
			((second, first), flip(as_sheep), flip(as_tigers))
		};
		let results = self.matches.entry(key).or_default();
		add(&mut results.as_tigers, tigers);
		add(&mut results.as_sheep, sheep);
		results.matches += 1;
	}

	/// Matches recorded.
	pub fn matches(&self) -> u64 {
		self.matches.values().map(|results| results.matches).sum()
	}

	/// Fits every rating at once.
	pub fn fit(&self) -> Ladder<K> {
		let players = self.players();
		let index: BTreeMap<&K, usize> = players
			.iter()
			.enumerate()
			.map(|(at, key)| (key, at))
			.collect();
		let anchor = index[&self.anchor];
		// The unknowns: each player but the anchor, in key order, then the side's advantage.
		let unknown_of = |player: usize| match player.cmp(&anchor) {
			std::cmp::Ordering::Less => Some(player),
			std::cmp::Ordering::Equal => None,
			std::cmp::Ordering::Greater => Some(player - 1),
		};
		let advantage = players.len() - 1;
		let mut groups = Vec::with_capacity(2 * self.matches.len());
		let mut games = vec![0u64; players.len()];
		for ((first, second), results) in &self.matches {
			let (first, second) = (index[first], index[second]);
			let played = u64::from(results.as_tigers.games() + results.as_sheep.games());
			games[first] += played;
			games[second] += played;
			let (first, second) = (unknown_of(first), unknown_of(second));
			groups.push(Group::new(first, second, advantage, 1.0, results.as_tigers));
			groups.push(Group::new(first, second, advantage, -1.0, results.as_sheep));
		}
		let fit = Fit::new(advantage + 1, groups);
		let (theta, variance, dispersion) = fit.solve();
		let ratings = players
			.into_iter()
			.enumerate()
			.map(|(player, key)| {
				let rating = match unknown_of(player) {
					None => Rating {
						rating: 0.0,
						low: 0.0,
						high: 0.0,
						games: games[player],
					},
					Some(at) => {
						let half = Z_95 * (dispersion * variance[at]).sqrt();
						let rating = theta[at];
						let (low, high) = (rating - half, rating + half);
						Rating {
							rating,
							low,
							high,
							games: games[player],
						}
					}
				};
				(key, rating)
			})
			.collect();
		Ladder {
			ratings,
			tigers_advantage: theta[advantage],
			dispersion,
			matches: self.matches(),
			games: games.iter().sum::<u64>() / 2,
		}
	}

	/// Every player named in a match, and the anchor, in key order.
	fn players(&self) -> Vec<K> {
		let mut players: Vec<K> = self
			.matches
			.keys()
			.flat_map(|(first, second)| [first.clone(), second.clone()])
			.chain(std::iter::once(self.anchor.clone()))
			.collect();
		players.sort();
		players.dedup();
		players
	}
}

impl<K: Ord> Ladder<K> {
	/// A player's rating, if it played.
	pub fn rating(&self, player: &K) -> Option<&Rating> {
		self.ratings
			.iter()
			.find(|(key, _)| key == player)
			.map(|(_, rating)| rating)
	}

	/// The player with the highest lower bound among those `eligible` with at least
	/// `min_games` games: the one most surely strong, not the one luckiest in few games. Ties go
	/// to the later player in key order (a later generation).
	pub fn best(&self, min_games: u64, eligible: impl Fn(&K) -> bool) -> Option<&K> {
		self.ratings
			.iter()
			.filter(|(key, rating)| rating.games >= min_games && eligible(key))
			.max_by(|(_, a), (_, b)| a.low.total_cmp(&b.low))
			.map(|(key, _)| key)
	}
}

/// The same games seen from the other player: its wins are these losses.
fn flip(results: SideResult) -> SideResult {
	SideResult {
		wins: results.losses,
		draws: results.draws,
		losses: results.wins,
	}
}

fn add(total: &mut SideResult, more: SideResult) {
	total.wins += more.wins;
	total.draws += more.draws;
	total.losses += more.losses;
}

/// Games of one pairing on one side: the first player's expected score rises with
/// `rating[first] - rating[second] + side * advantage`.
#[derive(Clone, Copy, Debug)]
struct Group {
	first: Option<usize>,
	second: Option<usize>,
	advantage: usize,
	side: f64,
	results: SideResult,
	/// Points and games with the virtual draws, as the likelihood counts them.
	points: f64,
	games: f64,
}

impl Group {
	fn new(
		first: Option<usize>,
		second: Option<usize>,
		advantage: usize,
		side: f64,
		results: SideResult,
	) -> Group {
		let points = results.points() + VIRTUAL_DRAWS / 2.0;
		let games = f64::from(results.games()) + VIRTUAL_DRAWS;
		Group {
			first,
			second,
			advantage,
			side,
			results,
			points,
			games,
		}
	}

	/// The unknowns this group's difference depends on, with their signs.
	fn terms(&self) -> impl Iterator<Item = (usize, f64)> {
		let first = self.first.map(|at| (at, 1.0));
		let second = self.second.map(|at| (at, -1.0));
		first
			.into_iter()
			.chain(second)
			.chain(std::iter::once((self.advantage, self.side)))
	}

	/// The first player's expected score for the unknowns `theta`.
	fn expected(&self, theta: &[f64]) -> f64 {
		let difference: f64 = self.terms().map(|(at, sign)| sign * theta[at]).sum();
		1.0 / (1.0 + (-ELO_SCALE * difference).exp())
	}

	/// Minus the log-likelihood of the group's points at expected score `p`.
	fn cost(&self, p: f64) -> f64 {
		let p = p.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON);
		-(self.points * p.ln() + (self.games - self.points) * (1.0 - p).ln())
	}

	/// The real games' squared standardised residuals, summed.
	fn pearson(&self, p: f64) -> f64 {
		let variance = (p * (1.0 - p)).max(f64::MIN_POSITIVE);
		let SideResult {
			wins,
			draws,
			losses,
		} = self.results;
		let squares = f64::from(wins) * (1.0 - p).powi(2)
			+ f64::from(draws) * (0.5 - p).powi(2)
			+ f64::from(losses) * p.powi(2);
		squares / variance
	}
}

/// The Newton fit over the unknowns.
struct Fit {
	unknowns: usize,
	groups: Vec<Group>,
	first_column: Vec<usize>,
}

impl Fit {
	fn new(unknowns: usize, groups: Vec<Group>) -> Fit {
		let mut first_column: Vec<usize> = (0..unknowns).collect();
		for group in &groups {
			let lowest = group.terms().map(|(at, _)| at).min().unwrap_or(0);
			for (at, _) in group.terms() {
				first_column[at] = first_column[at].min(lowest);
			}
		}
		Fit {
			unknowns,
			groups,
			first_column,
		}
	}

	fn cost(&self, theta: &[f64]) -> f64 {
		let prior: f64 = theta.iter().map(|value| value * value).sum::<f64>() / 2.0;
		let data: f64 = self
			.groups
			.iter()
			.map(|group| group.cost(group.expected(theta)))
			.sum();
		data + prior / (PRIOR_ELO * PRIOR_ELO)
	}

	/// The gradient and the Hessian of the cost at `theta`.
	fn derivatives(&self, theta: &[f64]) -> (Vec<f64>, Skyline) {
		let precision = 1.0 / (PRIOR_ELO * PRIOR_ELO);
		let mut gradient: Vec<f64> = theta.iter().map(|value| value * precision).collect();
		let mut hessian = Skyline::zeroed(&self.first_column);
		for at in 0..self.unknowns {
			hessian.add(at, at, precision);
		}
		for group in &self.groups {
			let p = group.expected(theta);
			let slope = -ELO_SCALE * (group.points - group.games * p);
			let curvature = ELO_SCALE * ELO_SCALE * group.games * p * (1.0 - p);
			for (i, sign_i) in group.terms() {
				gradient[i] += sign_i * slope;
				for (j, sign_j) in group.terms() {
					if j <= i {
						hessian.add(i, j, sign_i * sign_j * curvature);
					}
				}
			}
		}
		(gradient, hessian)
	}

	/// The unknowns at the optimum, their variances before dispersion, and the dispersion.
	fn solve(&self) -> (Vec<f64>, Vec<f64>, f64) {
		let mut theta = vec![0.0; self.unknowns];
		let mut cost = self.cost(&theta);
		for _ in 0..MAX_STEPS {
			let (gradient, mut hessian) = self.derivatives(&theta);
			// The cost is convex with a positive prior everywhere, so the Hessian is positive
			// definite and the factorisation cannot fail short of a numerical breakdown.
			if !hessian.factor() {
				break;
			}
			let mut step: Vec<f64> = gradient.iter().map(|value| -value).collect();
			hessian.solve(&mut step);
			// Newton's step, halved until the cost does not rise: far from the optimum (a
			// player who won every game) the full step can overshoot.
			let mut scale = 1.0;
			let mut moved = false;
			for _ in 0..40 {
				let trial: Vec<f64> = theta
					.iter()
					.zip(&step)
					.map(|(value, delta)| value + scale * delta)
					.collect();
				let trial_cost = self.cost(&trial);
				if trial_cost <= cost {
					theta = trial;
					cost = trial_cost;
					moved = true;
					break;
				}
				scale /= 2.0;
			}
			let largest = step
				.iter()
				.fold(0.0f64, |most, delta| most.max((scale * delta).abs()));
			if !moved || largest < SETTLED_ELO {
				break;
			}
		}
		let (_, mut hessian) = self.derivatives(&theta);
		let variance = if hessian.factor() {
			hessian.inverse_diagonal()
		} else {
			vec![PRIOR_ELO * PRIOR_ELO; self.unknowns]
		};
		(theta.clone(), variance, self.dispersion(&theta))
	}

	fn dispersion(&self, theta: &[f64]) -> f64 {
		let pearson: f64 = self
			.groups
			.iter()
			.map(|group| group.pearson(group.expected(theta)))
			.sum();
		let games: f64 = self
			.groups
			.iter()
			.map(|group| f64::from(group.results.games()))
			.sum();
		let freedom = (games - self.unknowns as f64).max(0.0);
		(pearson + DISPERSION_PSEUDO_GAMES) / (freedom + DISPERSION_PSEUDO_GAMES)
	}
}

/// A symmetric positive definite matrix stored by its lower triangle's rows, each from its
/// first nonzero column (the profile, or skyline), factored in place as `L Lᵀ`. Fill-in of a
/// Cholesky factor stays inside the profile, so nothing outside it is ever stored.
#[derive(Clone, Debug)]
struct Skyline {
	first: Vec<usize>,
	rows: Vec<Vec<f64>>,
}

impl Skyline {
	fn zeroed(first: &[usize]) -> Skyline {
		let rows = first
			.iter()
			.enumerate()
			.map(|(row, &from)| vec![0.0; row - from + 1]);
		Skyline {
			first: first.to_vec(),
			rows: rows.collect(),
		}
	}

	fn get(&self, row: usize, column: usize) -> f64 {
		debug_assert!(column <= row);
		if column < self.first[row] {
			0.0
		} else {
			self.rows[row][column - self.first[row]]
		}
	}

	/// Adds `value` at (`row`, `column`), `column <= row`, inside the profile.
	fn add(&mut self, row: usize, column: usize, value: f64) {
		debug_assert!(column <= row && column >= self.first[row]);
		self.rows[row][column - self.first[row]] += value;
	}

	/// Replaces the matrix by its Cholesky factor `L`; false if it is not positive definite.
	fn factor(&mut self) -> bool {
		for row in 0..self.rows.len() {
			for column in self.first[row]..=row {
				let from = self.first[row].max(self.first[column]);
				let mut sum = self.get(row, column);
				for k in from..column {
					sum -= self.get(row, k) * self.get(column, k);
				}
				let at = column - self.first[row];
				if column < row {
					self.rows[row][at] = sum / self.get(column, column);
				} else if sum > 0.0 && sum.is_finite() {
					self.rows[row][at] = sum.sqrt();
				} else {
					return false;
				}
			}
		}
		true
	}

	/// Solves `L Lᵀ x = b` in place, once factored.
	fn solve(&self, b: &mut [f64]) {
		for row in 0..b.len() {
			let (from, lower) = self.lower(row);
			let dot: f64 = lower.iter().zip(&b[from..row]).map(|(l, x)| l * x).sum();
			b[row] = (b[row] - dot) / self.get(row, row);
		}
		for row in (0..b.len()).rev() {
			b[row] /= self.get(row, row);
			let (from, lower) = self.lower(row);
			let solved = b[row];
			for (target, l) in b[from..row].iter_mut().zip(lower) {
				*target -= l * solved;
			}
		}
	}

	/// Row `row` of the factor left of the diagonal, and the column it starts at.
	fn lower(&self, row: usize) -> (usize, &[f64]) {
		let from = self.first[row];
		(from, &self.rows[row][..row - from])
	}

	/// The inverse's diagonal, once factored: entry `i` is `|L⁻¹ eᵢ|²`, and `L⁻¹ eᵢ` is zero
	/// above row `i`, so each costs only the profile below it.
	fn inverse_diagonal(&self) -> Vec<f64> {
		let n = self.rows.len();
		let mut column = vec![0.0; n];
		(0..n)
			.map(|i| {
				column[i] = 1.0 / self.get(i, i);
				let mut total = column[i] * column[i];
				for row in i + 1..n {
					let (from, lower) = self.lower(row);
					let start = from.max(i);
					let known = lower[start - from..].iter().zip(&column[start..row]);
					let dot: f64 = known.map(|(l, x)| l * x).sum();
					column[row] = -dot / self.get(row, row);
					total += column[row] * column[row];
				}
				total
			})
			.collect()
	}
}

#[cfg(test)]
mod tests;
