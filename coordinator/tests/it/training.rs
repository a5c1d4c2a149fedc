//! The training thread, as a run uses it.

use std::time::Duration;

use tigers_proto::v1;

use crate::common::{client, start, temp_dir, test_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn training_on_two_threads_takes_steps_and_offers_candidates() {
	let temp = temp_dir("train-threads");
	let mut config = test_config(temp.to_path_buf(), None);
	config.run.training.threads = 2;
	config.run.training.batch_size = 64;
	config.run.steps_per_candidate = 20;
	config.local_workers = 1;
	let running = start(config).await;
	let mut asker = client(running.address, None).await;
	let progress = tokio::time::timeout(Duration::from_secs(120), async {
		loop {
			let progress = asker
				.status(v1::StatusRequest {})
				.await
				.expect("status")
				.into_inner();
			if progress.training_steps >= 40 && progress.gates.iter().any(|g| !g.measurement) {
				return progress;
			}
			tokio::time::sleep(Duration::from_millis(100)).await;
		}
	})
	.await
	.expect("steps and a candidate's gate within two minutes");
	assert!(progress.loss.is_finite(), "{}", progress.loss);
	assert!(progress.loss_history.is_empty() || progress.loss_history[0].loss.is_finite());
	running.stop().await;
}
