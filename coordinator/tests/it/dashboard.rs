//! The remote dashboard against a coordinator in this process: `tui dashboard`'s feed follows
//! the real progress stream over a loopback socket, and the screen drawn from it shows the run;
//! a wrong token ends the feed with the coordinator's refusal; a stopping coordinator ends it.

use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tigers_dashboard::{Dashboard, FeedEvent, FeedSettings, follow};
use tigers_proto::client::ClientSettings;

use crate::common::{
	batch_message, client, join_request, next_ack, real_batch, session, start, temp_dir,
	test_config,
};

/// Long enough for a loaded machine; the test waits for events, never for the clock.
const WAIT: Duration = Duration::from_secs(60);

fn settings(address: std::net::SocketAddr, token: Option<&str>) -> FeedSettings {
	FeedSettings {
		url: format!("http://{address}"),
		client: ClientSettings {
			token: token.map(str::to_string),
			tls_ca: None,
		},
		interval: Duration::from_millis(100),
	}
}

/// The next event, waiting on a blocking thread so the server keeps running.
async fn next_event(events: Receiver<FeedEvent>) -> (FeedEvent, Receiver<FeedEvent>) {
	tokio::task::spawn_blocking(move || {
		let event = events.recv_timeout(WAIT).expect("an event in time");
		(event, events)
	})
	.await
	.expect("the waiting thread")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_remote_dashboard_shows_the_live_run() {
	let temp = temp_dir("dashboard");
	let running = start(test_config(temp.to_path_buf(), Some("secret"))).await;
	let (sender, mut events) = channel();
	let feed = tokio::spawn(follow(settings(running.address, Some("secret")), sender));

	// A worker joins and sends a batch of real games.
	let mut worker = client(running.address, Some("secret")).await;
	let mut join = join_request("w-dash");
	join.name = "lab-box-7".to_string();
	let secret = worker.join(join).await.unwrap().into_inner().worker_secret;
	let (batches, mut inbound, _) = session(&mut worker, "w-dash", &secret).await;
	batches
		.send(batch_message(real_batch(1, 0, 21)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);

	// Snapshots arrive until one shows the batch.
	let mut dashboard = Dashboard::new(format!("http://{}", running.address));
	let deadline = Instant::now() + WAIT;
	loop {
		let (event, rest) = next_event(events).await;
		events = rest;
		match event {
			FeedEvent::Progress(progress) => {
				let done = progress.samples_total > 0;
				dashboard.receive(*progress);
				if done {
					break;
				}
			}
			other => panic!("the feed should be live, got {other:?}"),
		}
		assert!(Instant::now() < deadline, "no snapshot showed the batch");
	}
	let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
	terminal
		.draw(|frame| frame.render_widget(&dashboard, frame.area()))
		.unwrap();
	let screen = terminal.backend().to_string();
	assert!(screen.contains("LIVE"), "{screen}");
	assert!(screen.contains("· generation 0"), "{screen}");
	let samples = dashboard.progress().unwrap().samples_total;
	assert!(
		screen.contains(&tigers_dashboard::format::count(samples)),
		"{screen}"
	);
	dashboard.handle_key(ratatui::crossterm::event::KeyEvent::new(
		ratatui::crossterm::event::KeyCode::Char('3'),
		ratatui::crossterm::event::KeyModifiers::NONE,
	));
	terminal
		.draw(|frame| frame.render_widget(&dashboard, frame.area()))
		.unwrap();
	let fleet = terminal.backend().to_string();
	assert!(fleet.contains("lab-box-7"), "{fleet}");

	// Stopping the coordinator ends the stream; the feed says so and keeps trying.
	drop(batches);
	running.stop().await;
	loop {
		let (event, rest) = next_event(events).await;
		events = rest;
		match event {
			FeedEvent::Progress(_) => continue,
			FeedEvent::Ended | FeedEvent::Lost(_) => break,
			FeedEvent::Refused(reason) => panic!("a stop is not a refusal: {reason}"),
		}
	}
	drop(events);
	feed.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_ends_the_feed_with_the_reason() {
	let temp = temp_dir("dashboard-token");
	let running = start(test_config(temp.to_path_buf(), Some("secret"))).await;
	let (sender, events) = channel();
	let feed = tokio::spawn(follow(settings(running.address, Some("wrong")), sender));
	let (event, _events) = next_event(events).await;
	match event {
		FeedEvent::Refused(reason) => {
			assert!(reason.contains("Unauthenticated"), "{reason}");
		}
		other => panic!("expected a refusal, got {other:?}"),
	}
	feed.await.expect("the feed stops by itself");
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_follows_a_tls_coordinator_it_trusts() {
	let data = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../worker/tests/data");
	let temp = temp_dir("dashboard-tls");
	let mut config = test_config(temp.to_path_buf(), None);
	config.tls = Some((
		data.join("test-coordinator.pem"),
		data.join("test-coordinator.key"),
	));
	let running = start(config).await;
	let mut feed_settings = settings(running.address, None);
	feed_settings.url = format!("https://127.0.0.1:{}", running.address.port());
	feed_settings.client.tls_ca = Some(data.join("test-coordinator.pem"));
	let (sender, events) = channel();
	let feed = tokio::spawn(follow(feed_settings, sender));
	let (event, events) = next_event(events).await;
	assert!(
		matches!(event, FeedEvent::Progress(_)),
		"a snapshot over TLS, got {event:?}"
	);
	drop(events);
	feed.abort();

	// Without the certificate to trust, https is refused before any connection is tried.
	let mut untrusting = settings(running.address, None);
	untrusting.url = format!("https://127.0.0.1:{}", running.address.port());
	let (sender, events) = channel();
	let feed = tokio::spawn(follow(untrusting, sender));
	let (event, _events) = next_event(events).await;
	match event {
		FeedEvent::Refused(reason) => assert!(reason.contains("--tls-ca"), "{reason}"),
		other => panic!("expected a refusal, got {other:?}"),
	}
	feed.await.expect("the feed stops by itself");
	running.stop().await;
}
