//! The server's limits over real loopback sockets: silent sessions and vanished hosts are found
//! and stop counting CPU-hours; messages that do not decode or are too large end a session with
//! a status; joins and records are bounded, and so are the snapshots however many workers join;
//! refusals quote only the start of what was sent.

use std::net::SocketAddr;
use std::pin::Pin;
use std::time::{Duration, Instant};

use prost::Message;
use prost::bytes::{Buf, BufMut};
use tigers_proto::v1;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tonic::Code;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;

use crate::common::*;

/// Waits until the worker is shown without a session.
async fn wait_disconnected(client: &mut Client, worker_id: &str) -> v1::Progress {
	let deadline = Instant::now() + WAIT;
	loop {
		let progress = status(client).await;
		let worker = progress.workers.iter().find(|w| w.worker_id == worker_id);
		if !worker.expect("listed").connected {
			return progress;
		}
		assert!(
			Instant::now() < deadline,
			"{worker_id} is still shown connected"
		);
		tokio::time::sleep(Duration::from_millis(100)).await;
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_session_ends_and_stops_counting_cpu_hours() {
	let temp = temp_dir("idle");
	let mut config = test_config(temp.to_path_buf(), None);
	config.limits.session_idle_timeout = Duration::from_millis(500);
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "quiet").await;
	// The worker keeps its connection and stream open but says nothing.
	let (sender, mut inbound, _) = session(&mut client, "quiet", &secret).await;
	let ended = closing_status(&mut inbound)
		.await
		.expect("the session ends with a status");
	assert_eq!(ended.code(), Code::DeadlineExceeded, "{ended}");
	let gone = wait_disconnected(&mut client, "quiet").await;
	tokio::time::sleep(Duration::from_millis(200)).await;
	let later = status(&mut client).await;
	assert_eq!(gone.workers_connected, 0);
	assert_eq!(
		later.cpu_hours, gone.cpu_hours,
		"CPU-hours grew without a session"
	);
	drop(sender);
	running.stop().await;
}

/// A TCP relay to `target` that, once `cut` turns true, stops passing bytes either way while
/// keeping both connections open: a host that vanished without closing anything.
async fn relay(target: SocketAddr, cut: watch::Receiver<bool>) -> SocketAddr {
	let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
	let address = listener.local_addr().unwrap();
	tokio::spawn(async move {
		loop {
			let (near, _) = listener.accept().await.unwrap();
			let far = TcpStream::connect(target).await.unwrap();
			let (near_read, near_write) = near.into_split();
			let (far_read, far_write) = far.into_split();
			tokio::spawn(pass(near_read, far_write, cut.clone()));
			tokio::spawn(pass(far_read, near_write, cut.clone()));
		}
	});
	address
}

async fn pass(
	mut from: tokio::net::tcp::OwnedReadHalf,
	mut to: tokio::net::tcp::OwnedWriteHalf,
	cut: watch::Receiver<bool>,
) {
	let mut buffer = vec![0; 64 * 1024];
	loop {
		let Ok(read) = from.read(&mut buffer).await else {
			return;
		};
		if read == 0 {
			return;
		}
		if *cut.borrow() {
			// Hold both ends open and silent for ever.
			std::future::pending::<()>().await;
		}
		if to.write_all(&buffer[..read]).await.is_err() {
			return;
		}
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vanished_host_is_found_by_the_keepalive() {
	let temp = temp_dir("keepalive");
	let mut config = test_config(temp.to_path_buf(), None);
	config.limits.keepalive_interval = Duration::from_millis(300);
	config.limits.keepalive_timeout = Duration::from_millis(300);
	// Long enough that only the keepalive can end the session within the test.
	config.limits.session_idle_timeout = Duration::from_secs(3600);
	let running = start(config).await;
	let (cut, cutting) = watch::channel(false);
	let through = relay(running.address, cutting).await;
	let mut remote = client(through, None).await;
	let secret = join(&mut remote, "far").await;
	let (sender, _inbound, _) = session(&mut remote, "far", &secret).await;
	let mut direct = client(running.address, None).await;
	assert!(status(&mut direct).await.workers[0].connected);
	cut.send_replace(true);
	let gone = wait_disconnected(&mut direct, "far").await;
	tokio::time::sleep(Duration::from_millis(200)).await;
	assert_eq!(status(&mut direct).await.cpu_hours, gone.cpu_hours);
	drop(sender);
	running.stop().await;
}

/// Sends raw bytes as session messages and reads the coordinator's messages.
#[derive(Clone, Copy, Default)]
struct RawCodec;

struct RawEncoder;

struct RawDecoder;

impl Encoder for RawEncoder {
	type Item = Vec<u8>;
	type Error = tonic::Status;

	fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
		dst.put_slice(&item);
		Ok(())
	}
}

impl Decoder for RawDecoder {
	type Item = v1::CoordinatorMessage;
	type Error = tonic::Status;

	fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Self::Item>, tonic::Status> {
		let bytes = src.copy_to_bytes(src.remaining());
		v1::CoordinatorMessage::decode(bytes)
			.map(Some)
			.map_err(|e| tonic::Status::internal(e.to_string()))
	}
}

impl Codec for RawCodec {
	type Encode = Vec<u8>;
	type Decode = v1::CoordinatorMessage;
	type Encoder = RawEncoder;
	type Decoder = RawDecoder;

	fn encoder(&mut self) -> RawEncoder {
		RawEncoder
	}

	fn decoder(&mut self) -> RawDecoder {
		RawDecoder
	}
}

/// Opens a session for a joined worker, sends `then` as the next message's bytes, and returns
/// the status the session ends with.
async fn raw_session_end(
	address: SocketAddr,
	worker_id: &str,
	secret: &str,
	then: Vec<u8>,
) -> tonic::Status {
	let channel = Channel::from_shared(format!("http://{address}"))
		.unwrap()
		.connect()
		.await
		.unwrap();
	let mut grpc = tonic::client::Grpc::new(channel);
	grpc.ready().await.unwrap();
	let messages: Vec<Vec<u8>> = vec![open(worker_id, secret).encode_to_vec(), then];
	// The stream stays open after its messages, as a worker's does.
	let stream =
		tokio_stream::StreamExt::chain(tokio_stream::iter(messages), tokio_stream::pending());
	let stream: Pin<Box<dyn tokio_stream::Stream<Item = Vec<u8>> + Send>> = Box::pin(stream);
	let path =
		tonic::codegen::http::uri::PathAndQuery::from_static("/tigers.v1.Coordinator/Session");
	let response = grpc
		.streaming(tonic::Request::new(stream), path, RawCodec)
		.await
		.expect("the session opens");
	let mut inbound = response.into_inner();
	closing_status(&mut inbound)
		.await
		.expect("the session ends with a status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undecodable_and_oversized_messages_end_the_session_with_a_status() {
	let temp = temp_dir("stream-errors");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "raw").await;
	let garbled = raw_session_end(running.address, "raw", &secret, vec![0xff; 3]).await;
	assert_eq!(garbled.code(), Code::InvalidArgument, "{garbled}");
	assert!(
		garbled
			.message()
			.contains("the message is not a valid WorkerMessage"),
		"{garbled}"
	);
	let huge = vec![0; tigers_proto::MAX_MESSAGE_BYTES + 1];
	let oversized = raw_session_end(running.address, "raw", &secret, huge).await;
	assert_eq!(oversized.code(), Code::ResourceExhausted, "{oversized}");
	assert!(oversized.message().contains("16 MiB"), "{oversized}");
	// The coordinator goes on serving the same worker.
	let (sender, mut inbound, _) = session(&mut client, "raw", &secret).await;
	sender
		.send(batch_message(real_batch(1, 0, 61)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_fields_are_refused_briefly_and_snapshots_stay_bounded() {
	let temp = temp_dir("bounds");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	// A megabyte of worker id is refused with a short message, not echoed back.
	let huge = v1::JoinRequest {
		worker_id: "x".repeat(1 << 20),
		..join_request("ignored")
	};
	let refused = client.join(huge).await.unwrap_err();
	assert_eq!(refused.code(), Code::InvalidArgument, "{refused}");
	assert!(refused.message().len() < 300, "{}", refused.message().len());
	let version = v1::JoinRequest {
		build_version: "9".repeat(1 << 20),
		..join_request("v")
	};
	let refused = client.join(version).await.unwrap_err();
	assert_eq!(refused.code(), Code::InvalidArgument);
	assert!(refused.message().len() < 300, "{}", refused.message().len());

	// Many workers with the longest names: the snapshot lists a bounded number and counts all.
	let joins = 260;
	for n in 0..joins {
		let id = format!("{n:04}-{}", "i".repeat(123));
		let mut request = join_request(&id);
		request.name = "n".repeat(128);
		request.host = "h".repeat(255);
		client.join(request).await.unwrap();
	}
	let progress = status(&mut client).await;
	assert_eq!(progress.workers_known, joins);
	assert_eq!(progress.workers.len(), 200);
	assert!(
		progress.encoded_len() < 1 << 20,
		"{}",
		progress.encoded_len()
	);

	// A game record longer than any game needs is refused; the snapshot never holds one.
	let secret = join(&mut client, "records").await;
	let (sender, mut inbound, _) = session(&mut client, "records", &secret).await;
	let mut long = real_batch(1, 0, 71);
	let padding = format!("sheep {}\n", "s".repeat(200_000));
	long.game_records[0] =
		long.game_records[0].replacen("record 1\n", &format!("record 1\n{padding}"), 1);
	sender.send(batch_message(long)).await.unwrap();
	let refused = next_ack(&mut inbound).await.unwrap_err();
	assert_eq!(refused.code(), Code::InvalidArgument);
	assert!(refused.message().contains("at most 100000"), "{refused}");
	assert!(status(&mut client).await.last_game.is_empty());
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn training_is_checkpointed_by_time_as_well_as_by_steps() {
	let dir = temp_dir("checkpoint-time");
	let mut config = test_config(dir.to_path_buf(), None);
	config.run.steps_per_checkpoint = 1_000_000;
	config.run.checkpoint_every = Duration::from_millis(200);
	let running = start(config).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "trainer").await;
	let (sender, mut inbound, _) = session(&mut client, "trainer", &secret).await;
	sender
		.send(batch_message(real_batch(1, 0, 81)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	// Without stopping the coordinator (which checkpoints on its way out), a checkpoint with
	// the batch's training appears.
	let state = dir.join("checkpoint/state.json");
	let deadline = Instant::now() + WAIT;
	loop {
		if let Ok(text) = std::fs::read_to_string(&state) {
			let json: serde_json::Value = serde_json::from_str(&text).unwrap();
			if json["training_steps"].as_u64().unwrap() > 0 && json["last_batch_id"] == 1 {
				break;
			}
		}
		assert!(Instant::now() < deadline, "no checkpoint by time");
		tokio::time::sleep(Duration::from_millis(50)).await;
	}
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_coordinator_on_a_run_directory_in_use_is_refused() {
	let dir = temp_dir("run-lock");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let before = status(&mut client).await;
	// A home of its own, so that no table or layers of the user's cache are loaded.
	let home = temp_dir("run-lock-home");
	let output = std::process::Command::new(env!("CARGO_BIN_EXE_coordinator"))
		.args(["--listen", "127.0.0.1:0", "--headless", "--run-dir"])
		.arg(&dir)
		.env("HOME", &*home)
		.env("XDG_CACHE_HOME", home.join("cache"))
		.output()
		.expect("the coordinator runs");
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert_eq!(output.status.code(), Some(1), "{stderr}");
	assert!(stderr.contains("in use by another coordinator"), "{stderr}");
	// The run goes on untouched.
	assert_eq!(
		status(&mut client).await.training_steps,
		before.training_steps
	);
	assert!(!dir.join("checkpoint.tmp").exists());
	running.stop().await;
	// Once the first has stopped, the directory is free again.
	let running = start(test_config(dir.to_path_buf(), None)).await;
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_gone_for_longer_than_the_horizon_are_not_loaded_again() {
	let dir = temp_dir("forget");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	join(&mut client, "recent").await;
	let secret = join(&mut client, "long-gone").await;
	let (sender, mut inbound, _) = session(&mut client, "long-gone", &secret).await;
	let batch = real_batch(1, 0, 91);
	let count = batch.samples.len() as u64;
	sender.send(batch_message(batch)).await.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	drop((sender, inbound));
	running.stop().await;
	// As if "long-gone" was last seen two weeks ago.
	let ledger = rusqlite::Connection::open(dir.join("ledger.sqlite")).unwrap();
	let two_weeks_ago = std::time::SystemTime::now()
		.duration_since(std::time::UNIX_EPOCH)
		.unwrap()
		.as_secs_f64()
		- 14.0 * 24.0 * 3600.0;
	ledger
		.execute(
			"UPDATE workers SET last_seen = ?1 WHERE worker_id = 'long-gone'",
			[two_weeks_ago],
		)
		.unwrap();
	drop(ledger);
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = crate::common::client(running.address, None).await;
	let progress = status(&mut client).await;
	let ids: Vec<&str> = progress
		.workers
		.iter()
		.map(|w| w.worker_id.as_str())
		.collect();
	assert_eq!(ids, ["recent"]);
	assert_eq!(progress.workers_known, 1);
	// Back again, it is listed with its samples over the run.
	client.join(join_with("long-gone", &secret)).await.unwrap();
	let progress = status(&mut client).await;
	let back = progress.workers.iter().find(|w| w.worker_id == "long-gone");
	assert_eq!(back.expect("listed again").samples, count);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_coordinator_has_let_go_of_its_run_directory() {
	let dir = temp_dir("released");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	// Sessions and progress streams open at the stop hold the run until they notice it.
	let mut sessions = Vec::new();
	let mut streams = Vec::new();
	for n in 0..4 {
		let id = format!("w{n}");
		let secret = join(&mut client, &id).await;
		sessions.push(session(&mut client, &id, &secret).await);
		let mut stream = client
			.observe
			.watch_progress(v1::WatchRequest { interval_ms: 100 })
			.await
			.unwrap()
			.into_inner();
		stream.message().await.unwrap();
		streams.push(stream);
	}
	running.stop().await;
	// The next coordinator opens the run at once.
	let reopened = tigers_coordinator::RunDir::open(&dir);
	assert!(reopened.is_ok(), "{:?}", reopened.err());
	drop((sessions, streams));
}
