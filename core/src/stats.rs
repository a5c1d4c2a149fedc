//! Gate statistics: match scores with confidence intervals, Elo, the SPRT and promotion.
//!
//! - `score`: pair counts ([`PairCounts`]), a match score with its interval, Elo from a score and back,
//!   a proportion's Wilson interval;
//! - `sprt`: the sequential test ([`Sprt`]) that stops a gate match, and the match policy;
//! - `ladder`: every match fitted at once into ratings with intervals ([`LadderBook`],
//!   [`Ladder`]);
//! - `promotion`: whether a candidate replaces the incumbent, from its gate record against
//!   `ClaudePlayer` and the incumbent's ([`promote`]) or from its match against the incumbent
//!   itself ([`promote_over_incumbent`]);
//! - `noninferiority`: whether a candidate plays no worse than the incumbent against
//!   `ClaudePlayer`, both on the same openings ([`PairedDifference`], [`not_worse`]).

mod ladder;
mod noninferiority;
mod promotion;
mod score;
mod sprt;

pub use ladder::{Ladder, LadderBook, PRIOR_ELO, Rating, VIRTUAL_DRAWS};
pub use noninferiority::{PairedDifference, Z_ONE_SIDED_95, not_worse};
pub use promotion::{
	DEFAULT_MARGIN, GateRecord, PromotionDecision, PromotionRule, promote, promote_over_incumbent,
};
pub use score::{
	EloEstimate, Estimate, FEW_PAIRS, GameResult, MAX_ELO, PSEUDO_PAIRS, PairCounts, Z_95,
	elo_from_score, score_from_elo, wilson_interval,
};
pub use sprt::{GatePolicy, GateStop, Sprt, SprtDecision, SprtError};
