//! A gate match's pairs played in parallel on the gating pool: a gate's counted in opening
//! order, so that it stops exactly where one played a pair at a time would; a check's with both
//! nets on the same openings.

use std::sync::Arc;

use rayon::prelude::*;
use tigers_core::Network;
use tigers_core::gate::{
	Contender, GateSettings, GateTally, PairOutcome, Reference, Tables, gate_openings,
	play_pair_while,
};
use tigers_core::stats::PairedDifference;

/// A gate match against `reference`, with pairs played in parallel on the current rayon pool
/// and counted in opening order, so it stops exactly where a match played one pair at a time
/// would; `tables` judge the players' moves (the gate's settings say whether they also search
/// with the movement table).
pub(crate) fn run_gate_parallel(
	net: &Arc<Network>,
	reference: &Reference,
	settings: &GateSettings,
	tables: Tables<'_>,
) -> GateTally {
	let openings = gate_openings(settings);
	let mut tally = GateTally::default();
	let width = rayon::current_num_threads().max(1);
	let contender = Contender::Net(net.clone());
	for chunk in openings.chunks(width) {
		let pairs: Vec<_> = chunk
			.par_iter()
			.map(|o| {
				play_pair_while(&contender, reference, settings, o, tables, &|| true)
					.expect("a pair that is never stopped is finished")
			})
			.collect();
		for pair in pairs {
			if tally.add(pair, &settings.policy) {
				return tally;
			}
		}
	}
	tally
}

/// The check of `--gate both`: `candidate` and `incumbent` each play `ClaudePlayer` on the same
/// openings, every pair the policy's cap allows, pairs in parallel on the current rayon pool;
/// the two tallies, the candidate's first, and each opening's difference between them.
pub(crate) fn run_check_parallel(
	candidate: &Arc<Network>,
	incumbent: &Arc<Network>,
	settings: &GateSettings,
	tables: Tables<'_>,
) -> (GateTally, GateTally, PairedDifference) {
	let openings = gate_openings(settings);
	let (mut ours, mut theirs) = (GateTally::default(), GateTally::default());
	let mut difference = PairedDifference::default();
	let width = rayon::current_num_threads().max(1);
	let players = [
		Contender::Net(candidate.clone()),
		Contender::Net(incumbent.clone()),
	];
	let play = |contender: &Contender, opening: &Vec<_>| -> PairOutcome {
		play_pair_while(
			contender,
			&Reference::Claude,
			settings,
			opening,
			tables,
			&|| true,
		)
		.expect("a pair that is never stopped is finished")
	};
	for chunk in openings.chunks(width) {
		let pairs: Vec<(PairOutcome, PairOutcome)> = chunk
			.par_iter()
			.map(|o| (play(&players[0], o), play(&players[1], o)))
			.collect();
		for (a, b) in pairs {
			difference.add(a.half_points(), b.half_points());
			ours.add(a, &settings.policy);
			theirs.add(b, &settings.policy);
		}
	}
	(ours, theirs, difference)
}
