//! Where the pages are served: a TCP listener, plain or with TLS, and the client's address that
//! the per-client bounds and the login throttle key on.
//!
//! With TLS, handshakes run in tasks of their own (at most [`HANDSHAKES`] at once, each within
//! [`HANDSHAKE_TIME`]), so a client that opens a connection and says nothing holds up nobody.
//! The certificate and key are the PEM files `coordinator tls` writes, the same that gRPC
//! serves; the crypto provider is ring, the one rustls provider in the tree.

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::extract::connect_info::Connected;
use axum::http::Extensions;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};
use tokio_rustls::TlsAcceptor;
pub use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tracing::{debug, warn};

/// TLS handshakes under way at once; past it, accepting waits.
pub const HANDSHAKES: usize = 256;

/// The longest a TLS handshake may take before its connection is dropped.
pub const HANDSHAKE_TIME: Duration = Duration::from_secs(10);

/// A connection, plain or TLS.
pub trait Connection: AsyncRead + AsyncWrite + Unpin + Send + 'static {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Connection for T {}

/// A bound listener for the pages: plain TCP, or TLS over it.
pub enum Listening {
	/// Plain HTTP.
	Plain(TcpListener),
	/// HTTPS: connections whose handshake has finished, from the accepting task.
	Tls {
		/// The bound address.
		local: SocketAddr,
		/// Finished handshakes.
		incoming: mpsc::Receiver<(Box<dyn Connection>, SocketAddr)>,
	},
}

impl Listening {
	/// `listener` with TLS by `config`: a task accepts connections and runs their handshakes
	/// until this is dropped. Must be called within a tokio runtime.
	///
	/// # Errors
	///
	/// If the listener's address cannot be read.
	pub fn tls(listener: TcpListener, config: Arc<ServerConfig>) -> io::Result<Listening> {
		let local = listener.local_addr()?;
		let (finished, incoming) = mpsc::channel(64);
		tokio::spawn(accept_tls(listener, TlsAcceptor::from(config), finished));
		Ok(Listening::Tls { local, incoming })
	}

	/// Whether connections are served over TLS.
	pub fn is_tls(&self) -> bool {
		matches!(self, Listening::Tls { .. })
	}
}

/// Accepts connections on `listener` and hands those whose handshake finishes to `finished`,
/// until its receiver is gone.
async fn accept_tls(
	listener: TcpListener,
	acceptor: TlsAcceptor,
	finished: mpsc::Sender<(Box<dyn Connection>, SocketAddr)>,
) {
	let handshakes = Arc::new(Semaphore::new(HANDSHAKES));
	loop {
		let accepted = tokio::select! {
			() = finished.closed() => return,
			accepted = listener.accept() => accepted,
		};
		let (stream, peer) = match accepted {
			Ok(accepted) => accepted,
			Err(error) => {
				accept_failed(&error).await;
				continue;
			}
		};
		let Ok(permit) = handshakes.clone().acquire_owned().await else {
			return;
		};
		let acceptor = acceptor.clone();
		let finished = finished.clone();
		tokio::spawn(async move {
			let _permit = permit;
			let _ = stream.set_nodelay(true);
			match tokio::time::timeout(HANDSHAKE_TIME, acceptor.accept(stream)).await {
				Ok(Ok(tls)) => {
					let _ = finished.send((Box::new(tls), peer)).await;
				}
				Ok(Err(error)) => debug!(%peer, %error, "a TLS handshake failed"),
				Err(_) => debug!(%peer, "a TLS handshake took too long"),
			}
		});
	}
}

/// After a failed accept: a moment's pause when the process is out of file descriptors or
/// memory, so the loop does not spin; other errors concern one connection only.
async fn accept_failed(error: &io::Error) {
	if matches!(
		error.kind(),
		io::ErrorKind::ConnectionAborted
			| io::ErrorKind::ConnectionRefused
			| io::ErrorKind::ConnectionReset
	) {
		return;
	}
	warn!(%error, "accepting a web connection failed");
	tokio::time::sleep(Duration::from_millis(100)).await;
}

impl Listener for Listening {
	type Io = Box<dyn Connection>;
	type Addr = SocketAddr;

	async fn accept(&mut self) -> (Self::Io, SocketAddr) {
		match self {
			Listening::Plain(listener) => {
				// axum's own accept, which retries after failures.
				let (stream, peer) = Listener::accept(listener).await;
				let _ = stream.set_nodelay(true);
				(Box::new(stream), peer)
			}
			Listening::Tls { incoming, .. } => match incoming.recv().await {
				Some(connection) => connection,
				// The accepting task has ended: nothing more will come.
				None => std::future::pending().await,
			},
		}
	}

	fn local_addr(&self) -> io::Result<SocketAddr> {
		match self {
			Listening::Plain(listener) => listener.local_addr(),
			Listening::Tls { local, .. } => Ok(*local),
		}
	}
}

/// The client's address, as the connection gives it.
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub SocketAddr);

impl Connected<IncomingStream<'_, Listening>> for Peer {
	fn connect_info(stream: IncomingStream<'_, Listening>) -> Peer {
		Peer(*stream.remote_addr())
	}
}

/// The address a request came from: the connection's, or the unspecified address when the
/// server runs without connection information (all clients are then one).
pub fn client_address(extensions: &Extensions) -> IpAddr {
	extensions
		.get::<ConnectInfo<Peer>>()
		.map(|info| info.0.0.ip())
		.or_else(|| {
			extensions
				.get::<ConnectInfo<SocketAddr>>()
				.map(|info| info.0.ip())
		})
		.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

/// Serves `router` on `listening`, with each connection's [`Peer`], until `shutdown`
/// completes.
///
/// # Errors
///
/// If serving fails.
pub async fn serve_router(
	listening: Listening,
	router: Router,
	shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
	axum::serve(
		listening,
		router.into_make_service_with_connect_info::<Peer>(),
	)
	.with_graceful_shutdown(shutdown)
	.await
}

/// The TLS settings for the certificate chain in `cert` and the private key in `key` (PEM),
/// offering HTTP/1.1 (the one version the pages' server speaks).
///
/// # Errors
///
/// A sentence naming the file that cannot be read or does not hold what it should.
pub fn tls_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
	let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
		.map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?
		.collect::<Result<_, _>>()
		.map_err(|e| format!("the certificate {} is not PEM: {e}", cert.display()))?;
	if chain.is_empty() {
		return Err(format!(
			"the certificate file {} holds no certificate",
			cert.display()
		));
	}
	let private = PrivateKeyDer::from_pem_file(key)
		.map_err(|e| format!("cannot read a private key from {}: {e}", key.display()))?;
	let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
	let mut config = ServerConfig::builder_with_provider(provider)
		.with_safe_default_protocol_versions()
		.map_err(|e| format!("the TLS settings: {e}"))?
		.with_no_client_auth()
		.with_single_cert(chain, private)
		.map_err(|e| {
			format!(
				"the certificate {} and the key {} do not make a TLS identity: {e}",
				cert.display(),
				key.display()
			)
		})?;
	config.alpn_protocols = vec![b"http/1.1".to_vec()];
	Ok(Arc::new(config))
}
