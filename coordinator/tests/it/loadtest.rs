//! `worker loadtest` against a real coordinator on loopback: simulated workers are registered,
//! their batches stored and counted, and a wrong token shows as errors.

use std::time::Duration;

use tigers_worker::{LoadtestSettings, WorkerConfig, loadtest};

use crate::common::*;

/// The summary line's figures by name, checking its exact shape.
fn parse_line(line: &str) -> Vec<(String, f64)> {
	let words: Vec<&str> = line.split(' ').collect();
	let names: Vec<&str> = words.iter().step_by(2).copied().collect();
	assert_eq!(
		names,
		[
			"sessions",
			"batches/s",
			"samples/s",
			"ack_p50_ms",
			"ack_p99_ms",
			"errors"
		],
		"{line}"
	);
	words
		.chunks(2)
		.map(|pair| (pair[0].to_string(), pair[1].parse().expect("a number")))
		.collect()
}

fn figure(figures: &[(String, f64)], name: &str) -> f64 {
	figures.iter().find(|(n, _)| n == name).expect(name).1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulated_workers_get_their_batches_stored() {
	let dir = temp_dir("loadtest");
	let mut coordinator = test_config(dir.to_path_buf(), Some("right"));
	coordinator.limits.accept_loadtest = true;
	let running = start(coordinator).await;
	let mut config = WorkerConfig::new(format!("http://{}", running.address));
	config.token = Some("right".into());
	let settings = LoadtestSettings {
		in_flight: 2,
		..LoadtestSettings::new(3, Duration::from_secs(2))
	};
	let report = loadtest(&config, &settings).await.expect("a report");
	let line = report.to_string();
	let figures = parse_line(&line);
	assert_eq!(figure(&figures, "sessions"), 3.0);
	assert_eq!(
		figure(&figures, "errors"),
		0.0,
		"{line}: {:?}",
		report.first_error
	);
	assert!(figure(&figures, "batches/s") > 0.0, "{line}");
	assert!(figure(&figures, "samples/s") > 0.0, "{line}");
	assert!(figure(&figures, "ack_p99_ms") >= figure(&figures, "ack_p50_ms"));
	assert_eq!(report.opened, 3);
	assert_eq!(report.per_second.len(), 2);
	assert_eq!(report.table().lines().count(), 3);

	// The coordinator registered three identities and stored at least what was acknowledged.
	let mut client = client(running.address, Some("right")).await;
	let status = status(&mut client).await;
	let simulated: Vec<_> = status
		.workers
		.iter()
		.filter(|w| w.worker_id.starts_with("loadtest-"))
		.collect();
	assert_eq!(simulated.len(), 3, "{:?}", status.workers);
	assert!(simulated.iter().all(|w| w.samples > 0));
	assert!(status.samples_total >= report.samples, "{line}");
	assert!(status.samples_total > 0);
	running.stop().await;
	let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_a_rate_the_sessions_send_no_more_than_offered() {
	let dir = temp_dir("loadtest-rate");
	let mut coordinator = test_config(dir.to_path_buf(), None);
	coordinator.limits.accept_loadtest = true;
	let running = start(coordinator).await;
	let config = WorkerConfig::new(format!("http://{}", running.address));
	// Four sessions sharing 20 batches a second: each sends every 200 ms, 15 in 3 s.
	let settings = LoadtestSettings {
		rate: Some(20),
		..LoadtestSettings::new(4, Duration::from_secs(3))
	};
	let report = loadtest(&config, &settings).await.expect("a report");
	let line = report.to_string();
	let rest = line
		.strip_prefix("offered_batches/s 20 ")
		.unwrap_or_else(|| panic!("no offered rate first: {line}"));
	let figures = parse_line(rest);
	assert_eq!(
		figure(&figures, "errors"),
		0.0,
		"{line}: {:?}",
		report.first_error
	);
	assert!(report.batches > 0, "{line}");
	assert!(report.batches <= 60, "more than offered: {line}");
	// The coordinator stored every batch acknowledged.
	let mut client = client(running.address, None).await;
	let status = status(&mut client).await;
	assert!(status.samples_total >= report.samples, "{line}");
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_past_the_limit_on_new_identities_wait_and_join() {
	let dir = temp_dir("loadtest-limit");
	let mut coordinator = test_config(dir.to_path_buf(), None);
	coordinator.limits.accept_loadtest = true;
	// Sixty at once, then one a second: the last two sessions are told to wait.
	coordinator.limits.new_workers_per_minute = 60;
	let running = start(coordinator).await;
	let config = WorkerConfig::new(format!("http://{}", running.address));
	let report = loadtest(&config, &LoadtestSettings::new(62, Duration::from_secs(1)))
		.await
		.expect("a report");
	assert_eq!(report.opened, 62, "{:?}", report.first_error);
	assert_eq!(report.errors, 0, "{:?}", report.first_error);
	let mut client = client(running.address, None).await;
	let status = status(&mut client).await;
	assert!(status.new_workers_refused >= 1, "nobody had to wait");
	assert_eq!(status.workers_known, 62);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_is_counted_as_errors() {
	let dir = temp_dir("loadtest-token");
	let running = start(test_config(dir.to_path_buf(), Some("right"))).await;
	let mut config = WorkerConfig::new(format!("http://{}", running.address));
	config.token = Some("wrong".into());
	let report = loadtest(&config, &LoadtestSettings::new(2, Duration::from_secs(1)))
		.await
		.expect("a report");
	let figures = parse_line(&report.to_string());
	assert_eq!(figure(&figures, "errors"), 2.0);
	assert_eq!(figure(&figures, "batches/s"), 0.0);
	let why = report.first_error.expect("a reason");
	assert!(
		why.contains("Unauthenticated") || why.contains("token"),
		"{why}"
	);
	let mut client = client(running.address, Some("right")).await;
	assert_eq!(status(&mut client).await.samples_total, 0);
	running.stop().await;
	let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_not_started_for_load_tests_refuses_them_and_keeps_nothing() {
	let dir = temp_dir("loadtest-refused");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let config = WorkerConfig::new(format!("http://{}", running.address));
	let report = loadtest(&config, &LoadtestSettings::new(2, Duration::from_secs(1)))
		.await
		.expect("a report");
	let figures = parse_line(&report.to_string());
	assert_eq!(figure(&figures, "errors"), 2.0);
	assert_eq!(report.opened, 0);
	let why = report.first_error.expect("a reason");
	assert!(why.contains("--accept-loadtest"), "{why}");
	let mut client = client(running.address, None).await;
	let status = status(&mut client).await;
	assert_eq!(status.samples_total, 0);
	assert!(status.workers.is_empty(), "{:?}", status.workers);
	assert_eq!(status.workers_known, 0);
	running.stop().await;
	let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn nonsense_settings_are_refused() {
	let config = WorkerConfig::new("http://127.0.0.1:1");
	for settings in [
		LoadtestSettings::new(0, Duration::from_secs(1)),
		LoadtestSettings::new(1, Duration::ZERO),
		LoadtestSettings {
			in_flight: 0,
			..LoadtestSettings::new(1, Duration::from_secs(1))
		},
		LoadtestSettings {
			rate: Some(0),
			..LoadtestSettings::new(1, Duration::from_secs(1))
		},
	] {
		assert!(loadtest(&config, &settings).await.is_err(), "{settings:?}");
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offered_more_than_it_takes_the_coordinator_slows_sessions_and_ends_none() {
	// Its batches in flight take hundreds of megabytes: not beside a test that weighs the
	// process.
	let _apart = MEMORY_WEIGHED.lock().await;
	let dir = temp_dir("loadtest-overload");
	let mut coordinator = test_config(dir.to_path_buf(), None);
	coordinator.limits.accept_loadtest = true;
	// Far shorter than a batch waits for the ledger here: a session whose batches wait is not
	// ended for a silence of the coordinator's own making. The simulated workers heartbeat
	// more often than that, as real ones do within the default timeout.
	// (With 1 s and the idle timeout counting every silence, 7 of the 100 sessions ended; 3 s
	// leaves room for a load generator short of cores beside the other tests of this process.)
	coordinator.limits.session_idle_timeout = Duration::from_secs(3);
	let running = start(coordinator).await;
	let config = WorkerConfig::new(format!("http://{}", running.address));
	// Every session keeps twice as many batches unacknowledged as the coordinator reads from
	// one at a time, sending as fast as acknowledgements allow: far more than it stores.
	let settings = LoadtestSettings {
		in_flight: 64,
		heartbeat: Duration::from_millis(250),
		..LoadtestSettings::new(100, Duration::from_secs(4))
	};
	let report = loadtest(&config, &settings).await.expect("a report");
	let line = report.to_string();
	let figures = parse_line(&line);
	assert_eq!(
		figure(&figures, "errors"),
		0.0,
		"{line}: {:?}",
		report.first_error
	);
	assert_eq!(report.opened, 100);
	assert!(report.batches > 0, "{line}");
	let mut client = client(running.address, None).await;
	let status = status(&mut client).await;
	assert!(status.samples_total >= report.samples, "{line}");
	running.stop().await;
}
