//! The cluster's three services and who serves each: a coordinator that trains serves
//! `tigers.v1.Coordinator`, one that solves the placement phase serves `tigers.v1.Solve`, and
//! both serve `tigers.v1.Observe`. A call a coordinator does not serve is answered
//! `UNIMPLEMENTED` ([`unserved_status`]) with [`SERVES_KEY`] naming its own kind's service;
//! [`unserved`] turns that answer into the client's sentence. Both halves are here so that
//! they agree.

use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Code, Status};

use crate::v1;

/// Trailing metadata on the `UNIMPLEMENTED` status a coordinator answers a call it does not
/// serve with: the name of the service of its kind (`tigers.v1.Coordinator` or
/// `tigers.v1.Solve`).
pub const SERVES_KEY: &str = "tigers-serves";

/// This build's version, which the sentences name.
const BUILD_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The package every path of the builds before the split began with: their one service,
/// whose name the training service kept.
const OLD_SERVICE_PATH: &str = "/tigers.v1.Coordinator/";

/// The solve's calls as the builds before the split made them, under their one service.
const OLD_SOLVE_METHODS: [&str; 3] = ["SolveWork", "FetchLayer", "SubmitSlice"];

/// A service of the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Service {
	/// `tigers.v1.Coordinator`: a run's joins, nets, sessions and tablebase, served by a
	/// coordinator that trains.
	Training,
	/// `tigers.v1.Solve`: the placement phase's slices, layers and movement table, served by a
	/// coordinator that solves.
	Solve,
	/// `tigers.v1.Observe`: progress, served by both.
	Observe,
}

impl Service {
	/// Every service.
	pub const ALL: [Service; 3] = [Service::Training, Service::Solve, Service::Observe];

	/// The service's full name, as its paths begin (`tigers.v1.Solve`).
	pub const fn name(self) -> &'static str {
		match self {
			Service::Training => v1::coordinator_server::SERVICE_NAME,
			Service::Solve => v1::solve_server::SERVICE_NAME,
			Service::Observe => v1::observe_server::SERVICE_NAME,
		}
	}

	/// The service with this full name, if it is one of the cluster's.
	pub fn from_name(name: &str) -> Option<Service> {
		Service::ALL
			.into_iter()
			.find(|service| service.name() == name)
	}

	/// Who serves it, as the end of a sentence: "a coordinator that trains (`coordinator
	/// serve`)".
	pub const fn server(self) -> &'static str {
		match self {
			Service::Training => "a coordinator that trains (`coordinator serve`)",
			Service::Solve => "a coordinator that solves the placement phase (`coordinator solve`)",
			Service::Observe => "a Tigers and Sheep coordinator",
		}
	}
}

/// What a coordinator whose kind serves `serves` answers a call of `path` that none of its
/// services takes: `UNIMPLEMENTED`, saying what it is, with [`SERVES_KEY`]. The exception is a
/// solve's call as the builds before the split made it (`/tigers.v1.Coordinator/SolveWork`),
/// at a coordinator that solves: `FAILED_PRECONDITION`, telling the worker to upgrade, which
/// such a worker takes as final instead of asking again forever.
pub fn unserved_status(serves: Service, path: &str) -> Status {
	let quoted = quote(path);
	let old_solve_call = path
		.strip_prefix(OLD_SERVICE_PATH)
		.is_some_and(|method| OLD_SOLVE_METHODS.contains(&method));
	if serves == Service::Solve && old_solve_call {
		return Status::failed_precondition(format!(
			"this worker calls the solve as {quoted}, as builds before the solve had a service of \
			 its own did; this coordinator (build {BUILD_VERSION}) serves it as {}: upgrade the \
			 worker to build {BUILD_VERSION}",
			Service::Solve.name()
		));
	}
	let mut metadata = MetadataMap::new();
	metadata.insert(SERVES_KEY, MetadataValue::from_static(serves.name()));
	Status::with_metadata(
		Code::Unimplemented,
		format!(
			"this is {} (build {BUILD_VERSION}): it serves {} and {}, not {quoted}",
			serves.server(),
			serves.name(),
			Service::Observe.name()
		),
		metadata,
	)
}

/// At most the first 64 characters of a path a peer sent, quoted.
fn quote(path: &str) -> String {
	let head: String = path.chars().take(64).collect();
	if head.len() < path.len() {
		format!("{head:?}...")
	} else {
		format!("{head:?}")
	}
}

/// The sentence for a call of `wanted` that the server at `url` answered with `status`, if
/// that is `UNIMPLEMENTED`: the server serves no `wanted`, so it is another kind of coordinator
/// (named, when it said which) or not a coordinator of this build. `None` for any other status.
pub fn unserved(url: &str, wanted: Service, status: &Status) -> Option<String> {
	if status.code() != Code::Unimplemented {
		return None;
	}
	let reached = status
		.metadata()
		.get(SERVES_KEY)
		.and_then(|value| value.to_str().ok())
		.and_then(Service::from_name);
	Some(match reached {
		Some(reached) if reached != wanted => {
			format!(
				"the server at {url} is {}, not {}",
				reached.server(),
				wanted.server()
			)
		}
		_ => format!(
			"the server at {url} does not serve {} (UNIMPLEMENTED), so it is not {} of build \
			 {BUILD_VERSION}'s protocol: it is another program, or a coordinator of an older build",
			wanted.name(),
			wanted.server()
		),
	})
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn names_are_the_generated_services() {
		assert_eq!(Service::Training.name(), "tigers.v1.Coordinator");
		assert_eq!(Service::Solve.name(), "tigers.v1.Solve");
		assert_eq!(Service::Observe.name(), "tigers.v1.Observe");
		for service in Service::ALL {
			assert_eq!(Service::from_name(service.name()), Some(service));
		}
		assert_eq!(Service::from_name("tigers.v1.Other"), None);
	}

	#[test]
	fn a_client_says_which_kind_of_coordinator_it_reached() {
		let url = "http://coord:50051";
		let at_solve = unserved_status(Service::Solve, "/tigers.v1.Coordinator/Join");
		assert_eq!(at_solve.code(), Code::Unimplemented);
		assert!(at_solve.message().contains("solves"), "{at_solve:?}");
		let sentence = unserved(url, Service::Training, &at_solve).expect("a sentence");
		assert_eq!(
			sentence,
			"the server at http://coord:50051 is a coordinator that solves the placement phase \
			 (`coordinator solve`), not a coordinator that trains (`coordinator serve`)"
		);
		let at_training = unserved_status(Service::Training, "/tigers.v1.Solve/SolveWork");
		let sentence = unserved(url, Service::Solve, &at_training).expect("a sentence");
		assert!(
			sentence.contains(
				"is a coordinator that trains (`coordinator serve`), not a coordinator that solves"
			),
			"{sentence}"
		);
	}

	#[test]
	fn a_server_that_does_not_say_is_not_a_coordinator_of_this_build() {
		let bare = Status::unimplemented("");
		let sentence = unserved("http://other:1", Service::Observe, &bare).expect("a sentence");
		assert!(
			sentence.starts_with("the server at http://other:1 does not serve tigers.v1.Observe"),
			"{sentence}"
		);
		assert!(sentence.contains("older build"), "{sentence}");
		assert_eq!(
			unserved(
				"http://coord:1",
				Service::Training,
				&Status::not_found("no")
			),
			None
		);
	}

	#[test]
	fn an_older_solve_worker_is_told_to_upgrade_and_stops() {
		for method in OLD_SOLVE_METHODS {
			let path = format!("/tigers.v1.Coordinator/{method}");
			let refused = unserved_status(Service::Solve, &path);
			assert_eq!(refused.code(), Code::FailedPrecondition, "{method}");
			assert!(
				refused.message().contains("upgrade the worker"),
				"{refused:?}"
			);
			// A coordinator that trains serves `tigers.v1.Coordinator` itself: such a call
			// never reaches its fallback, and would be just another unserved path there.
			let elsewhere = unserved_status(Service::Training, &path);
			assert_eq!(elsewhere.code(), Code::Unimplemented);
		}
		let join = unserved_status(Service::Solve, "/tigers.v1.Coordinator/Join");
		assert_eq!(join.code(), Code::Unimplemented);
	}

	#[test]
	fn a_long_path_is_quoted_in_part() {
		let path = format!("/{}", "x".repeat(1000));
		let status = unserved_status(Service::Training, &path);
		assert!(status.message().len() < 300, "{}", status.message());
		assert!(status.message().ends_with("..."), "{}", status.message());
	}
}
