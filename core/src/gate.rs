//! The gating match: a candidate network against a reference (`ClaudePlayer`, another net such
//! as the incumbent, or the perfect player) at equal search settings, seeded paired openings,
//! results by side, and a sequential stop.
//!
//! Pairs are independent and deterministic (fresh players, fixed depth, seeded openings), so a
//! caller with threads may play several at once; feeding the results to a [`GateTally`] in
//! opening order keeps the match, including where it stops, the same as playing them one by
//! one with [`run_gate`].

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::claude::ClaudePlayer;
use crate::game::Game;
use crate::moves::{Move, Turn};
use crate::network::Network;
use crate::neural::{NeuralPlayer, SELF_PLAY_TABLE_BITS};
use crate::outcome::Outcome;
use crate::search::MinimaxPlayer;
use crate::search::SearchSettings;
use crate::stats::{GameResult, GatePolicy, GateRecord, GateStop, PairCounts, Sprt};
use crate::tablebase::placement::{PlacementTable, WholeGameAccuracy};
use crate::tablebase::{Accuracy, Tablebase};
use crate::versus::{MatchResult, openings, play_game_until};

/// How a gate match is played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GateSettings {
	/// The search both players use (fixed depth, so the match is reproducible).
	pub search: SearchSettings,
	/// Random plies in each opening.
	pub opening_plies: usize,
	/// The seed the openings come from.
	pub seed: u64,
	/// When to stop.
	pub policy: GatePolicy,
	/// Games stop unfinished (and count as draws) after this many plies.
	pub max_plies: usize,
	/// What the tablebase, when a match is given one, does in it.
	pub table: TableRole,
}

/// What the tablebase does in a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableRole {
	/// It judges the players' movement-phase moves; neither searches with it, so the match
	/// measures the net's own play there. The gate's role: promotion asks about the net.
	Judge,
	/// Both players search with it (they never give away a movement-phase position's exact
	/// value) and it judges their moves, as `tui` plays: the match measures what a person who
	/// plays the net meets, where only the placement phase can decide a game.
	Play,
}

impl TableRole {
	/// The names the command lines take.
	pub const NAMES: [&'static str; 2] = ["play", "judge"];

	/// The name the command lines take.
	pub const fn name(self) -> &'static str {
		match self {
			TableRole::Judge => "judge",
			TableRole::Play => "play",
		}
	}
}

impl std::str::FromStr for TableRole {
	type Err = String;

	fn from_str(text: &str) -> Result<TableRole, String> {
		match text {
			"judge" => Ok(TableRole::Judge),
			"play" => Ok(TableRole::Play),
			_ => Err(format!("{text:?} is not one of play, judge")),
		}
	}
}

impl Default for GateSettings {
	/// Depth 4, four-ply openings, an SPRT of 0 against 50 Elo at 5% error rates, at least 20
	/// and at most 100 pairs; a tablebase only judges.
	fn default() -> GateSettings {
		GateSettings {
			search: SearchSettings::fixed_depth(4),
			opening_plies: 4,
			seed: 0x9a7e,
			policy: GatePolicy {
				sprt: Sprt::new(0.0, 50.0, 0.05, 0.05).expect("valid SPRT bounds"),
				min_pairs: 20,
				max_pairs: 100,
			},
			max_plies: 300,
			table: TableRole::Judge,
		}
	}
}

impl GateSettings {
	/// The stopping policy for a candidate when the incumbent's gate match went as `incumbent`:
	/// the SPRT's two hypotheses shifted by the incumbent's Elo against the reference.
	///
	/// The SPRT then asks "no better than the incumbent" against "`elo1 - elo0` better", which
	/// is the question promotion needs; unshifted it would ask whether the candidate beats
	/// `ClaudePlayer` itself, and reject every candidate of a young run. The shift stays within
	/// ±900 Elo so both hypotheses remain inside the clamped Elo scale.
	pub fn policy_against(&self, incumbent: Option<&GateRecord>) -> GatePolicy {
		let Some(record) = incumbent else {
			return self.policy;
		};
		let sprt = self.policy.sprt;
		let shift = record
			.estimate()
			.elo()
			.elo
			.clamp(-900.0, 900.0 - (sprt.elo1() - sprt.elo0()));
		let shifted = Sprt::new(
			sprt.elo0() + shift,
			sprt.elo1() + shift,
			sprt.alpha(),
			sprt.beta(),
		)
		.expect("shifting both hypotheses keeps them ordered and finite");
		GatePolicy {
			sprt: shifted,
			..self.policy
		}
	}
}

/// The two games of one opening, from the candidate's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairOutcome {
	/// The winner of the game with the candidate as the sheep (`None`: drawn or unfinished).
	pub as_sheep: Option<Turn>,
	/// The winner of the game with the candidate as the tigers.
	pub as_tigers: Option<Turn>,
	/// The candidate's movement-phase moves in both games, judged by the tablebase (zero
	/// without one).
	pub candidate_accuracy: Accuracy,
	/// The reference's, for comparison.
	pub reference_accuracy: Accuracy,
	/// The candidate's placement-phase moves in both games, judged by the solved placement
	/// phase (zero without it).
	pub candidate_placement: Accuracy,
	/// The reference's.
	pub reference_placement: Accuracy,
}

impl PairOutcome {
	/// The candidate's half-points from the pair, 0 to 4, as [`PairCounts`] counts them.
	pub fn half_points(&self) -> u8 {
		GameResult::of_winner(self.as_sheep, Turn::Sheep).half_points()
			+ GameResult::of_winner(self.as_tigers, Turn::Tiger).half_points()
	}
}

/// Who plays for the candidate in a match.
#[derive(Clone, Debug)]
pub enum Contender {
	/// A net, searching with its own evaluation.
	Net(Arc<Network>),
	/// The `perfect` player: `ClaudePlayer`'s search choosing only among the moves that keep
	/// the exact value, by the solved placement phase and the movement table. It needs both, so
	/// it searches with the movement table whatever the match's [`TableRole`].
	Perfect(Arc<PlacementTable>),
}

/// Who the candidate meets: `ClaudePlayer`, the perfect player, or another net.
#[derive(Clone, Debug, Default)]
pub enum Reference {
	/// `ClaudePlayer`, the gate's fixed opponent.
	#[default]
	Claude,
	/// The perfect player, which never gives a value away: a match against it measures how
	/// often the candidate does.
	Perfect(Arc<PlacementTable>),
	/// A net, searching with its own evaluation as the candidate does (with the movement table
	/// when the match's [`TableRole`] puts it in play): the incumbent, when a candidate is
	/// gated head to head.
	Net(Arc<Network>),
}

/// The solved phases a match may use: the movement table (judging, or in play by
/// [`TableRole`]) and the placement layers (judging placement-phase moves; in play only for a
/// perfect player).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tables<'a> {
	/// The movement-phase table.
	pub movement: Option<&'a Arc<Tablebase>>,
	/// The placement layers, judging only where they are all present.
	pub placement: Option<&'a Arc<PlacementTable>>,
}

/// The openings of a gate match, as many as the policy's cap allows.
pub fn gate_openings(settings: &GateSettings) -> Vec<Vec<Move>> {
	openings(
		settings.seed,
		settings.policy.max_pairs as usize,
		settings.opening_plies,
	)
}

/// Plays one opening twice, the candidate as the sheep and then as the tigers, with fresh
/// players, so the pair depends on nothing but its inputs. `table`, if given, scores the
/// players' movement-phase moves, and both players search with it if `settings.table` says
/// [`TableRole::Play`].
pub fn play_gate_pair(
	net: &Arc<Network>,
	settings: &GateSettings,
	opening: &[Move],
	table: Option<&Arc<Tablebase>>,
) -> PairOutcome {
	play_gate_pair_while(net, settings, opening, table, &|| true)
		.expect("a pair that is never stopped is finished")
}

/// As [`play_gate_pair`], asking `go_on` before every move: `None` if it said no.
pub fn play_gate_pair_while(
	net: &Arc<Network>,
	settings: &GateSettings,
	opening: &[Move],
	table: Option<&Arc<Tablebase>>,
	go_on: &dyn Fn() -> bool,
) -> Option<PairOutcome> {
	let tables = Tables {
		movement: table,
		placement: None,
	};
	play_pair_while(
		&Contender::Net(net.clone()),
		&Reference::Claude,
		settings,
		opening,
		tables,
		go_on,
	)
}

/// Plays one opening twice between `contender` and `reference`, the contender as the sheep and
/// then as the tigers, with fresh players; `tables` judge both players' moves (the placement
/// layers only with the movement table, which their children's values come from). `None` if
/// `go_on` said no before a move.
///
/// # Panics
///
/// If a perfect player is asked for without a movement table.
pub fn play_pair_while(
	contender: &Contender,
	reference: &Reference,
	settings: &GateSettings,
	opening: &[Move],
	tables: Tables<'_>,
	go_on: &dyn Fn() -> bool,
) -> Option<PairOutcome> {
	match reference {
		Reference::Claude => {
			let mut player = ClaudePlayer::with_settings(settings.search);
			player.set_tablebase(in_play(settings, tables).cloned());
			pair_against(contender, &mut player, settings, opening, tables, go_on)
		}
		Reference::Perfect(placement) => {
			let mut player = perfect_player(settings, tables, placement);
			pair_against(contender, &mut player, settings, opening, tables, go_on)
		}
		Reference::Net(net) => {
			let mut player = net_player(settings, tables, net);
			pair_against(contender, &mut player, settings, opening, tables, go_on)
		}
	}
}

/// The table the players search with, if the match puts it in play.
fn in_play<'a>(settings: &GateSettings, tables: Tables<'a>) -> Option<&'a Arc<Tablebase>> {
	tables
		.movement
		.filter(|_| settings.table == TableRole::Play)
}

/// A net's player in a match: its own evaluation, with the movement table if it is in play.
fn net_player(settings: &GateSettings, tables: Tables<'_>, net: &Arc<Network>) -> NeuralPlayer {
	let mut player = NeuralPlayer::with_net(net.clone(), settings.search, SELF_PLAY_TABLE_BITS);
	player.set_tablebase(in_play(settings, tables).cloned());
	player
}

/// The perfect player: both solved phases in its search, whatever the match's table role.
fn perfect_player(
	settings: &GateSettings,
	tables: Tables<'_>,
	placement: &Arc<PlacementTable>,
) -> ClaudePlayer {
	let movement = tables
		.movement
		.expect("the perfect player is asked for only with a movement table");
	let mut player = ClaudePlayer::with_settings(settings.search);
	player.set_tablebase(Some(movement.clone()));
	player.set_placement(Some(placement.clone()));
	player
}

/// The pair between `contender` and the reference's player.
fn pair_against<R: MinimaxPlayer>(
	contender: &Contender,
	reference: &mut R,
	settings: &GateSettings,
	opening: &[Move],
	tables: Tables<'_>,
	go_on: &dyn Fn() -> bool,
) -> Option<PairOutcome> {
	match contender {
		Contender::Net(net) => {
			let mut player = net_player(settings, tables, net);
			pair_between(&mut player, reference, settings, opening, tables, go_on)
		}
		Contender::Perfect(placement) => {
			let mut player = perfect_player(settings, tables, placement);
			pair_between(&mut player, reference, settings, opening, tables, go_on)
		}
	}
}

fn pair_between<C: MinimaxPlayer, R: MinimaxPlayer>(
	candidate: &mut C,
	reference: &mut R,
	settings: &GateSettings,
	opening: &[Move],
	tables: Tables<'_>,
	go_on: &dyn Fn() -> bool,
) -> Option<PairOutcome> {
	let max = settings.max_plies;
	// With the table in both players' search, neither gives a movement-phase value away, so
	// the first movement-phase position decides the game: it is stopped there with the table's
	// result rather than played out on the clock (for a drawn one, to the ply cap).
	let exact = tables
		.movement
		.filter(|_| settings.table == TableRole::Play);
	let decided = |game: &Game| exact.and_then(|table| table.probe(game.board(), game.turn()));
	let stop_at = |game: &Game| decided(game).is_some();
	let winner = |game: &Game| match decided(game) {
		Some(value) if value.sign() > 0 => Some(game.turn()),
		Some(value) if value.sign() < 0 => Some(game.turn().opponent()),
		Some(_) => None,
		None => game.outcome().and_then(Outcome::winner),
	};
	let as_sheep = play_game_until(candidate, reference, opening, max, go_on, &stop_at)?;
	let as_tigers = play_game_until(reference, candidate, opening, max, go_on, &stop_at)?;
	let mut pair = PairOutcome {
		as_sheep: winner(&as_sheep),
		as_tigers: winner(&as_tigers),
		..PairOutcome::default()
	};
	let Some(table) = tables.movement else {
		return Some(pair);
	};
	pair.candidate_accuracy = Accuracy::of_game(table, &as_sheep, Turn::Sheep)
		.plus(Accuracy::of_game(table, &as_tigers, Turn::Tiger));
	pair.reference_accuracy = Accuracy::of_game(table, &as_sheep, Turn::Tiger)
		.plus(Accuracy::of_game(table, &as_tigers, Turn::Sheep));
	if let Some(placement) = tables.placement {
		// The opening's random plies are nobody's choice: only the players' own moves count.
		let judge = |game, side| {
			WholeGameAccuracy::of_game_from(placement, table, game, side, opening.len()).placement
		};
		pair.candidate_placement =
			judge(&as_sheep, Turn::Sheep).plus(judge(&as_tigers, Turn::Tiger));
		pair.reference_placement =
			judge(&as_sheep, Turn::Tiger).plus(judge(&as_tigers, Turn::Sheep));
	}
	Some(pair)
}

/// A gate match's running results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GateTally {
	/// Pairs by the candidate's points.
	pub pairs: PairCounts,
	/// The candidate's games by side.
	pub by_side: MatchResult,
	/// Why the match stopped, once it has.
	pub stop: Option<GateStop>,
	/// The candidate's movement-phase moves that kept the exact result.
	pub candidate_accuracy: Accuracy,
	/// The reference's.
	pub reference_accuracy: Accuracy,
	/// The candidate's placement-phase moves that kept the exact value (zero without the
	/// solved placement phase).
	pub candidate_placement: Accuracy,
	/// The reference's.
	pub reference_placement: Accuracy,
}

impl GateTally {
	/// Counts the next pair, unless the match has already stopped; returns whether it has
	/// stopped now.
	pub fn add(&mut self, pair: PairOutcome, policy: &GatePolicy) -> bool {
		if self.stop.is_some() {
			return true;
		}
		self.by_side.as_sheep.add_winner(pair.as_sheep, Turn::Sheep);
		self.by_side
			.as_tigers
			.add_winner(pair.as_tigers, Turn::Tiger);
		self.candidate_accuracy = self.candidate_accuracy.plus(pair.candidate_accuracy);
		self.reference_accuracy = self.reference_accuracy.plus(pair.reference_accuracy);
		self.candidate_placement = self.candidate_placement.plus(pair.candidate_placement);
		self.reference_placement = self.reference_placement.plus(pair.reference_placement);
		self.pairs.add_pair(
			GameResult::of_winner(pair.as_sheep, Turn::Sheep),
			GameResult::of_winner(pair.as_tigers, Turn::Tiger),
		);
		self.stop = policy.should_stop(&self.pairs);
		self.stop.is_some()
	}

	/// The finished match as a record for the promotion rule (`None` while it runs).
	pub fn record(&self) -> Option<GateRecord> {
		self.stop.map(|stop| GateRecord {
			pairs: self.pairs,
			stop,
		})
	}
}

/// Plays a whole gate match, one pair after another, until the policy stops it; `table` has
/// the role `settings.table` gives it.
pub fn run_gate(
	net: &Arc<Network>,
	settings: &GateSettings,
	table: Option<&Arc<Tablebase>>,
) -> GateTally {
	let mut tally = GateTally::default();
	for opening in gate_openings(settings) {
		if tally.add(
			play_gate_pair(net, settings, &opening, table),
			&settings.policy,
		) {
			break;
		}
	}
	tally
}

/// Plays a match on `threads` threads, each taking the next opening as it finishes a pair, and
/// counts the pairs in opening order, so that the tally (and where the policy stops it) is
/// the one [`run_gate`] gives at a fixed depth. No new pair starts once the counted ones have
/// stopped the match. `on_pair` hears how many pairs have finished after each one; `go_on` is
/// asked before every move, and `None` means it said no before the match was decided.
///
/// On the clock each game wants a core of its own: more threads than idle cores would give
/// both players less time than they were told.
pub fn play_gate_match(
	net: &Arc<Network>,
	settings: &GateSettings,
	table: Option<&Arc<Tablebase>>,
	threads: usize,
	go_on: &(dyn Fn() -> bool + Sync),
	on_pair: &(dyn Fn(u32) + Sync),
) -> Option<GateTally> {
	let tables = Tables {
		movement: table,
		placement: None,
	};
	let contender = Contender::Net(net.clone());
	play_match(
		&contender,
		&Reference::Claude,
		settings,
		tables,
		threads,
		go_on,
		on_pair,
	)
}

/// As [`play_gate_match`], between any `contender` and `reference`, judged by `tables`.
pub fn play_match(
	contender: &Contender,
	reference: &Reference,
	settings: &GateSettings,
	tables: Tables<'_>,
	threads: usize,
	go_on: &(dyn Fn() -> bool + Sync),
	on_pair: &(dyn Fn(u32) + Sync),
) -> Option<GateTally> {
	let openings = gate_openings(settings);
	let threads = threads.clamp(1, openings.len().max(1));
	let playing = MatchInPlay {
		contender,
		reference,
		settings,
		tables,
		go_on,
		on_pair,
		counted: Mutex::new(Counted::new(openings.len())),
		openings,
		taken: AtomicUsize::new(0),
		abandoned: AtomicBool::new(false),
	};
	std::thread::scope(|scope| {
		for _ in 1..threads {
			scope.spawn(|| playing.play());
		}
		playing.play();
	});
	let abandoned = playing.abandoned.into_inner();
	let tally = playing
		.counted
		.into_inner()
		.expect("no thread panics holding it")
		.tally;
	(tally.stop.is_some() || !abandoned).then_some(tally)
}

/// What the threads of one [`play_match`] share: its players and settings, the openings and
/// how many have been taken, and the pairs finished.
struct MatchInPlay<'a> {
	contender: &'a Contender,
	reference: &'a Reference,
	settings: &'a GateSettings,
	tables: Tables<'a>,
	go_on: &'a (dyn Fn() -> bool + Sync),
	on_pair: &'a (dyn Fn(u32) + Sync),
	openings: Vec<Vec<Move>>,
	/// How many openings have been taken: the next one to take.
	taken: AtomicUsize,
	/// Set once `go_on` has stopped a pair; no new one starts.
	abandoned: AtomicBool,
	counted: Mutex<Counted>,
}

impl MatchInPlay<'_> {
	/// One thread's part: takes the next opening and plays its pair, until the openings run
	/// out, the counted pairs decide the match or `go_on` says no.
	fn play(&self) {
		loop {
			let index = self.taken.fetch_add(1, Ordering::Relaxed);
			if index >= self.openings.len()
				|| self.abandoned.load(Ordering::Relaxed)
				|| self.is_decided()
			{
				return;
			}
			let Some(pair) = play_pair_while(
				self.contender,
				self.reference,
				self.settings,
				&self.openings[index],
				self.tables,
				self.go_on,
			) else {
				self.abandoned.store(true, Ordering::Relaxed);
				return;
			};
			let done = self.counted().record(index, pair, &self.settings.policy);
			(self.on_pair)(done);
		}
	}

	/// Whether the pairs counted so far have stopped the match.
	fn is_decided(&self) -> bool {
		self.counted().tally.stop.is_some()
	}

	fn counted(&self) -> MutexGuard<'_, Counted> {
		self.counted.lock().expect("no thread panics holding it")
	}
}

/// The pairs of a match finished so far, counted into the tally in opening order.
struct Counted {
	tally: GateTally,
	/// The opening whose pair is counted next.
	next: usize,
	/// Pairs finished but not yet counted, by opening.
	finished: Vec<Option<PairOutcome>>,
	pairs_done: u32,
}

impl Counted {
	fn new(openings: usize) -> Counted {
		Counted {
			tally: GateTally::default(),
			next: 0,
			finished: vec![None; openings],
			pairs_done: 0,
		}
	}

	/// Files the pair of opening `index`, counts every pair now next in order (until the policy
	/// stops the match), and returns how many pairs have finished.
	fn record(&mut self, index: usize, pair: PairOutcome, policy: &GatePolicy) -> u32 {
		self.finished[index] = Some(pair);
		while let Some(pair) = self.finished.get_mut(self.next).and_then(Option::take) {
			self.next += 1;
			if self.tally.add(pair, policy) {
				break;
			}
		}
		self.pairs_done += 1;
		self.pairs_done
	}
}

#[cfg(test)]
mod tests;
