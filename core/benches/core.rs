//! Benchmarks of the core crate: move generation, perft, canonical boards, fixed-depth searches
//! over the named positions, tablebase probes, and the rating ladder's fit. Every bench checks its result, so a fast
//! wrong answer fails instead of looking good.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use tigers_core::perft::perft;
use tigers_core::position::NAMED_POSITIONS;

use tigers_core::claude::DEFAULT_TABLE_BITS;
use tigers_core::network::Shape;
use tigers_core::network::quantized::{Accumulator, QuantizedNet};
use tigers_core::search::SearchSettings;
use tigers_core::stats::LadderBook;
use tigers_core::tablebase::Value;
use tigers_core::versus::SideResult;
use tigers_core::{ClaudePlayer, MinimaxPlayer, Network, NeuralPlayer, Position, Tablebase};

fn named(name: &str) -> Position {
	let (_, text) = NAMED_POSITIONS
		.iter()
		.find(|(n, _)| *n == name)
		.expect("a named position");
	text.parse().expect("named positions parse")
}

fn bench_perft(c: &mut Criterion) {
	let mut group = c.benchmark_group("perft");
	group.sample_size(10);
	let start = named("start");
	group.bench_function("start/6", |b| {
		b.iter(|| assert_eq!(perft(black_box(start.board), start.turn, 6), 18_592_000));
	});
	for (name, depth, count) in [
		("mid-placement", 5, 419_798),
		("mid-movement", 5, 3_569),
		("near-end", 5, 109_283),
	] {
		let p = named(name);
		group.bench_function(format!("{name}/{depth}"), |b| {
			b.iter(|| assert_eq!(perft(black_box(p.board), p.turn, depth), count));
		});
	}
	group.finish();
}

fn bench_movegen(c: &mut Criterion) {
	let positions: Vec<Position> = NAMED_POSITIONS
		.iter()
		.map(|(name, _)| named(name))
		.collect();
	let expected: usize = [21, 12, 4, 13].iter().sum();
	c.bench_function("movegen/named", |b| {
		b.iter(|| {
			let total: usize = positions
				.iter()
				.map(|p| black_box(p.board).get_moves(p.turn).len())
				.sum();
			assert_eq!(total, expected);
		});
	});
	c.bench_function("canonical/named", |b| {
		b.iter(|| {
			for p in &positions {
				let (canonical, sym) = black_box(p.board).canonical();
				assert_eq!(sym.apply_board(p.board), canonical);
			}
		});
	});
}

fn bench_search(c: &mut Criterion) {
	let mut group = c.benchmark_group("search");
	group.sample_size(10);
	for (name, depth, best) in [
		("start", 9, "sc5"),
		("mid-placement", 8, "ta5b5"),
		("mid-movement", 10, "td2c3"),
		("near-end", 8, "sb5b4"),
	] {
		let p = named(name);
		let mut player = ClaudePlayer::fixed_depth(depth);
		group.bench_function(format!("claude/{name}/{depth}"), |b| {
			b.iter(|| {
				player.new_game();
				let report = player
					.pick_move(p.board, p.turn, &[])
					.expect("a legal move");
				assert_eq!(report.mv.to_string(), best);
			});
		});
	}
	group.finish();
}

fn bench_network(c: &mut Criterion) {
	let net = Network::new(Shape::default(), 1);
	let positions: Vec<Position> = NAMED_POSITIONS
		.iter()
		.map(|(name, _)| named(name))
		.collect();
	c.bench_function("network/forward/named", |b| {
		b.iter(|| {
			for p in &positions {
				let value = net.forward(black_box(p.board), p.turn);
				assert!(value.abs() < 1.0);
			}
		});
	});
	// The search's evaluation: one accumulator walks the four positions, which differ too much
	// for updates, so each is computed from scratch.
	let quantized = QuantizedNet::new(&net);
	let expected: Vec<f32> = positions
		.iter()
		.map(|p| quantized.value(&mut Accumulator::default(), p.board, p.turn))
		.collect();
	for (p, value) in positions.iter().zip(&expected) {
		assert!((value - net.forward(p.board, p.turn)).abs() < 1e-3);
	}
	let mut accumulator = Accumulator::default();
	c.bench_function("network/quantized/named", |b| {
		b.iter(|| {
			for (p, value) in positions.iter().zip(&expected) {
				let got = quantized.value(&mut accumulator, black_box(p.board), p.turn);
				assert_eq!(got, *value);
			}
		});
	});
	let mut group = c.benchmark_group("search");
	group.sample_size(10);
	let start = named("start");
	let mut player = NeuralPlayer::with_net(Arc::new(net), SearchSettings::fixed_depth(7), 20);
	group.bench_function("neural/start/7", |b| {
		b.iter(|| {
			player.new_game();
			let report = player
				.pick_move(start.board, start.turn, &[])
				.expect("a legal move");
			assert_eq!(report.depth, 7);
		});
	});
	group.finish();
}

/// Probes of 4,096 positions spread over the whole table (so most miss the cache, as in a
/// search), and searches of the named movement-phase positions with and without the table. The
/// table is the one the tests share, solved on first use.
fn bench_tablebase(c: &mut Criterion) {
	let path =
		std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tablebase/tigers-and-sheep.tb");
	let (table, _) = Tablebase::load_or_build(&path, 2, &|_| {}).expect("the table");
	let table = Arc::new(table);
	let stride = table.len() / 4096;
	let probes: Vec<(Position, Value)> =
		(0..4096).map(|i| table.entry(i * stride + i % 7)).collect();
	c.bench_function("tablebase/probe/4096", |b| {
		b.iter(|| {
			for (p, value) in &probes {
				assert_eq!(table.probe(black_box(p.board), p.turn), Some(*value));
			}
		});
	});
	let mut group = c.benchmark_group("search");
	group.sample_size(10);
	for (name, depth) in [("mid-movement", 10), ("near-end", 8)] {
		let p = named(name);
		let mut player = ClaudePlayer::fixed_depth(depth);
		player.set_tablebase(Some(table.clone()));
		let value = table
			.probe(p.board, p.turn)
			.expect("a movement-phase position");
		group.bench_function(format!("claude+tablebase/{name}/{depth}"), |b| {
			b.iter(|| {
				player.new_game();
				let report = player
					.pick_move(p.board, p.turn, &[])
					.expect("a legal move");
				let child = p.board.after_move_unchecked(report.mv);
				let kept = table
					.probe(child, p.turn.opponent())
					.map(Value::before_move);
				assert_eq!(kept, Some(value));
			});
		});
	}
	group.finish();
}

/// Nodes per second of `ClaudePlayer` and `NeuralPlayer` (a fresh net) at equal depth and equal
/// table size on each named position, one after the other in one run, so that the two can be
/// compared on a busy machine. Each search starts from a cleared player (the clearing is not
/// timed), and checks its node count and move against the first.
fn bench_nodes_per_second(c: &mut Criterion) {
	let mut group = c.benchmark_group("nps");
	group.sample_size(10);
	let net = Arc::new(Network::new(Shape::default(), 1));
	for (name, depth) in [
		("start", 10),
		("mid-placement", 9),
		("mid-movement", 12),
		("near-end", 10),
	] {
		let p = named(name);
		let settings = SearchSettings::fixed_depth(depth);
		let mut claude = ClaudePlayer::with_settings(settings);
		let mut neural = NeuralPlayer::with_net(net.clone(), settings, DEFAULT_TABLE_BITS);
		nodes_per_second(
			&mut group,
			&format!("claude/{name}/{depth}"),
			&mut claude,
			p,
		);
		nodes_per_second(
			&mut group,
			&format!("neural/{name}/{depth}"),
			&mut neural,
			p,
		);
	}
	group.finish();
}

fn nodes_per_second<P: MinimaxPlayer>(
	group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
	id: &str,
	player: &mut P,
	p: Position,
) {
	let first = player
		.pick_move(p.board, p.turn, &[])
		.expect("a legal move");
	group.throughput(Throughput::Elements(first.nodes));
	group.bench_function(id, |b| {
		b.iter_custom(|iterations| {
			let mut searching = Duration::ZERO;
			for _ in 0..iterations {
				player.new_game();
				let start = Instant::now();
				let report = player
					.pick_move(black_box(p.board), p.turn, &[])
					.expect("a legal move");
				searching += start.elapsed();
				assert_eq!((report.mv, report.nodes), (first.mv, first.nodes));
			}
			searching
		});
	});
}

/// A run's ladder as a long run makes it: `nets` promoted nets, each gated against the one
/// before and measured against the anchor at the gate's depth and at equal time, and further
/// head-to-heads between nets a few generations apart, `matches` in all.
fn ladder_book(nets: u32, matches: u32) -> LadderBook<u32> {
	let side = |seed: u32| SideResult {
		wins: 20 + seed % 17,
		draws: 60 + seed % 13,
		losses: 20,
	};
	let mut book = LadderBook::new(0);
	let mut recorded = 0;
	for net in 1..=nets {
		book.record(net, net - 1, side(net), side(net + 1));
		book.record(net, 0, side(net + 2), side(net + 3));
		book.record(net, 0, side(net + 4), side(net + 5));
		recorded += 3;
	}
	let mut at = 0u32;
	while recorded < matches {
		let net = 1 + at % nets;
		let other = net.saturating_sub(1 + at % 4);
		book.record(net, other, side(at), side(at + 7));
		recorded += 1;
		at += 1;
	}
	book
}

/// Fits of the rating ladder: a 90-minute run's (about 220 nets) and 10,000 matches among 1,000
/// nets, what a run of several days would hold.
fn bench_ladder(c: &mut Criterion) {
	let mut group = c.benchmark_group("ladder");
	for (name, nets, matches) in [("220-nets", 220, 660), ("10000-matches", 1000, 10_000)] {
		let book = ladder_book(nets, matches);
		assert_eq!(book.matches(), u64::from(matches));
		group.bench_function(name, |b| {
			b.iter(|| {
				let ladder = black_box(&book).fit();
				assert_eq!(ladder.ratings.len(), nets as usize + 1);
				assert!(
					ladder
						.ratings
						.iter()
						.all(|(_, r)| r.low <= r.rating && r.rating <= r.high)
				);
				ladder
			});
		});
	}
	group.finish();
}

criterion_group!(
	benches,
	bench_ladder,
	bench_nodes_per_second,
	bench_perft,
	bench_movegen,
	bench_search,
	bench_network,
	bench_tablebase
);
criterion_main!(benches);
