//! `worker solve`: slices of the placement phase computed for a coordinator that solves
//! (`coordinator solve`; docs/tablebase.md, "On the cluster"). Each of the worker's threads
//! asks for a slice, gets the file it is computed from (the movement table, read from disk or
//! fetched, or the child layer, fetched into memory and checked against its sha256), computes
//! it with core's `solve_one_slice` on a blocking thread, and returns its bytes.
//!
//! Ownership: the threads' loops share one [`Children`] cache (behind an async mutex, so that
//! one fetch serves them all) and the report's counts.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use thiserror::Error;
use tigers_core::Tablebase;
use tigers_core::moves::Turn;
use tigers_core::network::file::hex;
use tigers_core::tablebase::placement::blocks::max_encoded_bytes;
use tigers_core::tablebase::placement::store::{HEADER_BYTES, layer_entries};
use tigers_core::tablebase::placement::{Children, LayerId, LayerShape, Slice, solve_one_slice};
use tigers_proto::client::call_failure;
use tigers_proto::services::{Service, unserved};
use tigers_proto::v1;
use tonic::Code;

use crate::client::{Connector, SolvingClient};
use crate::config::WorkerConfig;
use crate::tablebase::{FetchError, TableFrom, fetch};

/// What `worker solve` is told.
#[derive(Clone, Debug)]
pub struct SolveSettings {
	/// The coordinator, token, certificate, name and threads.
	pub config: WorkerConfig,
	/// Where the movement table is kept, or fetched to when missing.
	pub tablebase: PathBuf,
	/// For tests only (`TIGERS_TEST_SOLVE_LIE`): return every slice with one value changed in
	/// each class, as a faulty or dishonest machine would.
	pub lie: bool,
	/// For tests only (`TIGERS_TEST_SOLVE_HOLD`): take one slice and never return it, as a
	/// machine that hangs would.
	pub hold: bool,
}

/// Why `worker solve` stopped before the solve was done.
#[derive(Debug, Error)]
pub enum SolveError {
	/// The coordinator refused this worker for good (a wrong token, a flag, an older worker).
	#[error("the coordinator refused: {0}")]
	Refused(String),
	/// The server at the URL serves no solve (it answered UNIMPLEMENTED): the sentence says
	/// what it is.
	#[error(
		"{0}: `worker solve` works for a coordinator that solves, and `worker` for one that trains"
	)]
	WrongServer(String),
	/// A task that does not describe a slice of a layer.
	#[error("the coordinator sent a task that is no slice: {0}")]
	BadTask(String),
	/// A file received is not the one announced.
	#[error(transparent)]
	Fetch(#[from] FetchError),
	/// The settings do not make a client.
	#[error(transparent)]
	Client(#[from] tigers_proto::client::ClientError),
}

/// What a worker did in a solve.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolveReport {
	/// Slices the coordinator took.
	pub slices: u64,
	/// Their positions.
	pub positions: u64,
	/// Each file fetched (a layer's name or `movement`) with its bytes.
	pub fetched: Vec<(String, u64)>,
}

/// The file the current slices are computed from.
enum ChildFile {
	Movement(Arc<Tablebase>),
	/// A layer's entries, inflated from its file.
	Layer(Vec<u8>),
}

impl ChildFile {
	fn children(&self) -> Children<'_> {
		match self {
			ChildFile::Movement(table) => Children::Movement(table),
			ChildFile::Layer(entries) => Children::Layer(entries),
		}
	}
}

/// State the loops share.
struct Shared {
	settings: SolveSettings,
	connector: Connector,
	child: tokio::sync::Mutex<Option<(String, Arc<ChildFile>)>>,
	slices: AtomicU64,
	positions: AtomicU64,
	fetched: Mutex<Vec<(String, u64)>>,
	stop: AtomicBool,
}

/// Works for the coordinator `settings` names until it says the solve is over, `shutdown`
/// resolves, or it refuses this worker.
pub async fn solve(
	settings: SolveSettings,
	shutdown: impl Future<Output = ()>,
) -> Result<SolveReport, SolveError> {
	let connector = crate::client::connector(&settings.config)
		.map_err(|e| SolveError::Refused(e.to_string()))?;
	let threads = settings.config.threads.max(1);
	let shared = Arc::new(Shared {
		settings,
		connector,
		child: tokio::sync::Mutex::new(None),
		slices: AtomicU64::new(0),
		positions: AtomicU64::new(0),
		fetched: Mutex::new(Vec::new()),
		stop: AtomicBool::new(false),
	});
	let mut loops = tokio::task::JoinSet::new();
	for _ in 0..threads {
		loops.spawn(work(shared.clone()));
	}
	let mut result = Ok(());
	tokio::select! {
		() = shutdown => tracing::info!("stopping"),
		() = async {
			// A loop ends when the coordinator says the solve is over (then the others need
			// not hear it too), or with an error that stops the worker.
			if let Some(done) = loops.join_next().await {
				match done {
					Ok(Ok(())) => {}
					Ok(Err(error)) => {
						result = Err(error);
					}
					Err(error) => {
						result = Err(SolveError::Refused(format!("a loop failed: {error}")));
					}
				}
			}
		} => {}
	}
	shared.stop.store(true, Ordering::Relaxed);
	loops.abort_all();
	result?;
	let fetched = shared
		.fetched
		.lock()
		.unwrap_or_else(std::sync::PoisonError::into_inner)
		.clone();
	Ok(SolveReport {
		slices: shared.slices.load(Ordering::Relaxed),
		positions: shared.positions.load(Ordering::Relaxed),
		fetched,
	})
}

/// How long to wait after a call that failed for want of a connection.
const RECONNECT: Duration = Duration::from_secs(1);

/// One thread's loop: ask, compute, return, until there is no more work.
async fn work(shared: Arc<Shared>) -> Result<(), SolveError> {
	let mut client: Option<SolvingClient> = None;
	while !shared.stop.load(Ordering::Relaxed) {
		let Some(connected) = connect(&shared, &mut client).await else {
			tokio::time::sleep(RECONNECT).await;
			continue;
		};
		let task = match ask(&shared, connected).await? {
			Asked::Task(task) => task,
			Asked::Finished => {
				tracing::info!("the solve is over");
				return Ok(());
			}
			Asked::Wait(wait) => {
				tokio::time::sleep(wait).await;
				continue;
			}
			Asked::Lost => {
				client = None;
				tokio::time::sleep(RECONNECT).await;
				continue;
			}
		};
		let leased = Leased::of(&task)?;
		let child = match child_for(&shared, leased.id, &task.child_sha256).await {
			Ok(child) => child,
			Err(error) => {
				// The lease runs out and the slice goes elsewhere; this loop tries again.
				tracing::warn!(%error, "cannot get the file the slice needs");
				tokio::time::sleep(RECONNECT).await;
				continue;
			}
		};
		if shared.settings.hold {
			tracing::warn!(
				lease = leased.lease,
				"holding a slice and never returning it (test)"
			);
			std::future::pending::<()>().await;
		}
		let started = Instant::now();
		let values = compute(&shared, leased, child).await?;
		let connected = client.as_mut().expect("connected above");
		if !submit(&shared, connected, leased, values, started).await? {
			client = None;
		}
	}
	Ok(())
}

/// What the coordinator answered when asked for work.
enum Asked {
	/// A slice to compute.
	Task(v1::SliceTask),
	/// No slice free now: ask again after this long.
	Wait(Duration),
	/// The solve is over.
	Finished,
	/// The call failed in a way that asking again may mend; the connection is dropped.
	Lost,
}

/// Asks the coordinator for a slice; an error for a refusal that asking again will not change.
async fn ask(shared: &Shared, client: &mut SolvingClient) -> Result<Asked, SolveError> {
	let request = v1::SolveWorkRequest {
		worker: shared.settings.config.name.clone(),
	};
	let answer = match client.solve_work(request).await {
		Ok(answer) => answer.into_inner(),
		Err(status) => {
			refused(shared.connector.url(), &status)?;
			tracing::warn!(error = %call_failure(&status), "asking for work failed");
			return Ok(Asked::Lost);
		}
	};
	if answer.finished {
		return Ok(Asked::Finished);
	}
	Ok(match answer.task {
		Some(task) => Asked::Task(task),
		None => {
			let wait = answer.retry_ms.clamp(100, 60_000);
			Asked::Wait(Duration::from_millis(u64::from(wait)))
		}
	})
}

/// A slice this loop holds the lease of.
#[derive(Clone, Copy)]
struct Leased {
	lease: u64,
	id: LayerId,
	slice: Slice,
}

impl Leased {
	/// The lease and slice a task names, if it names a slice of a layer.
	fn of(task: &v1::SliceTask) -> Result<Leased, SolveError> {
		let (id, slice) = task_slice(task)?;
		Ok(Leased {
			lease: task.lease,
			id,
			slice,
		})
	}
}

/// The slice's values, computed on a blocking thread from `child` (and falsified when the
/// settings say to lie).
async fn compute(
	shared: &Shared,
	leased: Leased,
	child: Arc<ChildFile>,
) -> Result<Vec<u8>, SolveError> {
	let Leased { id, slice, .. } = leased;
	let mut values =
		tokio::task::spawn_blocking(move || solve_one_slice(id, child.children(), slice))
			.await
			.map_err(|e| SolveError::Refused(format!("the slice's computation failed: {e}")))?;
	if shared.settings.lie {
		lie(&mut values, slice);
	}
	Ok(values)
}

/// Returns the slice's values, counting it when the coordinator accepts them. `Ok(false)` when
/// the coordinator was unavailable and the connection should be made afresh.
async fn submit(
	shared: &Shared,
	client: &mut SolvingClient,
	leased: Leased,
	values: Vec<u8>,
	started: Instant,
) -> Result<bool, SolveError> {
	let submit = v1::SubmitSliceRequest {
		worker: shared.settings.config.name.clone(),
		lease: leased.lease,
		values,
	};
	match client.submit_slice(submit).await {
		Ok(answer) => {
			let entries = leased.slice.entries(leased.id);
			if answer.into_inner().accepted {
				shared.slices.fetch_add(1, Ordering::Relaxed);
				shared.positions.fetch_add(entries, Ordering::Relaxed);
			}
			tracing::debug!(
				lease = leased.lease,
				entries,
				seconds = started.elapsed().as_secs_f64(),
				"slice returned"
			);
			Ok(true)
		}
		Err(status) => {
			refused(shared.connector.url(), &status)?;
			tracing::warn!(error = %call_failure(&status), "returning a slice failed");
			Ok(status.code() != Code::Unavailable)
		}
	}
}

/// The connected client, connecting first if needed; `None` when the coordinator is not
/// reachable now.
async fn connect<'a>(
	shared: &Shared,
	client: &'a mut Option<SolvingClient>,
) -> Option<&'a mut SolvingClient> {
	if client.is_none() {
		match shared.connector.connect_solving().await {
			Ok(connected) => *client = Some(connected),
			Err(error) => {
				tracing::warn!(%error, url = shared.connector.url(), "cannot reach the coordinator");
				return None;
			}
		}
	}
	client.as_mut()
}

/// An error for the refusals that asking again will not change, and for a server at `url`
/// that serves no solve.
fn refused(url: &str, status: &tonic::Status) -> Result<(), SolveError> {
	if let Some(sentence) = unserved(url, Service::Solve, status) {
		return Err(SolveError::WrongServer(sentence));
	}
	match status.code() {
		Code::Unauthenticated
		| Code::PermissionDenied
		| Code::FailedPrecondition
		| Code::InvalidArgument => Err(SolveError::Refused(call_failure(status))),
		_ => Ok(()),
	}
}

/// The layer and slice a task names, if they are one.
fn task_slice(task: &v1::SliceTask) -> Result<(LayerId, Slice), SolveError> {
	let turn = if task.tigers_to_move {
		Turn::Tiger
	} else {
		Turn::Sheep
	};
	let id = LayerId::new(task.placed, turn)
		.ok_or_else(|| SolveError::BadTask(format!("{} placed", task.placed)))?;
	let slice = Slice {
		dead: task.dead,
		first_class: task.first_class as usize,
		end_class: task.end_class as usize,
	};
	if !slice.is_in(id) {
		return Err(SolveError::BadTask(format!(
			"{slice:?} in {}",
			id.file_name()
		)));
	}
	let range = slice.bytes(&LayerShape::of(id));
	if range.end - range.start != task.bytes {
		return Err(SolveError::BadTask(format!(
			"{} bytes announced for a slice of {}",
			task.bytes,
			range.end - range.start
		)));
	}
	Ok((id, slice))
}

/// One value changed in every class of the slice (tests only): the first entry of each
/// class's block, flipped between draw and win (or loss and padding).
fn lie(values: &mut [u8], slice: Slice) {
	let block = values.len() / (slice.end_class - slice.first_class);
	for start in (0..values.len()).step_by(block.max(1)) {
		values[start] ^= 1;
	}
}

/// The file layer `id`'s slices are computed from, as the task names it: held, or got now.
async fn child_for(
	shared: &Shared,
	id: LayerId,
	sha256: &str,
) -> Result<Arc<ChildFile>, FetchError> {
	let mut held = shared.child.lock().await;
	if let Some((have, child)) = held.as_ref()
		&& have == sha256
	{
		return Ok(child.clone());
	}
	// The old file goes first: two of the largest layers need not fit at once.
	*held = None;
	let started = Instant::now();
	let (child, name, bytes) = match id.child() {
		None => {
			let table = movement(shared, sha256).await?;
			let bytes = table.file_len();
			(ChildFile::Movement(table), "movement".to_string(), bytes)
		}
		Some(child) => {
			let file = fetch_layer(&shared.connector, child, sha256).await?;
			let bytes = file.len() as u64;
			(
				ChildFile::Layer(inflate(file, child).await?),
				child.file_name(),
				bytes,
			)
		}
	};
	tracing::info!(file = %name, bytes, seconds = format!("{:.1}", started.elapsed().as_secs_f64()), "got the file the slices need");
	shared
		.fetched
		.lock()
		.unwrap_or_else(std::sync::PoisonError::into_inner)
		.push((name, bytes));
	let child = Arc::new(child);
	*held = Some((sha256.to_string(), child.clone()));
	Ok(child)
}

/// The movement table `identity`: from its file, or fetched into it first.
async fn movement(shared: &Shared, identity: &str) -> Result<Arc<Tablebase>, FetchError> {
	let path = shared.settings.tablebase.clone();
	let at = path.clone();
	let found = tokio::task::spawn_blocking(move || Tablebase::read_if_present(&at))
		.await
		.map_err(|e| FetchError::Internal(e.to_string()))?;
	if let Ok(Some(table)) = found
		&& table.identity() == identity
	{
		return Ok(Arc::new(table));
	}
	if let Some(dir) = path.parent() {
		std::fs::create_dir_all(dir).map_err(|source| FetchError::Io {
			path: dir.display().to_string(),
			source,
		})?;
	}
	fetch(&shared.connector, TableFrom::Solving, identity, &path).await?;
	let table = tokio::task::spawn_blocking(move || Tablebase::read(&path))
		.await
		.map_err(|e| FetchError::Internal(e.to_string()))??;
	Ok(Arc::new(table))
}

/// Layer `id`'s entries from its file, the header and their digest checked, off the async
/// threads.
async fn inflate(file: Vec<u8>, id: LayerId) -> Result<Vec<u8>, FetchError> {
	tokio::task::spawn_blocking(move || {
		layer_entries(Path::new(&id.file_name()), id, &file, None)
			.map_err(|e| FetchError::Mismatch(e.to_string()))
	})
	.await
	.map_err(|e| FetchError::Internal(e.to_string()))?
}

/// Layer `id`'s file, fetched with `FetchLayer` into memory and checked: its sha256 must be
/// `sha256`, and its length the one its first piece announces, which must be no more than a
/// file of the layer can hold.
async fn fetch_layer(
	connector: &Connector,
	id: LayerId,
	sha256: &str,
) -> Result<Vec<u8>, FetchError> {
	let most = HEADER_BYTES as u64 + max_encoded_bytes(LayerShape::of(id).bytes());
	let mut expected = None;
	let mut client = connector
		.connect_solving()
		.await
		.map_err(FetchError::Connect)?;
	let request = v1::FetchLayerRequest {
		placed: id.placed,
		tigers_to_move: id.turn == Turn::Tiger,
		sha256: sha256.to_string(),
	};
	let mut stream = client
		.fetch_layer(request)
		.await
		.map_err(FetchError::Rpc)?
		.into_inner();
	let mut file = Vec::new();
	while let Some(chunk) = stream.message().await.map_err(FetchError::Rpc)? {
		let expected = *expected.get_or_insert(chunk.total_bytes);
		if chunk.sha256 != sha256 || chunk.total_bytes != expected || expected > most {
			return Err(FetchError::Mismatch(format!(
				"a piece of {} names file {:.16}… of {} bytes",
				id.file_name(),
				chunk.sha256,
				chunk.total_bytes
			)));
		}
		if chunk.offset != file.len() as u64
			|| file.len() as u64 + chunk.data.len() as u64 > expected
		{
			return Err(FetchError::Mismatch(format!(
				"a piece of {} starts at byte {} where byte {} was due, or runs past the end",
				id.file_name(),
				chunk.offset,
				file.len()
			)));
		}
		file.extend_from_slice(&chunk.data);
	}
	let expected = expected.unwrap_or(0);
	if file.len() as u64 != expected || expected == 0 {
		return Err(FetchError::Mismatch(format!(
			"{} ended after {} of {expected} bytes",
			id.file_name(),
			file.len()
		)));
	}
	check_sha256(file, id, sha256).await
}

/// `file`, if it hashes to `sha256`; layer `id` names it in the error.
async fn check_sha256(file: Vec<u8>, id: LayerId, sha256: &str) -> Result<Vec<u8>, FetchError> {
	// Hashing hundreds of megabytes is CPU work: off the async threads.
	let (file, actual) = tokio::task::spawn_blocking(move || {
		let actual = hex(&Sha256::digest(&file));
		(file, actual)
	})
	.await
	.map_err(|e| FetchError::Internal(e.to_string()))?;
	if actual != sha256 {
		return Err(FetchError::Mismatch(format!(
			"{} hashes to {actual}, not {sha256}",
			id.file_name()
		)));
	}
	Ok(file)
}

#[cfg(test)]
mod tests {
	use super::*;

	fn task(placed: u32, dead: u32, first: u32, end: u32, bytes: u64) -> v1::SliceTask {
		v1::SliceTask {
			placed,
			dead,
			first_class: first,
			end_class: end,
			bytes,
			..v1::SliceTask::default()
		}
	}

	#[test]
	fn a_task_must_be_a_slice_of_a_layer() {
		let id = LayerId::new(19, Turn::Sheep).expect("a layer");
		let slice = Slice::all(id)[3];
		let range = slice.bytes(&LayerShape::of(id));
		let good = task(
			19,
			slice.dead,
			slice.first_class as u32,
			slice.end_class as u32,
			range.end - range.start,
		);
		assert_eq!(task_slice(&good).expect("a slice"), (id, slice));
		for bad in [
			task(20, 0, 0, 64, good.bytes),
			task(19, 5, 0, 64, good.bytes),
			task(19, 0, 64, 64, 0),
			task(19, 0, 1600, 1700, good.bytes),
			v1::SliceTask {
				bytes: good.bytes + 1,
				..good.clone()
			},
		] {
			assert!(task_slice(&bad).is_err(), "{bad:?}");
		}
	}

	#[test]
	fn a_lie_changes_one_value_in_every_class() {
		let slice = Slice {
			dead: 0,
			first_class: 0,
			end_class: 4,
		};
		let mut values = vec![0u8; 40];
		lie(&mut values, slice);
		let changed: Vec<usize> = (0..40).filter(|&i| values[i] != 0).collect();
		assert_eq!(changed, vec![0, 10, 20, 30]);
	}
}
