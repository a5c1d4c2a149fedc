//! `coordinator grade`: nets graded by the exact values on the grading suite
//! (`tigers_core::grade`): how often each net's own evaluation puts a position in the right
//! class, and how often its search's move keeps the exact value, at the gate's depth and on
//! the clock, by phase, each share with its 95% interval. No table is needed: the suite carries
//! its values. In a run, the [`Grader`] thread grades each promoted net the same way at the
//! gate's depth, into the ledger's `grades` and the snapshots.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use thiserror::Error;
use tigers_core::grade::{self, Grades, PhaseGrades, SuiteEntry, SuiteError};
use tigers_core::network::file::NetFileError;
use tigers_core::search::MAX_DEPTH;
use tigers_core::{Network, SearchSettings};
use tigers_proto::v1;
use tracing::{error, info};

use crate::clock::unix_now;
use crate::live::Shared;
use crate::store::ledger::GradeRow;

/// What `coordinator grade` does.
#[derive(Clone, Debug, PartialEq)]
pub struct GradeSettings {
	/// The suite's file; `None` for the one kept in the repository ([`grade::SUITE`]).
	pub suite: Option<PathBuf>,
	/// The search's depth for the first move grade (a run's gate plays at 3).
	pub depth: u32,
	/// The search's time a move for the second, in milliseconds; 0 leaves it out.
	pub move_ms: u64,
	/// Positions searched at once, each on a thread of its own.
	pub threads: usize,
}

/// Why a net was not graded.
#[derive(Debug, Error)]
pub enum GradeError {
	/// The net's file did not load.
	#[error("cannot load the net {path}: {source}")]
	Net {
		/// The file.
		path: PathBuf,
		/// What was wrong.
		source: NetFileError,
	},
	/// The suite's file could not be read.
	#[error("cannot read the suite {path}: {source}")]
	SuiteFile {
		/// The file.
		path: PathBuf,
		/// What the system said.
		source: std::io::Error,
	},
	/// The suite's text is wrong.
	#[error("the suite {path} does not read: {source}")]
	Suite {
		/// The file, or the repository's copy.
		path: String,
		/// Which line, and why.
		source: SuiteError,
	},
}

/// The suite `settings` names, read and checked.
pub fn load_suite(settings: &GradeSettings) -> Result<(String, Vec<SuiteEntry>), GradeError> {
	let (name, text) = match &settings.suite {
		None => (
			"the repository's suite".to_string(),
			grade::SUITE.to_string(),
		),
		Some(path) => {
			let text = std::fs::read_to_string(path).map_err(|source| GradeError::SuiteFile {
				path: path.clone(),
				source,
			})?;
			(path.display().to_string(), text)
		}
	};
	let entries = grade::read_suite(&text).map_err(|source| GradeError::Suite {
		path: name.clone(),
		source,
	})?;
	Ok((name, entries))
}

/// Grades the net in `path` on `suite` and says how it did, one line a grade.
pub fn grade_net(
	path: &Path,
	suite: &[SuiteEntry],
	settings: &GradeSettings,
) -> Result<String, GradeError> {
	let net = Network::load(path).map_err(|source| GradeError::Net {
		path: path.to_path_buf(),
		source,
	})?;
	let net = Arc::new(net);
	let at_depth = grade_on_threads(
		&net,
		suite,
		SearchSettings::fixed_depth(settings.depth),
		settings.threads,
	);
	let mut out = format!(
		"{} (generation {}): {} positions, {} placement and {} movement\n",
		path.display(),
		net.generation,
		suite.len(),
		at_depth.placement.positions,
		at_depth.movement.positions
	);
	out.push_str("                          placement              movement               whole\n");
	write_row(&mut out, "evaluation's class", &at_depth, |g| g.class_right);
	write_row(
		&mut out,
		&format!("move at depth {}", settings.depth),
		&at_depth,
		|g| g.moves_kept,
	);
	if settings.move_ms > 0 {
		let timed = SearchSettings {
			time_limit: Some(Duration::from_millis(settings.move_ms)),
			..SearchSettings::fixed_depth(MAX_DEPTH)
		};
		let on_clock = grade_on_threads(&net, suite, timed, settings.threads);
		write_row(
			&mut out,
			&format!("move at {} ms", settings.move_ms),
			&on_clock,
			|g| g.moves_kept,
		);
	}
	Ok(out)
}

/// [`grade::grade`] on `threads` threads, the suite split between them.
fn grade_on_threads(
	net: &Arc<Network>,
	suite: &[SuiteEntry],
	settings: SearchSettings,
	threads: usize,
) -> Grades {
	let chunk = suite.len().div_ceil(threads.max(1)).max(1);
	std::thread::scope(|scope| {
		let running: Vec<_> = suite
			.chunks(chunk)
			.map(|part| scope.spawn(move || grade::grade(net, part, settings)))
			.collect();
		running
			.into_iter()
			.map(|thread| thread.join().expect("a grading thread does not panic"))
			.fold(Grades::default(), |total, part| total.plus(part))
	})
}

/// One grade's row: its share in each phase and in all, with 95% Wilson intervals.
fn write_row(out: &mut String, name: &str, grades: &Grades, count: impl Fn(&PhaseGrades) -> u32) {
	let cell = |phase: PhaseGrades| share(count(&phase), phase.positions);
	let _ = writeln!(
		out,
		"{name:<26}{:<23}{:<23}{}",
		cell(grades.placement),
		cell(grades.movement),
		cell(grades.whole())
	);
}

/// `87.2% [84.1, 89.8]`: a share with its 95% Wilson interval; `-` of nothing.
fn share(right: u32, of: u32) -> String {
	if of == 0 {
		return "-".into();
	}
	let (low, high) = tigers_core::stats::wilson_interval(right, of);
	let share = f64::from(right) / f64::from(of);
	format!(
		"{:.1}% [{:.1}, {:.1}]",
		100.0 * share,
		100.0 * low,
		100.0 * high
	)
}

/// Positions graded between looks at the stop flag: a stop waits for at most this many
/// searches at the gate's depth, well under a second.
const CHUNK: usize = 50;

/// How often the idle grader looks for a newly promoted net.
const IDLE_LOOK: Duration = Duration::from_millis(500);

/// The thread that grades each promoted net on the repository's suite at the gate's depth, in
/// the run (`RunSettings::grade`), beside training: a few seconds of one core a net. A net
/// promoted while another is graded is graded next; those superseded meanwhile are skipped.
pub(crate) struct Grader {
	stop: Arc<AtomicBool>,
	handle: JoinHandle<()>,
}

impl Grader {
	/// Starts the thread, unless the run grades nothing or the suite does not read.
	pub(crate) fn start(shared: Arc<Shared>) -> Option<Grader> {
		if !shared.settings.grade {
			return None;
		}
		let suite = match grade::read_suite(grade::SUITE) {
			Ok(suite) if !suite.is_empty() => suite,
			Ok(_) => return None,
			Err(e) => {
				error!(%e, "the repository's grading suite does not read; no net is graded");
				return None;
			}
		};
		let stop = Arc::new(AtomicBool::new(false));
		let stopped = stop.clone();
		let handle = std::thread::Builder::new()
			.name("grades".into())
			.spawn(move || {
				crate::priority::lower_this_thread();
				grade_loop(&shared, &suite, &stopped);
			})
			.expect("the grading thread starts");
		Some(Grader { stop, handle })
	}

	/// Abandons the grading under way (between chunks) and waits for the thread.
	pub(crate) fn stop(self) {
		self.stop.store(true, Ordering::Relaxed);
		let _ = self.handle.join();
	}
}

fn grade_loop(shared: &Shared, suite: &[SuiteEntry], stop: &AtomicBool) {
	let suite_sha256 = tigers_core::network::file::sha256_hex(grade::SUITE.as_bytes());
	let settings = SearchSettings::fixed_depth(shared.settings.gate.search.max_depth);
	while !stop.load(Ordering::Relaxed) {
		let current = shared.current();
		let generation = current.assignment.generation;
		if shared.live().is_graded(generation) {
			std::thread::sleep(IDLE_LOOK);
			continue;
		}
		let mut grades = Grades::default();
		for part in suite.chunks(CHUNK) {
			if stop.load(Ordering::Relaxed) {
				return;
			}
			grades = grades.plus(grade::grade(&current.net, part, settings));
		}
		let cpu_seconds = shared.live().cpu_seconds(std::time::Instant::now());
		let row = GradeRow {
			generation,
			depth: settings.max_depth,
			suite_sha256: suite_sha256.clone(),
			grades,
			graded_at: unix_now(),
			cpu_seconds,
		};
		if let Err(e) = shared.ledger().record_grade(&row) {
			error!(%e, "could not record the net's grades");
		}
		let whole = grades.whole();
		info!(
			generation,
			class_right = whole.class_right,
			moves_kept = whole.moves_kept,
			positions = whole.positions,
			"graded on the suite"
		);
		shared.live().record_grade(grade_summary(&row));
	}
}

/// A ledger row of grades as the snapshots carry it.
pub(crate) fn grade_summary(row: &GradeRow) -> v1::NetGrade {
	let phase = |p: PhaseGrades| v1::PhaseGrade {
		positions: p.positions,
		class_right: p.class_right,
		moves_kept: p.moves_kept,
	};
	v1::NetGrade {
		generation: row.generation,
		depth: row.depth,
		placement: Some(phase(row.grades.placement)),
		movement: Some(phase(row.grades.movement)),
		graded_at: row.graded_at,
		cpu_hours: row.cpu_seconds / 3600.0,
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn a_share_carries_its_wilson_interval() {
		assert_eq!(share(0, 0), "-");
		assert_eq!(share(50, 100), "50.0% [40.4, 59.6]");
		// All right still leaves room below.
		assert_eq!(share(200, 200), "100.0% [98.1, 100.0]");
	}

	#[test]
	fn the_repositorys_suite_reads_and_holds_both_phases() {
		let settings = GradeSettings {
			suite: None,
			depth: 1,
			move_ms: 0,
			threads: 1,
		};
		let (_, suite) = load_suite(&settings).expect("the repository's suite reads");
		let in_hand = suite
			.iter()
			.filter(|e| e.position.board.sheep_in_hand() > 0)
			.count();
		assert_eq!((in_hand, suite.len() - in_hand), (500, 500));
	}

	#[test]
	fn a_bad_suite_file_is_refused_with_its_line() {
		let dir = crate::test_support::TestDir::new("grade-bad-suite");
		let path = dir.path().join("suite.txt");
		std::fs::write(&path, "# a note\nnot a position | win | s1\n").unwrap();
		let settings = GradeSettings {
			suite: Some(path),
			depth: 1,
			move_ms: 0,
			threads: 1,
		};
		let error = load_suite(&settings).unwrap_err().to_string();
		assert!(
			error.contains("suite.txt does not read: line 2:"),
			"{error}"
		);
	}
}
