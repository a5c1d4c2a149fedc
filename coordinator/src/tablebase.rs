//! The coordinator's tablebase: found at start, or solved on a thread of its own while the run
//! goes on (a new machine needs half a minute or so), then used for training targets and the
//! gate's exact accuracy, named in assignments and sent to workers that lack it. Beside it, the
//! solved placement layers, if found at start: they only judge the gates' and measurements'
//! placement-phase moves (self-play and training never see them).
//!
//! Ownership: one `TablebaseHolder` in `Shared`. The solving thread alone writes its status and,
//! once, the table; everyone else reads. A file that is there but not a good table stops the
//! coordinator at start, with the reason: it is never overwritten or half used.
//!
//! Where the tables are looked for, and whether they must be there, is its child `source`'s.

pub(crate) mod source;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use tigers_core::Tablebase;
use tigers_core::tablebase::SolveProgress;
use tigers_core::tablebase::placement::{LayerId, PlacementTable};
use tigers_proto::v1;
use tracing::{error, info};

use self::source::TableSource;
use crate::config::CoordinatorConfig;
use crate::error::CoordinatorError;

/// The largest piece of the file `FetchTablebase` sends: well under the message limit.
pub(crate) const CHUNK_BYTES: usize = 1 << 20;

/// Where the coordinator's tablebase stands.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TablebaseState {
	/// None, and none coming: why.
	Off(String),
	/// Being solved: the share done.
	Building(f64),
	/// Loaded or solved.
	Ready,
	/// The solve or the writing of the file failed: why.
	Failed(String),
}

/// The table, once there is one, and how it is coming along.
#[derive(Debug)]
pub(crate) struct TablebaseHolder {
	path: Option<PathBuf>,
	state: Mutex<TablebaseState>,
	table: OnceLock<Arc<Tablebase>>,
}

impl TablebaseHolder {
	/// A holder without a table and with none to come.
	pub(crate) fn off(reason: impl Into<String>) -> TablebaseHolder {
		TablebaseHolder {
			path: None,
			state: Mutex::new(TablebaseState::Off(reason.into())),
			table: OnceLock::new(),
		}
	}

	/// A holder with `table`, read from `path`.
	pub(crate) fn ready(path: PathBuf, table: Arc<Tablebase>) -> TablebaseHolder {
		let holder = TablebaseHolder {
			path: Some(path),
			state: Mutex::new(TablebaseState::Ready),
			table: OnceLock::new(),
		};
		let _ = holder.table.set(table);
		holder
	}

	/// A holder whose table is still to be solved into `path`.
	pub(crate) fn to_build(path: PathBuf) -> TablebaseHolder {
		TablebaseHolder {
			path: Some(path),
			state: Mutex::new(TablebaseState::Building(0.0)),
			table: OnceLock::new(),
		}
	}

	/// The table, once there is one.
	pub(crate) fn table(&self) -> Option<Arc<Tablebase>> {
		self.table.get().cloned()
	}

	/// Its identity, once there is one.
	pub(crate) fn identity(&self) -> Option<&str> {
		self.table.get().map(|t| t.identity())
	}

	/// Where its file is or will be.
	pub(crate) fn path(&self) -> Option<&Path> {
		self.path.as_deref()
	}

	/// Where it stands.
	pub(crate) fn state(&self) -> TablebaseState {
		self.state
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner)
			.clone()
	}

	fn set_state(&self, state: TablebaseState) {
		*self
			.state
			.lock()
			.unwrap_or_else(std::sync::PoisonError::into_inner) = state;
	}

	/// Where it stands, for progress snapshots.
	pub(crate) fn status(&self) -> v1::TablebaseStatus {
		let path = self
			.path
			.as_ref()
			.map_or(String::new(), |p| p.display().to_string());
		let (state, progress, detail) = match self.state() {
			TablebaseState::Off(why) => ("off", 0.0, why),
			TablebaseState::Building(done) => ("building", done, path),
			TablebaseState::Ready => ("ready", 1.0, path),
			TablebaseState::Failed(why) => ("failed", 0.0, why),
		};
		v1::TablebaseStatus {
			state: state.to_string(),
			progress,
			sha256: self.identity().unwrap_or_default().to_string(),
			detail,
		}
	}

	/// Solves the table into its file on this thread, with `threads` threads, logging progress
	/// every tenth; then calls `ready` with it. Failures are logged and shown; the run goes on
	/// without a table.
	pub(crate) fn build(&self, threads: usize, ready: impl FnOnce(Arc<Tablebase>)) {
		let Some(path) = self.path.clone() else {
			return;
		};
		info!(path = %path.display(), threads, "solving the tablebase (the movement phase)");
		let logged = Mutex::new(0u64);
		let progress = |p: SolveProgress| {
			let share = p.done as f64 / p.total.max(1) as f64;
			self.set_state(TablebaseState::Building(share));
			let tenth = (share * 10.0) as u64;
			let mut last = logged
				.lock()
				.unwrap_or_else(std::sync::PoisonError::into_inner);
			if tenth > *last {
				*last = tenth;
				info!(
					done = format_args!("{}%", tenth * 10),
					"solving the tablebase"
				);
			}
		};
		match Tablebase::load_or_build(&path, threads, &progress) {
			Ok((table, origin)) => {
				let table = Arc::new(table);
				info!(identity = table.identity(), ?origin, path = %path.display(), "tablebase ready");
				let _ = self.table.set(table.clone());
				self.set_state(TablebaseState::Ready);
				ready(table);
			}
			Err(e) => {
				error!(%e, "the tablebase could not be built; training goes on without it");
				self.set_state(TablebaseState::Failed(e.to_string()));
			}
		}
	}
}

/// Finds the coordinator's table as its configuration says: off, read from its file, or to be
/// solved (if the file is not there). A file that is there but not a good table is an error.
pub(crate) fn open(config: &CoordinatorConfig) -> Result<TablebaseHolder, CoordinatorError> {
	let path = match TableSource::movement(config.tablebase.as_deref(), config.no_tablebase) {
		Ok(TableSource::Named(path) | TableSource::Default(path)) => path,
		Ok(TableSource::Off) => return Ok(TablebaseHolder::off("off (--no-tablebase)")),
		Err(e) => return Ok(TablebaseHolder::off(e.to_string())),
	};
	match Tablebase::read_if_present(&path) {
		Ok(Some(table)) => {
			info!(identity = table.identity(), path = %path.display(), "tablebase loaded");
			Ok(TablebaseHolder::ready(path, Arc::new(table)))
		}
		Ok(None) => Ok(TablebaseHolder::to_build(path)),
		Err(e) => Err(CoordinatorError::Config(format!(
			"the tablebase at {} cannot be used: {e}. Delete it to have it solved again, or pass \
			 --tablebase PATH or --no-tablebase",
			path.display()
		))),
	}
}

/// The placement layers that judge placement-phase moves, and what the status says of them.
#[derive(Debug)]
pub(crate) struct PlacementLayers {
	table: Option<Arc<PlacementTable>>,
	status: v1::PlacementLayers,
}

impl PlacementLayers {
	/// No layers: why.
	pub(crate) fn off(reason: impl Into<String>) -> PlacementLayers {
		PlacementLayers {
			table: None,
			status: v1::PlacementLayers {
				state: "off".into(),
				layers: 0,
				layers_total: layers_total(),
				detail: reason.into(),
			},
		}
	}

	/// `table`'s layers, judging.
	pub(crate) fn judging(table: Arc<PlacementTable>) -> PlacementLayers {
		let layers = u32::try_from(table.layers().count()).unwrap_or(u32::MAX);
		PlacementLayers {
			status: v1::PlacementLayers {
				state: "judging".into(),
				layers,
				layers_total: layers_total(),
				detail: table.dir().display().to_string(),
			},
			table: Some(table),
		}
	}

	/// The layers, if any.
	pub(crate) fn table(&self) -> Option<&Arc<PlacementTable>> {
		self.table.as_ref()
	}

	/// What the status shows.
	pub(crate) fn status(&self) -> v1::PlacementLayers {
		self.status.clone()
	}
}

fn layers_total() -> u32 {
	u32::try_from(LayerId::solve_order(0).len()).unwrap_or(u32::MAX)
}

/// Finds the placement layers as the configuration says: none without a tablebase; those in
/// `--placement DIR`, which must hold at least one good layer; else those in `placement-f1-r1`
/// beside the movement table, if that directory is there. A layer file that is there but not
/// good stops the start, as a bad movement table does.
pub(crate) fn open_placement(
	config: &CoordinatorConfig,
) -> Result<PlacementLayers, CoordinatorError> {
	let found = TableSource::run_placement(
		config.placement.as_deref(),
		config.tablebase.as_deref(),
		config.no_tablebase,
	);
	let (dir, explicit) = match found {
		Ok(TableSource::Named(dir)) => (dir, true),
		Ok(TableSource::Default(dir)) => (dir, false),
		Ok(TableSource::Off) => return Ok(PlacementLayers::off("off (--no-tablebase)")),
		Err(e) => return Ok(PlacementLayers::off(e.to_string())),
	};
	if !dir.is_dir() {
		if explicit {
			return Err(CoordinatorError::Config(format!(
				"--placement {}: no such directory",
				dir.display()
			)));
		}
		return Ok(PlacementLayers::off(format!(
			"no placement layers at {} (`tui tablebase build --placement` solves them)",
			dir.display()
		)));
	}
	let table = PlacementTable::open(&dir).map_err(|e| {
		CoordinatorError::Config(format!(
			"the placement layers in {} cannot be used: {e}. Delete the file to have it solved \
			 again, or pass --placement DIR",
			dir.display()
		))
	})?;
	if table.layers().next().is_none() {
		if explicit {
			return Err(CoordinatorError::Config(format!(
				"--placement {}: no placement layer there",
				dir.display()
			)));
		}
		return Ok(PlacementLayers::off(format!(
			"no placement layers in {} yet",
			dir.display()
		)));
	}
	let layers = PlacementLayers::judging(Arc::new(table));
	info!(dir = %dir.display(), layers = layers.status.layers, "placement layers judge the placement-phase moves");
	Ok(layers)
}

/// The pieces of `table`'s file, at most [`CHUNK_BYTES`] each, in order, as `FetchTablebase`
/// sends them.
pub(crate) fn chunks(table: &Tablebase) -> impl Iterator<Item = v1::TablebaseChunk> + '_ {
	let (header, entries) = table.file_parts();
	let total = table.file_len();
	let identity = table.identity().to_string();
	let header = std::iter::once((0u64, header));
	let pieces = entries
		.chunks(CHUNK_BYTES)
		.enumerate()
		.map(move |(i, piece)| ((header_len() + i * CHUNK_BYTES) as u64, piece));
	header
		.chain(pieces)
		.map(move |(offset, data)| v1::TablebaseChunk {
			offset,
			data: data.to_vec(),
			total_bytes: total,
			sha256: identity.clone(),
		})
}

fn header_len() -> usize {
	tigers_core::tablebase::file::HEADER_BYTES
}
