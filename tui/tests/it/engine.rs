//! The engine protocol, by piping scripts through the real `tui engine`.

use std::io::Write;
use std::process::{Command, ExitStatus, Stdio};

use tigers_core::Network;
use tigers_core::network::Shape;
use tigers_core::tablebase::Value;

use crate::support::{tablebase, tablebase_path, temp_dir};

/// Runs `tui engine` without a tablebase on `script` and returns its output lines and exit
/// status.
fn run_engine(script: &str) -> (Vec<String>, ExitStatus) {
	run_engine_with(&["--no-tablebase"], script)
}

/// Runs `tui engine` with extra arguments on `script`.
fn run_engine_with(args: &[&str], script: &str) -> (Vec<String>, ExitStatus) {
	run_engine_bytes(args, script.as_bytes())
}

/// Runs `tui engine` with extra arguments on raw input bytes.
fn run_engine_bytes(args: &[&str], script: &[u8]) -> (Vec<String>, ExitStatus) {
	// A cache of its own, empty: no movement table or placement layers of the machine's are
	// found by default, so the answers depend only on the arguments.
	let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-empty-cache");
	let mut child = Command::new(env!("CARGO_BIN_EXE_tui"))
		.arg("engine")
		.args(args)
		.env("XDG_CACHE_HOME", &cache)
		.stdin(Stdio::piped())
		.stdout(Stdio::piped())
		.stderr(Stdio::piped())
		.spawn()
		.expect("starting tui engine");
	child
		.stdin
		.take()
		.expect("a piped stdin")
		.write_all(script)
		.expect("writing the script");
	let output = child.wait_with_output().expect("running tui engine");
	let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
	(stdout.lines().map(str::to_string).collect(), output.status)
}

/// The moves of a `legal ...` line.
fn legal_moves(line: &str) -> Vec<String> {
	let rest = line.strip_prefix("legal").expect("a legal line");
	rest.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_start_has_21_legal_moves_and_quit_exits_cleanly() {
	let (lines, status) = run_engine("isready\nposition startpos\nlegal\nquit\nlegal\n");
	assert!(status.success(), "{status}");
	assert_eq!(lines.len(), 2, "nothing after quit is answered: {lines:?}");
	assert_eq!(lines[0], "readyok");
	let moves = legal_moves(&lines[1]);
	assert_eq!(moves.len(), 21);
	assert!(moves.contains(&"sc3".to_string()));
}

#[test]
fn bestmove_is_one_of_the_legal_moves() {
	let script = "position startpos moves sc3 ta1b2\nlegal\ngo depth 3\ngo time 200\nquit\n";
	let (lines, status) = run_engine(script);
	assert!(status.success());
	let legal = legal_moves(&lines[0]);
	assert_eq!(
		legal.len(),
		20,
		"20 empty points, sheep to place: {legal:?}"
	);
	assert!(lines[1].starts_with("info depth 3 score "), "{lines:?}");
	assert!(lines[1].contains(" nodes "), "{lines:?}");
	for bestmove in [&lines[2], &lines[4]] {
		let mv = bestmove.strip_prefix("bestmove ").expect("a bestmove line");
		assert!(
			legal.iter().any(|m| m == mv),
			"{mv} is not legal: {lines:?}"
		);
	}
	assert!(lines[3].starts_with("info depth "), "{lines:?}");
}

#[test]
fn depth_one_finds_the_winning_capture() {
	let script = "position T...T/.S.../...../SSSSS/TSSST t 7\ngo depth 1\nquit\n";
	let (lines, _) = run_engine(script);
	assert_eq!(lines.len(), 2, "{lines:?}");
	assert!(
		lines[0].ends_with("forced win for tigers in 1"),
		"{lines:?}"
	);
	assert_eq!(lines[1], "bestmove ta5xc3");
}

#[test]
fn fixed_depth_searches_repeat_exactly() {
	let script = "position startpos moves sc3 ta5b4 sd3\ngo depth 5\n\
	              position startpos\ngo depth 4\n\
	              position startpos moves sc3 ta5b4 sd3\ngo depth 5\nquit\n";
	let (lines, _) = run_engine(script);
	assert_eq!(lines.len(), 6, "{lines:?}");
	assert_eq!(lines[0..2], lines[4..6]);
}

#[test]
fn errors_are_one_line_and_the_engine_keeps_going() {
	let script = "\
		frobnicate\nisready\n\
		position startpos moves sc3 sd3\nisready\n\
		position startpos moves sc3 tz9\nisready\n\
		position T...T/...../...../T...T s 20\nisready\n\
		position\nisready\n\
		go depth 0\nisready\n\
		go sideways\nisready\n\
		player robot\nisready\n\
		position T...T/.S.../...../SSSSS/TSSST t 7 moves ta5xc3\ngo depth 2\nisready\n\
		legal\nquit\n";
	let (lines, status) = run_engine(script);
	assert!(status.success());
	let expected_errors = [
		"error unknown command \"frobnicate\"",
		"error move 2 (sd3) is illegal: it is the tigers' turn",
		"error move 2 (tz9) is not a move",
		"error bad position: the board has 5 rows",
		"error position: give startpos",
		"error go: depth is a number from 1 to 64",
		"error go: use `go depth N` or `go time MS`",
		"error player: use `player claude`",
		"error the game is over (tigers win: five sheep captured)",
	];
	assert_eq!(lines.len(), 2 * expected_errors.len() + 1, "{lines:?}");
	for (i, expected) in expected_errors.iter().enumerate() {
		assert!(
			lines[2 * i].starts_with(expected),
			"{} vs {expected}",
			lines[2 * i]
		);
		assert_eq!(lines[2 * i + 1], "readyok");
	}
	// The refused illegal move list left the last good position in place: the finished game.
	assert_eq!(lines.last().map(String::as_str), Some("legal"));
}

#[test]
fn eval_and_show_describe_the_position() {
	let (lines, _) = run_engine("eval\nposition startpos moves sc3\nshow\nquit\n");
	assert_eq!(lines[0], "eval 24");
	assert_eq!(
		lines[1..],
		[
			"5 T . . . T",
			"4 . . . . .",
			"3 . . S . .",
			"2 . . . . .",
			"1 T . . . T",
			"  a b c d e",
			"tigers to move; 19 in hand, 0 dead; ply 1",
			"position T...T/...../..S../...../T...T t 19",
		]
	);
}

#[test]
fn player_net_switches_the_evaluation_to_a_net() {
	let dir = temp_dir("player_net_switches_the_evaluation");
	let path = dir.join("net.safetensors");
	let mut net = Network::new(Shape::default(), 5);
	net.generation = 5;
	net.save(&path).unwrap();
	let expected = net.forward(
		tigers_core::GameBoard::default().canonical().0,
		tigers_core::Turn::Sheep,
	);
	let script = format!(
		"player net {}\neval\ngo depth 2\nplayer net {}\nplayer claude\neval\nquit\n",
		path.display(),
		dir.join("missing.safetensors").display()
	);
	let (lines, status) = run_engine(&script);
	assert!(status.success());
	assert!(lines[0].starts_with("info player Net 5"), "{lines:?}");
	let value: f32 = lines[1].strip_prefix("eval ").unwrap().parse().unwrap();
	assert!((value - expected).abs() < 1e-3, "{value} vs {expected}");
	assert!(lines[3].starts_with("bestmove "), "{lines:?}");
	assert!(
		lines[4].starts_with("error cannot load the net"),
		"{lines:?}"
	);
	assert_eq!(lines[5], "info player Claude");
	assert_eq!(lines[6], "eval 24");
}

#[test]
fn a_line_that_is_not_utf8_is_an_error_and_the_engine_goes_on() {
	let (lines, status) = run_engine_bytes(&["--no-tablebase"], b"isready\n\xff\nisready\r\n");
	assert!(status.success(), "{status}");
	assert_eq!(
		lines,
		[
			"readyok",
			"error the line is not UTF-8 text; commands are plain ASCII words",
			"readyok"
		]
	);
}

#[test]
fn the_end_of_input_ends_the_engine() {
	let (lines, status) = run_engine("new\nisready\n");
	assert!(status.success());
	assert_eq!(lines, ["readyok"]);
}

#[test]
fn probe_answers_the_exact_value_for_the_side_to_move() {
	let table = tablebase();
	let path = tablebase_path();
	let mut script = String::new();
	let mut expected = Vec::new();
	// A win, a draw and a loss from the table itself, then positions it does not hold.
	for wanted in [Value::Win(17), Value::Draw, Value::Loss(8)] {
		let index = (0..table.len())
			.step_by(13)
			.find(|&i| table.entry(i).1 == wanted)
			.expect("the table has such a position");
		let (position, _) = table.entry(index);
		script.push_str(&format!("position {position}\nprobe\n"));
		expected.push(format!("probe {wanted}"));
	}
	script.push_str("position startpos\nprobe\n");
	script.push_str("position T...T/.S.../...../SSSSS/TSSST t 7 moves ta5xc3\nprobe\nquit\n");
	expected.extend(["probe none".to_string(), "probe none".to_string()]);
	let (lines, status) = run_engine_with(
		&["--tablebase", path.to_str().expect("a UTF-8 path")],
		&script,
	);
	assert!(status.success());
	assert_eq!(lines, expected);
	assert_eq!(
		["probe win 17", "probe draw", "probe loss 8"],
		expected[..3]
	);
}

#[test]
fn go_with_the_tablebase_plays_the_quickest_win() {
	let table = tablebase();
	let (position, value) = (0..table.len())
		.step_by(7)
		.map(|i| table.entry(i))
		.find(|(_, v)| *v == Value::Win(9))
		.expect("a win in 9");
	let path = tablebase_path();
	let script = format!("position {position}\ngo depth 1\nquit\n");
	let (lines, _) = run_engine_with(&["--tablebase", path.to_str().unwrap()], &script);
	let winner = position.turn.to_string();
	assert!(
		lines[0].ends_with(&format!("forced win for {winner} in 9")),
		"{value}: {lines:?}"
	);
	let mv: tigers_core::Move = lines[1]
		.strip_prefix("bestmove ")
		.expect("a bestmove")
		.parse()
		.expect("a move");
	let after = position.board.after_move_unchecked(mv);
	assert_eq!(
		table
			.probe(after, position.turn.opponent())
			.map(Value::before_move),
		Some(Value::Win(9))
	);
}

#[test]
fn without_a_tablebase_probe_says_why_once() {
	let (lines, status) = run_engine("probe\nprobe\nquit\n");
	assert!(status.success());
	assert_eq!(
		lines,
		[
			"info the tablebase is off (--no-tablebase)",
			"probe none",
			"probe none"
		]
	);
}

#[test]
fn a_file_that_is_not_a_tablebase_is_refused_with_the_reason() {
	let dir = temp_dir("a_file_that_is_not_a_tablebase");
	let junk = dir.join("junk.tb");
	std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
	let truncated = dir.join("truncated.tb");
	let bytes = std::fs::read(tablebase_path()).unwrap_or_else(|_| tablebase().to_bytes());
	std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
	for (file, reason) in [
		(&junk, "not a Tigers and Sheep tablebase"),
		(&truncated, "truncated"),
	] {
		let output = Command::new(env!("CARGO_BIN_EXE_tui"))
			.args(["engine", "--tablebase"])
			.arg(file)
			// Set in many shells and CI systems: a user's error still takes one line.
			.env("RUST_BACKTRACE", "1")
			.stdin(Stdio::null())
			.output()
			.expect("running tui engine");
		assert_eq!(output.status.code(), Some(1));
		let stderr = String::from_utf8_lossy(&output.stderr);
		assert!(stderr.contains(reason), "{stderr}");
		assert!(stderr.contains(&file.display().to_string()), "{stderr}");
		assert!(stderr.starts_with("tui: "), "{stderr}");
		assert_eq!(stderr.lines().count(), 1, "{stderr}");
		assert!(output.stdout.is_empty());
	}
}
