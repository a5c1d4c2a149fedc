//! `tui tablebase build | verify | stats --placement`: the placement phase solved from the
//! movement table, layer by layer, into a directory of layer files.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use thiserror::Error;
use tigers_core::tablebase::Wdl;
use tigers_core::tablebase::placement::{
	self, BuildProgress, LayerId, PlacementError, PlacementTable, PlacementVerifyError,
	VerifyChildren, count_layer_on,
};
use tigers_core::{GameBoard, Tablebase, Turn};
use tigers_widgets::progress_bar;

use crate::tablebase_command::TablebaseCommandError;

/// Why a placement command failed.
#[derive(Debug, Error)]
pub enum PlacementCommandError {
	/// The movement table is missing or bad.
	#[error(transparent)]
	Movement(#[from] TablebaseCommandError),
	/// A layer file could not be read or written.
	#[error(transparent)]
	Files(#[from] PlacementError),
	/// A layer is wrong.
	#[error("the placement layers failed verification: {0}")]
	Verify(#[from] PlacementVerifyError),
	/// No layer to check or count.
	#[error(
		"no placement layers in {0}; `tui tablebase build --placement --from-placed 17` solves the last ones"
	)]
	Empty(String),
}

/// `build --placement`: solves the layers from `from_placed` placed up into `dir`, keeping the
/// layers already there.
pub fn build(
	dir: &Path,
	movement: &Tablebase,
	from_placed: u32,
	threads: usize,
) -> Result<String, PlacementCommandError> {
	let started = Instant::now();
	let bar = progress_bar(1, "placement");
	let report = placement::build(dir, movement, from_placed, threads, &|p: BuildProgress| {
		bar.set_length(p.total.max(1));
		bar.set_position(p.done);
		bar.set_message(format!("solving {}", p.layer.file_name()));
	})?;
	bar.finish_and_clear();
	let mut out = format!(
		"solved {} layer{} in {:.1} s on {threads} thread{}, kept {} already there; in {}\n",
		report.solved.len(),
		plural(report.solved.len()),
		started.elapsed().as_secs_f64(),
		plural(threads),
		report.kept.len(),
		dir.display()
	);
	out.push_str(&stats(dir)?);
	Ok(out)
}

fn plural(n: usize) -> &'static str {
	if n == 1 { "" } else { "s" }
}

/// `verify --placement`: every present layer's values against its moves, from the movement
/// table up; then the manifest, if the solve is whole.
pub fn verify(
	dir: &Path,
	movement: &Tablebase,
	threads: usize,
) -> Result<String, PlacementCommandError> {
	let present: Vec<LayerId> = PlacementTable::open(dir)?.layers().collect();
	if present.is_empty() {
		return Err(PlacementCommandError::Empty(dir.display().to_string()));
	}
	let started = Instant::now();
	let mut out = String::new();
	let mut previous: Option<(LayerId, Vec<u8>)> = None;
	let mut checked = 0u64;
	for id in LayerId::solve_order(0)
		.into_iter()
		.filter(|id| present.contains(id))
	{
		let bytes = placement::read_layer(dir, id, Some(movement))?;
		let child = match id.child() {
			None => None,
			Some(child) if previous.as_ref().is_some_and(|(p, _)| *p == child) => {
				previous.take().map(|(_, bytes)| bytes)
			}
			Some(child) => Some(placement::read_layer(dir, child, Some(movement))?),
		};
		let children = match &child {
			None => VerifyChildren::Movement(movement),
			Some(bytes) => VerifyChildren::Layer(bytes),
		};
		let bar = progress_bar(1, "verifying");
		bar.set_message(format!("verifying {}", id.file_name()));
		let report = placement::verify_layer(id, &bytes, children, threads, &|done, total| {
			bar.set_length(total);
			bar.set_position(done);
		});
		bar.finish_and_clear();
		let report = report?;
		checked += report.entries;
		let _ = writeln!(
			out,
			"{}: {} entries ({} up to symmetry) hold the best value over their moves",
			id.file_name(),
			report.entries,
			report.up_to_symmetry
		);
		previous = Some((id, bytes));
	}
	if present.len() == LayerId::solve_order(0).len() {
		placement::check_manifest(dir, movement)?;
		out.push_str("the manifest matches every layer file\n");
	}
	let _ = writeln!(
		out,
		"verified {} layer{}, {checked} entries, in {:.1} s",
		present.len(),
		plural(present.len()),
		started.elapsed().as_secs_f64()
	);
	Ok(out)
}

/// `stats --placement`: wins, draws and losses per layer up to symmetry, and the start's value.
pub fn stats(dir: &Path) -> Result<String, PlacementCommandError> {
	let table = PlacementTable::open(dir)?;
	let present: Vec<LayerId> = table.layers().collect();
	if present.is_empty() {
		return Err(PlacementCommandError::Empty(dir.display().to_string()));
	}
	let mut out = format!("placement layers: {}\n", dir.display());
	out.push_str("values for the side to move, positions counted up to symmetry:\n");
	out.push_str("placed  to move            wins           draws          losses\n");
	let mut total = Wdl::default();
	let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
	for &id in &present {
		let bytes = placement::read_layer(dir, id, None)?;
		let count = count_layer_on(id, &bytes, threads).total();
		let _ = writeln!(
			out,
			"{:>6}  {:<7} {:>15} {:>15} {:>15}",
			id.placed,
			if id.turn == Turn::Sheep {
				"sheep"
			} else {
				"tigers"
			},
			count.wins,
			count.draws,
			count.losses
		);
		total.wins += count.wins;
		total.draws += count.draws;
		total.losses += count.losses;
	}
	let _ = writeln!(
		out,
		"positions up to symmetry: {} in {} layer{}",
		total.total(),
		present.len(),
		plural(present.len())
	);
	let start = table.probe(GameBoard::default(), Turn::Sheep)?;
	let _ = writeln!(
		out,
		"start position: {}",
		match start {
			Some(placement::Verdict::Win) => "sheep win",
			Some(placement::Verdict::Draw) => "draw",
			Some(placement::Verdict::Loss) => "tigers win",
			None => "not solved yet (its layer, placed 0 with the sheep to move, is missing)",
		}
	);
	Ok(out)
}
