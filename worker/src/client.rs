//! The gRPC client: the coordinator's endpoint (with TLS when the URL is https) and the
//! interceptor that puts the run's token on every call.

use std::time::Duration;

use tigers_proto::v1::coordinator_client::CoordinatorClient;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::config::WorkerConfig;
use crate::error::WorkerError;

/// The generated client over a channel that carries the token.
pub(crate) type Client = CoordinatorClient<InterceptedService<Channel, BearerToken>>;

/// Adds `authorization: Bearer <token>` to every request, when there is a token.
#[derive(Clone, Debug, Default)]
pub(crate) struct BearerToken(Option<MetadataValue<Ascii>>);

impl BearerToken {
	/// The interceptor for `token`; an error if it cannot go in a header.
	pub(crate) fn new(token: Option<&str>) -> Result<BearerToken, WorkerError> {
		let value = token
			.map(|token| {
				format!("Bearer {token}").parse().map_err(|_| {
					WorkerError::Config(
						"the token must be printable ASCII to travel in a gRPC header".into(),
					)
				})
			})
			.transpose()?;
		Ok(BearerToken(value))
	}
}

impl Interceptor for BearerToken {
	fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
		if let Some(value) = &self.0 {
			request
				.metadata_mut()
				.insert("authorization", value.clone());
		}
		Ok(request)
	}
}

/// Makes connections to the coordinator.
#[derive(Clone, Debug)]
pub(crate) struct Connector {
	endpoint: Endpoint,
	token: BearerToken,
}

impl Connector {
	/// A connector for `config`'s URL, certificate and token; errors are the user's to fix.
	pub(crate) fn new(config: &WorkerConfig) -> Result<Connector, WorkerError> {
		let url = if config.url.contains("://") {
			config.url.clone()
		} else {
			format!("http://{}", config.url)
		};
		let url_error = |reason: String| WorkerError::Url {
			url: config.url.clone(),
			reason,
		};
		let mut endpoint = Endpoint::from_shared(url.clone())
			.map_err(|e| url_error(e.to_string()))?
			.connect_timeout(config.connect_timeout)
			.tcp_nodelay(true)
			// Pings find a coordinator that vanished without closing the connection (a
			// machine switched off, a cable pulled) within about 30 s.
			.http2_keep_alive_interval(Duration::from_secs(10))
			.keep_alive_timeout(Duration::from_secs(20))
			.keep_alive_while_idle(true);
		if url.starts_with("https://") {
			endpoint = endpoint
				.tls_config(tls_config(config)?)
				.map_err(|e| WorkerError::Tls(e.to_string()))?;
		} else if !url.starts_with("http://") {
			return Err(url_error("the scheme must be http or https".into()));
		}
		Ok(Connector {
			endpoint,
			token: BearerToken::new(config.token.as_deref())?,
		})
	}

	/// A fresh connection, established now.
	pub(crate) async fn connect(&self) -> Result<Client, tonic::transport::Error> {
		let channel = self.endpoint.connect().await?;
		Ok(CoordinatorClient::with_interceptor(
			channel,
			self.token.clone(),
		))
	}
}

fn tls_config(config: &WorkerConfig) -> Result<ClientTlsConfig, WorkerError> {
	let Some(path) = &config.tls_ca else {
		return Err(WorkerError::Tls(
			"an https coordinator needs --tls-ca FILE with its certificate (or its CA's): this \
			 build trusts no built-in roots"
				.into(),
		));
	};
	let pem = std::fs::read(path).map_err(|source| WorkerError::TlsCa {
		path: path.clone(),
		source,
	})?;
	if !pem.starts_with(b"-----BEGIN") && !String::from_utf8_lossy(&pem).contains("-----BEGIN") {
		return Err(WorkerError::Tls(format!(
			"{} is not a PEM certificate",
			path.display()
		)));
	}
	Ok(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)))
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::testing::TempDir;

	#[test]
	fn the_token_travels_as_a_bearer_header() {
		let mut with = BearerToken::new(Some("s3cret")).unwrap();
		let request = with.call(Request::new(())).unwrap();
		assert_eq!(
			request.metadata().get("authorization").unwrap(),
			"Bearer s3cret"
		);
		let mut without = BearerToken::new(None).unwrap();
		let request = without.call(Request::new(())).unwrap();
		assert!(request.metadata().get("authorization").is_none());
		assert!(BearerToken::new(Some("line\nbreak")).is_err());
	}

	#[test]
	fn urls_are_checked_and_https_needs_a_certificate() {
		let connector = |url: &str| Connector::new(&WorkerConfig::new(url));
		assert!(connector("http://127.0.0.1:50051").is_ok());
		assert!(connector("127.0.0.1:50051").is_ok());
		assert!(matches!(
			connector("ftp://127.0.0.1:1"),
			Err(WorkerError::Url { .. })
		));
		let error = connector("https://coord:50051").unwrap_err().to_string();
		assert!(error.contains("--tls-ca"), "{error}");

		let dir = TempDir::new("client-tls");
		let not_pem = dir.path().join("ca.txt");
		std::fs::write(&not_pem, "hello").unwrap();
		let mut config = WorkerConfig::new("https://coord:50051");
		config.tls_ca = Some(not_pem);
		let error = Connector::new(&config).unwrap_err().to_string();
		assert!(error.contains("not a PEM certificate"), "{error}");
		config.tls_ca = Some(dir.path().join("missing.pem"));
		assert!(matches!(
			Connector::new(&config),
			Err(WorkerError::TlsCa { .. })
		));
	}
}
