//! `coordinator status`: the run's state as one JSON object, fetched over gRPC.

use serde_json::{Value, json};
use thiserror::Error;
use tigers_proto::client::{CONNECT_TIMEOUT, ClientError, ClientSettings, Connector, call_failure};
use tigers_proto::services::{Service, unserved};
use tigers_proto::v1;

/// The run as JSON, each field described in docs/status.md: generation, samples (total and per listed worker), games (played, and kept
/// in the game archive), training steps,
/// the self-play depth with the rates it follows and the share of samples trained on,
/// the gate results per generation as the snapshot lists them and how many in all, the
/// measurements at equal time (and the one under way), the listed workers with the generation
/// each plays and counts of all, and uptime.
pub fn progress_json(progress: &v1::Progress) -> Value {
	let mut json = json!({
		"run": progress.run_name,
		"run_id": progress.run_id,
		"uptime_seconds": progress.uptime_seconds,
		"generation": progress.generation,
		"generation_since": progress.generation_since,
		"samples_total": progress.samples_total,
		"games_total": progress.games_total,
		"games_kept": progress.games.map_or(0, |g| g.kept),
		"game_archive": progress.games.map(|g| game_archive_json(&g)),
		"training_steps": progress.training_steps,
		"loss": finite(progress.loss),
		"window": { "samples": progress.window_samples, "capacity": progress.window_capacity },
		"gates_total": progress.gates_total,
		"workers_known": progress.workers_known,
		"workers_connected": progress.workers_connected,
		"batches_rejected": progress.batches_rejected,
		"limits_refused": {
			"new_workers": progress.new_workers_refused,
			"watchers": progress.watchers_refused,
		},
		"version_refusals": version_refusals_json(progress),
		"identity_in_use_refusals": identity_refusals_json(progress),
		"rejections": counts_json(progress.rejections.iter().map(|r| (&r.reason, r.count))),
		"cpu_hours": progress.cpu_hours,
		"tablebase": tablebase_json(&progress.tablebase.clone().unwrap_or_default()),
		"selfplay": progress.work.map(|w| selfplay_json(&w)),
		"seconds_since_samples": progress.seconds_since_samples,
		"recent_samples": {
			"total": progress.recent_samples,
			"superseded": progress.recent_superseded,
		},
		"recent_games": progress.recent_games.map(|t| recent_games_json(&t)),
		"samples_by_worker": counts_json(progress.workers.iter().map(|w| (&w.worker_id, w.samples))),
		"gates": progress.gates.iter().map(gate_json).collect::<Vec<_>>(),
		"timed": progress.timed.iter().map(timed_json).collect::<Vec<_>>(),
		"timed_running": progress.timed_running.as_ref().map(timed_running_json),
		"workers": progress.workers.iter().map(worker_json).collect::<Vec<_>>(),
	});
	// Set apart: one more key in the object above passes `json!`'s recursion limit.
	json["stronger_since"] = json!(progress.stronger_since);
	json["no_stronger_alarm_seconds"] = json!(progress.no_stronger_alarm_seconds);
	if let Some(layers) = &progress.placement {
		json["placement_layers"] = placement_layers_json(layers);
	}
	json["setup"] = progress.setup.as_ref().map_or(Value::Null, |s| {
		json!({
			"net_shape": s.net_shape,
			"input_version": s.input_version,
			"gate": s.gate,
		})
	});
	json["disk"] = progress.disk.as_ref().map_or(Value::Null, |d| {
		json!({
			"dir": d.dir,
			"free_bytes": d.free_bytes,
			"margin_bytes": d.margin_bytes,
			"low": d.low,
			"low_since": (d.low_since > 0.0).then_some(d.low_since),
		})
	});
	json["grades"] = progress
		.grades
		.iter()
		.map(grade_json)
		.collect::<Vec<_>>()
		.into();
	let ladder = progress.ladder.clone().unwrap_or_default();
	json["ratings"] = ladder
		.ratings
		.iter()
		.map(rating_json)
		.collect::<Vec<_>>()
		.into();
	json["best_generation"] = json!(ladder.best_generation);
	json["ladder"] = progress.ladder.as_ref().map_or(Value::Null, |l| {
		json!({
			"players": l.players,
			"matches": l.matches,
			"games": l.games,
			"tigers_advantage": l.tigers_advantage,
			"dispersion": l.dispersion,
			"min_games_for_best": l.min_games_for_best,
		})
	});
	if let Some(solve) = &progress.placement_solve {
		json["placement_solve"] = placement_solve_json(solve);
	}
	json
}

/// A promoted net's grades on the suite.
fn grade_json(grade: &v1::NetGrade) -> Value {
	let phase = |p: Option<v1::PhaseGrade>| {
		let p = p.unwrap_or_default();
		json!({ "positions": p.positions, "class_right": p.class_right, "moves_kept": p.moves_kept })
	};
	json!({
		"generation": grade.generation,
		"depth": grade.depth,
		"placement": phase(grade.placement),
		"movement": phase(grade.movement),
		"graded_at": grade.graded_at,
		"cpu_hours": grade.cpu_hours,
	})
}

/// One player's place on the rating ladder.
fn rating_json(rating: &v1::PlayerRating) -> Value {
	json!({
		"player": rating.generation.map_or_else(
			|| "ClaudePlayer".to_string(),
			|generation| format!("generation {generation}"),
		),
		"generation": rating.generation,
		"rating": rating.rating,
		"low": rating.low,
		"high": rating.high,
		"games": rating.games,
	})
}

/// Joins refused for the worker's versions: how many, and the last refusal's words.
fn version_refusals_json(progress: &v1::Progress) -> Value {
	json!({
		"count": progress.version_refusals,
		"last": (!progress.last_version_refusal.is_empty())
			.then(|| progress.last_version_refusal.clone()),
	})
}

/// Joins and sessions refused while another process held the identity: how many, and the
/// last refusal's words and time.
fn identity_refusals_json(progress: &v1::Progress) -> Value {
	json!({
		"count": progress.identity_in_use_refusals,
		"last": (!progress.last_identity_in_use.is_empty())
			.then(|| progress.last_identity_in_use.clone()),
		"last_at": (progress.last_identity_in_use_at > 0.0)
			.then_some(progress.last_identity_in_use_at),
	})
}

/// Counts by name, as one object.
fn counts_json<'a>(counts: impl Iterator<Item = (&'a String, u64)>) -> Value {
	Value::Object(
		counts
			.map(|(name, count)| (name.clone(), json!(count)))
			.collect(),
	)
}

/// The movement tablebase's state.
fn tablebase_json(tablebase: &v1::TablebaseStatus) -> Value {
	json!({
		"state": tablebase.state,
		"progress": tablebase.progress,
		// Empty until the table is ready: null, not a hash of nothing.
		"sha256": (!tablebase.sha256.is_empty()).then_some(&tablebase.sha256),
		"detail": tablebase.detail,
	})
}

/// The recent self-play games' results.
fn recent_games_json(tally: &v1::GameTally) -> Value {
	json!({
		"tiger_wins": tally.tiger_wins,
		"sheep_wins": tally.sheep_wins,
		"draws": tally.draws,
	})
}

/// The solved placement layers' state.
fn placement_layers_json(layers: &v1::PlacementLayers) -> Value {
	json!({
		"state": layers.state,
		"layers": layers.layers,
		"layers_total": layers.layers_total,
		"detail": layers.detail,
	})
}

/// A side's games: wins, draws and losses.
fn side_json(side: &Option<v1::SideResult>) -> Value {
	let side = side.unwrap_or_default();
	json!({ "wins": side.wins, "draws": side.draws, "losses": side.losses })
}

/// A number, or null if it is not finite (JSON has no infinities).
fn finite(x: f64) -> Value {
	if x.is_finite() { json!(x) } else { Value::Null }
}

/// Moves judged exact and kept, with the share; null when nothing judged them.
fn exact_json(accuracy: &Option<v1::ExactAccuracy>) -> Value {
	accuracy.map_or(Value::Null, |a| {
		json!({
			"moves": a.moves,
			"kept": a.kept,
			"share": f64::from(a.kept) / f64::from(a.moves.max(1)),
		})
	})
}

/// The game archive's counts.
fn game_archive_json(games: &v1::GameArchive) -> Value {
	json!({
		"kept": games.kept,
		"pending": games.pending,
		"pruned": games.pruned,
		"files": games.files,
		"bytes": games.bytes,
		"keep_generations": games.keep_generations,
	})
}

/// The self-play depth and the rates it follows.
fn selfplay_json(work: &v1::SelfPlayWork) -> Value {
	json!({
		"depth": work.depth,
		"depth_min": work.depth_min,
		"depth_max": work.depth_max,
		"arriving_per_second": work.arriving_per_second,
		"trainable_per_second": work.trainable_per_second,
		"trained_share": work.trained_share,
		"mean_uses": work.mean_uses,
	})
}

/// One gate match as the snapshot lists it.
fn gate_json(g: &v1::GateSummary) -> Value {
	json!({
		"generation": g.generation,
		"training_steps": g.training_steps,
		"promoted": g.promoted,
		"as_tigers": side_json(&g.as_tigers),
		"as_sheep": side_json(&g.as_sheep),
		"score": g.score,
		"score_low": g.score_low,
		"score_high": g.score_high,
		"elo": finite(g.elo),
		"cpu_hours": g.cpu_hours,
		"measurement": g.measurement,
		"opponent": opponent_text(g.opponent_generation),
		"reason": g.reason,
		"exact_accuracy": pair_json(&g.candidate_exact, &g.reference_exact),
		"placement_accuracy": pair_json(&g.candidate_placement, &g.reference_placement),
	})
}

/// Whom a gate match was played against: `ClaudePlayer`, or the incumbent of a generation.
fn opponent_text(generation: Option<u64>) -> String {
	generation.map_or_else(|| "ClaudePlayer".to_string(), |g| format!("generation {g}"))
}

/// The candidate's and the reference's accuracy in one phase.
fn pair_json(
	candidate: &Option<v1::ExactAccuracy>,
	reference: &Option<v1::ExactAccuracy>,
) -> Value {
	json!({ "candidate": exact_json(candidate), "reference": exact_json(reference) })
}

/// One measurement at equal time per move.
fn timed_json(t: &v1::TimedMeasurement) -> Value {
	json!({
		"generation": t.generation,
		"move_ms": t.move_ms,
		"as_tigers": side_json(&t.as_tigers),
		"as_sheep": side_json(&t.as_sheep),
		"score": t.score,
		"score_low": t.score_low,
		"score_high": t.score_high,
		"elo": finite(t.elo),
		"cpu_hours": t.cpu_hours,
		"finished_at": t.finished_at,
		"tablebase": table_role(&t.tablebase, t.candidate_exact.is_some()),
		"exact_accuracy": pair_json(&t.candidate_exact, &t.reference_exact),
		"placement_accuracy": pair_json(&t.candidate_placement, &t.reference_placement),
	})
}

/// The measurement at equal time under way.
fn timed_running_json(r: &v1::TimedRunning) -> Value {
	json!({
		"generation": r.generation,
		"move_ms": r.move_ms,
		"pairs_done": r.pairs_done,
		"pairs": r.pairs,
		"started_at": r.started_at,
		"tablebase": table_role(&r.tablebase, false),
	})
}

/// One listed worker.
fn worker_json(w: &v1::WorkerSummary) -> Value {
	json!({
		"id": w.worker_id,
		"name": w.name,
		"host": w.host,
		"threads": w.threads,
		"connected": w.connected,
		"generation": w.generation,
		"samples": w.samples,
		"samples_per_second": w.samples_per_second,
		"seconds_since_heard": w.seconds_since_heard,
		"reconnects": w.reconnects,
		"flagged": w.flagged,
	})
}

/// A placement solve's progress (`coordinator solve`), each field in docs/status.md.
fn placement_solve_json(solve: &v1::PlacementSolve) -> Value {
	json!({
		"layer": solve.layer,
		"layers": solve.layers,
		"layers_done": solve.layers_done,
		"slices": solve.slices,
		"slices_done": solve.slices_done,
		"slices_in_flight": solve.slices_in_flight,
		"positions": solve.positions,
		"positions_done": solve.positions_done,
		"positions_per_second": solve.positions_per_second,
		"seconds_left": solve.seconds_left,
		"slices_reassigned": solve.slices_reassigned,
		"slices_doubled": solve.slices_doubled,
		"positions_checked": solve.positions_checked,
		"finished": solve.finished,
		"workers": solve.workers.iter().map(|w| json!({
			"name": w.name,
			"slices": w.slices,
			"positions": w.positions,
			"share": w.share,
			"in_flight": w.in_flight,
			"flagged": w.flagged,
			"flag_reason": w.flag_reason,
			"seconds_since_seen": w.seconds_since_seen,
		})).collect::<Vec<_>>(),
	})
}

/// What the tablebase did in a measurement at equal time: `play`, `judge` or `none`. A
/// coordinator from before the field sends nothing; it measured with the table judging only,
/// if it had one (`judged`: the measurement has exact accuracies).
fn table_role(text: &str, judged: bool) -> &str {
	match text {
		"" if judged => "judge",
		"" => "none",
		text => text,
	}
}

/// Why `coordinator status` got no status.
#[derive(Debug, Error)]
pub enum StatusError {
	/// The URL, token or TLS settings cannot make a client.
	#[error("cannot ask {url}: {reason}")]
	Settings {
		/// The coordinator's URL.
		url: String,
		/// What is wrong with the settings.
		reason: ClientError,
	},
	/// No connection: the transport's error, whose sources say why (refused, timed out, a
	/// certificate not trusted).
	#[error("cannot reach {url}")]
	Connect {
		/// The coordinator's URL.
		url: String,
		/// The transport's error.
		#[source]
		source: tonic::transport::Error,
	},
	/// The coordinator (or the connection under the call) answered with an error. (Not a
	/// `source`: a `Status` prints its message and code again.)
	#[error("the status call failed: {}", call_failure(.0))]
	Call(tonic::Status),
	/// The server serves no progress (`tigers.v1.Observe`): the sentence says what it is.
	#[error("{0}")]
	Unserved(String),
}

/// Asks the coordinator at `url` (`http://` or `https://`, trusting `client.tls_ca`) for its
/// status, with `client.token` if there is one.
pub async fn fetch_status(url: &str, client: &ClientSettings) -> Result<v1::Progress, StatusError> {
	let connector =
		Connector::new(url, client, CONNECT_TIMEOUT).map_err(|reason| StatusError::Settings {
			url: url.to_string(),
			reason,
		})?;
	let mut client =
		connector
			.connect_observing()
			.await
			.map_err(|source| StatusError::Connect {
				url: url.to_string(),
				source,
			})?;
	let response = client
		.status(v1::StatusRequest {})
		.await
		.map_err(|status| match unserved(url, Service::Observe, &status) {
			Some(sentence) => StatusError::Unserved(sentence),
			None => StatusError::Call(status),
		})?;
	Ok(response.into_inner())
}

#[cfg(test)]
mod tests {
	use super::*;

	/// A snapshot with every optional part present and every list and map holding one entry,
	/// so that its JSON has every field `coordinator status` can print.
	fn everything() -> v1::Progress {
		let side = Some(v1::SideResult::default());
		let exact = Some(v1::ExactAccuracy { moves: 4, kept: 3 });
		v1::Progress {
			gates: vec![v1::GateSummary {
				as_tigers: side,
				as_sheep: side,
				candidate_exact: exact,
				reference_exact: exact,
				candidate_placement: exact,
				reference_placement: exact,
				..v1::GateSummary::default()
			}],
			workers: vec![v1::WorkerSummary {
				worker_id: "w1".into(),
				generation: Some(3),
				..v1::WorkerSummary::default()
			}],
			rejections: vec![v1::RejectionCount {
				reason: "size".into(),
				count: 1,
			}],
			recent_games: Some(v1::GameTally::default()),
			tablebase: Some(v1::TablebaseStatus::default()),
			timed: vec![v1::TimedMeasurement {
				as_tigers: side,
				as_sheep: side,
				candidate_exact: exact,
				reference_exact: exact,
				candidate_placement: exact,
				reference_placement: exact,
				..v1::TimedMeasurement::default()
			}],
			timed_running: Some(v1::TimedRunning::default()),
			work: Some(v1::SelfPlayWork {
				trained_share: Some(0.5),
				mean_uses: Some(1.0),
				..v1::SelfPlayWork::default()
			}),
			games: Some(v1::GameArchive::default()),
			placement_solve: Some(v1::PlacementSolve {
				workers: vec![v1::SolveWorker::default()],
				..v1::PlacementSolve::default()
			}),
			placement: Some(v1::PlacementLayers::default()),
			setup: Some(v1::RunSetup::default()),
			grades: vec![v1::NetGrade {
				placement: Some(v1::PhaseGrade::default()),
				movement: Some(v1::PhaseGrade::default()),
				..v1::NetGrade::default()
			}],
			ladder: Some(v1::Ladder {
				ratings: vec![v1::PlayerRating {
					generation: Some(3),
					..v1::PlayerRating::default()
				}],
				best_generation: Some(3),
				..v1::Ladder::default()
			}),
			..v1::Progress::default()
		}
	}

	/// The path of every leaf of `value` under `prefix`: `gates[].score`, and a map's keys as
	/// the placeholder the docs use.
	fn leaf_paths(value: &Value, prefix: &str, paths: &mut Vec<String>) {
		let placeholder = match prefix {
			"rejections" => Some("<reason>"),
			"samples_by_worker" => Some("<worker id>"),
			_ => None,
		};
		match value {
			Value::Object(fields) => {
				for (key, field) in fields {
					let key = placeholder.unwrap_or(key);
					let path = if prefix.is_empty() {
						key.to_string()
					} else {
						format!("{prefix}.{key}")
					};
					leaf_paths(field, &path, paths);
				}
			}
			Value::Array(items) => {
				let item = items.first().expect("every list holds an entry");
				leaf_paths(item, &format!("{prefix}[]"), paths);
			}
			_ => paths.push(prefix.to_string()),
		}
	}

	#[test]
	fn every_field_printed_is_documented() {
		let docs = include_str!("../../../docs/status.md");
		let mut paths = Vec::new();
		leaf_paths(&progress_json(&everything()), "", &mut paths);
		assert!(paths.len() > 60, "{paths:?}");
		let missing: Vec<&String> = paths
			.iter()
			.filter(|path| !docs.contains(&format!("`{path}`")))
			.collect();
		assert!(missing.is_empty(), "not in docs/status.md: {missing:?}");
	}

	#[test]
	fn a_gate_says_whom_the_candidate_played() {
		let gate = |opponent_generation| {
			gate_json(&v1::GateSummary {
				opponent_generation,
				..v1::GateSummary::default()
			})["opponent"]
				.clone()
		};
		assert_eq!(gate(None), "ClaudePlayer");
		assert_eq!(gate(Some(12)), "generation 12");
	}

	#[test]
	fn a_table_not_ready_has_no_hash() {
		let mut progress = everything();
		assert_eq!(progress_json(&progress)["tablebase"]["sha256"], Value::Null);
		progress.tablebase = Some(v1::TablebaseStatus {
			state: "ready".into(),
			sha256: "ab".repeat(32),
			..v1::TablebaseStatus::default()
		});
		assert_eq!(
			progress_json(&progress)["tablebase"]["sha256"],
			"ab".repeat(32)
		);
	}

	#[test]
	fn the_json_counts_what_the_snapshot_does_not_list() {
		let progress = v1::Progress {
			gates: vec![v1::GateSummary::default(); 2],
			gates_total: 900,
			workers_known: 31_000,
			workers_connected: 12,
			..v1::Progress::default()
		};
		let json = progress_json(&progress);
		assert_eq!(json["gates"].as_array().unwrap().len(), 2);
		assert_eq!(json["gates_total"], 900);
		assert_eq!(json["workers_known"], 31_000);
		assert_eq!(json["workers_connected"], 12);
		assert_eq!(json["selfplay"], Value::Null);
	}

	#[test]
	fn the_json_has_the_self_play_depth_and_the_share_trained_on() {
		let progress = v1::Progress {
			work: Some(v1::SelfPlayWork {
				depth: 4,
				depth_min: 3,
				depth_max: 5,
				arriving_per_second: 14_000.0,
				trainable_per_second: 12_500.0,
				trained_share: Some(0.75),
				mean_uses: None,
			}),
			..v1::Progress::default()
		};
		let json = progress_json(&progress);
		let work = &json["selfplay"];
		assert_eq!(work["depth"], 4);
		assert_eq!(
			(work["depth_min"].clone(), work["depth_max"].clone()),
			(json!(3), json!(5))
		);
		assert_eq!(work["arriving_per_second"], 14_000.0);
		assert_eq!(work["trainable_per_second"], 12_500.0);
		assert_eq!(work["trained_share"], 0.75);
		assert_eq!(work["mean_uses"], Value::Null);
	}

	#[test]
	fn the_json_says_what_the_tablebase_did_in_each_measurement() {
		let progress = v1::Progress {
			timed: vec![
				v1::TimedMeasurement {
					tablebase: "play".into(),
					..v1::TimedMeasurement::default()
				},
				v1::TimedMeasurement {
					candidate_exact: Some(v1::ExactAccuracy { moves: 5, kept: 5 }),
					..v1::TimedMeasurement::default()
				},
			],
			timed_running: Some(v1::TimedRunning {
				tablebase: "none".into(),
				..v1::TimedRunning::default()
			}),
			..v1::Progress::default()
		};
		let json = progress_json(&progress);
		assert_eq!(json["timed"][0]["tablebase"], "play");
		assert_eq!(json["timed"][1]["tablebase"], "judge");
		assert_eq!(json["timed_running"]["tablebase"], "none");
	}

	#[test]
	fn the_json_has_the_games_kept() {
		let progress = v1::Progress {
			games_total: 1_000,
			games: Some(v1::GameArchive {
				kept: 900,
				pending: 16,
				pruned: 100,
				files: 3,
				bytes: 123_456,
				keep_generations: 3,
			}),
			..v1::Progress::default()
		};
		let json = progress_json(&progress);
		assert_eq!(
			(json["games_total"].clone(), json["games_kept"].clone()),
			(json!(1_000), json!(900))
		);
		let archive = &json["game_archive"];
		assert_eq!(archive["pending"], 16);
		assert_eq!(archive["pruned"], 100);
		assert_eq!(
			(archive["files"].clone(), archive["bytes"].clone()),
			(json!(3), json!(123_456))
		);
		assert_eq!(archive["keep_generations"], 3);
		assert_eq!(progress_json(&v1::Progress::default())["games_kept"], 0);
	}
}
