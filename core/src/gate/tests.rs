//! The gating match's tests: reproducible pairs scored from the candidate, the tally's stops,
//! the SPRT centred on the incumbent, and a match on threads the same as one in order.

use super::*;
use crate::network::Shape;

fn small() -> GateSettings {
	GateSettings {
		search: SearchSettings::fixed_depth(2),
		policy: GatePolicy {
			min_pairs: 3,
			max_pairs: 4,
			..GateSettings::default().policy
		},
		max_plies: 80,
		..GateSettings::default()
	}
}

#[test]
fn the_gate_measures_the_net_with_the_table_only_judging() {
	assert_eq!(GateSettings::default().table, TableRole::Judge);
	for role in [TableRole::Judge, TableRole::Play] {
		assert_eq!(role.name().parse(), Ok(role));
		assert!(TableRole::NAMES.contains(&role.name()));
	}
	assert!(
		"both"
			.parse::<TableRole>()
			.unwrap_err()
			.contains("play, judge")
	);
}

#[test]
fn a_gate_match_is_reproducible_and_counts_both_sides() {
	let net = Arc::new(Network::new(
		Shape {
			hidden1: 16,
			hidden2: 8,
		},
		1,
	));
	let first = run_gate(&net, &small(), None);
	assert_eq!(first, run_gate(&net, &small(), None));
	assert_eq!(first.candidate_accuracy, Accuracy::default());
	let pairs = first.pairs.pairs();
	assert!((3..=4).contains(&pairs));
	assert_eq!(first.by_side.as_sheep.games(), pairs);
	assert_eq!(first.by_side.as_tigers.games(), pairs);
	assert!(first.record().is_some());
}

#[test]
fn a_net_against_itself_plays_the_same_game_from_both_sides() {
	let shape = Shape {
		hidden1: 16,
		hidden2: 8,
	};
	let net = Arc::new(Network::new(shape, 1));
	let other = Arc::new(Network::new(shape, 2));
	let settings = small();
	let mut differed = false;
	for opening in gate_openings(&settings) {
		let pair = |reference: &Arc<Network>| {
			play_pair_while(
				&Contender::Net(net.clone()),
				&Reference::Net(reference.clone()),
				&settings,
				&opening,
				Tables::default(),
				&|| true,
			)
			.expect("never stopped")
		};
		// Both players are the same deterministic net, so the game with the candidate as
		// the sheep is the one with it as the tigers: the pair is always even.
		let mirror = pair(&net);
		assert_eq!(mirror.as_sheep, mirror.as_tigers, "{opening:?}");
		let mut tally = GateTally::default();
		tally.add(mirror, &settings.policy);
		assert_eq!(tally.pairs.estimate().score, 0.5);
		let against_other = pair(&other);
		differed |= against_other.as_sheep != against_other.as_tigers;
	}
	// A different net is a different opponent: some pair is not a mirror.
	assert!(differed);
}

#[test]
fn a_pair_can_be_abandoned_between_moves() {
	let net = Arc::new(Network::new(
		Shape {
			hidden1: 16,
			hidden2: 8,
		},
		1,
	));
	let settings = small();
	let opening = &gate_openings(&settings)[0];
	let whole = play_gate_pair(&net, &settings, opening, None);
	let asked = AtomicUsize::new(0);
	let always = || {
		asked.fetch_add(1, Ordering::Relaxed);
		true
	};
	assert_eq!(
		play_gate_pair_while(&net, &settings, opening, None, &always),
		Some(whole)
	);
	// Asked once before each move of both games.
	let moves = asked.load(Ordering::Relaxed);
	assert!(moves > 2 * settings.opening_plies, "{moves}");
	// Told to stop part-way through the second game: nothing is counted.
	let left = AtomicUsize::new(moves - 1);
	let until = || {
		left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
			.is_ok()
	};
	assert_eq!(
		play_gate_pair_while(&net, &settings, opening, None, &until),
		None
	);
}

#[test]
fn a_match_on_threads_counts_as_one_played_in_order() {
	let net = Arc::new(Network::new(
		Shape {
			hidden1: 16,
			hidden2: 8,
		},
		3,
	));
	let settings = small();
	let alone = run_gate(&net, &settings, None);
	let heard = AtomicUsize::new(0);
	let on_pair = |_| {
		heard.fetch_add(1, Ordering::Relaxed);
	};
	let threaded = play_gate_match(&net, &settings, None, 3, &|| true, &on_pair);
	assert_eq!(threaded, Some(alone));
	// Told of every pair that finished: those counted, and perhaps some after the stop.
	let heard = heard.load(Ordering::Relaxed);
	assert!(heard >= alone.pairs.pairs() as usize, "{heard}");
	assert!(heard <= settings.policy.max_pairs as usize, "{heard}");
	// Stopped before the first move: nothing is decided.
	assert_eq!(
		play_gate_match(&net, &settings, None, 2, &|| false, &|_| {}),
		None
	);
}

#[test]
fn the_tally_stops_at_the_cap_and_ignores_later_pairs() {
	// Below the minimum the SPRT is not consulted, so only the cap can stop this match.
	let policy = GatePolicy {
		min_pairs: 10,
		max_pairs: 4,
		..small().policy
	};
	let mut tally = GateTally::default();
	// Pairs swept by one side or the other: too noisy for the SPRT to decide in four.
	let won = PairOutcome {
		as_sheep: Some(Turn::Sheep),
		as_tigers: Some(Turn::Tiger),
		..PairOutcome::default()
	};
	let lost = PairOutcome {
		as_sheep: Some(Turn::Tiger),
		as_tigers: Some(Turn::Sheep),
		..PairOutcome::default()
	};
	let mut stopped_at = None;
	for i in 1..=6 {
		let pair = if i % 2 == 0 { won } else { lost };
		if tally.add(pair, &policy) && stopped_at.is_none() {
			stopped_at = Some(i);
		}
	}
	assert_eq!(stopped_at, Some(4));
	assert_eq!(tally.pairs.pairs(), 4);
	assert_eq!(tally.stop, Some(GateStop::Cap));
	assert_eq!(tally.by_side.as_sheep.wins, 2);
	assert_eq!(tally.by_side.as_tigers.losses, 2);
}

#[test]
fn the_sprt_is_centred_on_the_incumbent() {
	let settings = GateSettings::default();
	assert_eq!(settings.policy_against(None), settings.policy);
	// An incumbent that scored 1 point in 10 pairs: about -330 Elo against the reference.
	let pairs = PairCounts {
		counts: [6, 2, 2, 0, 0],
	};
	let record = GateRecord {
		pairs,
		stop: GateStop::Cap,
	};
	let policy = settings.policy_against(Some(&record));
	let elo = record.estimate().elo().elo;
	assert!(elo < -100.0);
	assert!((policy.sprt.elo0() - elo).abs() < 1e-9);
	assert!((policy.sprt.elo1() - (elo + 50.0)).abs() < 1e-9);
	assert_eq!((policy.min_pairs, policy.max_pairs), (20, 100));
	// A candidate that does just as badly is rejected; one far better is accepted.
	assert_eq!(
		policy.sprt.decide(&PairCounts {
			counts: [600, 200, 200, 0, 0]
		}),
		crate::stats::SprtDecision::AcceptH0
	);
	assert_eq!(
		policy.sprt.decide(&PairCounts {
			counts: [5, 10, 60, 20, 5]
		}),
		crate::stats::SprtDecision::AcceptH1
	);
}

#[test]
fn sides_are_scored_from_the_candidate() {
	let mut tally = GateTally::default();
	let pair = PairOutcome {
		as_sheep: Some(Turn::Sheep),
		as_tigers: Some(Turn::Sheep),
		..PairOutcome::default()
	};
	tally.add(pair, &small().policy);
	assert_eq!(tally.by_side.as_sheep.wins, 1);
	assert_eq!(tally.by_side.as_tigers.losses, 1);
	assert_eq!(
		tally.pairs.counts[2], 1,
		"one win and one loss make a pair worth one point"
	);
}
