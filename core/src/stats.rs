//! Gate statistics: match scores with confidence intervals, Elo, the SPRT and promotion.
//!
//! - `score`: pair counts ([`PairCounts`]), a match score with its interval, Elo from a score and back;
//! - `sprt`: the sequential test ([`Sprt`]) that stops a gate match, and the match policy;
//! - `promotion`: whether a candidate ([`promote`]) replaces the incumbent, from the gate records.

mod promotion;
mod score;
mod sprt;

pub use promotion::{GateRecord, PromotionDecision, PromotionRule, promote};
pub use score::{
	EloEstimate, Estimate, FEW_PAIRS, GameResult, MAX_ELO, PSEUDO_PAIRS, PairCounts, Z_95,
	elo_from_score, score_from_elo,
};
pub use sprt::{GatePolicy, GateStop, Sprt, SprtDecision, SprtError};
