//! The progress feed: follows a coordinator's `WatchProgress` stream (`tigers.v1.Observe`, which
//! both kinds of coordinator serve) over gRPC and hands each snapshot to the dashboard through
//! a channel, reconnecting when the stream breaks.
//!
//! Network trouble (no answer, a broken stream, a coordinator restarting) is retried with a
//! growing pause, and the dashboard shows it as such. A refusal that retrying cannot cure (a
//! wrong token, a URL that is not a coordinator) ends the feed with the coordinator's words.

use std::sync::mpsc::Sender;
use std::time::Duration;

use tigers_proto::client::{CONNECT_TIMEOUT, ClientSettings, Connector, error_chain};
use tigers_proto::services::{Service, unserved};
use tigers_proto::v1;
use tonic::Code;

/// The first pause before reconnecting; it doubles up to [`MAX_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(500);
/// The longest pause before reconnecting.
const MAX_RETRY: Duration = Duration::from_secs(10);

/// What the feed tells the dashboard.
#[derive(Debug)]
pub enum FeedEvent {
	/// A snapshot.
	Progress(Box<v1::Progress>),
	/// The stream broke or could not start; the feed tries again.
	Lost(String),
	/// The coordinator ended the stream (it is stopping); the feed tries again.
	Ended,
	/// The coordinator refused in a way retrying cannot cure; the feed has stopped.
	Refused(String),
}

/// Where and how to watch.
#[derive(Clone, Debug)]
pub struct FeedSettings {
	/// The coordinator's URL.
	pub url: String,
	/// Token and TLS.
	pub client: ClientSettings,
	/// How often the coordinator should send a snapshot.
	pub interval: Duration,
}

/// Follows the coordinator until `events` is dropped or it refuses for good.
pub async fn follow(settings: FeedSettings, events: Sender<FeedEvent>) {
	let mut pause = FIRST_RETRY;
	loop {
		let outcome = watch_once(&settings, &events, &mut pause).await;
		let event = match outcome {
			Watch::Closed => return,
			Watch::Refused(reason) => {
				let _ = events.send(FeedEvent::Refused(reason));
				return;
			}
			Watch::Lost(reason) => FeedEvent::Lost(reason),
			Watch::Ended => FeedEvent::Ended,
		};
		if events.send(event).is_err() {
			return;
		}
		tokio::time::sleep(pause).await;
		pause = (pause * 2).min(MAX_RETRY);
	}
}

enum Watch {
	/// The dashboard went away.
	Closed,
	Refused(String),
	Lost(String),
	Ended,
}

async fn watch_once(
	settings: &FeedSettings,
	events: &Sender<FeedEvent>,
	pause: &mut Duration,
) -> Watch {
	let url = &settings.url;
	let connector = match Connector::new(url, &settings.client, CONNECT_TIMEOUT) {
		Ok(connector) => connector.with_keep_alive(),
		Err(reason) => return Watch::Refused(format!("cannot use {url}: {reason}")),
	};
	let mut client = match connector.connect_observing().await {
		Ok(client) => client,
		Err(e) => return Watch::Lost(format!("no answer at {url}: {}", error_chain(&e))),
	};
	let interval_ms = u32::try_from(settings.interval.as_millis()).unwrap_or(u32::MAX);
	let mut stream = match client
		.watch_progress(v1::WatchRequest { interval_ms })
		.await
	{
		Ok(response) => response.into_inner(),
		Err(status) => return refusal(url, &status),
	};
	loop {
		match stream.message().await {
			Ok(Some(progress)) => {
				*pause = FIRST_RETRY;
				if events
					.send(FeedEvent::Progress(Box::new(progress)))
					.is_err()
				{
					return Watch::Closed;
				}
			}
			Ok(None) => return Watch::Ended,
			Err(status) => return refusal(url, &status),
		}
	}
}

/// A status from the coordinator at `url` as a reason to retry or to give up; a server that
/// serves no progress is told as what it is.
fn refusal(url: &str, status: &tonic::Status) -> Watch {
	if let Some(sentence) = unserved(url, Service::Observe, status) {
		return Watch::Refused(sentence);
	}
	let words = format!("{:?}: {}", status.code(), status.message());
	match status.code() {
		Code::Unauthenticated
		| Code::PermissionDenied
		| Code::InvalidArgument
		| Code::Unimplemented => Watch::Refused(format!("the coordinator refused: {words}")),
		_ => Watch::Lost(words),
	}
}
