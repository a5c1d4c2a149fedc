//! A plain HTTP/1.1 client of one request a connection, enough for the tests of the web
//! pages and the JSON API to speak to a server on a loopback socket as a browser or a script
//! would, with no client library between them and the bytes.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

/// How long an answer may take before the request fails.
const WAIT: Duration = Duration::from_secs(60);

/// An answer: status code, head (lowercase header lines) and body.
pub struct Answer {
	/// The status code.
	pub status: u16,
	/// The status line and header lines.
	pub head: String,
	/// The body.
	pub body: Vec<u8>,
}

impl Answer {
	/// The body as text (invalid UTF-8 replaced).
	pub fn text(&self) -> String {
		String::from_utf8_lossy(&self.body).into_owned()
	}

	/// The value of header `name` (lowercase), if any.
	pub fn header(&self, name: &str) -> Option<String> {
		self.head.lines().find_map(|line| {
			let (key, value) = line.split_once(':')?;
			(key.eq_ignore_ascii_case(name)).then(|| value.trim().to_string())
		})
	}
}

/// One request with `headers` (whole lines) and `body`, on a connection of its own.
pub async fn request(
	address: SocketAddr,
	method: &str,
	path: &str,
	headers: &[String],
	body: &str,
) -> Answer {
	let from = match address.ip() {
		IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
		IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
	};
	request_from(from, address, method, path, headers, body).await
}

/// [`request`] from the local address `from` (another loopback address, such as 127.0.0.2, to
/// be a second client).
pub async fn request_from(
	from: IpAddr,
	address: SocketAddr,
	method: &str,
	path: &str,
	headers: &[String],
	body: &str,
) -> Answer {
	let socket = match address {
		SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
		SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
	}
	.expect("a socket");
	socket
		.bind(SocketAddr::new(from, 0))
		.unwrap_or_else(|e| panic!("cannot bind {from}: {e}"));
	let stream = socket
		.connect(address)
		.await
		.unwrap_or_else(|e| panic!("no connection to {address}: {e}"));
	request_over(stream, &address.to_string(), method, path, headers, body).await
}

/// One request on `stream` (plain, or TLS set up by the caller) for `host`.
pub async fn request_over<S: AsyncRead + AsyncWrite + Unpin>(
	mut stream: S,
	host: &str,
	method: &str,
	path: &str,
	headers: &[String],
	body: &str,
) -> Answer {
	let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
	for header in headers {
		text.push_str(header);
		text.push_str("\r\n");
	}
	text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
	stream
		.write_all(text.as_bytes())
		.await
		.expect("the request is sent");
	let answer = tokio::time::timeout(WAIT, read_answer(&mut stream))
		.await
		.expect("an answer in time");
	let split = answer
		.windows(4)
		.position(|w| w == b"\r\n\r\n")
		.expect("a head");
	let head = String::from_utf8_lossy(&answer[..split]).into_owned();
	let status = head
		.split(' ')
		.nth(1)
		.and_then(|s| s.parse().ok())
		.expect("a status");
	Answer {
		status,
		head,
		body: answer[split + 4..].to_vec(),
	}
}

/// An answer's bytes: up to its `Content-Length` past the head (some servers, chromedriver
/// among them, keep the connection open), or to the end of the connection without one.
async fn read_answer<S: AsyncRead + Unpin>(stream: &mut S) -> Vec<u8> {
	let mut answer = Vec::new();
	let mut buffer = [0u8; 16384];
	loop {
		if let Some(split) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
			let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
			let length = head.lines().find_map(|line| {
				line.strip_prefix("content-length:")?
					.trim()
					.parse::<usize>()
					.ok()
			});
			if length.is_some_and(|length| answer.len() >= split + 4 + length) {
				return answer;
			}
		}
		let read = match stream.read(&mut buffer).await {
			Ok(read) => read,
			// A TLS peer that closes without its close_notify: what came is the answer.
			Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => 0,
			Err(e) => panic!("the answer is not read: {e}"),
		};
		if read == 0 {
			return answer;
		}
		answer.extend_from_slice(&buffer[..read]);
	}
}

/// One request over HTTPS to `address` (an IP address, which the certificate must name),
/// trusting the certificates in the PEM file `ca` only; the handshake's failure as a sentence.
pub async fn request_tls(
	address: SocketAddr,
	ca: &Path,
	method: &str,
	path: &str,
	headers: &[String],
	body: &str,
) -> Result<Answer, String> {
	let mut roots = RootCertStore::empty();
	for certificate in CertificateDer::pem_file_iter(ca).map_err(|e| e.to_string())? {
		roots
			.add(certificate.map_err(|e| e.to_string())?)
			.map_err(|e| e.to_string())?;
	}
	let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
	let config = ClientConfig::builder_with_provider(provider)
		.with_safe_default_protocol_versions()
		.map_err(|e| e.to_string())?
		.with_root_certificates(roots)
		.with_no_client_auth();
	let stream = tokio::net::TcpStream::connect(address)
		.await
		.map_err(|e| format!("no connection to {address}: {e}"))?;
	let tls = TlsConnector::from(Arc::new(config))
		.connect(ServerName::IpAddress(address.ip().into()), stream)
		.await
		.map_err(|e| format!("the TLS handshake failed: {e}"))?;
	Ok(request_over(tls, &address.to_string(), method, path, headers, body).await)
}

/// A `GET` of `path` with `headers` (whole lines).
pub async fn get(address: SocketAddr, path: &str, headers: &[String]) -> Answer {
	request(address, "GET", path, headers, "").await
}
