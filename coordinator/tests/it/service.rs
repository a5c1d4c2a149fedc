//! The gRPC service in process: joins, sessions, acknowledgements, duplicates, refusals.

use tigers_proto::v1;
use tonic::Code;

use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_streams_samples_and_gets_acks() {
	let temp = temp_dir("session");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let joined = client.join(join_request("w1")).await.unwrap().into_inner();
	assert_eq!(joined.last_acked_sequence, 0);
	let secret = joined.worker_secret;
	let (sender, mut inbound, assignment) = session(&mut client, "w1", &secret).await;
	assert_eq!(assignment.generation, 0);
	let net = client
		.fetch_net(v1::FetchNetRequest {
			generation: 0,
			latest: false,
			best: false,
		})
		.await
		.unwrap()
		.into_inner();
	assert_eq!(net.sha256, assignment.sha256);
	assert_eq!(
		tigers_core::network::file::sha256_hex(&net.safetensors),
		net.sha256
	);
	tigers_core::Network::from_bytes(&net.safetensors).expect("a readable net");

	let batch = real_batch(1, 0, 7);
	let count = batch.samples.len() as u64;
	sender.send(batch_message(batch)).await.unwrap();
	let ack = next_ack(&mut inbound).await.unwrap();
	assert_eq!((ack.sequence, ack.accepted), (1, true));
	let status = client
		.observe
		.status(v1::StatusRequest {})
		.await
		.unwrap()
		.into_inner();
	assert_eq!(status.samples_total, count);
	assert_eq!(status.games_total, 1);
	let worker = status
		.workers
		.iter()
		.find(|w| w.worker_id == "w1")
		.expect("the worker is listed");
	assert!(worker.connected);
	assert_eq!(worker.samples, count);
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_another_run_is_refused_and_the_session_goes_on() {
	let dir = temp_dir("other-run");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let joined = client
		.join(join_request("w-run"))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(joined.run_id, TEST_RUN);
	let (sender, mut inbound, _) = session(&mut client, "w-run", &joined.worker_secret).await;
	for (run, says) in [
		(
			"0000000000000000000000000000dead",
			"was played for run \"0000",
		),
		("", "names no run"),
	] {
		let batch = v1::SampleBatch {
			run_id: run.into(),
			..real_batch(1, 0, 5)
		};
		sender.send(batch_message(batch)).await.unwrap();
		let refused = loop {
			let message = tokio::time::timeout(WAIT, inbound.message())
				.await
				.expect("an answer in time")
				.expect("the session goes on")
				.expect("the stream stays open");
			match message.body {
				Some(v1::coordinator_message::Body::Refused(refused)) => break refused,
				Some(v1::coordinator_message::Body::Ack(ack)) => panic!("acknowledged: {ack:?}"),
				_ => {}
			}
		};
		assert_eq!((refused.sequence, refused.run_id.as_str()), (1, TEST_RUN));
		assert!(refused.reason.contains(says), "{}", refused.reason);
		assert!(refused.reason.contains(TEST_RUN), "{}", refused.reason);
	}
	// Nothing was stored or used up: batch 1 of this run is the next one taken.
	let batch = real_batch(1, 0, 6);
	let count = batch.samples.len() as u64;
	sender.send(batch_message(batch)).await.unwrap();
	let ack = next_ack(&mut inbound).await.unwrap();
	assert_eq!((ack.sequence, ack.accepted), (1, true));
	let progress = status(&mut client).await;
	assert_eq!(progress.run_id, TEST_RUN);
	assert_eq!(progress.samples_total, count);
	let refused: Vec<(String, u64)> = progress
		.rejections
		.iter()
		.map(|r| (r.reason.clone(), r.count))
		.collect();
	assert_eq!(refused, [("run".to_string(), 2)]);
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_batch_is_not_counted_twice() {
	let dir = temp_dir("duplicate");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w2").await;
	let (sender, mut inbound, _) = session(&mut client, "w2", &secret).await;
	let batch = real_batch(1, 0, 8);
	let count = batch.samples.len() as u64;
	sender.send(batch_message(batch.clone())).await.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	sender.send(batch_message(batch)).await.unwrap();
	let again = next_ack(&mut inbound).await.unwrap();
	assert_eq!((again.sequence, again.accepted), (1, false));
	let status = client
		.observe
		.status(v1::StatusRequest {})
		.await
		.unwrap()
		.into_inner();
	assert_eq!(status.samples_total, count);
	let rejoined = client
		.join(join_with("w2", &secret))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(rejoined.last_acked_sequence, 1);
	assert_eq!(rejoined.worker_secret, "", "the identity keeps its secret");
	drop(sender);
	running.stop().await;

	// After a restart on the same run directory, the counts and the sequence are still there.
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = crate::common::client(running.address, None).await;
	let status = client
		.observe
		.status(v1::StatusRequest {})
		.await
		.unwrap()
		.into_inner();
	assert_eq!(status.samples_total, count);
	assert_eq!(
		client
			.join(join_with("w2", &secret))
			.await
			.unwrap()
			.into_inner()
			.last_acked_sequence,
		1
	);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_token_is_unauthenticated() {
	let temp = temp_dir("token");
	let running = start(test_config(temp.to_path_buf(), Some("right"))).await;
	let mut wrong = client(running.address, Some("wrong")).await;
	let error = wrong.join(join_request("w3")).await.unwrap_err();
	assert_eq!(error.code(), Code::Unauthenticated);
	let mut none = client(running.address, None).await;
	assert_eq!(
		none.observe
			.status(v1::StatusRequest {})
			.await
			.unwrap_err()
			.code(),
		Code::Unauthenticated
	);
	let mut right = client(running.address, Some("right")).await;
	assert!(right.join(join_request("w3")).await.is_ok());
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_samples_are_refused_and_the_coordinator_keeps_serving() {
	let temp = temp_dir("malformed");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w4").await;
	let (sender, mut inbound, _) = session(&mut client, "w4", &secret).await;
	let mut bad = real_batch(1, 0, 9);
	bad.samples[0].tigers = 0b11111; // five tigers
	sender.send(batch_message(bad)).await.unwrap();
	let refused = next_ack(&mut inbound).await.unwrap_err();
	assert_eq!(refused.code(), Code::InvalidArgument);
	assert!(
		refused.message().contains("batch 1: sample 0"),
		"{}",
		refused.message()
	);
	assert_eq!(
		refused.metadata().get("tigers-rejected-sequence").unwrap(),
		"1"
	);

	// The same worker carries on with its next batch: the refused one used its number up.
	let rejoined = client
		.join(join_with("w4", &secret))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(rejoined.last_acked_sequence, 1);
	let (sender, mut inbound, _) = session(&mut client, "w4", &secret).await;
	sender
		.send(batch_message(real_batch(2, 0, 10)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let status = client
		.observe
		.status(v1::StatusRequest {})
		.await
		.unwrap()
		.into_inner();
	assert_eq!(status.batches_rejected, 1);
	assert_eq!(
		status
			.rejections
			.iter()
			.map(|r| (r.reason.as_str(), r.count))
			.collect::<Vec<_>>(),
		[("sample", 1)]
	);
	assert!(status.samples_total > 0);
	// The good batch is recent, from the current generation, and its game is tallied.
	assert_eq!(status.recent_samples, status.samples_total);
	assert_eq!(status.recent_superseded, 0);
	let games = status.recent_games.unwrap();
	assert_eq!(games.tiger_wins + games.sheep_wins + games.draws, 1);
	assert!(status.seconds_since_samples < 60.0);
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_mismatch_is_refused() {
	let temp = temp_dir("version");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let accepted = format!(
		"{}-{}",
		tigers_proto::MIN_WORKER_PROTOCOL,
		tigers_proto::PROTOCOL_VERSION
	);
	let refused = |error: &tonic::Status, says: &str| {
		assert_eq!(error.code(), Code::FailedPrecondition, "{error}");
		assert!(error.message().contains(says), "{}", error.message());
		assert_eq!(
			error
				.metadata()
				.get(tigers_proto::VERSION_REFUSED_KEY)
				.unwrap(),
			accepted.as_str()
		);
	};
	// A worker from before protocols were sent, and one newer than this coordinator.
	let old = v1::JoinRequest {
		build_version: "0.0.1".into(),
		protocol_version: 0,
		..join_request("w5")
	};
	let build = env!("CARGO_PKG_VERSION");
	let coordinator = format!(
		"this coordinator (build {build}, worker protocols {} to {})",
		tigers_proto::MIN_WORKER_PROTOCOL,
		tigers_proto::PROTOCOL_VERSION
	);
	refused(
		&client.join(old).await.unwrap_err(),
		&format!(
			"this worker (build \"0.0.1\", sending no protocol version) is older than {coordinator} \
			 accepts: upgrade the worker to build {build}"
		),
	);
	let new = v1::JoinRequest {
		build_version: "0.9.0".into(),
		protocol_version: tigers_proto::PROTOCOL_VERSION + 1,
		..join_request("w5")
	};
	refused(
		&client.join(new).await.unwrap_err(),
		&format!(
			"is newer than {coordinator} understands: upgrade the coordinator, or run workers of \
			 build {build}"
		),
	);
	// A worker that reads no encoding up to the run's (2, a new run's default), as a worker
	// from before encoding 2 sends 1; one that reads newer ones too is welcome (below).
	let encoding = v1::JoinRequest {
		input_version: 1,
		..join_request("w5")
	};
	refused(
		&client.join(encoding).await.unwrap_err(),
		&format!(
			"this run's nets read input encoding 2; this worker (build \"{build}\") reads \
			 encodings up to version 1 only"
		),
	);
	// The dashboards and `coordinator status` say what the last refused worker was told.
	let shown = status(&mut client).await;
	assert_eq!(shown.version_refusals, 3);
	assert!(
		shown
			.last_version_refusal
			.contains("reads encodings up to version 1 only"),
		"{}",
		shown.last_version_refusal
	);
	let newer_reader = v1::JoinRequest {
		input_version: 99,
		..join_request("w-newer-reader")
	};
	client.join(newer_reader).await.unwrap();
	// Another build speaking the same protocol is welcome.
	let other_build = v1::JoinRequest {
		build_version: "0.1.7".into(),
		..join_request("w-other-build")
	};
	client.join(other_build).await.unwrap();
	let empty = v1::JoinRequest {
		worker_id: String::new(),
		..join_request("w5")
	};
	assert_eq!(
		client.join(empty).await.unwrap_err().code(),
		Code::InvalidArgument
	);
	let missing = client
		.fetch_net(v1::FetchNetRequest {
			generation: 9,
			latest: false,
			best: false,
		})
		.await
		.unwrap_err();
	assert_eq!(missing.code(), Code::NotFound);
	running.stop().await;
}

/// Writes its bytes as they are, and reads an answer's bytes as they are.
#[derive(Clone, Copy, Default)]
struct RawBytes;

impl tonic::codec::Codec for RawBytes {
	type Encode = Vec<u8>;
	type Decode = Vec<u8>;
	type Encoder = RawBytes;
	type Decoder = RawBytes;

	fn encoder(&mut self) -> RawBytes {
		RawBytes
	}

	fn decoder(&mut self) -> RawBytes {
		RawBytes
	}
}

impl tonic::codec::Encoder for RawBytes {
	type Item = Vec<u8>;
	type Error = tonic::Status;

	fn encode(
		&mut self,
		item: Vec<u8>,
		buf: &mut tonic::codec::EncodeBuf<'_>,
	) -> Result<(), tonic::Status> {
		bytes::BufMut::put_slice(buf, &item);
		Ok(())
	}
}

impl tonic::codec::Decoder for RawBytes {
	type Item = Vec<u8>;
	type Error = tonic::Status;

	fn decode(
		&mut self,
		buf: &mut tonic::codec::DecodeBuf<'_>,
	) -> Result<Option<Vec<u8>>, tonic::Status> {
		let remaining = bytes::Buf::remaining(buf);
		Ok(Some(bytes::Buf::copy_to_bytes(buf, remaining).to_vec()))
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_that_are_no_message_are_an_invalid_argument_and_change_nothing() {
	let temp = temp_dir("raw-bytes");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let channel = tonic::transport::Channel::from_shared(format!("http://{}", running.address))
		.expect("a URL")
		.connect()
		.await
		.expect("the coordinator accepts connections");
	let mut grpc = tonic::client::Grpc::new(channel);
	// A field 1 announced as a varint whose bytes never end, then a wire type that does not
	// exist.
	let garbage = vec![
		0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f,
	];
	for bytes in [garbage, vec![0x0f; 64]] {
		grpc.ready().await.expect("the channel is ready");
		let error = grpc
			.unary(
				tonic::Request::new(bytes),
				tonic::codegen::http::uri::PathAndQuery::from_static("/tigers.v1.Coordinator/Join"),
				RawBytes,
			)
			.await
			.expect_err("bytes that are no JoinRequest are refused");
		assert_eq!(error.code(), Code::InvalidArgument, "{error}");
		assert!(
			error.message().contains("not a valid JoinRequest"),
			"{}",
			error.message()
		);
	}
	// Nothing was joined, and the coordinator goes on serving.
	let mut client = client(running.address, None).await;
	assert_eq!(status(&mut client).await.workers.len(), 0);
	join(&mut client, "after-garbage").await;
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_heartbeat_claiming_a_generation_the_run_lacks_or_no_rate_ends_its_session() {
	let temp = temp_dir("heartbeat");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "beat").await;
	let beat = |generation: Option<u64>, samples_per_second: f64| v1::WorkerMessage {
		body: Some(v1::worker_message::Body::Heartbeat(v1::Heartbeat {
			generation,
			games: 1,
			samples_per_second,
			unacked_batches: 0,
		})),
	};
	// A good one is shown.
	let (sender, mut inbound, _) = session(&mut client, "beat", &secret).await;
	sender.send(beat(Some(0), 12.5)).await.unwrap();
	let shown = status_when(&mut client, |p| {
		p.workers.iter().any(|w| w.samples_per_second == 12.5)
	})
	.await;
	assert_eq!(shown.workers[0].generation, Some(0));
	drop(sender);
	closing_status(&mut inbound).await;
	for (bad, says) in [
		(beat(Some(u64::MAX), 12.5), "generation"),
		(beat(Some(1), 12.5), "generation"),
		(beat(Some(0), f64::NAN), "samples per second"),
		(beat(Some(0), -1.0), "samples per second"),
		(beat(None, f64::INFINITY), "samples per second"),
	] {
		let (sender, mut inbound, _) = session(&mut client, "beat", &secret).await;
		sender.send(bad).await.unwrap();
		let status = closing_status(&mut inbound)
			.await
			.expect("the session ends with an error");
		assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
		assert!(status.message().contains(says), "{}", status.message());
		drop(sender);
	}
	// Nothing of them was kept: the generation is the good heartbeat's, and the rate that of a
	// worker without a session.
	let after = status(&mut client).await;
	assert_eq!(after.workers[0].generation, Some(0));
	assert_eq!(after.workers[0].samples_per_second, 0.0);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_must_follow_a_join() {
	let temp = temp_dir("nojoin");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let (sender, receiver) = tokio::sync::mpsc::channel(4);
	sender.send(open("stranger", "")).await.unwrap();
	let result = client.session(outbound(receiver)).await;
	let error = match result {
		Err(status) => status,
		Ok(response) => response.into_inner().message().await.unwrap_err(),
	};
	assert_eq!(error.code(), Code::FailedPrecondition);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_address_without_a_token_is_refused() {
	let temp = temp_dir("open");
	let mut config = test_config(temp.to_path_buf(), None);
	config.listen = "0.0.0.0:0".parse().unwrap();
	let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
	let error = tigers_coordinator::server::run(config, listener, async {})
		.await
		.unwrap_err();
	assert!(error.to_string().contains("without a token"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutting_down_ends_open_sessions() {
	let temp = temp_dir("shutdown");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w6").await;
	let (sender, mut inbound, _) = session(&mut client, "w6", &secret).await;
	// The worker keeps its side open; the coordinator must still stop, ending the session.
	tokio::time::timeout(WAIT, running.stop())
		.await
		.expect("the coordinator stops with a session open");
	let ended = closing_status(&mut inbound)
		.await
		.map(|status| status.code());
	assert!(matches!(ended, None | Some(Code::Unavailable)), "{ended:?}");
	drop(sender);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_run_shows_its_last_loss_until_training_runs_again() {
	let dir = temp_dir("resumed-loss");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w1").await;
	let (sender, mut inbound, _) = session(&mut client, "w1", &secret).await;
	let mut sequence = 0;
	let trained = tokio::time::timeout(WAIT * 3, async {
		loop {
			sequence += 1;
			sender
				.send(batch_message(real_batch(sequence, 0, sequence)))
				.await
				.unwrap();
			next_ack(&mut inbound).await.unwrap();
			let status = client
				.observe
				.status(v1::StatusRequest {})
				.await
				.unwrap()
				.into_inner();
			if !status.loss_history.is_empty() {
				return status;
			}
		}
	})
	.await
	.expect("a recorded loss");
	drop(sender);
	running.stop().await;

	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut again = crate::common::client(running.address, None).await;
	let status = again
		.observe
		.status(v1::StatusRequest {})
		.await
		.unwrap()
		.into_inner();
	let recorded = status
		.loss_history
		.last()
		.expect("the loss history is kept")
		.loss;
	assert!(
		status.loss.is_finite(),
		"no loss yet is not a non-finite loss"
	);
	assert!(
		(status.loss - recorded).abs() < 1e-6,
		"{} vs {recorded}",
		status.loss
	);
	assert!(trained.loss_history.len() <= status.loss_history.len());
	running.stop().await;
}

/// The status until `done` holds (or a few seconds pass: then the last one).
async fn status_when(client: &mut Client, done: impl Fn(&v1::Progress) -> bool) -> v1::Progress {
	let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
	loop {
		let status = client
			.observe
			.status(v1::StatusRequest {})
			.await
			.unwrap()
			.into_inner();
		if done(&status) || std::time::Instant::now() > deadline {
			return status;
		}
		tokio::time::sleep(std::time::Duration::from_millis(50)).await;
	}
}

fn listed<'a>(status: &'a v1::Progress, worker_id: &str) -> &'a v1::WorkerSummary {
	status
		.workers
		.iter()
		.find(|w| w.worker_id == worker_id)
		.expect("the worker is listed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_a_worker_not_back_shows_what_the_ledger_knows() {
	let dir = temp_dir("restart-fleet");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w4").await;
	let (sender, mut inbound, _) = session(&mut client, "w4", &secret).await;
	let batch = real_batch(1, 0, 9);
	let count = batch.samples.len() as u64;
	sender.send(batch_message(batch)).await.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let beat = v1::WorkerMessage {
		body: Some(v1::worker_message::Body::Heartbeat(v1::Heartbeat {
			generation: Some(0),
			samples_per_second: 500.0,
			..v1::Heartbeat::default()
		})),
	};
	sender.send(beat).await.unwrap();
	let status = status_when(&mut client, |s| listed(s, "w4").samples_per_second > 0.0).await;
	assert_eq!(listed(&status, "w4").samples_per_second, 500.0);
	// A worker whose session ends no longer counts as producing.
	drop(sender);
	let status = status_when(&mut client, |s| !listed(s, "w4").connected).await;
	let gone = listed(&status, "w4");
	assert!(!gone.connected);
	assert_eq!(gone.samples_per_second, 0.0);
	running.stop().await;

	// Long enough that "heard" by the new process's clock would differ.
	tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = crate::common::client(running.address, None).await;
	let status = client
		.observe
		.status(v1::StatusRequest {})
		.await
		.unwrap()
		.into_inner();
	let not_back = listed(&status, "w4");
	assert!(!not_back.connected);
	// The generation of its last batch, not "none" or 0 by default.
	assert_eq!(not_back.generation, Some(0));
	assert_eq!(not_back.samples, count);
	assert_eq!(not_back.samples_per_second, 0.0);
	// Heard from before the restart by the wall clock: more than this process's uptime.
	assert!(
		not_back.seconds_since_heard >= 1.5 && not_back.seconds_since_heard > status.uptime_seconds,
		"heard {} s ago, up {} s",
		not_back.seconds_since_heard,
		status.uptime_seconds
	);
	// The samples of the last five minutes count across the restart.
	assert_eq!(status.recent_samples, count);
	assert_eq!(status.recent_superseded, 0);
	running.stop().await;
}

/// Sends `batches` on a session from a task of its own, so that acknowledgements are read
/// while the batches still go out.
fn send_all(
	sender: tokio::sync::mpsc::Sender<v1::WorkerMessage>,
	batches: Vec<v1::SampleBatch>,
) -> tokio::task::JoinHandle<tokio::sync::mpsc::Sender<v1::WorkerMessage>> {
	tokio::spawn(async move {
		for batch in batches {
			sender.send(batch_message(batch)).await.unwrap();
		}
		sender
	})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_batches_of_one_session_in_flight_are_stored_once_and_acknowledged_in_order() {
	const BATCHES: u64 = 120;
	let temp = temp_dir("in-flight");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "eager").await;
	let (sender, mut inbound, _) = session(&mut client, "eager", &secret).await;
	let batches: Vec<_> = (1..=BATCHES).map(|s| real_batch(s, 0, 100 + s)).collect();
	let samples: u64 = batches.iter().map(|b| b.samples.len() as u64).sum();
	// Each batch twice: the copies come back as stored already, in their place.
	let twice = batches
		.iter()
		.flat_map(|b| [b.clone(), b.clone()])
		.collect();
	let sending = send_all(sender, twice);
	for sequence in 1..=BATCHES {
		let first = next_ack(&mut inbound).await.unwrap();
		assert_eq!((first.sequence, first.accepted), (sequence, true));
		let again = next_ack(&mut inbound).await.unwrap();
		assert_eq!((again.sequence, again.accepted), (sequence, false));
	}
	drop(sending.await.unwrap());
	let progress = status(&mut client).await;
	assert_eq!(progress.samples_total, samples);
	let rejoined = client
		.join(join_with("eager", &secret))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(rejoined.last_acked_sequence, BATCHES);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_batch_among_many_in_flight_ends_the_session_after_those_before_it() {
	let temp = temp_dir("in-flight-refused");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "hasty").await;
	let (sender, mut inbound, _) = session(&mut client, "hasty", &secret).await;
	let mut batches: Vec<_> = (1..=40).map(|s| real_batch(s, 0, 200 + s)).collect();
	batches[5].samples[0].tigers = 0b11111; // batch 6: five tigers
	let stored: u64 = batches[..5].iter().map(|b| b.samples.len() as u64).sum();
	let sending = send_all(sender, batches.clone());
	for sequence in 1..=5 {
		let ack = next_ack(&mut inbound).await.unwrap();
		assert_eq!((ack.sequence, ack.accepted), (sequence, true));
	}
	let refused = next_ack(&mut inbound).await.unwrap_err();
	assert_eq!(refused.code(), Code::InvalidArgument, "{refused}");
	assert_eq!(
		refused.metadata().get("tigers-rejected-sequence").unwrap(),
		"6"
	);
	let _ = sending.await;
	// Nothing after the refused batch was stored: the worker sends it all again.
	assert_eq!(status(&mut client).await.samples_total, stored);
	let rejoined = client
		.join(join_with("hasty", &secret))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(rejoined.last_acked_sequence, 6);
	let (sender, mut inbound, _) = session(&mut client, "hasty", &secret).await;
	let sending = send_all(sender, batches[6..].to_vec());
	for sequence in 7..=40 {
		let ack = next_ack(&mut inbound).await.unwrap();
		assert_eq!((ack.sequence, ack.accepted), (sequence, true));
	}
	drop(sending.await.unwrap());
	let all: u64 = batches.iter().map(|b| b.samples.len() as u64).sum();
	let refused_samples = batches[5].samples.len() as u64;
	assert_eq!(
		status(&mut client).await.samples_total,
		all - refused_samples
	);
	running.stop().await;
}
