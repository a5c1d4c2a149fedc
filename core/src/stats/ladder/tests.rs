use super::*;
use crate::stats::elo_from_score;

/// `wins`, `draws` and `losses` of one side.
fn side(wins: u32, draws: u32, losses: u32) -> SideResult {
	SideResult {
		wins,
		draws,
		losses,
	}
}

fn rating<K: Ord + Copy>(ladder: &Ladder<K>, player: K) -> Rating {
	*ladder.rating(&player).expect("the player is on the ladder")
}

#[test]
fn a_single_match_gives_the_elo_of_its_score_with_the_virtual_draws() {
	let mut book = LadderBook::new("claude");
	book.record("net", "claude", side(32, 0, 18), side(32, 0, 18));
	let ladder = book.fit();
	// Each side: 32 wins, 18 losses and one virtual draw, 32.5 points of 51.
	let expected = elo_from_score(65.0 / 102.0);
	let net = rating(&ladder, "net");
	assert!(
		(net.rating - expected).abs() < 0.5,
		"{} against {expected}",
		net.rating
	);
	assert!(net.low < net.rating && net.rating < net.high);
	assert_eq!(net.games, 100);
	assert!(
		ladder.tigers_advantage.abs() < 1e-6,
		"{}",
		ladder.tigers_advantage
	);
	assert_eq!(
		rating(&ladder, "claude"),
		Rating {
			rating: 0.0,
			low: 0.0,
			high: 0.0,
			games: 100
		}
	);
	assert_eq!((ladder.matches, ladder.games), (1, 100));
}

#[test]
fn ratings_chain_through_matches_between_players() {
	let mut book = LadderBook::new(0);
	// 1 scores 0.64 against the anchor, 2 scores 0.64 against 1: about +100 and +200.
	book.record(1, 0, side(320, 0, 180), side(320, 0, 180));
	book.record(2, 1, side(320, 0, 180), side(320, 0, 180));
	let ladder = book.fit();
	let one = rating(&ladder, 1).rating;
	let two = rating(&ladder, 2).rating;
	let step = elo_from_score(641.0 / 1002.0);
	assert!((one - step).abs() < 0.5, "{one}");
	assert!((two - 2.0 * step).abs() < 1.0, "{two}");
	// The chained rating is less sure than the one measured against the anchor itself.
	let width = |r: Rating| r.high - r.low;
	assert!(width(rating(&ladder, 2)) > width(rating(&ladder, 1)) * 1.3);
}

#[test]
fn a_match_recorded_from_either_side_is_the_same_match() {
	let mut one_way = LadderBook::new("a");
	one_way.record("b", "a", side(10, 5, 3), side(7, 6, 5));
	let mut other_way = LadderBook::new("a");
	// The same games from a's side: its tigers games are b's sheep games.
	other_way.record("a", "b", side(5, 6, 7), side(3, 5, 10));
	assert_eq!(one_way.fit(), other_way.fit());
}

#[test]
fn the_order_of_the_matches_does_not_change_the_fit() {
	let matches = [
		(1, 0, side(30, 50, 20), side(25, 60, 15)),
		(2, 1, side(20, 70, 10), side(15, 80, 5)),
		(2, 0, side(40, 50, 10), side(30, 60, 10)),
		(3, 2, side(12, 80, 8), side(9, 85, 6)),
	];
	let mut forward = LadderBook::new(0);
	let mut backward = LadderBook::new(0);
	for &(a, b, tigers, sheep) in &matches {
		forward.record(a, b, tigers, sheep);
	}
	for &(a, b, tigers, sheep) in matches.iter().rev() {
		backward.record(a, b, tigers, sheep);
	}
	assert_eq!(forward.fit(), backward.fit());
}

#[test]
fn the_sides_advantage_is_fitted_apart_from_the_ratings() {
	let mut book = LadderBook::new(0);
	// Whoever has the tigers scores 0.75; the players are equal.
	book.record(1, 0, side(75, 0, 25), side(25, 0, 75));
	book.record(2, 1, side(75, 0, 25), side(25, 0, 75));
	let ladder = book.fit();
	assert!((ladder.tigers_advantage - elo_from_score(75.5 / 101.0)).abs() < 1.0);
	assert!(rating(&ladder, 1).rating.abs() < 0.5);
	assert!(rating(&ladder, 2).rating.abs() < 0.5);
}

#[test]
fn drawn_games_narrow_the_interval_of_the_same_score() {
	// 0.6 both times: 60 wins and 40 losses, or 20 wins and 80 draws.
	let decisive = {
		let mut book = LadderBook::new(0);
		book.record(1, 0, side(30, 0, 20), side(30, 0, 20));
		book.fit()
	};
	let drawish = {
		let mut book = LadderBook::new(0);
		book.record(1, 0, side(10, 40, 0), side(10, 40, 0));
		book.fit()
	};
	let width = |ladder: &Ladder<i32>| {
		let r = rating(ladder, 1);
		r.high - r.low
	};
	assert!((rating(&decisive, 1).rating - rating(&drawish, 1).rating).abs() < 0.5);
	assert!(drawish.dispersion < 0.5 * decisive.dispersion);
	assert!(width(&drawish) < 0.75 * width(&decisive));
}

#[test]
fn every_game_drawn_still_leaves_an_interval() {
	let mut book = LadderBook::new(0);
	book.record(1, 0, side(0, 100, 0), side(0, 100, 0));
	let one = rating(&book.fit(), 1);
	assert!(one.rating.abs() < 1e-6);
	assert!(one.high > 0.5 && one.low < -0.5, "{one:?}");
}

#[test]
fn a_player_that_won_every_game_is_rated_finitely() {
	let mut book = LadderBook::new(0);
	book.record(1, 0, side(50, 0, 0), side(50, 0, 0));
	let one = rating(&book.fit(), 1);
	assert!(
		one.rating.is_finite() && one.rating > 500.0 && one.rating < 2000.0,
		"{one:?}"
	);
	assert!(one.low.is_finite() && one.high.is_finite());
}

#[test]
fn a_player_no_match_ties_to_the_anchor_gets_a_wide_interval() {
	let mut book = LadderBook::new(0);
	book.record(1, 0, side(30, 40, 30), side(30, 40, 30));
	book.record(3, 2, side(30, 40, 30), side(30, 40, 30));
	let ladder = book.fit();
	let tied = rating(&ladder, 1);
	let loose = rating(&ladder, 3);
	assert!(loose.high - loose.low > 10_000.0, "{loose:?}");
	assert!(tied.high - tied.low < 100.0, "{tied:?}");
}

#[test]
fn matches_against_oneself_and_of_no_games_are_left_out() {
	let mut book = LadderBook::new(0);
	book.record(1, 1, side(3, 0, 0), side(3, 0, 0));
	book.record(2, 0, side(0, 0, 0), side(0, 0, 0));
	assert_eq!(book.matches(), 0);
	let ladder = book.fit();
	assert_eq!(ladder.ratings.len(), 1);
	assert_eq!(ladder.games, 0);
}

#[test]
fn the_best_player_is_the_highest_lower_bound_over_enough_games() {
	let mut book = LadderBook::new(0);
	// 1: 0.6 over 400 games; 2: 0.7 over 20 games, higher but far less sure.
	book.record(1, 0, side(100, 40, 60), side(100, 40, 60));
	book.record(2, 0, side(7, 0, 3), side(7, 0, 3));
	let ladder = book.fit();
	assert!(rating(&ladder, 2).rating > rating(&ladder, 1).rating);
	assert_eq!(ladder.best(0, |&player| player != 0), Some(&1));
	assert_eq!(ladder.best(1000, |_| true), None);
	assert_eq!(ladder.best(0, |&player| player == 2), Some(&2));
}

/// A dense copy of a skyline matrix.
fn dense(matrix: &Skyline) -> Vec<Vec<f64>> {
	let n = matrix.rows.len();
	let mut full = vec![vec![0.0; n]; n];
	for (row, line) in full.iter_mut().enumerate() {
		for (column, value) in line.iter_mut().enumerate() {
			*value = if column <= row {
				matrix.get(row, column)
			} else {
				matrix.get(column, row)
			};
		}
	}
	full
}

/// The inverse by Gauss-Jordan elimination with partial pivoting: slow and plain.
fn inverse_slow(mut a: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
	let n = a.len();
	let mut inverse: Vec<Vec<f64>> = (0..n)
		.map(|row| {
			(0..n)
				.map(|column| f64::from(u8::from(row == column)))
				.collect()
		})
		.collect();
	for column in 0..n {
		let pivot = (column..n)
			.max_by(|&x, &y| a[x][column].abs().total_cmp(&a[y][column].abs()))
			.expect("rows remain");
		a.swap(column, pivot);
		inverse.swap(column, pivot);
		let scale = a[column][column];
		for k in 0..n {
			a[column][k] /= scale;
			inverse[column][k] /= scale;
		}
		for row in 0..n {
			if row != column {
				let factor = a[row][column];
				for k in 0..n {
					a[row][k] -= factor * a[column][k];
					inverse[row][k] -= factor * inverse[column][k];
				}
			}
		}
	}
	inverse
}

#[test]
fn the_skyline_factor_solves_and_inverts_as_a_dense_elimination_does() {
	// A banded matrix with a dense last row, as a ladder's: diagonal dominance keeps it positive
	// definite.
	let n: usize = 9;
	let first: Vec<usize> = (0..n)
		.map(|row| {
			if row == n - 1 {
				0
			} else {
				row.saturating_sub(2)
			}
		})
		.collect();
	let mut matrix = Skyline::zeroed(&first);
	for (row, &from) in first.iter().enumerate() {
		for column in from..row {
			matrix.add(
				row,
				column,
				-0.3 - 0.1 * ((row * 7 + column * 3) % 5) as f64,
			);
		}
		matrix.add(row, row, 4.0 + row as f64);
	}
	let full = dense(&matrix);
	let inverse = inverse_slow(full.clone());
	let b: Vec<f64> = (0..n).map(|at| 1.0 + at as f64 * 0.5).collect();
	let expected: Vec<f64> = (0..n)
		.map(|row| (0..n).map(|k| inverse[row][k] * b[k]).sum())
		.collect();
	assert!(matrix.factor());
	let mut x = b.clone();
	matrix.solve(&mut x);
	for (got, want) in x.iter().zip(&expected) {
		assert!((got - want).abs() < 1e-12, "{got} against {want}");
	}
	for (at, got) in matrix.inverse_diagonal().iter().enumerate() {
		assert!(
			(got - inverse[at][at]).abs() < 1e-12,
			"{got} against {}",
			inverse[at][at]
		);
	}
}

#[test]
fn a_matrix_that_is_not_positive_definite_is_refused() {
	let mut matrix = Skyline::zeroed(&[0, 0]);
	matrix.add(0, 0, 1.0);
	matrix.add(1, 0, 2.0);
	matrix.add(1, 1, 1.0);
	assert!(!matrix.factor());
}

#[test]
fn a_long_chain_fits_to_the_same_ratings_as_its_links_add_up_to() {
	// 300 generations, each scoring 0.525 against the one before.
	let mut book = LadderBook::new(0);
	for generation in 1..=300u32 {
		book.record(
			generation,
			generation - 1,
			side(35, 35, 30),
			side(35, 35, 30),
		);
	}
	let ladder = book.fit();
	let step = elo_from_score(105.5 / 201.0);
	let last = rating(&ladder, 300).rating;
	assert!(
		(last - 300.0 * step).abs() < 0.01 * last,
		"{last} against {}",
		300.0 * step
	);
	let middle = rating(&ladder, 150).rating;
	assert!((middle - 150.0 * step).abs() < 0.01 * middle, "{middle}");
}
