//! Finding the net to play: a safetensors file, the best net of a run directory by its rating
//! ladder (its newest before one is named), or the best or latest promoted net of a
//! coordinator, fetched over gRPC with `FetchNet`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;
use tigers_core::Network;
use tigers_core::network::file::NetFileError;
use tigers_proto::client::{CONNECT_TIMEOUT, ClientSettings, Connector, check_net, error_chain};
use tigers_proto::services::{Service, unserved};
use tigers_proto::v1::FetchNetRequest;

/// The coordinator's default run directory.
pub const DEFAULT_RUN_DIR: &str = "runs/default";
/// The coordinator's default address, as seen from the same machine.
pub const DEFAULT_COORDINATOR: &str = "http://127.0.0.1:50051";
/// How long the whole fetch may take once connected (the file is a few tens of kilobytes).
const FETCH_TIMEOUT: Duration = Duration::from_secs(20);

/// Where a net comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetSource {
	/// A safetensors file.
	File(PathBuf),
	/// A coordinator's URL (`http://` or `https://`): its best net by the rating ladder, or
	/// its latest promoted net when the URL ends in [`LATEST_SUFFIX`].
	Coordinator(String),
}

impl NetSource {
	/// A URL if the text starts with `http://` or `https://`, otherwise a file path.
	pub fn parse(text: &str) -> NetSource {
		if text.starts_with("http://") || text.starts_with("https://") {
			NetSource::Coordinator(text.to_string())
		} else {
			NetSource::File(PathBuf::from(text))
		}
	}
}

/// A net and a few words on where it came from, for the screen.
#[derive(Clone, Debug)]
pub struct LoadedNet {
	/// The net.
	pub net: Arc<Network>,
	/// Where it came from, e.g. `runs/default/nets/gen-000012.safetensors`.
	pub origin: String,
}

/// Why no net was loaded.
#[derive(Debug, Error)]
pub enum NetSourceError {
	/// A net file did not load.
	#[error("cannot load the net {path}: {source}")]
	File {
		/// The file.
		path: PathBuf,
		/// What was wrong with it.
		source: NetFileError,
	},
	/// A run directory's `nets/` could not be listed.
	#[error("cannot list the nets in {path}: {source}")]
	RunDir {
		/// The `nets` directory.
		path: PathBuf,
		/// What the system said.
		source: std::io::Error,
	},
	/// A run directory without nets.
	#[error("{0} holds no nets yet")]
	NoNets(PathBuf),
	/// The URL or the TLS settings are unusable.
	#[error("cannot use the coordinator {url}: {reason}")]
	Url {
		/// The URL.
		url: String,
		/// What is wrong.
		reason: String,
	},
	/// No connection.
	#[error("no coordinator answers at {url}: {reason}")]
	Unreachable {
		/// The URL.
		url: String,
		/// What the transport said.
		reason: String,
	},
	/// The coordinator refused the call.
	#[error("the coordinator at {url} refused to send its net: {status}")]
	Refused {
		/// The URL.
		url: String,
		/// Its status message (a missing token shows as `Unauthenticated`).
		status: String,
	},
	/// The server serves no nets (`tigers.v1.Coordinator`): the sentence says what it is.
	#[error("{0}: it has no nets to send")]
	Unserved(String),
	/// The bytes received are not a net, or not the one announced.
	#[error("the net from {url} is unusable: {reason}")]
	BadNet {
		/// The URL.
		url: String,
		/// What was wrong.
		reason: String,
	},
}

/// A coordinator URL ending in this asks for its latest promoted net rather than its best.
pub const LATEST_SUFFIX: &str = "#latest";

/// The file in a run directory's `nets/` that names its best net by the rating ladder (one
/// line: the net's file name), as the coordinator writes it.
pub const BEST_POINTER: &str = "best";

/// Loads the net from `source`.
pub fn load(source: &NetSource, client: &ClientSettings) -> Result<LoadedNet, NetSourceError> {
	match source {
		NetSource::File(path) => load_file(path),
		NetSource::Coordinator(url) => match url.strip_suffix(LATEST_SUFFIX) {
			Some(url) => fetch_latest(url, client),
			None => fetch_best(url, client),
		},
	}
}

/// Loads a safetensors net file.
pub fn load_file(path: &Path) -> Result<LoadedNet, NetSourceError> {
	let net = Network::load(path).map_err(|source| NetSourceError::File {
		path: path.to_path_buf(),
		source,
	})?;
	Ok(LoadedNet {
		net: Arc::new(net),
		origin: path.display().to_string(),
	})
}

/// The newest net in a run directory: the highest-numbered `nets/gen-NNNNNN.safetensors`.
pub fn latest_in_run_dir(run_dir: &Path) -> Result<PathBuf, NetSourceError> {
	let nets = run_dir.join("nets");
	let entries = std::fs::read_dir(&nets).map_err(|source| NetSourceError::RunDir {
		path: nets.clone(),
		source,
	})?;
	let newest = entries
		.filter_map(Result::ok)
		.filter_map(|entry| {
			let name = entry.file_name().into_string().ok()?;
			let digits = name.strip_prefix("gen-")?.strip_suffix(".safetensors")?;
			let generation: u64 = digits.parse().ok()?;
			Some((generation, entry.path()))
		})
		.max_by_key(|(generation, _)| *generation);
	newest
		.map(|(_, path)| path)
		.ok_or(NetSourceError::NoNets(nets))
}

/// The best net of a run directory by its rating ladder: the file `nets/best` names, if it
/// names a net file that is there; else the newest ([`latest_in_run_dir`]).
pub fn best_in_run_dir(run_dir: &Path) -> Result<PathBuf, NetSourceError> {
	let nets = run_dir.join("nets");
	let named = std::fs::read_to_string(nets.join(BEST_POINTER))
		.ok()
		.and_then(|text| {
			let name = text.trim();
			// Only a net file's name: the pointer never leads outside `nets/`.
			let digits = name.strip_prefix("gen-")?.strip_suffix(".safetensors")?;
			digits
				.bytes()
				.all(|b| b.is_ascii_digit())
				.then(|| nets.join(name))
		});
	match named {
		Some(path) if path.is_file() => Ok(path),
		_ => latest_in_run_dir(run_dir),
	}
}

/// Why neither the run directory nor the coordinator gave a net.
#[derive(Debug, Error)]
#[error("{local}; {remote}")]
pub struct NoLatestNet {
	/// Why the run directory gave none.
	pub local: Box<NetSourceError>,
	/// Why the coordinator gave none.
	pub remote: Box<NetSourceError>,
}

/// The net to play with no directions given: the best in `run_dir` by its ladder (its newest
/// before one is named), else the best of the coordinator at `url`. On failure, the reasons
/// for both.
pub fn find_best(
	run_dir: &Path,
	url: &str,
	client: &ClientSettings,
) -> Result<LoadedNet, NoLatestNet> {
	let local = best_in_run_dir(run_dir).and_then(|path| load_file(&path));
	local.or_else(|local| {
		fetch_best(url, client).map_err(|remote| NoLatestNet {
			local: Box::new(local),
			remote: Box::new(remote),
		})
	})
}

/// Fetches the latest promoted net from the coordinator at `url`.
pub fn fetch_latest(url: &str, client: &ClientSettings) -> Result<LoadedNet, NetSourceError> {
	fetch(
		url,
		client,
		FetchNetRequest {
			generation: 0,
			latest: true,
			best: false,
		},
	)
}

/// Fetches the best net by the rating ladder from the coordinator at `url` (its latest before
/// one is named, or from a coordinator older than the ladder).
pub fn fetch_best(url: &str, client: &ClientSettings) -> Result<LoadedNet, NetSourceError> {
	fetch(
		url,
		client,
		FetchNetRequest {
			generation: 0,
			latest: true,
			best: true,
		},
	)
}

fn fetch(
	url: &str,
	client: &ClientSettings,
	request: FetchNetRequest,
) -> Result<LoadedNet, NetSourceError> {
	let runtime = tokio::runtime::Builder::new_current_thread()
		.enable_all()
		.build()
		.map_err(|e| NetSourceError::Unreachable {
			url: url.to_string(),
			reason: format!("cannot start the network runtime: {e}"),
		})?;
	runtime.block_on(fetch_async(url, client, request))
}

async fn fetch_async(
	url: &str,
	client: &ClientSettings,
	request: FetchNetRequest,
) -> Result<LoadedNet, NetSourceError> {
	let connector = Connector::new(url, client, CONNECT_TIMEOUT)
		.map_err(|e| NetSourceError::Url {
			url: url.to_string(),
			reason: e.to_string(),
		})?
		.with_call_timeout(FETCH_TIMEOUT);
	let file = connector
		.connect_training()
		.await
		.map_err(|e| NetSourceError::Unreachable {
			url: url.to_string(),
			reason: error_chain(&e),
		})?
		.fetch_net(request)
		.await
		.map_err(|status| match unserved(url, Service::Training, &status) {
			Some(sentence) => NetSourceError::Unserved(sentence),
			None => NetSourceError::Refused {
				url: url.to_string(),
				status: format!("{:?}: {}", status.code(), status.message()),
			},
		})?
		.into_inner();
	let net = check_net(&file.safetensors, &file.sha256).map_err(|e| NetSourceError::BadNet {
		url: url.to_string(),
		reason: e.to_string(),
	})?;
	Ok(LoadedNet {
		origin: format!("generation {} from {url}", net.generation),
		net: Arc::new(net),
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn urls_and_paths_are_told_apart() {
		assert_eq!(
			NetSource::parse("http://host:50051"),
			NetSource::Coordinator("http://host:50051".into())
		);
		assert_eq!(
			NetSource::parse("https://host"),
			NetSource::Coordinator("https://host".into())
		);
		assert_eq!(
			NetSource::parse("nets/gen-000001.safetensors"),
			NetSource::File("nets/gen-000001.safetensors".into())
		);
	}
}
