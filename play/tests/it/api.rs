//! The API against the tables themselves: each position's value and every move's as the
//! movement table and the placement layers give them, best first; every refusal a status with
//! a sentence; the bounds answering 429 with the seconds to wait.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value as Json;
use tigers_core::analysis::Tables;
use tigers_core::tablebase::Value;
use tigers_core::tablebase::placement::Verdict;
use tigers_core::{Game, GameBoard, Position, Turn};
use tigers_play::limits::Limits;
use tigers_testkit::http::get;

use crate::support::{json, movement, position, post, serve, tables};

/// The API's words for a movement-table value.
fn words(value: Value) -> (Json, Json) {
	match value {
		Value::Win(n) => ("win".into(), n.into()),
		Value::Draw => ("draw".into(), Json::Null),
		Value::Loss(n) => ("loss".into(), n.into()),
	}
}

/// The API's word for a placement verdict.
fn word(verdict: Verdict) -> Json {
	match verdict {
		Verdict::Win => "win".into(),
		Verdict::Draw => "draw".into(),
		Verdict::Loss => "loss".into(),
	}
}

/// The mover's value after `board` became `after` by its move, from the tables directly.
fn expected_after(tables: &Tables, after: GameBoard, mover: Turn) -> (Json, Json) {
	if after.outcome(mover.opponent()).is_some() {
		return ("win".into(), 0.into());
	}
	if after.sheep_in_hand() == 0 {
		let value = tables
			.movement
			.as_ref()
			.unwrap()
			.probe(after, mover.opponent());
		return value.map_or((Json::Null, Json::Null), |v| words(v.flip()));
	}
	let verdict = tables
		.placement
		.as_ref()
		.unwrap()
		.probe(after, mover.opponent())
		.unwrap();
	(verdict.map_or(Json::Null, |v| word(v.flip())), Json::Null)
}

/// How good a move's (value, distance) is for the mover, larger better.
fn rank(value: &Json, distance: &Json) -> (i32, i64) {
	let n = distance.as_i64();
	match value.as_str() {
		Some("win") => (3, -n.unwrap_or(i64::MAX)),
		Some("draw") => (2, 0),
		None => (1, 0),
		_ => (0, n.unwrap_or(0)),
	}
}

/// Checks one position's answer against the tables: its value, every legal move once with
/// its value, best first.
fn check_answer(tables: &Tables, position: Position, answer: &Json, value: &(Json, Json)) {
	assert_eq!(answer["position"], position.to_string());
	assert_eq!(
		&(answer["value"].clone(), answer["distance"].clone()),
		value,
		"{answer}"
	);
	let moves = answer["moves"].as_array().expect("moves");
	let legal = Game::new(position).legal_moves();
	assert_eq!(moves.len(), legal.len(), "{answer}");
	let mut last = (i32::MAX, i64::MAX);
	for entry in moves {
		let mv = entry["move"].as_str().unwrap().parse().unwrap();
		assert!(legal.contains(&mv), "{mv} is not legal in {position}");
		let after = position.board.after_move_unchecked(mv);
		let written = Position::new(after, position.turn.opponent()).unwrap();
		assert_eq!(entry["after"], written.to_string());
		let expected = expected_after(tables, after, position.turn);
		assert_eq!(
			(entry["value"].clone(), entry["distance"].clone()),
			expected,
			"{mv} in {position}"
		);
		let this = rank(&entry["value"], &entry["distance"]);
		assert!(this <= last, "not best first in {position}: {answer}");
		last = this;
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn movement_positions_answer_the_tables_values_for_the_position_and_every_move() {
	let tables = tables();
	let address = serve(tables.clone(), Limits::default()).await;
	let table = movement();
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(49);
	for _ in 0..40 {
		let (position, value) = table.entry(rng.random_range(0..table.len()));
		let answer = position_answer(address, position).await;
		assert_eq!(answer["phase"], "movement");
		check_answer(&tables, position, &answer, &words(value));
		// The best move is worth the position's value, one ply on.
		if let (Some(best), Value::Win(n) | Value::Loss(n)) = (answer["moves"].get(0), value) {
			assert_eq!(best["distance"], n - 1, "{answer}");
		}
	}
}

async fn position_answer(address: std::net::SocketAddr, position: Position) -> Json {
	let answer = self::position(address, &position.to_string()).await;
	assert_eq!(answer.status, 200, "{}", answer.text());
	assert_eq!(
		answer.header("content-type").as_deref(),
		Some("application/json")
	);
	json(&answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_placements_answer_the_layers_verdicts_and_the_movement_tables_values() {
	let tables = tables();
	let address = serve(tables.clone(), Limits::default()).await;
	let table = movement();
	let layers = tables.placement.clone().unwrap();
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(50);
	let (mut checked, mut known) = (0, 0);
	while checked < 30 {
		// A movement position with the sheep to move, one of its sheep lifted back into the hand.
		let (from, _) = table.entry(rng.random_range(0..table.len()));
		let sheep = from.board.sheep();
		if from.turn != Turn::Sheep || sheep == 0 || from.board.outcome(Turn::Sheep).is_some() {
			continue;
		}
		let lifted = sheep & !(1 << sheep.trailing_zeros());
		let Ok(board) = GameBoard::new(from.board.tigers(), lifted, 1) else {
			continue;
		};
		let Ok(position) = Position::new(board, Turn::Sheep) else {
			continue;
		};
		let verdict = layers.probe(board, Turn::Sheep).unwrap();
		known += usize::from(verdict.is_some());
		let answer = position_answer(address, position).await;
		assert_eq!(answer["phase"], "placement");
		check_answer(
			&tables,
			position,
			&answer,
			&(verdict.map_or(Json::Null, word), Json::Null),
		);
		checked += 1;
	}
	// The layer of the last placement is there: every one of these positions is known.
	assert_eq!(known, checked);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_no_table_holds_says_which_table_is_missing() {
	let address = serve(tables(), Limits::default()).await;
	let start = json(&position(address, "T...T/...../...../...../T...T s 20").await);
	assert_eq!(start["value"], Json::Null);
	assert_eq!(start["moves"].as_array().unwrap().len(), 21);
	let why = start["unknown"].as_str().expect("a sentence");
	assert!(
		why.contains("placement layer") && why.contains("0 sheep placed"),
		"{why}"
	);
	// Without any table, a movement position says the movement table is missing.
	let bare = serve(Tables::default(), Limits::default()).await;
	let movement = json(&position(bare, "SS.SS/SSSSS/SS.TS/STTTS/SSSSS t 0").await);
	assert_eq!(movement["value"], Json::Null);
	assert!(
		movement["unknown"]
			.as_str()
			.unwrap()
			.contains("no movement table"),
		"{movement}"
	);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_impossible_positions_are_refused_with_the_reason() {
	let address = serve(Tables::default(), Limits::default()).await;
	let missing = get(address, "/api/v1/position", &[]).await;
	assert_eq!(missing.status, 400);
	assert!(
		json(&missing)["error"]
			.as_str()
			.unwrap()
			.contains("position=TEXT")
	);
	for (text, reason) in [
		("hello", "three fields"),
		("T...T/...../...../...../T...T x 20", "side to move"),
		("SSSSS/SSSSS/SSSSS/SSSSS/TTTT. s 5", "sheep"),
		(
			"T...T/...../...../...../T...T t 20",
			"before the first sheep",
		),
		("TTTTT/...../...../...../..... s 20", "tiger"),
	] {
		let answer = position(address, text).await;
		assert_eq!(answer.status, 400, "{text}: {}", answer.text());
		let error = json(&answer)["error"].as_str().unwrap().to_string();
		assert!(error.contains(reason), "{text}: {error}");
	}
	// A query that does not decode is no position either.
	let broken = get(address, "/api/v1/position?position=%zz", &[]).await;
	assert_eq!(broken.status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_player_answers_a_legal_move_and_bad_requests_say_why() {
	let address = serve(Tables::default(), Limits::default()).await;
	let start = "T...T/...../...../...../T...T s 20";
	for player in ["net", "claude"] {
		let answer = post(
			address,
			"/api/v1/move",
			&format!(r#"{{"position": "{start}", "player": "{player}", "ms": 50}}"#),
		)
		.await;
		assert_eq!(answer.status, 200, "{}", answer.text());
		let body = json(&answer);
		let mv = body["move"].as_str().unwrap().parse().unwrap();
		assert!(Game::new(Position::default()).legal_moves().contains(&mv));
		assert_eq!(body["player"], player);
		assert_eq!(
			body["generation"],
			if player == "net" {
				5.into()
			} else {
				Json::Null
			}
		);
	}
	let perfect = post(
		address,
		"/api/v1/move",
		&format!(r#"{{"position": "{start}", "player": "perfect"}}"#),
	)
	.await;
	assert_eq!(perfect.status, 409);
	assert!(
		json(&perfect)["error"]
			.as_str()
			.unwrap()
			.contains("placement layers")
	);
	for (body, reason) in [
		("not json", "not JSON"),
		("[1, 2]", "JSON object"),
		(r#"{"player": "net"}"#, "needs position"),
		(
			&format!(r#"{{"position": "{start}", "player": "stockfish"}}"#),
			"not a player",
		),
		(
			&format!(r#"{{"position": "{start}", "player": "net", "ms": 0}}"#),
			"ms must be",
		),
		(
			&format!(r#"{{"position": "{start}", "player": "net", "ms": 60000}}"#),
			"ms must be",
		),
		(
			r#"{"position": "TSSST/SS.SS/SSSSS/SSSSS/TSSST t 0", "player": "claude"}"#,
			"game is over",
		),
	] {
		let answer = post(address, "/api/v1/move", body).await;
		assert_eq!(answer.status, 400, "{body}: {}", answer.text());
		let error = json(&answer)["error"].as_str().unwrap().to_string();
		assert!(error.contains(reason), "{body}: {error}");
	}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_past_the_bounds_are_refused_with_429_and_the_seconds_to_wait() {
	let limits = Limits {
		searches: 1,
		bucket_ms: 1_500,
		refill_ms_per_s: 100,
		lookups_per_s: 3,
		..Limits::default()
	};
	let address = serve(Tables::default(), limits).await;
	let body = |ms: u32| {
		format!(
			r#"{{"position": "T...T/...../...../...../T...T s 20", "player": "claude", "ms": {ms}}}"#
		)
	};
	// Two searches at once with one slot: one is refused at once.
	let long = body(1000);
	let (a, b) = tokio::join!(
		post(address, "/api/v1/move", &long),
		post(address, "/api/v1/move", &long)
	);
	let mut statuses = [a.status, b.status];
	statuses.sort_unstable();
	assert_eq!(statuses, [200, 429]);
	let refused = if a.status == 429 { &a } else { &b };
	assert_eq!(refused.header("retry-after").as_deref(), Some("1"));
	assert!(
		json(refused)["error"]
			.as_str()
			.unwrap()
			.contains("search slot")
	);
	// 1,000 of 1,500 ms spent: 1,000 more must wait for 500 at 100 a second.
	let spent = post(address, "/api/v1/move", &body(1000)).await;
	assert_eq!(spent.status, 429, "{}", spent.text());
	let wait: u64 = spent.header("retry-after").unwrap().parse().unwrap();
	assert!((4..=5).contains(&wait), "{wait}");
	// Look-ups: three at once, then the fourth waits.
	for _ in 0..3 {
		assert_eq!(
			get(
				address,
				"/api/v1/evaluation?position=T...T%2F.....%2F.....%2F.....%2FT...T+s+20",
				&[]
			)
			.await
			.status,
			200
		);
	}
	let fourth = position(address, "T...T/...../...../...../T...T s 20").await;
	assert_eq!(fourth.status, 429);
	assert!(fourth.header("retry-after").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_games_analysis_marks_each_move_that_gave_a_value_away() {
	let tables = tables();
	let address = serve(tables.clone(), Limits::default()).await;
	let table = movement();
	// A won movement position with a move that does not keep the win.
	let mut rng = Xoshiro256PlusPlus::seed_from_u64(51);
	let (position, slip, keep) = loop {
		let (position, value) = table.entry(rng.random_range(0..table.len()));
		if !matches!(value, Value::Win(_)) {
			continue;
		}
		let answer = position_answer(address, position).await;
		let moves = answer["moves"].as_array().unwrap().clone();
		if let Some(slip) = moves.iter().find(|m| m["value"] != "win") {
			break (
				position,
				slip["move"].as_str().unwrap().to_string(),
				moves[0]["move"].as_str().unwrap().to_string(),
			);
		}
	};
	for (mv, gave_away) in [(&slip, true), (&keep, false)] {
		let answer = post(
			address,
			"/api/v1/game",
			&format!(r#"{{"start": "{position}", "moves": ["{mv}"]}}"#),
		)
		.await;
		assert_eq!(answer.status, 200, "{}", answer.text());
		let body = json(&answer);
		let ply = &body["plies"][0];
		assert_eq!(ply["before"]["value"], "win", "{body}");
		assert_eq!(ply["gave_away"], gave_away, "{body}");
		assert_eq!(ply["position"], position.to_string());
		let record = tigers_core::GameRecord::from_text(body["record"].as_str().unwrap()).unwrap();
		assert_eq!(record.moves.len(), 1);
	}
	// A move that cannot be played is refused, naming it.
	let illegal = post(address, "/api/v1/game", r#"{"moves": ["sc3", "sc3"]}"#).await;
	assert_eq!(illegal.status, 400);
	let error = json(&illegal)["error"].as_str().unwrap().to_string();
	assert!(error.contains("move 2"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_describes_itself_and_its_api() {
	let address = serve(tables(), Limits::default()).await;
	let about = json(&get(address, "/api/v1/server", &[]).await);
	assert_eq!(about["players"], serde_json::json!(["net", "claude"]));
	assert_eq!(about["net"]["generation"], 5);
	assert_eq!(about["movement_table"], true);
	assert_eq!(about["placement_layers"], 2);
	assert_eq!(about["placement_layers_total"], 39);
	let openapi = get(address, "/api/v1/openapi.json", &[]).await;
	assert_eq!(openapi.status, 200);
	let document = json(&openapi);
	assert_eq!(document["openapi"], "3.0.3");
	for path in [
		"/api/v1/position",
		"/api/v1/move",
		"/api/v1/evaluation",
		"/api/v1/game",
		"/api/v1/server",
		"/api/v1/openapi.json",
	] {
		assert!(
			document["paths"].get(path).is_some(),
			"{path} is not described"
		);
		let answer = get(address, path, &[]).await;
		assert_ne!(answer.status, 404, "{path} is not served");
	}
}
