//! The paths a coordinator answers: its services, each behind the token check, and for every
//! other path the answer `tigers_proto::services::unserved_status` makes, which names the
//! service this kind of coordinator serves, so that a client that came for the other kind can
//! say which it reached. Both kinds of coordinator build their routes here.

use tigers_proto::services::{Service, unserved_status};
use tonic::service::Routes;
use tracing::debug;

/// `routes`, with every path that none of their services takes answered as a coordinator
/// serving `serves` (without the token check: the answer says only what kind of coordinator
/// this is, which a caller without the token may learn).
pub(crate) fn answering_unserved(routes: Routes, serves: Service) -> Routes {
	let router = routes
		.into_axum_router()
		.fallback(move |uri: axum::http::Uri| async move {
			debug!(path = uri.path(), "a call this coordinator does not serve");
			unserved_status(serves, uri.path()).into_http::<axum::body::Body>()
		});
	Routes::from(router)
}
