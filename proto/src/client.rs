//! The one client of the coordinator's services, for every program that calls them (workers,
//! `tui`, its dashboards, `coordinator status`): the endpoint (`http`, or `https` trusting a
//! given certificate), the run's token on every call, the message limits, a client of the
//! service the caller came for, and errors told with their causes. Also the one check of a net
//! received against the hash announced for it.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;
use tigers_core::Network;
use tigers_core::network::file::{NetFileError, sha256_hex};
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::MAX_MESSAGE_BYTES;
use crate::v1::coordinator_client::CoordinatorClient;
use crate::v1::observe_client::ObserveClient;
use crate::v1::solve_client::SolveClient;

/// How long `tui`, its dashboards and `coordinator status` try to reach a coordinator: long
/// enough for a network, short enough not to keep someone who only wants a game waiting when
/// none is running. (Workers, which wait for a coordinator anyway, set their own.)
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// What a client presents to the coordinator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientSettings {
	/// The run's token, sent as `authorization: Bearer <token>`.
	pub token: Option<String>,
	/// A PEM certificate to trust for `https` (the coordinator's own, or its CA's).
	pub tls_ca: Option<PathBuf>,
}

/// Why a client cannot be made: each is a setting for the user to fix.
#[derive(Debug, Error)]
pub enum ClientError {
	/// The URL does not parse or has another scheme.
	#[error("cannot use the coordinator URL {url}: {reason}")]
	Url {
		/// The URL as given.
		url: String,
		/// What is wrong with it.
		reason: String,
	},
	/// The token has characters a header cannot carry.
	#[error("the token must be printable ASCII to travel in a gRPC header")]
	Token,
	/// `https` without a certificate to trust.
	#[error(
		"an https coordinator needs --tls-ca FILE with its certificate (or its CA's): this \
		 build trusts no built-in roots"
	)]
	NoCertificate,
	/// The certificate file cannot be read.
	#[error("cannot read the certificate {path}: {source}")]
	CertificateFile {
		/// The file.
		path: PathBuf,
		/// What the system said.
		source: std::io::Error,
	},
	/// The certificate file is not PEM.
	#[error("{} is not a PEM certificate", path.display())]
	NotPem {
		/// The file.
		path: PathBuf,
	},
	/// The TLS settings were refused.
	#[error("the TLS settings were refused: {0}")]
	Tls(String),
}

/// A connection that carries the token on every call.
pub type Authorized = InterceptedService<Channel, BearerToken>;

/// A client of a coordinator that trains (`tigers.v1.Coordinator`).
pub type TrainingClient = CoordinatorClient<Authorized>;

/// A client of a coordinator that solves the placement phase (`tigers.v1.Solve`).
pub type SolvingClient = SolveClient<Authorized>;

/// A client of either kind's progress (`tigers.v1.Observe`).
pub type ObservingClient = ObserveClient<Authorized>;

/// Adds `authorization: Bearer <token>` to every request, when there is a token.
#[derive(Clone, Debug, Default)]
pub struct BearerToken(Option<MetadataValue<Ascii>>);

impl BearerToken {
	/// The interceptor for `token`; an error if it cannot go in a header.
	pub fn new(token: Option<&str>) -> Result<BearerToken, ClientError> {
		let value = token
			.map(|token| {
				format!("Bearer {token}")
					.parse()
					.map_err(|_| ClientError::Token)
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

/// Makes connections to one coordinator.
#[derive(Clone, Debug)]
pub struct Connector {
	url: String,
	endpoint: Endpoint,
	token: BearerToken,
}

impl Connector {
	/// A connector for `url` (`http://` or `https://`; no scheme means `http://`) that gives up
	/// connecting after `connect_timeout`.
	pub fn new(
		url: &str,
		settings: &ClientSettings,
		connect_timeout: Duration,
	) -> Result<Connector, ClientError> {
		let full = if url.contains("://") {
			url.to_string()
		} else {
			format!("http://{url}")
		};
		let url_error = |reason: String| ClientError::Url {
			url: url.to_string(),
			reason,
		};
		let mut endpoint = Endpoint::from_shared(full.clone())
			.map_err(|e| url_error(e.to_string()))?
			.connect_timeout(connect_timeout)
			.tcp_nodelay(true);
		if full.starts_with("https://") {
			endpoint = endpoint
				.tls_config(tls_config(settings)?)
				.map_err(|e| ClientError::Tls(error_chain(&e)))?;
		} else if !full.starts_with("http://") {
			return Err(url_error("the scheme must be http or https".into()));
		}
		Ok(Connector {
			url: url.to_string(),
			endpoint,
			token: BearerToken::new(settings.token.as_deref())?,
		})
	}

	/// Pings on the connection, so that a coordinator that vanished without closing it (a
	/// machine switched off, a cable pulled) is noticed within about 30 s, even when idle.
	#[must_use]
	pub fn with_keep_alive(mut self) -> Connector {
		self.endpoint = self
			.endpoint
			.http2_keep_alive_interval(Duration::from_secs(10))
			.keep_alive_timeout(Duration::from_secs(20))
			.keep_alive_while_idle(true);
		self
	}

	/// Every call fails after `limit` (for one-off calls; not for streams that last).
	#[must_use]
	pub fn with_call_timeout(mut self, limit: Duration) -> Connector {
		self.endpoint = self.endpoint.timeout(limit);
		self
	}

	/// The URL as given.
	pub fn url(&self) -> &str {
		&self.url
	}

	/// A fresh connection, established now, with the token on every call.
	async fn connect(&self) -> Result<Authorized, tonic::transport::Error> {
		let channel = self.endpoint.connect().await?;
		Ok(InterceptedService::new(channel, self.token.clone()))
	}

	/// A client of a coordinator that trains, on a fresh connection, with the cluster's message
	/// limits both ways.
	pub async fn connect_training(&self) -> Result<TrainingClient, tonic::transport::Error> {
		Ok(CoordinatorClient::new(self.connect().await?)
			.max_decoding_message_size(MAX_MESSAGE_BYTES)
			.max_encoding_message_size(MAX_MESSAGE_BYTES))
	}

	/// A client of a coordinator that solves, as [`Connector::connect_training`].
	pub async fn connect_solving(&self) -> Result<SolvingClient, tonic::transport::Error> {
		Ok(SolveClient::new(self.connect().await?)
			.max_decoding_message_size(MAX_MESSAGE_BYTES)
			.max_encoding_message_size(MAX_MESSAGE_BYTES))
	}

	/// A client of either kind's progress, as [`Connector::connect_training`].
	pub async fn connect_observing(&self) -> Result<ObservingClient, tonic::transport::Error> {
		Ok(ObserveClient::new(self.connect().await?)
			.max_decoding_message_size(MAX_MESSAGE_BYTES)
			.max_encoding_message_size(MAX_MESSAGE_BYTES))
	}
}

fn tls_config(settings: &ClientSettings) -> Result<ClientTlsConfig, ClientError> {
	let path = settings.tls_ca.as_ref().ok_or(ClientError::NoCertificate)?;
	let pem = std::fs::read(path).map_err(|source| ClientError::CertificateFile {
		path: path.clone(),
		source,
	})?;
	if !String::from_utf8_lossy(&pem).contains("-----BEGIN") {
		return Err(ClientError::NotPem { path: path.clone() });
	}
	Ok(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)))
}

/// An error followed by its sources, which is where the transport keeps the useful part
/// ("transport error: ...: Connection refused"), on one line; a source whose words the line
/// already holds is left out, so that each cause is said once.
pub fn error_chain(error: &dyn std::error::Error) -> String {
	let mut text = error.to_string();
	let mut source = error.source();
	while let Some(cause) = source {
		// Transport errors wrap their cause in an error of the same words ("tcp connect
		// error: tcp connect error: ..."): each is said once.
		let words = cause.to_string();
		if !words.is_empty() && !text.contains(&words) {
			text.push_str(": ");
			text.push_str(&words);
		}
		source = cause.source();
	}
	with_certificate_hint(text)
}

/// What the TLS library's names for a refused certificate mean here, and what to do.
const CERTIFICATE_HINTS: [(&str, &str); 3] = [
	(
		"CaUsedAsEndEntity",
		"the coordinator serves a CA certificate as its own, which TLS clients refuse: serve a \
		 certificate signed by that CA (`coordinator tls` makes both) and trust the CA with \
		 --tls-ca",
	),
	(
		"UnknownIssuer",
		"the coordinator's certificate is not the --tls-ca file given, nor signed by it",
	),
	(
		"NotValidForName",
		"the coordinator's certificate does not name the host in the URL: connect by a name \
		 or address it lists, or make one that lists it (`coordinator tls --host`)",
	),
];

/// `text` with a sentence after it where it names a certificate refusal of the TLS library.
fn with_certificate_hint(mut text: String) -> String {
	if let Some((_, hint)) = CERTIFICATE_HINTS
		.iter()
		.find(|(name, _)| text.contains(name))
	{
		text.push_str(" (");
		text.push_str(hint);
		text.push(')');
	}
	text
}

/// A failed call: its message and code (by name, such as `Unauthenticated`), then the errors
/// under it when the connection failed. (A `Status`'s own `Display` repeats itself.)
pub fn call_failure(status: &Status) -> String {
	let mut text = format!("{} ({:?})", status.message(), status.code());
	let mut cause = std::error::Error::source(status);
	while let Some(error) = cause {
		let words = error.to_string();
		if !words.is_empty() && !text.contains(&words) {
			text.push_str(": ");
			text.push_str(&words);
		}
		cause = error.source();
	}
	with_certificate_hint(text)
}

/// Why a received net was refused.
#[derive(Debug, Error)]
pub enum NetCheckError {
	/// The bytes are not the net announced.
	#[error("the net received has sha256 {actual}, but {announced} was announced")]
	Sha256 {
		/// The hash announced for it.
		announced: String,
		/// The hash of the bytes received.
		actual: String,
	},
	/// The bytes are the ones announced but no net this build reads.
	#[error("the net received does not load: {0}")]
	Unreadable(#[from] NetFileError),
}

/// The net in `bytes`, if they hash to `announced` (a net's sha256 is its identity) and load.
pub fn check_net(bytes: &[u8], announced: &str) -> Result<Network, NetCheckError> {
	let actual = sha256_hex(bytes);
	if actual != announced {
		return Err(NetCheckError::Sha256 {
			announced: announced.to_string(),
			actual,
		});
	}
	Ok(Network::from_bytes(bytes)?)
}

#[cfg(test)]
mod tests {
	use tigers_core::network::Shape;

	use super::*;

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
		assert!(matches!(
			BearerToken::new(Some("line\nbreak")),
			Err(ClientError::Token)
		));
	}

	#[test]
	fn urls_are_checked_and_https_needs_a_pem_certificate() {
		let second = Duration::from_secs(1);
		let plain = ClientSettings::default();
		let connector = |url: &str| Connector::new(url, &plain, second);
		assert!(connector("http://127.0.0.1:50051").is_ok());
		assert_eq!(
			connector("127.0.0.1:50051").unwrap().url(),
			"127.0.0.1:50051"
		);
		assert!(matches!(
			connector("ftp://127.0.0.1:1"),
			Err(ClientError::Url { .. })
		));
		let error = connector("https://coord:50051").unwrap_err().to_string();
		assert!(error.contains("--tls-ca"), "{error}");

		// Removed when the test ends, however it ends.
		let dir = tempfile::tempdir().unwrap();
		let not_pem = dir.path().join("ca.txt");
		std::fs::write(&not_pem, "hello").unwrap();
		let mut settings = ClientSettings {
			tls_ca: Some(not_pem),
			..ClientSettings::default()
		};
		let error = Connector::new("https://coord:50051", &settings, second).unwrap_err();
		assert!(
			error.to_string().contains("not a PEM certificate"),
			"{error}"
		);
		settings.tls_ca = Some(dir.path().join("missing.pem"));
		let error = Connector::new("https://coord:50051", &settings, second).unwrap_err();
		assert!(
			matches!(error, ClientError::CertificateFile { .. }),
			"{error}"
		);
		let bad_token = ClientSettings {
			token: Some("line\nbreak".into()),
			..ClientSettings::default()
		};
		assert!(matches!(
			Connector::new("http://coord:1", &bad_token, second),
			Err(ClientError::Token)
		));
	}

	#[test]
	fn a_net_is_taken_only_with_the_hash_announced() {
		let net = Network::new(
			Shape {
				hidden1: 8,
				hidden2: 4,
			},
			2,
		);
		let bytes = net.to_bytes();
		let announced = sha256_hex(&bytes);
		assert_eq!(check_net(&bytes, &announced).unwrap(), net);
		let error = check_net(&bytes, &"0".repeat(64)).unwrap_err();
		assert!(matches!(error, NetCheckError::Sha256 { .. }), "{error}");
		let junk = b"no net at all";
		let error = check_net(junk, &sha256_hex(junk)).unwrap_err();
		assert!(matches!(error, NetCheckError::Unreadable(_)), "{error}");
	}

	#[test]
	fn an_error_is_told_with_its_causes() {
		#[derive(Debug, Error)]
		#[error("transport error")]
		struct Outer(#[source] std::io::Error);
		let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
		assert_eq!(error_chain(&Outer(refused)), "transport error: refused");
		let status = Status::unauthenticated("no token");
		assert_eq!(call_failure(&status), "no token (Unauthenticated)");
	}
}

#[cfg(test)]
mod chain_tests {
	use super::error_chain;

	#[derive(Debug)]
	struct Layer(&'static str, Option<Box<Layer>>);

	impl std::fmt::Display for Layer {
		fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
			f.write_str(self.0)
		}
	}

	impl std::error::Error for Layer {
		fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
			self.1.as_deref().map(|layer| layer as _)
		}
	}

	fn layers(words: &[&'static str]) -> Layer {
		let (first, rest) = words.split_first().expect("at least one layer");
		Layer(first, (!rest.is_empty()).then(|| Box::new(layers(rest))))
	}

	#[test]
	fn an_error_chain_says_each_cause_once() {
		let refused = layers(&[
			"transport error",
			"tcp connect error",
			"tcp connect error",
			"Connection refused (os error 111)",
		]);
		assert_eq!(
			error_chain(&refused),
			"transport error: tcp connect error: Connection refused (os error 111)"
		);
		let missing = layers(&[
			"cannot read the record x.txt: No such file or directory (os error 2)",
			"No such file or directory (os error 2)",
		]);
		assert_eq!(
			error_chain(&missing),
			"cannot read the record x.txt: No such file or directory (os error 2)"
		);
	}

	#[test]
	fn a_refused_certificate_is_explained() {
		let ca = layers(&[
			"transport error",
			"invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))",
		]);
		let text = error_chain(&ca);
		assert!(
			text.starts_with("transport error: invalid peer certificate"),
			"{text}"
		);
		assert!(
			text.contains("serves a CA certificate as its own"),
			"{text}"
		);
		assert!(text.contains("coordinator tls"), "{text}");
		let unknown = layers(&["invalid peer certificate: UnknownIssuer"]);
		assert!(error_chain(&unknown).contains("not the --tls-ca file given"));
		let plain = layers(&["Connection refused (os error 111)"]);
		assert_eq!(error_chain(&plain), "Connection refused (os error 111)");
	}
}
