//! The worker's connections to the coordinator: the project's one client
//! (`tigers_proto::client`) for the worker's URL, certificate and token, with keep-alive pings.
//! `Client` is the training service's client, which the worker's sessions use; `worker solve`
//! uses the solve's.

use tigers_proto::client::ClientSettings;
pub(crate) use tigers_proto::client::{Connector, SolvingClient, TrainingClient as Client};

use crate::config::WorkerConfig;
use crate::error::WorkerError;

/// A connector for `config`'s URL, certificate and token; errors are the user's to fix.
pub(crate) fn connector(config: &WorkerConfig) -> Result<Connector, WorkerError> {
	let settings = ClientSettings {
		token: config.token.clone(),
		tls_ca: config.tls_ca.clone(),
	};
	Ok(Connector::new(&config.url, &settings, config.connect_timeout)?.with_keep_alive())
}

#[cfg(test)]
mod tests {
	use tigers_proto::client::ClientError;

	use super::*;

	#[test]
	fn the_workers_settings_reach_the_client() {
		assert!(connector(&WorkerConfig::new("127.0.0.1:50051")).is_ok());
		let error = connector(&WorkerConfig::new("https://coord:50051")).unwrap_err();
		assert!(
			matches!(error, WorkerError::Client(ClientError::NoCertificate)),
			"{error}"
		);
		let mut config = WorkerConfig::new("http://coord:50051");
		config.token = Some("line\nbreak".into());
		assert!(matches!(
			connector(&config),
			Err(WorkerError::Client(ClientError::Token))
		));
	}
}
