//! A server of the API on a free loopback port, with the shared movement table and the last
//! two placement layers, and requests to it.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use tigers_core::analysis::Tables;
use tigers_core::network::Shape;
use tigers_core::tablebase::placement::PlacementTable;
use tigers_core::{Network, Tablebase};
use tigers_play::access::{Access, AccessSettings};
use tigers_play::limits::Limits;
use tigers_play::listen::Listening;
use tigers_play::players::ServedNet;
use tigers_play::{Fixed, Server, query};
use tigers_testkit::http::{Answer, get, request};
use tigers_testkit::tables as test_tables;
use tokio_rustls::rustls::ServerConfig;

/// The shared movement table.
pub fn movement() -> Arc<Tablebase> {
	test_tables::movement(Path::new(env!("CARGO_TARGET_TMPDIR"))).clone()
}

/// The movement table and the last two placement layers.
pub fn tables() -> Tables {
	let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
	let layers = PlacementTable::open(test_tables::last_layers(target)).expect("the layers open");
	Tables {
		movement: Some(movement()),
		placement: Some(Arc::new(layers)),
	}
}

/// A fresh net of generation 5.
pub fn net() -> ServedNet {
	ServedNet {
		generation: 5,
		net: Arc::new(Network::new(Shape::default(), 11)),
	}
}

/// Serves `tables` and a net within `limits` on a free loopback port, open to all.
pub async fn serve(tables: Tables, limits: Limits) -> SocketAddr {
	serve_with(tables, limits, AccessSettings::default(), None).await
}

/// Serves `tables` and a net within `limits` on a free loopback port, behind `access`, over
/// TLS by `tls` if given.
pub async fn serve_with(
	tables: Tables,
	limits: Limits,
	access: AccessSettings,
	tls: Option<Arc<ServerConfig>>,
) -> SocketAddr {
	let server = Server::new(
		Fixed {
			tables,
			net: Some(net()),
		},
		limits,
	);
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
		.await
		.expect("a loopback port");
	let address = listener.local_addr().expect("its address");
	let listening = match tls {
		Some(config) => Listening::tls(listener, config).expect("a TLS listener"),
		None => Listening::Plain(listener),
	};
	tokio::spawn(tigers_play::serve(
		listening,
		server,
		Access::new(access),
		std::future::pending(),
	));
	address
}

/// The answer's body as JSON.
pub fn json(answer: &Answer) -> Value {
	serde_json::from_slice(&answer.body)
		.unwrap_or_else(|e| panic!("not JSON ({e}): {}", answer.text()))
}

/// `GET /api/v1/position` of `position`.
pub async fn position(address: SocketAddr, position: &str) -> Answer {
	get(
		address,
		&format!("/api/v1/position?position={}", query::encode(position)),
		&[],
	)
	.await
}

/// `POST` of `body` as JSON to `path`.
pub async fn post(address: SocketAddr, path: &str, body: &str) -> Answer {
	request(
		address,
		"POST",
		path,
		&["Content-Type: application/json".to_string()],
		body,
	)
	.await
}
