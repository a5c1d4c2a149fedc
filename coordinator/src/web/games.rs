//! The Games page: the run's game archive by generation, each file to download, the games of
//! one file a page at a time, and a viewer that replays one game move by move on a drawn
//! board, with each position's exact value where the tablebase (the movement table, or the
//! placement layers if the coordinator has them) knows it.

use std::fmt::Write;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use flate2::read::MultiGzDecoder;
use serde_json::json;
use tigers_core::board::DEAD_SHEEP_TO_WIN;
use tigers_core::pos::Pos;
use tigers_core::record::GameRecord;
use tigers_core::{GameBoard, Turn};
use tigers_proto::games::{ARCHIVE_DIR, file_name, generation_of};

use super::html::{self, escape, pager, utc};
use super::nets::attachment;
use super::query::{self, PER_PAGE, clamp_page};
use super::{Refusal, Web, blocking, storage_failure};
use crate::store::ledger::GameFileRow;

/// The viewer's script.
const SCRIPT: &str = include_str!("assets/viewer.js");

/// The largest archive file the pages decompress to list or replay its games (compressed
/// bytes): a bound on a request's memory and time. Larger files can still be downloaded.
const MAX_VIEWED_BYTES: u64 = 64 << 20;

/// The last archive file read: its records from the first, as far as pages have needed them.
/// Reading a generation's file again for each page of it would decompress it each time.
#[derive(Default)]
pub(crate) struct GameCache(Mutex<Option<CachedFile>>);

/// The records read of one archive file.
struct CachedFile {
	/// The file's generation, and its committed length when read.
	generation: u64,
	bytes: u64,
	/// Its records from the first, in order.
	records: Arc<Vec<String>>,
	/// Whether they are all of its records.
	complete: bool,
}

/// `GET /games?page=N`: the archive's files, newest generation first.
pub(crate) async fn archive_page(
	State(web): State<Arc<Web>>,
	RawQuery(query): RawQuery,
) -> Response {
	let asked = query::page(query.as_deref());
	let read = blocking(&web, |web| {
		web.reader().game_files().map_err(|e| storage_failure(&e))
	})
	.await;
	let mut files = match read {
		Ok(files) => files,
		Err(failure) => return failure.into_response(),
	};
	files.reverse();
	let total = files.len() as u64;
	let number = clamp_page(asked, total);
	let mut body = String::from(
		"<p>The self-play games the run keeps, one gzip file of game records per generation of \
		 the net that played them (<code>zcat</code> prints the records; <code>tui --load</code> \
		 replays them).</p><table class=\"list\"><tr><th>gen</th><th>games</th><th>bytes</th>\
		 <th>file</th></tr>",
	);
	for file in files
		.iter()
		.skip((number * PER_PAGE) as usize)
		.take(PER_PAGE as usize)
	{
		body.push_str(&file_row(file));
	}
	body.push_str("</table>");
	body.push_str(&pager("/games", number, PER_PAGE, total));
	html::page("Games", &body, None)
}

/// One archive file's row.
fn file_row(file: &GameFileRow) -> String {
	let name = file_name(file.generation);
	if file.pruned_at.is_some() {
		return format!(
			"<tr><td>{}</td><td>{}</td><td>-</td><td>pruned {}</td></tr>",
			file.generation,
			file.games,
			utc(file.pruned_at.unwrap_or(0.0))
		);
	}
	format!(
		"<tr><td><a href=\"/games/{g}\">{g}</a></td><td>{}</td><td>{}</td><td><a \
		 href=\"/download/games/{name}\" download>{name}</a></td></tr>",
		file.games,
		file.bytes,
		g = file.generation
	)
}

/// The kept file of `generation` as the ledger lists it, or a 404.
fn listed_file(web: &Web, generation: u64) -> Result<GameFileRow, Refusal> {
	let files = web.reader().game_files().map_err(|e| storage_failure(&e))?;
	files
		.into_iter()
		.find(|f| f.generation == generation && f.pruned_at.is_none())
		.ok_or_else(|| {
			Refusal::new(
				StatusCode::NOT_FOUND,
				"The archive keeps no games of that generation.",
			)
		})
}

/// The committed bytes of a listed file: its first `bytes`, which the ledger says are
/// complete (the archive may be appending after them).
fn file_bytes(web: &Web, file: &GameFileRow) -> Result<Vec<u8>, Refusal> {
	let path: PathBuf = web
		.shared
		.run_dir
		.path()
		.join(ARCHIVE_DIR)
		.join(file_name(file.generation));
	let mut bytes = std::fs::read(&path).map_err(|e| {
		Refusal::new(
			StatusCode::INTERNAL_SERVER_ERROR,
			format!("the archive file cannot be read: {e}"),
		)
	})?;
	bytes.truncate(file.bytes as usize);
	Ok(bytes)
}

/// `GET /download/games/gen-NNNNNN.records.gz`: a listed archive file, as far as committed.
pub(crate) async fn download(State(web): State<Arc<Web>>, Path(name): Path<String>) -> Response {
	let Some(generation) = generation_of(&name).filter(|&g| file_name(g) == name) else {
		return html::error_page(
			StatusCode::NOT_FOUND,
			"There is no archive file of that name.",
		);
	};
	let read = blocking(&web, move |web| {
		let file = listed_file(web, generation)?;
		file_bytes(web, &file)
	})
	.await;
	match read {
		Ok(bytes) => attachment(bytes, &name, "application/gzip"),
		Err(failure) => failure.into_response(),
	}
}

/// The records of generation's file up to record `through` (all, if it has no more), from the
/// cache or read now, with the number of games the ledger lists in the file. The file is
/// decompressed only as far as that record: the first page of a file of 100,000 games reads a
/// few kilobytes of it.
fn records(web: &Web, generation: u64, through: usize) -> Result<(Arc<Vec<String>>, u64), Refusal> {
	let file = listed_file(web, generation)?;
	if file.bytes > MAX_VIEWED_BYTES {
		return Err(Refusal::new(
			StatusCode::PAYLOAD_TOO_LARGE,
			"This generation's file is too large to list here; download it instead.",
		));
	}
	let mut cache = web.games.0.lock().unwrap_or_else(|p| p.into_inner());
	if let Some(cached) = &*cache
		&& (cached.generation, cached.bytes) == (generation, file.bytes)
		&& (cached.complete || cached.records.len() > through)
	{
		return Ok((cached.records.clone(), file.games));
	}
	let (records, complete) = read_records(&file_bytes(web, &file)?, through).map_err(|e| {
		Refusal::new(
			StatusCode::INTERNAL_SERVER_ERROR,
			format!("the archive file cannot be read: {e}"),
		)
	})?;
	let records = Arc::new(records);
	*cache = Some(CachedFile {
		generation,
		bytes: file.bytes,
		records: records.clone(),
		complete,
	});
	Ok((records, file.games))
}

/// The records of a gzip stream of records (`tigers_proto::games`) up to record `through`, and
/// whether they are all of them. A record runs from a header line to the next, as
/// `split_records` cuts them; text before the first header is a piece of its own.
fn read_records(compressed: &[u8], through: usize) -> std::io::Result<(Vec<String>, bool)> {
	let mut reader = BufReader::new(MultiGzDecoder::new(compressed));
	let mut records = Vec::new();
	let mut current = String::new();
	let mut line = String::new();
	loop {
		line.clear();
		if reader.read_line(&mut line)? == 0 {
			if !current.is_empty() {
				records.push(current);
			}
			return Ok((records, true));
		}
		if line.starts_with(HEADER) && !current.is_empty() {
			records.push(std::mem::take(&mut current));
			if records.len() > through {
				return Ok((records, false));
			}
		}
		current.push_str(&line);
	}
}

/// How a record's first line begins, whatever its version.
const HEADER: &str = "tigers-and-sheep record ";

/// `GET /games/G?page=N`: the games of generation G's file.
pub(crate) async fn list_page(
	State(web): State<Arc<Web>>,
	Path(generation): Path<u64>,
	RawQuery(query): RawQuery,
) -> Response {
	let asked = query::page(query.as_deref());
	let read = blocking(&web, move |web| {
		let total = listed_file(web, generation)?.games;
		let number = clamp_page(asked, total);
		let start = (number * PER_PAGE) as usize;
		let (records, _) = records(web, generation, start + PER_PAGE as usize - 1)?;
		let rows: Vec<(usize, Option<GameRecord>)> = (start
			..records.len().min(start + PER_PAGE as usize))
			.map(|i| (i, GameRecord::from_text(&records[i]).ok()))
			.collect();
		Ok((total, number, rows))
	})
	.await;
	let (total, number, rows) = match read {
		Ok(read) => read,
		Err(failure) => return failure.into_response(),
	};
	let mut body = format!(
		"<p>{total} games of generation {generation}. <a href=\"/download/games/{name}\" \
		 download>{name}</a></p><table class=\"list\"><tr><th>game</th><th>moves</th>\
		 <th>result</th></tr>",
		name = file_name(generation)
	);
	for (index, record) in rows {
		let (moves, result) = record.map_or(("-".into(), "cannot be read".into()), |r| {
			(
				r.moves.len().to_string(),
				r.result.map_or("unfinished".into(), |o| o.to_string()),
			)
		});
		let _ = write!(
			body,
			"<tr><td><a href=\"/games/{generation}/{index}\">{index}</a></td><td>{moves}</td>\
			 <td>{}</td></tr>",
			escape(&result)
		);
	}
	body.push_str("</table>");
	body.push_str(&pager(
		&format!("/games/{generation}"),
		number,
		PER_PAGE,
		total,
	));
	html::page(&format!("Games of generation {generation}"), &body, None)
}

/// `GET /games/G/I`: the viewer, replaying game I of generation G's file.
pub(crate) async fn viewer_page(
	State(web): State<Arc<Web>>,
	Path((generation, index)): Path<(u64, usize)>,
) -> Response {
	let read = blocking(&web, move |web| {
		let (records, count) = records(web, generation, index)?;
		let text = records.get(index).ok_or_else(|| {
			Refusal::new(
				StatusCode::NOT_FOUND,
				"The file has no game of that number.",
			)
		})?;
		let record = GameRecord::from_text(text).map_err(|e| {
			Refusal::new(
				StatusCode::UNPROCESSABLE_ENTITY,
				format!("the game cannot be read: {e}"),
			)
		})?;
		Ok((
			positions(web, &record),
			record.result.map(|o| o.to_string()),
			count,
			analysis_link(&record),
		))
	})
	.await;
	let (plies, result, count, analyse) = match read {
		Ok(read) => read,
		Err(failure) => return failure.into_response(),
	};
	let data = serde_json::to_string(&plies)
		.unwrap_or_else(|_| "[]".into())
		.replace('<', "\\u003c");
	let mut body = format!(
		"<p>Game {index} of {count} in generation {generation}: {}. Step with the arrow keys \
		 (Home and End for the ends) or the buttons, or click a move. \
		 <a href=\"{}\">Analyse it</a> with every move's exact value.</p>",
		escape(result.as_deref().unwrap_or("unfinished")),
		escape(&analyse)
	);
	body.push_str(VIEWER);
	let nav = neighbours(generation, index, count);
	body.push_str(&nav);
	let _ = write!(
		body,
		"<script type=\"application/json\" id=\"plies\">{data}</script>"
	);
	html::page(
		&format!("Game {index} of generation {generation}"),
		&body,
		Some(SCRIPT),
	)
}

/// The analysis board's address for `record`: its start and its moves.
fn analysis_link(record: &GameRecord) -> String {
	let moves: Vec<String> = record.moves.iter().map(ToString::to_string).collect();
	format!(
		"/analysis?start={}&moves={}",
		tigers_play::query::encode(&record.start.to_string()),
		moves.join(",")
	)
}

/// The viewer's frame, which the script fills.
const VIEWER: &str = "<div class=\"viewer\"><div><svg id=\"board\" viewBox=\"-0.6 -0.6 5.2 5.2\" \
	xmlns=\"http://www.w3.org/2000/svg\"></svg><p class=\"controls\"><button id=\"first\" title=\"first position\">◀◀</button> \
	<button id=\"back\">◀</button> <span id=\"ply\"></span> <button id=\"forward\">▶</button> \
	<button id=\"last\" title=\"last position\">▶▶</button></p><p id=\"state\"></p><p id=\"value\"></p></div>\
	<ol id=\"moves\" start=\"1\"></ol></div>";

/// Links to the games before and after this one.
fn neighbours(generation: u64, index: usize, count: u64) -> String {
	let mut html = String::from("<p>");
	if index > 0 {
		let _ = write!(
			html,
			"<a href=\"/games/{generation}/{}\">previous game</a> ",
			index - 1
		);
	}
	let _ = write!(
		html,
		"<a href=\"/games/{generation}?page={}\">all games</a>",
		index as u64 / PER_PAGE
	);
	if (index as u64) + 1 < count {
		let _ = write!(
			html,
			" <a href=\"/games/{generation}/{}\">next game</a>",
			index + 1
		);
	}
	html.push_str("</p>");
	html
}

/// Every position of the game, the start first, each with the move that led to it and its
/// exact value; as JSON for the script.
fn positions(web: &Web, record: &GameRecord) -> Vec<serde_json::Value> {
	let (game, _) = record.replay();
	let mut plies = vec![ply(web, record.start.board, record.start.turn, None)];
	for (mv, board) in game.history() {
		plies.push(ply(
			web,
			*board,
			mv.side().opponent(),
			Some(&mv.to_string()),
		));
	}
	plies
}

/// One position: the 25 points (`T`, `S` or `.`, by index), the side to move, sheep in hand
/// and captured, the move that led here, and the exact value if known.
fn ply(web: &Web, board: GameBoard, turn: Turn, mv: Option<&str>) -> serde_json::Value {
	let cells: String = Pos::all()
		.map(|pos| match board.piece_at(pos) {
			Some(Turn::Tiger) => 'T',
			Some(Turn::Sheep) => 'S',
			None => '.',
		})
		.collect();
	json!({
		"cells": cells,
		"turn": turn.name(),
		"in_hand": board.sheep_in_hand(),
		"dead": board.dead_sheep(),
		"move": mv,
		"value": exact_value(web, board, turn),
	})
}

/// The position's exact value for the side to move, as words, where a table knows it.
fn exact_value(web: &Web, board: GameBoard, turn: Turn) -> Option<String> {
	if board.dead_sheep() >= DEAD_SHEEP_TO_WIN {
		return None;
	}
	if board.sheep_in_hand() == 0 {
		let table = web.shared.tablebase.table()?;
		return table
			.probe(board, turn)
			.map(|v| format!("{} to move: {v} (movement table)", turn.name()));
	}
	let placement = web.shared.placement.table()?;
	let verdict = placement.probe(board, turn).ok()??;
	Some(format!(
		"{} to move: {verdict} (placement layers)",
		turn.name()
	))
}

#[cfg(test)]
mod tests {
	use super::*;
	use tigers_core::record::split_records;

	#[test]
	fn records_are_read_as_far_as_needed_and_cut_as_split_records_cuts_them() {
		let one = "tigers-and-sheep record 1\nstart T...T/...../...../...../T...T s 20\nmoves\nresult *\n";
		let text: String = (0..10).map(|_| one).collect();
		let compressed = tigers_proto::games::compress([&text[..30], &text[30..]]);
		let (first, complete) = read_records(&compressed, 2).unwrap();
		assert_eq!((first.len(), complete), (3, false));
		let (all, complete) = read_records(&compressed, 50).unwrap();
		assert!(complete);
		assert_eq!(all, split_records(&text).collect::<Vec<_>>());
	}
}
