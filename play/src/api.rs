//! The JSON API (`/api/v1/...`, described in `openapi.json`): a position's exact values, a
//! computer player's move, the net's evaluation, a game's analysis move by move, and what the
//! server offers. Every refusal is a status with `{"error": "a sentence"}`: 400 for a request
//! that cannot be answered as it is, 409 for a player this server cannot field, 429 with
//! `Retry-After` past a bound (`limits`).

use std::net::IpAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value as Json, json};
use tigers_core::board::TOTAL_SHEEP;
use tigers_core::tablebase::placement::LayerId;
use tigers_core::{Game, GameBoard, GameRecord, Position, Turn};

use crate::Server;
use crate::limits::Busy;
use crate::players::{self, Player, Unavailable};
use crate::query;
use tigers_core::analysis::{AnalysisError, Exact, Tables, analyse, value_of};

/// The longest game `POST /api/v1/game` analyses, in moves.
pub const MAX_GAME_MOVES: usize = 1_000;

/// The largest request body taken, in bytes: a game of [`MAX_GAME_MOVES`] moves with room.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The visitor's address, as the connection gives it (all visitors are one when the server
/// was started without connection information, as in some tests).
pub(crate) struct Client(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for Client {
	type Rejection = std::convert::Infallible;

	async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Client, Self::Rejection> {
		Ok(Client(crate::listen::client_address(&parts.extensions)))
	}
}

/// A refusal: a status and a sentence, and for 429 the seconds to wait.
#[derive(Debug)]
pub(crate) struct ApiError {
	status: StatusCode,
	message: String,
	retry_after_s: Option<u64>,
}

impl ApiError {
	fn bad(message: impl Into<String>) -> ApiError {
		ApiError {
			status: StatusCode::BAD_REQUEST,
			message: message.into(),
			retry_after_s: None,
		}
	}
}

impl From<Busy> for ApiError {
	fn from(busy: Busy) -> ApiError {
		ApiError {
			status: StatusCode::TOO_MANY_REQUESTS,
			message: busy.sentence(),
			retry_after_s: Some(busy.retry_after_s),
		}
	}
}

impl From<Unavailable> for ApiError {
	fn from(unavailable: Unavailable) -> ApiError {
		ApiError {
			status: StatusCode::CONFLICT,
			message: unavailable.to_string(),
			retry_after_s: None,
		}
	}
}

impl From<AnalysisError> for ApiError {
	fn from(error: AnalysisError) -> ApiError {
		ApiError {
			status: StatusCode::INTERNAL_SERVER_ERROR,
			message: error.to_string(),
			retry_after_s: None,
		}
	}
}

impl IntoResponse for ApiError {
	fn into_response(self) -> Response {
		let mut response = (self.status, json_body(&json!({ "error": self.message })));
		if let Some(seconds) = self.retry_after_s {
			response.1.headers_mut().insert(
				header::RETRY_AFTER,
				HeaderValue::from_str(&seconds.to_string()).expect("digits are a header value"),
			);
		}
		response.into_response()
	}
}

/// `value` as a JSON answer.
fn json_body(value: &Json) -> Response {
	(
		[(header::CONTENT_TYPE, "application/json")],
		value.to_string(),
	)
		.into_response()
}

/// The position in `text`, or a 400 saying what is wrong with it.
fn position_from(text: &str) -> Result<Position, ApiError> {
	text.parse::<Position>()
		.map_err(|error| ApiError::bad(format!("{text:?} is not a position: {error}")))
}

/// The `position` field of the query.
fn query_position(uri: &Uri) -> Result<Position, ApiError> {
	let text = uri
		.query()
		.and_then(|query| query::field(query, "position"))
		.ok_or_else(|| {
			ApiError::bad("the query needs position=TEXT, a position in the project's notation")
		})?;
	position_from(&text)
}

/// The request body as a JSON object.
fn body_object(body: &[u8]) -> Result<Map<String, Json>, ApiError> {
	match serde_json::from_slice::<Json>(body) {
		Ok(Json::Object(fields)) => Ok(fields),
		Ok(_) => Err(ApiError::bad("the body must be a JSON object")),
		Err(error) => Err(ApiError::bad(format!("the body is not JSON: {error}"))),
	}
}

/// A string field of a body.
fn string_field<'a>(fields: &'a Map<String, Json>, name: &str) -> Result<&'a str, ApiError> {
	match fields.get(name) {
		Some(Json::String(text)) => Ok(text),
		Some(_) => Err(ApiError::bad(format!("{name} must be a string"))),
		None => Err(ApiError::bad(format!("the body needs {name}"))),
	}
}

/// The words of an exact value: `"win"`, `"draw"`, `"loss"` or null, and the distance or null.
fn value_fields(value: Exact) -> (Json, Json) {
	(
		value.wdl().map_or(Json::Null, |wdl| json!(wdl.word())),
		value.distance().map_or(Json::Null, |n| json!(n)),
	)
}

/// Why no table knows the value of `board` with `turn` to move, for an unknown value.
fn why_unknown(tables: &Tables, board: GameBoard, turn: Turn) -> String {
	if board.sheep_in_hand() == 0 {
		return "no movement table is loaded on this server".to_string();
	}
	if tables.placement.is_none() {
		return "no placement layers are loaded on this server".to_string();
	}
	let placed = TOTAL_SHEEP - u32::from(board.sheep_in_hand());
	match LayerId::new(placed, turn) {
		Some(layer) => format!(
			"the placement layer {} ({placed} sheep placed, {} to move) is not on this server",
			layer.file_name(),
			turn.name()
		),
		None => "no table holds this position".to_string(),
	}
}

/// The phase a board is in, as the API names it.
fn phase(board: GameBoard) -> &'static str {
	if board.sheep_in_hand() > 0 {
		"placement"
	} else {
		"movement"
	}
}

/// Runs `work` on a blocking thread; a panic there is a 500.
async fn blocking<T: Send + 'static>(
	work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
	tokio::task::spawn_blocking(work)
		.await
		.unwrap_or_else(|error| {
			Err(ApiError {
				status: StatusCode::INTERNAL_SERVER_ERROR,
				message: format!("the request's work failed: {error}"),
				retry_after_s: None,
			})
		})
}

/// `GET /api/v1/position?position=TEXT`.
pub(crate) async fn position(
	State(server): State<Arc<Server>>,
	Client(client): Client,
	uri: Uri,
) -> Result<Response, ApiError> {
	server.gate.lookup(client)?;
	let position = query_position(&uri)?;
	let tables = server.source.tables();
	// A movement-phase position and its moves are all in the movement table, in memory: at
	// most 49 reads of a few nanoseconds each, answered here. The placement layers are read
	// from disk, on a blocking thread.
	let answer = if position.board.sheep_in_hand() == 0 {
		position_json(&tables, position)?
	} else {
		blocking(move || Ok(position_json(&tables, position)?)).await?
	};
	Ok(json_body(&answer))
}

/// A position's analysis as the API writes it.
fn position_json(tables: &Tables, position: Position) -> Result<Json, AnalysisError> {
	let analysis = analyse(tables, position)?;
	let (value, distance) = value_fields(analysis.value);
	let moves: Vec<Json> = analysis
		.moves
		.iter()
		.map(|m| {
			let (value, distance) = value_fields(m.value);
			let after = Position {
				board: position.board.after_move_unchecked(m.mv),
				turn: position.turn.opponent(),
			};
			json!({
				"move": m.mv.to_string(),
				"value": value,
				"distance": distance,
				"after": after.to_string(),
			})
		})
		.collect();
	let mut answer = json!({
		"position": position.to_string(),
		"turn": position.turn.name(),
		"phase": phase(position.board),
		"over": analysis.over,
		"value": value,
		"distance": distance,
		"moves": moves,
	});
	if analysis.value == Exact::Unknown {
		answer["unknown"] = json!(why_unknown(tables, position.board, position.turn));
	}
	Ok(answer)
}

/// `POST /api/v1/move` with `{"position", "player", "ms"}`.
pub(crate) async fn choose_move(
	State(server): State<Arc<Server>>,
	Client(client): Client,
	body: Bytes,
) -> Result<Response, ApiError> {
	let fields = body_object(&body)?;
	let position = position_from(string_field(&fields, "position")?)?;
	let name = string_field(&fields, "player")?;
	let player = Player::named(name).ok_or_else(|| {
		ApiError::bad(format!(
			"{name:?} is not a player; the players are {}",
			Player::NAMES.join(", ")
		))
	})?;
	let max_ms = server.gate.limits().max_ms;
	let ms = match fields.get("ms") {
		None => 100,
		Some(value) => value
			.as_u64()
			.filter(|ms| (1..=u64::from(max_ms)).contains(ms))
			.ok_or_else(|| {
				ApiError::bad(format!(
					"ms must be a whole number of milliseconds from 1 to {max_ms}"
				))
			})? as u32,
	};
	if Game::new(position).is_over() {
		return Err(ApiError::bad(
			"the game is over in this position: there is no move to play",
		));
	}
	let (tables, net) = (server.source.tables(), server.source.net());
	players::check(player, &tables, net.as_ref())?;
	// The generation of the net that moves, read before the search: a promotion meanwhile
	// must not relabel the move.
	let generation = match player {
		Player::Net => net.as_ref().map(|net| net.generation),
		_ => None,
	};
	let slot = server.gate.search(client, ms)?;
	let chosen = blocking(move || {
		let chosen = players::choose(player, position, &[], ms, &tables, net.as_ref());
		drop(slot);
		Ok(chosen?)
	})
	.await?;
	let mv = chosen.ok_or_else(|| ApiError::bad("the side to move has no legal move"))?;
	Ok(json_body(&json!({
		"move": mv.to_string(),
		"player": player.name(),
		"ms": ms,
		"generation": generation,
	})))
}

/// `GET /api/v1/evaluation?position=TEXT`: the net's own evaluation, no search.
pub(crate) async fn evaluation(
	State(server): State<Arc<Server>>,
	Client(client): Client,
	uri: Uri,
) -> Result<Response, ApiError> {
	server.gate.lookup(client)?;
	let position = query_position(&uri)?;
	let net = server.source.net().ok_or(Unavailable::NoNet)?;
	let generation = net.generation;
	let score = blocking(move || Ok(players::evaluate(&net, position))).await?;
	Ok(json_body(&json!({
		"position": position.to_string(),
		"generation": generation,
		"score": score,
	})))
}

/// `POST /api/v1/game` with `{"start"?, "moves"}`: every move's value before and after it,
/// and whether it gave a value away.
pub(crate) async fn game(
	State(server): State<Arc<Server>>,
	Client(client): Client,
	body: Bytes,
) -> Result<Response, ApiError> {
	server.gate.lookup(client)?;
	let fields = body_object(&body)?;
	let start = match fields.get("start") {
		None | Some(Json::Null) => Position::default(),
		Some(Json::String(text)) => position_from(text)?,
		Some(_) => return Err(ApiError::bad("start must be a string")),
	};
	let moves: Vec<String> = match fields.get("moves") {
		Some(Json::Array(moves)) => moves
			.iter()
			.map(|mv| mv.as_str().map(str::to_string))
			.collect::<Option<_>>()
			.ok_or_else(|| ApiError::bad("moves must be an array of strings"))?,
		Some(_) => return Err(ApiError::bad("moves must be an array of strings")),
		None => return Err(ApiError::bad("the body needs moves, an array of strings")),
	};
	if moves.len() > MAX_GAME_MOVES {
		return Err(ApiError::bad(format!(
			"a game of {} moves is longer than the {MAX_GAME_MOVES} analysed",
			moves.len()
		)));
	}
	let tables = server.source.tables();
	let answer = blocking(move || game_json(&tables, start, &moves)).await?;
	Ok(json_body(&answer))
}

/// A game's analysis as the API writes it.
fn game_json(tables: &Tables, start: Position, moves: &[String]) -> Result<Json, ApiError> {
	let mut game = Game::new(start);
	let mut plies = Vec::with_capacity(moves.len());
	for (index, text) in moves.iter().enumerate() {
		let before = game.position();
		let was = value_of(tables, before.board, before.turn)?;
		let mv = game.play_text(text).map_err(|error| {
			ApiError::bad(format!(
				"move {} ({text:?}) cannot be played in {before}: {error}",
				index + 1
			))
		})?;
		let after = game.position();
		let now = value_of(tables, after.board, after.turn)?.flip();
		let gave_away = match (was.wdl(), now.wdl()) {
			(Some(a), Some(b)) => a.sign() > b.sign(),
			_ => false,
		};
		let (value_before, distance_before) = value_fields(was);
		let (value_after, distance_after) = value_fields(now);
		plies.push(json!({
			"ply": index + 1,
			"position": before.to_string(),
			"move": mv.to_string(),
			"before": { "value": value_before, "distance": distance_before },
			"after": { "value": value_after, "distance": distance_after },
			"gave_away": gave_away,
		}));
	}
	let result = game.outcome().map(|outcome| outcome.code());
	Ok(json!({
		"start": start.to_string(),
		"end": game.position().to_string(),
		"result": result,
		"plies": plies,
		"record": GameRecord::from_game(&game).to_text(),
	}))
}

/// `GET /api/v1/server`: what this server can do.
pub(crate) async fn about(State(server): State<Arc<Server>>) -> Response {
	let tables = server.source.tables();
	let net = server.source.net();
	let limits = server.gate.limits();
	let layers = tables.placement.as_ref().map_or(0, |p| p.layers().count());
	let mut players = vec!["claude"];
	if net.is_some() {
		players.insert(0, "net");
	}
	if tables.can_play_perfectly() {
		players.push("perfect");
	}
	json_body(&json!({
		"players": players,
		"net": net.map(|net| json!({ "generation": net.generation })),
		"movement_table": tables.movement.is_some(),
		"placement_layers": layers,
		"placement_layers_total": LayerId::solve_order(0).len(),
		"max_ms": limits.max_ms,
		"searches": limits.searches,
	}))
}

/// `GET /api/v1/openapi.json`: the description of this API.
pub(crate) async fn openapi() -> Response {
	([(header::CONTENT_TYPE, "application/json")], crate::OPENAPI).into_response()
}
