//! `coordinator grade`: nets graded by the exact values on the grading suite, printed.

use std::path::PathBuf;

use clap::Args;
use tigers_coordinator::{GradeError, GradeSettings, grade_net, load_suite};
use tigers_process::console;

use crate::cli::common::{Failure, run_defaults};

#[derive(Args)]
pub(crate) struct GradeArgs {
	/// The nets (safetensors files, such as a run's nets/gen-000024.safetensors).
	#[arg(required = true)]
	nets: Vec<PathBuf>,
	/// The suite's file (`tui tablebase suite` draws one) [default: the repository's,
	/// core/data/grade-suite.txt, built in].
	#[arg(long, value_name = "FILE")]
	suite: Option<PathBuf>,
	/// The search's depth for the fixed-depth move grade, 1 to 12 [default: the gate's].
	#[arg(long, default_value_t = run_defaults().gate.search.max_depth,
		value_parser = clap::value_parser!(u32).range(1..=12))]
	depth: u32,
	/// The search's time a move for the move grade on the clock, 0 to 60000 (0 leaves it out).
	#[arg(long, value_name = "MS", default_value_t = 100,
		value_parser = clap::value_parser!(u64).range(0..=60_000))]
	move_ms: u64,
	/// Positions searched at once, each on a thread of its own, 1 to 64 [default: every core].
	#[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
	threads: Option<u32>,
}

/// Grades each net on the suite and prints its grades.
pub(crate) async fn run(args: GradeArgs) -> Result<(), Failure> {
	const NAME: &str = "coordinator grade";
	let threads = args.threads.map_or_else(
		|| std::thread::available_parallelism().map_or(1, |n| n.get()),
		|n| n as usize,
	);
	let settings = GradeSettings {
		suite: args.suite,
		depth: args.depth,
		move_ms: args.move_ms,
		threads,
	};
	let graded = tokio::task::spawn_blocking(move || {
		let (name, suite) = load_suite(&settings)?;
		let mut out = format!("suite: {name}\n");
		for net in &args.nets {
			out.push_str(&grade_net(net, &suite, &settings)?);
		}
		Ok::<String, GradeError>(out)
	})
	.await;
	match graded {
		Ok(Ok(out)) => console::out(out).map_err(|e| Failure::new(NAME, e)),
		Ok(Err(error)) => Err(Failure::new(NAME, error)),
		Err(error) => Err(Failure::new(NAME, format!("the grading failed: {error}"))),
	}
}

#[cfg(test)]
mod tests {
	use tigers_coordinator::config::RunSettings;

	use crate::Command;
	use crate::tests::{assert_refused, parse};

	#[test]
	fn grade_searches_at_the_gates_depth_and_100_ms_by_default() {
		let Some(Command::Grade(args)) =
			parse(&["coordinator", "grade", "a.safetensors", "b.safetensors"]).command
		else {
			panic!("the grade command");
		};
		assert_eq!(args.nets.len(), 2);
		assert_eq!(
			(args.depth, args.move_ms),
			(RunSettings::default().gate.search.max_depth, 100)
		);
		assert_eq!((args.suite, args.threads), (None, None));
		for (flag, value) in [("--depth", "0"), ("--depth", "13"), ("--move-ms", "60001")] {
			assert_refused(
				&["coordinator", "grade", "a.safetensors", flag, value],
				flag,
			);
		}
		assert_refused(&["coordinator", "grade"], "<NETS>");
	}
}
