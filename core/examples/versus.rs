//! Plays a paired match between two `ClaudePlayer` search settings, to measure whether a change to
//! the search helps (build the two versions, or compare depths and time limits).
//!
//! `cargo run --release -p tigers-core --example versus -- [--depth D] [--openings N]
//! [--opening-plies P] [--seed S] [--b-depth D]
//! [--time-ms MS]`
//!
//! With `--time-ms` both players search iteratively up to `--depth` under that time limit per
//! move, which compares features at equal cost rather than equal depth (not reproducible).

use std::process::ExitCode;
use std::time::Instant;

use tigers_core::ClaudePlayer;
use tigers_core::search::SearchSettings;
use tigers_core::versus::{DEFAULT_MAX_PLIES, openings, play_match};

fn main() -> ExitCode {
	let mut depth = 4;
	let mut b_depth = None;
	let mut count = 50;
	let mut opening_plies = 4;
	let mut seed = 1;
	let mut time_ms = None;
	let args: Vec<String> = std::env::args().skip(1).collect();
	for pair in args.chunks(2) {
		let [flag, value] = pair else {
			eprintln!("every option takes a value");
			return ExitCode::from(2);
		};
		let Ok(value) = value.parse::<u64>() else {
			eprintln!("{flag} takes a number, not {value:?}");
			return ExitCode::from(2);
		};
		match flag.as_str() {
			"--depth" => depth = value as u32,
			"--b-depth" => b_depth = Some(value as u32),
			"--openings" => count = value as usize,
			"--opening-plies" => opening_plies = value as usize,
			"--seed" => seed = value,
			"--time-ms" => time_ms = Some(value),
			other => {
				eprintln!("unknown option {other}");
				return ExitCode::from(2);
			}
		}
	}
	let settings = |depth| SearchSettings {
		time_limit: time_ms.map(std::time::Duration::from_millis),
		..SearchSettings::fixed_depth(depth)
	};
	let mut a = ClaudePlayer::with_settings(settings(depth));
	let mut b = ClaudePlayer::with_settings(settings(b_depth.unwrap_or(depth)));
	let start = Instant::now();
	let result = play_match(
		&mut a,
		&mut b,
		&openings(seed, count, opening_plies),
		DEFAULT_MAX_PLIES,
	);
	println!(
		"A as tigers: +{} ={} -{}  A as sheep: +{} ={} -{}  A score {:.3} over {} games ({:.1}s)",
		result.as_tigers.wins,
		result.as_tigers.draws,
		result.as_tigers.losses,
		result.as_sheep.wins,
		result.as_sheep.draws,
		result.as_sheep.losses,
		result.score(),
		result.games(),
		start.elapsed().as_secs_f64()
	);
	ExitCode::SUCCESS
}
