//! Tigers and Sheep: the game and everything that plays it.
//!
//! This crate keeps to itself and is deterministic where it can be: no async runtime and no
//! thread pool, no clock except the search's optional time limit, and no I/O beyond net files
//! and the tablebases' own files (tables, placement layers, and their locks and notes). Its
//! threads are scoped to the call that starts them (`std::thread::scope`: a training step, a
//! gate's games, a tablebase solve, check or count) and end with it; a solve writes the same
//! bytes, and a training step makes the same weights, on any number of them.
//!
//! Modules, from the ground up:
//!
//! - [`pos`]: the 25 points and their names;
//! - [`lines`]: neighbours and jump lines per point, built at compile time;
//! - [`moves`]: [`Move`], [`Turn`] and the move notation;
//! - [`board`]: [`GameBoard`] (8 bytes) and the rules that change it;
//! - [`movegen`]: legal moves into a stack-allocated [`MoveList`];
//! - [`outcome`]: how a game ends;
//! - [`position`]: [`Position`] and its one-line text notation;
//! - [`symmetry`]: the eight symmetries and the canonical board;
//! - [`reference`](mod@reference): a slow, obviously correct rules implementation to check the fast one;
//! - [`perft`]: counting move paths, fast and slow;
//! - [`game`]: [`Game`], a game with its history, repetitions and outcome;
//! - [`record`]: [`GameRecord`], a whole game as text;
//! - [`search`]: the minimax search, its transposition table and killers;
//! - [`player`]: [`SearchPlayer`], an evaluation with search settings and tables;
//! - [`claude`]: [`ClaudePlayer`], the hand-written evaluation;
//! - [`network`]: [`Network`], its input encoding, training step, file format and the
//!   quantised copy the search evaluates with;
//! - [`neural`]: [`NeuralPlayer`], the search with a network's evaluation;
//! - [`versus`]: games and paired matches between two searchers;
//! - [`selfplay`]: self-play games with exploration, and their samples;
//! - [`replay`]: the replay window training draws from;
//! - [`trainer`]: a net, its optimiser and its window, trained together;
//! - [`stats`]: match scores, Elo, the SPRT and the promotion rule for gating networks;
//! - [`gate`]: the gating match of a candidate net against a reference: `ClaudePlayer`, another
//!   net (the incumbent) or the perfect player;
//! - [`tablebase`]: the movement phase solved exactly, its file and its probe;
//! - [`analysis`]: a position's exact value and every legal move's, best first, from whichever
//!   solved tables are at hand;
//! - [`grade`]: a net graded by the exact values on a fixed suite of positions.

pub mod analysis;
pub mod board;
pub mod claude;
pub mod game;
pub mod gate;
pub mod grade;
pub mod lines;
pub mod movegen;
pub mod moves;
pub mod network;
pub mod neural;
pub mod outcome;
pub mod perft;
pub mod player;
pub mod pos;
pub mod position;
pub mod record;
pub mod reference;
pub mod replay;
pub mod search;
pub mod selfplay;
pub mod stats;
pub mod symmetry;
pub mod tablebase;
pub mod trainer;
pub mod versus;

pub use board::{BoardError, GameBoard, MoveError};
pub use claude::ClaudePlayer;
pub use game::{Game, PlayError};
pub use movegen::MoveList;
pub use moves::{Move, ParseMoveError, Turn};
pub use network::Network;
pub use neural::NeuralPlayer;
pub use outcome::Outcome;
pub use player::SearchPlayer;
pub use pos::Pos;
pub use position::{Position, PositionError};
pub use record::{GameRecord, RecordError};
pub use search::{MinimaxPlayer, SearchReport, SearchSettings};
pub use symmetry::Symmetry;
pub use tablebase::Tablebase;
