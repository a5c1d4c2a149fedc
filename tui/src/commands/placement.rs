//! `tui tablebase build | verify | stats --placement`: the placement phase solved from the
//! movement table, layer by layer, into a directory of layer files.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use sha2::{Digest as _, Sha256};
use thiserror::Error;
use tigers_core::network::file::hex;
use tigers_core::tablebase::Wdl;
use tigers_core::tablebase::placement::{
	self, BuildProgress, LayerId, PlacementError, PlacementTable, PlacementVerifyError,
	VerifyChildren, count_layer_on,
};
use tigers_core::{GameBoard, Tablebase, Turn};
use tigers_widgets::progress_bar;

use crate::commands::tablebase::TablebaseCommandError;

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
	if !report.converted.is_empty() {
		let _ = writeln!(
			out,
			"rewrote {} kept layer{} from format 1 (the entries as they are) in blocks deflated apart",
			report.converted.len(),
			plural(report.converted.len())
		);
	}
	out.push_str(&stats(dir)?);
	Ok(out)
}

fn plural(n: usize) -> &'static str {
	if n == 1 { "" } else { "s" }
}

/// `verify --placement`: every present layer's values against its moves, from the movement
/// table up; then the manifest, if the solve is whole. A layer checked before, by a verify that
/// finished it, is taken on the record in `verified.txt` while its file and its child's are
/// the same (`again` checks every layer anew), so a verify that was stopped goes on where it was.
pub fn verify(
	dir: &Path,
	movement: &Tablebase,
	threads: usize,
	again: bool,
) -> Result<String, PlacementCommandError> {
	let present: Vec<LayerId> = PlacementTable::open(dir)?.layers().collect();
	if present.is_empty() {
		return Err(PlacementCommandError::Empty(dir.display().to_string()));
	}
	let started = Instant::now();
	let mut record = if again {
		VerifiedRecord::default()
	} else {
		VerifiedRecord::read(dir)
	};
	let mut out = String::new();
	let mut previous: Option<Layer> = None;
	let (mut checked, mut on_record) = (0u64, 0usize);
	for id in LayerId::solve_order(0)
		.into_iter()
		.filter(|id| present.contains(id))
	{
		let layer = Layer::read(dir, id, movement)?;
		let child = child_of(dir, id, movement, &mut previous)?;
		let (line, entries) =
			check_or_keep(dir, &layer, child.as_ref(), movement, threads, &mut record)?;
		out.push_str(&line);
		match entries {
			Some(entries) => checked += entries,
			None => on_record += 1,
		}
		previous = Some(layer);
	}
	if present.len() == LayerId::solve_order(0).len() {
		placement::check_manifest(dir, movement)?;
		out.push_str("the manifest matches every layer file\n");
	}
	let _ = writeln!(
		out,
		"verified {} layer{} ({} now, {checked} entries, in {:.1} s; {on_record} on the record)",
		present.len(),
		plural(present.len()),
		present.len() - on_record,
		started.elapsed().as_secs_f64()
	);
	Ok(out)
}

/// Checks `layer` against `child` and adds it to the record, or takes it on the record if the
/// record holds its file and its child's as they are; the line to print, and the entries
/// checked (`None` when taken on the record).
fn check_or_keep(
	dir: &Path,
	layer: &Layer,
	child: Option<&Layer>,
	movement: &Tablebase,
	threads: usize,
	record: &mut VerifiedRecord,
) -> Result<(String, Option<u64>), PlacementCommandError> {
	let name = layer.id.file_name();
	let child_digest = child.map_or_else(|| movement.identity().to_string(), |c| c.digest.clone());
	if record.holds(layer, &child_digest) {
		let line = format!(
			"{name}: verified before, kept on the record ({VERIFIED}; --again checks it anew)\n"
		);
		return Ok((line, None));
	}
	let report = verify_one(layer, child, movement, threads)?;
	record.add(layer, child_digest);
	record.write(dir)?;
	let line = format!(
		"{name}: {} entries ({} up to symmetry) hold the best value over their moves\n",
		report.entries, report.up_to_symmetry
	);
	Ok((line, Some(report.entries)))
}

/// Layer `id`'s child layer: the one read just before (`previous`) if it is that, else read now;
/// `None` where its moves lead to the movement table.
fn child_of(
	dir: &Path,
	id: LayerId,
	movement: &Tablebase,
	previous: &mut Option<Layer>,
) -> Result<Option<Layer>, PlacementError> {
	match id.child() {
		None => Ok(None),
		Some(child) if previous.as_ref().is_some_and(|p| p.id == child) => Ok(previous.take()),
		Some(child) => Layer::read(dir, child, movement).map(Some),
	}
}

/// One layer's values checked against its child's, with a progress bar.
fn verify_one(
	layer: &Layer,
	child: Option<&Layer>,
	movement: &Tablebase,
	threads: usize,
) -> Result<placement::VerifyLayerReport, PlacementCommandError> {
	let children = match child {
		None => VerifyChildren::Movement(movement),
		Some(child) => VerifyChildren::Layer(&child.entries),
	};
	let bar = progress_bar(1, "verifying");
	bar.set_message(format!("verifying {}", layer.id.file_name()));
	let report = placement::verify_layer(
		layer.id,
		&layer.entries,
		children,
		threads,
		&|done, total| {
			bar.set_length(total);
			bar.set_position(done);
		},
	);
	bar.finish_and_clear();
	Ok(report?)
}

/// A layer read for `verify`: its entries, and its file's sha256.
struct Layer {
	id: LayerId,
	entries: Vec<u8>,
	digest: String,
}

impl Layer {
	fn read(dir: &Path, id: LayerId, movement: &Tablebase) -> Result<Layer, PlacementError> {
		let path = dir.join(id.file_name());
		let file = std::fs::read(&path).map_err(|source| PlacementError::Io {
			path: path.display().to_string(),
			source,
		})?;
		let digest = hex(&Sha256::digest(&file));
		let entries = placement::layer_entries(&path, id, &file, Some(movement))?;
		Ok(Layer {
			id,
			entries,
			digest,
		})
	}
}

/// The record of layers a verify finished, in the layers' directory.
const VERIFIED: &str = "verified.txt";

/// Layers verified before: each layer file's sha256 with the sha256 of the file it was checked
/// against (its child layer's, or the movement table's identity).
#[derive(Default)]
struct VerifiedRecord {
	layers: std::collections::BTreeMap<String, (String, String)>,
}

impl VerifiedRecord {
	/// The record in `dir`; empty if there is none or it cannot be read.
	fn read(dir: &Path) -> VerifiedRecord {
		let text = std::fs::read_to_string(dir.join(VERIFIED)).unwrap_or_default();
		let layers = text
			.lines()
			.filter_map(|line| {
				let mut words = line.split(' ');
				match (words.next(), words.next(), words.next(), words.next()) {
					(Some(name), Some(file), Some(child), None) => {
						Some((name.to_string(), (file.to_string(), child.to_string())))
					}
					_ => None,
				}
			})
			.collect();
		VerifiedRecord { layers }
	}

	fn holds(&self, layer: &Layer, child: &str) -> bool {
		self.layers.get(&layer.id.file_name()) == Some(&(layer.digest.clone(), child.to_string()))
	}

	fn add(&mut self, layer: &Layer, child: String) {
		self.layers
			.insert(layer.id.file_name(), (layer.digest.clone(), child));
	}

	/// Writes the record whole: to a `.tmp` file, then renamed.
	fn write(&self, dir: &Path) -> Result<(), PlacementError> {
		let mut text = String::new();
		for (name, (file, child)) in &self.layers {
			let _ = writeln!(text, "{name} {file} {child}");
		}
		let path = dir.join(VERIFIED);
		let tmp = path.with_extension("tmp");
		std::fs::write(&tmp, text)
			.and_then(|()| std::fs::rename(&tmp, &path))
			.map_err(|source| PlacementError::Io {
				path: path.display().to_string(),
				source,
			})
	}
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
