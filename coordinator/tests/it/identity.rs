//! Identities bound to secrets, sequence numbers taken only in order, and one session per
//! identity, against a coordinator in this process.

use tigers_proto::v1;
use tonic::Code;

use crate::common::*;

fn listed<'a>(progress: &'a v1::Progress, worker_id: &str) -> &'a v1::WorkerSummary {
	progress
		.workers
		.iter()
		.find(|w| w.worker_id == worker_id)
		.expect("the worker is listed")
}

/// The status a session open ends with, whether at the call or on its stream.
async fn session_refusal(client: &mut Client, worker_id: &str, secret: &str) -> tonic::Status {
	let (sender, receiver) = tokio::sync::mpsc::channel(4);
	sender.send(open(worker_id, secret)).await.unwrap();
	match client.session(outbound(receiver)).await {
		Err(status) => status,
		Ok(response) => {
			let mut inbound = response.into_inner();
			closing_status(&mut inbound)
				.await
				.expect("the session was refused")
		}
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_holder_of_an_identitys_secret_can_use_it() {
	let temp = temp_dir("identity");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w1").await;
	let (sender, mut inbound, _) = session(&mut client, "w1", &secret).await;
	sender
		.send(batch_message(real_batch(1, 0, 31)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let before = status(&mut client).await;

	// Someone with the token and the public id, but not the secret.
	let other = "0123456789abcdef".repeat(4);
	for presented in ["", other.as_str()] {
		let refused = session_refusal(&mut client, "w1", presented).await;
		assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
		let mut impostor = join_with("w1", presented);
		impostor.name = "impostor".into();
		let refused = client.join(impostor).await.unwrap_err();
		assert_eq!(refused.code(), Code::PermissionDenied, "{refused}");
		assert!(refused.message().contains("secret"), "{refused}");
	}
	let refused = client.join(join_with("w1", "not hex")).await.unwrap_err();
	assert_eq!(refused.code(), Code::InvalidArgument);
	// Nothing of the refusals changed the worker or its session.
	let after = status(&mut client).await;
	assert_eq!(listed(&after, "w1").name, "w1-name");
	assert!(listed(&after, "w1").connected);
	assert_eq!(after.samples_total, before.samples_total);
	sender
		.send(batch_message(real_batch(2, 0, 32)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);

	// The holder joins again as often as it likes, and is not handed a new secret.
	let again = client
		.join(join_with("w1", &secret))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(
		(again.last_acked_sequence, again.worker_secret.as_str()),
		(2, "")
	);
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_lost_on_its_way_is_replaced_until_a_session_uses_one() {
	let dir = temp_dir("identity-lost");
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let lost = join(&mut client, "w2").await;
	// The answer never arrived: the worker joins again without a secret.
	let second = join(&mut client, "w2").await;
	assert_ne!(lost, second);
	let refused = session_refusal(&mut client, "w2", &lost).await;
	assert_eq!(refused.code(), Code::PermissionDenied);
	let (sender, mut inbound, _) = session(&mut client, "w2", &second).await;
	sender
		.send(batch_message(real_batch(1, 0, 33)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	// Once a session used it, it is the identity's for good, across restarts too.
	drop(sender);
	running.stop().await;
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = crate::common::client(running.address, None).await;
	let refused = client.join(join_request("w2")).await.unwrap_err();
	assert_eq!(refused.code(), Code::PermissionDenied);
	let joined = client
		.join(join_with("w2", &second))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(joined.last_acked_sequence, 1);
	running.stop().await;

	// A worker the ledger knew before identities had secrets is given one at its next join,
	// and goes on from its last batch.
	let ledger = rusqlite::Connection::open(dir.join("ledger.sqlite")).unwrap();
	ledger
		.execute(
			"UPDATE workers SET secret_sha256 = NULL, secret_confirmed = 0",
			[],
		)
		.unwrap();
	drop(ledger);
	let running = start(test_config(dir.to_path_buf(), None)).await;
	let mut client = crate::common::client(running.address, None).await;
	let joined = client.join(join_request("w2")).await.unwrap().into_inner();
	assert_eq!(joined.last_acked_sequence, 1);
	assert_eq!(joined.worker_secret.len(), 64);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_next_sequence_is_stored() {
	let temp = temp_dir("sequences");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w3").await;
	let rejected = |status: &tonic::Status| {
		status
			.metadata()
			.get("tigers-rejected-sequence")
			.map(|v| v.to_str().unwrap().to_string())
	};
	let (sender, mut inbound, _) = session(&mut client, "w3", &secret).await;
	let first = real_batch(1, 0, 41);
	let count = first.samples.len() as u64;
	sender.send(batch_message(first.clone())).await.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	// Gaps, numbers beyond the store and the largest number of all: refused, nothing stored.
	for (sequence, words) in [
		(3, "would leave a gap"),
		(1_000_000, "would leave a gap"),
		((1 << 63) - 1, "would leave a gap"),
		(1 << 63, "go up to"),
		(u64::MAX, "go up to"),
	] {
		let (sender, mut inbound, _) = session(&mut client, "w3", &secret).await;
		sender
			.send(batch_message(real_batch(sequence, 0, 42)))
			.await
			.unwrap();
		let refused = next_ack(&mut inbound).await.unwrap_err();
		assert_eq!(
			refused.code(),
			Code::InvalidArgument,
			"{sequence}: {refused}"
		);
		assert!(refused.message().contains(words), "{sequence}: {refused}");
		assert_eq!(rejected(&refused), Some(sequence.to_string()));
	}
	let after = status(&mut client).await;
	assert_eq!(after.samples_total, count);
	let joined = client
		.join(join_with("w3", &secret))
		.await
		.unwrap()
		.into_inner();
	assert_eq!(joined.last_acked_sequence, 1);

	// A batch resent after its acknowledgement is harmless; a malformed one uses its number
	// up, and going back to it is refused.
	let (sender, mut inbound, _) = session(&mut client, "w3", &secret).await;
	sender.send(batch_message(first)).await.unwrap();
	let again = next_ack(&mut inbound).await.unwrap();
	assert_eq!((again.sequence, again.accepted), (1, false));
	let mut bad = real_batch(2, 0, 43);
	bad.samples[0].score = 7.0;
	sender.send(batch_message(bad)).await.unwrap();
	let refused = next_ack(&mut inbound).await.unwrap_err();
	assert_eq!(rejected(&refused), Some("2".into()));
	let (sender, mut inbound, _) = session(&mut client, "w3", &secret).await;
	sender
		.send(batch_message(real_batch(2, 0, 44)))
		.await
		.unwrap();
	let refused = next_ack(&mut inbound).await.unwrap_err();
	assert!(refused.message().contains("refused before"), "{refused}");
	let (sender, mut inbound, _) = session(&mut client, "w3", &secret).await;
	sender
		.send(batch_message(real_batch(3, 0, 45)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let last = status(&mut client).await;
	assert_eq!(last.batches_rejected, 7);
	drop(sender);
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_session_takes_over_and_the_worker_stays_connected() {
	let temp = temp_dir("take-over");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "w4").await;
	let (old_sender, mut old, _) = session(&mut client, "w4", &secret).await;
	let (sender, mut inbound, _) = session(&mut client, "w4", &secret).await;
	let ended = closing_status(&mut old)
		.await
		.expect("the old session ends with a status");
	assert_eq!(ended.code(), Code::Aborted, "{ended}");
	assert!(ended.message().contains("took over"), "{ended}");
	drop(old_sender);
	// The old session's end does not show the worker gone while the new one is served.
	sender
		.send(batch_message(real_batch(1, 0, 51)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let progress = status(&mut client).await;
	let worker = listed(&progress, "w4");
	assert!(worker.connected);
	assert_eq!(worker.reconnects, 1);
	assert_eq!(progress.workers_connected, 1);
	drop(sender);
	drop(inbound);
	let deadline = std::time::Instant::now() + WAIT;
	while listed(&status(&mut client).await, "w4").connected {
		assert!(std::time::Instant::now() < deadline, "still connected");
		tokio::time::sleep(std::time::Duration::from_millis(50)).await;
	}
	running.stop().await;
}

/// A `SessionOpen` of `worker_id` from the worker process `instance`.
fn open_from(worker_id: &str, secret: &str, instance: &str) -> v1::WorkerMessage {
	v1::WorkerMessage {
		body: Some(v1::worker_message::Body::Open(v1::SessionOpen {
			worker_id: worker_id.into(),
			worker_secret: secret.into(),
			instance: instance.into(),
		})),
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_machine_under_one_identity_waits_and_the_first_keeps_its_session() {
	let temp = temp_dir("identity-copied");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "copied").await;
	let (sender, mut inbound, _) = session(&mut client, "copied", &secret).await;
	sender
		.send(batch_message(real_batch(1, 0, 61)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);

	// The same identity and secret from another process: a copied state directory.
	let copy = v1::JoinRequest {
		instance: "another-machine".into(),
		host: "elsewhere".into(),
		..join_with("copied", &secret)
	};
	let refused = client.join(copy).await.unwrap_err();
	assert_eq!(refused.code(), Code::AlreadyExists, "{refused}");
	let said = refused.message();
	assert!(
		said.contains("already has a live session from another process"),
		"{said}"
	);
	assert!(said.contains("state directory was copied"), "{said}");
	assert!(
		said.contains("delete the worker_id and worker_secret files"),
		"{said}"
	);
	let wait = refused
		.metadata()
		.get(tigers_proto::RETRY_AFTER_KEY)
		.unwrap();
	assert_eq!(wait.to_str().unwrap(), "15");
	let (copy_sender, receiver) = tokio::sync::mpsc::channel(4);
	copy_sender
		.send(open_from("copied", &secret, "another-machine"))
		.await
		.unwrap();
	let refused = match client.session(outbound(receiver)).await {
		Err(status) => status,
		Ok(response) => closing_status(&mut response.into_inner())
			.await
			.expect("refused"),
	};
	assert_eq!(refused.code(), Code::AlreadyExists, "{refused}");

	// Nothing changed: the first keeps its session and its host.
	let progress = status(&mut client).await;
	let listed = listed(&progress, "copied");
	assert!(listed.connected);
	assert_eq!(listed.host, "test-host");
	sender
		.send(batch_message(real_batch(2, 0, 62)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);

	// The first process itself, back after losing its connection, takes over as before.
	let (_again, mut again_inbound, _) = session(&mut client, "copied", &secret).await;
	let ended = closing_status(&mut inbound).await.expect("taken over");
	assert_eq!(ended.code(), Code::Aborted, "{ended}");
	drop(again_inbound.message());
	running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_sessions_of_one_process_leave_exactly_one_open() {
	const RACERS: usize = 20;
	let temp = temp_dir("identity-race");
	let running = start(test_config(temp.to_path_buf(), None)).await;
	let mut client = client(running.address, None).await;
	let secret = join(&mut client, "racer").await;
	let mut opening = Vec::new();
	for _ in 0..RACERS {
		let address = running.address;
		let secret = secret.clone();
		opening.push(tokio::spawn(async move {
			let mut client = crate::common::client(address, None).await;
			let (sender, inbound, _) = session(&mut client, "racer", &secret).await;
			(client, sender, inbound)
		}));
	}
	let mut sessions = Vec::new();
	for task in opening {
		sessions.push(task.await.unwrap());
	}
	// Every session but one ends, taken over; the one left is the worker's and stores.
	let mut open = Vec::new();
	for (client, sender, mut inbound) in sessions {
		let ended = tokio::time::timeout(
			std::time::Duration::from_secs(2),
			closing_status(&mut inbound),
		)
		.await;
		match ended {
			Ok(status) => {
				let status = status.expect("ended with a status");
				assert_eq!(status.code(), Code::Aborted, "{status}");
			}
			Err(_) => open.push((client, sender, inbound)),
		}
	}
	assert_eq!(open.len(), 1, "sessions still open after the race");
	let (_, sender, mut inbound) = open.pop().unwrap();
	sender
		.send(batch_message(real_batch(1, 0, 71)))
		.await
		.unwrap();
	assert!(next_ack(&mut inbound).await.unwrap().accepted);
	let progress = status(&mut client).await;
	assert!(listed(&progress, "racer").connected);
	running.stop().await;
}
