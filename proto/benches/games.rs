//! What keeping every game costs the coordinator per batch: compressing a batch's records for
//! the ledger (at the fastest gzip level, as stored, and at the default level, for the
//! choice), and reading them back when they go to the archive.
//!
//! The input is a batch as workers send it by default: 16 self-play games between depth-1
//! `ClaudePlayer`s with the default exploration, records tagged with one generation.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use flate2::Compression;
use flate2::write::GzEncoder;
use std::hint::black_box;
use std::io::Write;
use tigers_core::search::SearchSettings;
use tigers_core::selfplay::{SelfPlaySettings, play_self_play_game};
use tigers_core::{ClaudePlayer, GameRecord};
use tigers_proto::games::{compress, parse_games, records_text};

fn batch_records() -> Vec<String> {
	let mut sheep = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
	let mut tigers = ClaudePlayer::with_settings(SearchSettings::fixed_depth(1));
	let settings = SelfPlaySettings::default();
	(0..16)
		.map(|seed| {
			play_self_play_game(&mut sheep, &mut tigers, &settings, seed, 7)
				.record
				.to_text()
		})
		.collect()
}

fn at_level(records: &[String], level: Compression) -> Vec<u8> {
	let mut encoder = GzEncoder::new(Vec::new(), level);
	for record in records {
		encoder.write_all(record.as_bytes()).unwrap();
	}
	encoder.finish().unwrap()
}

fn games(c: &mut Criterion) {
	let records = batch_records();
	let text_bytes: usize = records.iter().map(String::len).sum();
	let compressed = compress(records.iter().map(String::as_str));
	// The bench checks its own result: the batch reads back whole and in order.
	let read: Vec<String> = parse_games(&compressed)
		.unwrap()
		.iter()
		.map(GameRecord::to_text)
		.collect();
	assert_eq!(read, records);
	let default_level = at_level(&records, Compression::default());
	eprintln!(
		"a batch of {} games: {text_bytes} bytes of records, {} compressed as stored (the \
		 fastest level), {} at the default level",
		records.len(),
		compressed.len(),
		default_level.len()
	);
	let mut group = c.benchmark_group("games");
	group.throughput(Throughput::Bytes(text_bytes as u64));
	group.bench_function("compress a batch (fastest level, as stored)", |b| {
		b.iter(|| compress(black_box(&records).iter().map(String::as_str)));
	});
	group.bench_function("compress a batch (default level)", |b| {
		b.iter(|| at_level(black_box(&records), Compression::default()));
	});
	group.bench_function("decompress a batch", |b| {
		b.iter(|| records_text(black_box(&compressed)).unwrap());
	});
	group.bench_function("decompress and read every game", |b| {
		b.iter_batched(
			|| compressed.clone(),
			|bytes| parse_games(&bytes).unwrap(),
			BatchSize::SmallInput,
		);
	});
	group.finish();
}

criterion_group!(benches, games);
criterion_main!(benches);
