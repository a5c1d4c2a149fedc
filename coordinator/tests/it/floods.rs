//! What any token holder could pile up: joins under ever new identities and progress streams.
//! Past their limits they are refused with RESOURCE_EXHAUSTED, and known workers, status and
//! the process's memory are unaffected.

use std::time::{Duration, Instant};

use tigers_proto::v1;
use tonic::Code;

use crate::common::*;

/// The process's resident memory, in MiB (the coordinator under test runs in this process).
fn resident_mib() -> f64 {
	let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
	let kib: f64 = status
		.lines()
		.find_map(|line| line.strip_prefix("VmRSS:"))
		.and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
		.expect("a VmRSS line");
	kib / 1024.0
}

/// `Status` answered, and how long it took.
async fn timed_status(client: &mut Client) -> (v1::Progress, Duration) {
	let asked = Instant::now();
	let progress = status(client).await;
	(progress, asked.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_flood_is_refused_past_the_limit_and_known_workers_are_not() {
	const PER_MINUTE: u32 = 100;
	const JOINS: usize = 5_000;
	let dir = temp_dir("join-flood");
	let mut config = test_config(dir.to_path_buf(), None);
	config.limits.new_workers_per_minute = PER_MINUTE;
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "known").await;

	// One connection for the flood, shared by its calls, as one client would flood.
	let channel = tonic::transport::Channel::from_shared(format!("http://{}", running.address))
		.unwrap()
		.connect()
		.await
		.unwrap();
	let flooding = v1::coordinator_client::CoordinatorClient::new(channel);
	let started = Instant::now();
	let mut accepted = 0;
	let mut refused = 0;
	for wave in 0..JOINS / 100 {
		let calls = (0..100).map(|n| {
			let mut client = flooding.clone();
			async move {
				client
					.join(join_request(&format!("flood-{wave}-{n}")))
					.await
			}
		});
		for answer in side_by_side(calls).await {
			match answer {
				Ok(_) => accepted += 1,
				Err(status) => {
					assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
					assert!(status.message().contains("too many new worker identities"));
					let wait: u64 = status
						.metadata()
						.get(tigers_proto::RETRY_AFTER_KEY)
						.expect("a retry hint")
						.to_str()
						.unwrap()
						.parse()
						.unwrap();
					assert!((1..=60).contains(&wait), "{wait}");
					refused += 1;
				}
			}
		}
		// A worker the run knows joins again whatever the flood.
		if wave % 10 == 0 {
			client
				.join(join_with("known", &secret))
				.await
				.expect("a known worker is never refused for the flood");
		}
	}
	let minutes = started.elapsed().as_secs_f64() / 60.0;
	let most = PER_MINUTE as usize + (minutes * f64::from(PER_MINUTE)).ceil() as usize;
	assert!(
		(PER_MINUTE as usize..=most).contains(&accepted),
		"{accepted} new identities taken in {minutes:.2} minutes"
	);
	assert_eq!(accepted + refused, JOINS);

	let (progress, took) = timed_status(&mut client).await;
	assert!(took < Duration::from_secs(1), "status took {took:?}");
	assert_eq!(progress.new_workers_refused, refused as u64);
	running.stop().await;
	let ledger = tigers_coordinator::Ledger::open(&dir.join("ledger.sqlite")).unwrap();
	assert_eq!(ledger.workers().unwrap().len(), accepted + 1);
}

/// Runs the futures side by side; their outputs in order.
async fn side_by_side<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
	F: Future + Send + 'static,
	F::Output: Send + 'static,
{
	let handles: Vec<_> = futures.map(tokio::spawn).collect();
	let mut outputs = Vec::with_capacity(handles.len());
	for handle in handles {
		outputs.push(handle.await.expect("the call's task"));
	}
	outputs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_streams_past_the_limits_are_refused_and_status_stays_quick() {
	// The resident memory below is the whole process's: no heavy test beside it, and what
	// tests before it left in the allocator's keeping is counted out.
	let _apart = MEMORY_WEIGHED.lock().await;
	let before = resident_mib();
	const ATTEMPTS: usize = 2_000;
	const PER_CONNECTION: usize = 16;
	const IN_ALL: usize = 200;
	let dir = temp_dir("watch-flood");
	let mut config = test_config(dir.to_path_buf(), None);
	config.limits.max_watchers = IN_ALL;
	config.limits.max_watchers_per_connection = PER_CONNECTION;
	let running = start(config).await;

	// Each connection asks for more than its share; together they ask for ten times the total.
	let mut open = Vec::new();
	let mut refusals = Vec::new();
	for _ in 0..ATTEMPTS / (PER_CONNECTION + 4) {
		let mut connection = client(running.address, None).await;
		for _ in 0..PER_CONNECTION + 4 {
			match connection
				.observe
				.watch_progress(v1::WatchRequest { interval_ms: 100 })
				.await
			{
				Ok(stream) => open.push(stream.into_inner()),
				Err(status) => {
					assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
					refusals.push(status.message().to_string());
				}
			}
		}
	}
	assert_eq!(open.len(), IN_ALL);
	assert_eq!(open.len() + refusals.len(), ATTEMPTS);
	assert!(refusals.iter().any(|m| m.contains("16 on one connection")));
	assert!(refusals.iter().any(|m| m.contains("200 in all")));
	// The open streams are live, and status stays quick beside them.
	for stream in open.iter_mut().take(5) {
		tokio::time::timeout(WAIT, stream.message())
			.await
			.expect("a snapshot in time")
			.expect("a snapshot")
			.expect("the stream is open");
	}
	let mut client = client(running.address, None).await;
	let (progress, took) = timed_status(&mut client).await;
	assert!(took < Duration::from_secs(1), "status took {took:?}");
	assert_eq!(progress.watchers_refused, refusals.len() as u64);
	let grown = resident_mib() - before;
	assert!(grown < 200.0, "{grown:.0} MiB more resident");

	// Streams that close free their places at once.
	open.truncate(IN_ALL - 10);
	let deadline = Instant::now() + WAIT;
	let mut reopened = 0;
	while reopened < 10 {
		assert!(
			Instant::now() < deadline,
			"closed streams did not free their places"
		);
		let mut connection = crate::common::client(running.address, None).await;
		match connection
			.observe
			.watch_progress(v1::WatchRequest { interval_ms: 100 })
			.await
		{
			Ok(stream) => {
				open.push(stream.into_inner());
				reopened += 1;
			}
			Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
		}
	}
	drop(open);
	running.stop().await;
}
