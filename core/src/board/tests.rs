use super::*;
use crate::position::Position;

fn pos(name: &str) -> Pos {
	name.parse().unwrap()
}

fn mv(text: &str) -> Move {
	text.parse().unwrap()
}

fn position(text: &str) -> Position {
	text.parse().unwrap()
}

#[test]
fn start_position() {
	let board = GameBoard::default();
	assert_eq!(board.tigers().count_ones(), 4);
	assert_eq!(board.sheep(), 0);
	assert_eq!(board.sheep_in_hand(), 20);
	assert_eq!(board.dead_sheep(), 0);
	assert_eq!(board.piece_at(pos("a5")), Some(Turn::Tiger));
	assert_eq!(board.piece_at(pos("e1")), Some(Turn::Tiger));
	assert_eq!(board.get_moves(Turn::Sheep).len(), 21);
	assert_eq!(board.get_moves(Turn::Tiger).len(), 12);
}

#[test]
fn placing_takes_a_sheep_from_the_hand() {
	let mut board = GameBoard::default();
	board.make_move(mv("sc3"), Turn::Sheep).unwrap();
	assert_eq!(board.sheep_in_hand(), 19);
	assert_eq!(board.piece_at(pos("c3")), Some(Turn::Sheep));
	assert_eq!(board.sheep_on_board(), 1);
}

#[test]
fn tiger_jump_kills_the_sheep_between() {
	let mut p = position("T...T/.S.../...../...../T...T t 19");
	p.board.make_move(mv("ta5xc3"), Turn::Tiger).unwrap();
	assert_eq!(p.board.piece_at(pos("b4")), None);
	assert_eq!(p.board.piece_at(pos("c3")), Some(Turn::Tiger));
	assert_eq!(p.board.piece_at(pos("a5")), None);
	assert_eq!(p.board.dead_sheep(), 1);
}

#[test]
fn every_illegal_move_gets_its_own_error() {
	let start = GameBoard::default();
	let mid = position("T...T/.S.../..S../...../T...T t 18").board;
	let placed = position("TSSST/SSSSS/SSSS./SSS../T...T s 0").board;
	let cases: [(GameBoard, &str, Turn, MoveError); 11] = [
		(
			start,
			"ta5b4",
			Turn::Sheep,
			MoveError::NotYourTurn(Turn::Sheep),
		),
		(start, "sa5", Turn::Sheep, MoveError::Occupied(pos("a5"))),
		(placed, "sd3", Turn::Sheep, MoveError::NoSheepInHand),
		(mid, "sb4b3", Turn::Sheep, MoveError::SheepStillInHand(18)),
		(
			placed,
			"sc1d1",
			Turn::Sheep,
			MoveError::NoPieceThere {
				at: pos("c1"),
				piece: "sheep",
			},
		),
		(
			mid,
			"tb5c5",
			Turn::Tiger,
			MoveError::NoPieceThere {
				at: pos("b5"),
				piece: "tiger",
			},
		),
		(
			mid,
			"ta5c5",
			Turn::Tiger,
			MoveError::NotNeighbours {
				from: pos("a5"),
				to: pos("c5"),
			},
		),
		(
			position("T..ST/...../...../...../T...T t 19").board,
			"te5d5",
			Turn::Tiger,
			MoveError::Occupied(pos("d5")),
		),
		(
			mid,
			"ta5xd5",
			Turn::Tiger,
			MoveError::NotAJumpLine {
				from: pos("a5"),
				to: pos("d5"),
			},
		),
		(
			mid,
			"ta5xa3",
			Turn::Tiger,
			MoveError::NothingToJump(pos("a4")),
		),
		(
			position("T...T/.S.../..S../...../T...T t 18").board,
			"ta5xc3",
			Turn::Tiger,
			MoveError::Occupied(pos("c3")),
		),
	];
	for (board, text, turn, expected) in cases {
		let mut copy = board;
		assert_eq!(
			copy.make_move(mv(text), turn),
			Err(expected),
			"{text} on {board:?}"
		);
		assert_eq!(copy, board, "a refused move must leave the board untouched");
		assert!(!expected.to_string().is_empty());
	}
}

#[test]
fn odd_points_have_no_diagonal_steps() {
	let board = position("T...T/...../...../...../T...T t 19").board;
	let board = GameBoard::new(board.tigers() ^ pos("a5").bit() ^ pos("b5").bit(), 0, 19).unwrap();
	let mut copy = board;
	assert_eq!(
		copy.make_move(mv("tb5a4"), Turn::Tiger),
		Err(MoveError::NotNeighbours {
			from: pos("b5"),
			to: pos("a4")
		})
	);
}

#[test]
fn five_dead_sheep_win_for_tigers() {
	let board = position("T...T/SSSSS/SSSSS/SSSSS/T...T s 0").board;
	assert_eq!(board.dead_sheep(), 5);
	assert_eq!(board.outcome(Turn::Sheep), Some(Outcome::TigersByCaptures));
	assert!(board.check_win(Turn::Sheep));
}

#[test]
fn trapped_tigers_lose() {
	// Tigers in the corners, every neighbour a sheep and every jump landing (c5, a3, c3, e3, c1)
	// a sheep too; the one empty point, b3, is out of their reach.
	let board = position("TSSST/SSSSS/S.SSS/SSSSS/TSSST s 0").board;
	assert_eq!(board.sheep_on_board(), 20);
	assert!(!board.has_legal_move(Turn::Tiger));
	assert!(board.get_moves(Turn::Tiger).is_empty());
	assert_eq!(board.outcome(Turn::Tiger), Some(Outcome::SheepByTrapping));
	assert_eq!(board.outcome(Turn::Sheep), None);
}

#[test]
fn blocked_sheep_lose() {
	// The only empty point, e1, is surrounded by tigers on d1, d2 and e2.
	let board = position("TSSSS/SSSSS/SSSSS/SSSTT/SSST. s 0").board;
	assert!(board.get_moves(Turn::Sheep).is_empty());
	assert_eq!(
		board.outcome(Turn::Sheep),
		Some(Outcome::TigersBySheepBlocked)
	);
	assert_eq!(board.outcome(Turn::Tiger), None);
}

#[test]
fn new_refuses_overlaps_and_stray_bits() {
	let a5 = pos("a5").bit();
	let corners = GameBoard::default().tigers();
	assert_eq!(
		GameBoard::new(corners, a5, 19),
		Err(BoardError::Overlap(pos("a5")))
	);
	assert_eq!(
		GameBoard::new(corners | 1 << 30, 0, 20),
		Err(BoardError::OffBoard)
	);
}
