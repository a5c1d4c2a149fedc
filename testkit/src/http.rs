//! A plain HTTP/1.1 client of one request a connection, enough for the tests of the web
//! pages and the JSON API to speak to a server on a loopback socket as a browser or a script
//! would, with no client library between them and the bytes.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

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
	let mut stream = tokio::net::TcpStream::connect(address)
		.await
		.unwrap_or_else(|e| panic!("no connection to {address}: {e}"));
	let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
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
async fn read_answer(stream: &mut tokio::net::TcpStream) -> Vec<u8> {
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
		let read = stream.read(&mut buffer).await.expect("the answer is read");
		if read == 0 {
			return answer;
		}
		answer.extend_from_slice(&buffer[..read]);
	}
}

/// A `GET` of `path` with `headers` (whole lines).
pub async fn get(address: SocketAddr, path: &str, headers: &[String]) -> Answer {
	request(address, "GET", path, headers, "").await
}
