//! `SearchPlayer`: a computer player made of an evaluation, search settings and the search's
//! tables. `ClaudePlayer` and `NeuralPlayer` are this with their own evaluations.

use std::sync::Arc;
use std::time::Duration;

use crate::search::{
	Evaluator, Killers, MAX_DEPTH, MinimaxPlayer, SearchParts, SearchReport, SearchSettings,
	TranspositionTable,
};
use crate::tablebase::Tablebase;
use crate::tablebase::placement::PlacementTable;

/// A search with evaluation `E`, a transposition table and killers.
pub struct SearchPlayer<E: Evaluator> {
	/// How long one move may take; `None` searches to `max_depth` without a clock.
	pub time_limit: Option<Duration>,
	/// The deepest search, in plies.
	pub max_depth: u32,
	name: String,
	evaluator: E,
	table: TranspositionTable,
	killers: Killers,
	tablebase: Option<Arc<Tablebase>>,
	placement: Option<Arc<PlacementTable>>,
	last: Option<SearchReport>,
}

impl<E: Evaluator> SearchPlayer<E> {
	/// A player named `name` with these settings and a table of `1 << table_bits` slots.
	pub fn with_parts(
		name: &str,
		evaluator: E,
		settings: SearchSettings,
		table_bits: u32,
	) -> SearchPlayer<E> {
		SearchPlayer {
			time_limit: settings.time_limit,
			max_depth: settings.max_depth,
			name: name.to_string(),
			evaluator,
			table: TranspositionTable::new(table_bits),
			killers: Killers::new(MAX_DEPTH as usize),
			tablebase: None,
			placement: None,
			last: None,
		}
	}

	/// The evaluation.
	pub fn evaluator(&self) -> &E {
		&self.evaluator
	}

	/// The evaluation, to change it (e.g. a new net); clear the table afterwards.
	pub fn evaluator_mut(&mut self) -> &mut E {
		&mut self.evaluator
	}

	/// Gives the search the solved movement phase (or takes it away): with it, the player
	/// never makes a move that changes a movement-phase position's exact value.
	pub fn set_tablebase(&mut self, tablebase: Option<Arc<Tablebase>>) {
		self.tablebase = tablebase;
		self.clear();
	}

	/// The solved movement phase, if the player has it.
	pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
		self.tablebase.as_ref()
	}

	/// Gives the search the solved placement phase (or takes it away): with it, the player
	/// chooses only among the placement-phase moves that keep the position's exact value, as
	/// the movement table makes it do after the last sheep is placed. With both tables it never
	/// gives a value away: the `perfect` player.
	pub fn set_placement(&mut self, placement: Option<Arc<PlacementTable>>) {
		self.placement = placement;
		self.clear();
	}

	/// The solved placement phase, if the player has it.
	pub fn placement(&self) -> Option<&Arc<PlacementTable>> {
		self.placement.as_ref()
	}

	/// Forgets the table, the killers, the evaluation's caches and the last report.
	pub fn clear(&mut self) {
		self.table.clear();
		self.evaluator.clear();
		self.killers.clear();
		self.last = None;
	}
}

impl<E: Evaluator> MinimaxPlayer for SearchPlayer<E> {
	type Eval = E;

	fn name(&self) -> String {
		self.name.clone()
	}

	fn settings(&self) -> SearchSettings {
		SearchSettings {
			max_depth: self.max_depth,
			time_limit: self.time_limit,
		}
	}

	fn parts(&mut self) -> SearchParts<'_, E> {
		SearchParts {
			evaluator: &mut self.evaluator,
			table: Some(&mut self.table),
			killers: Some(&mut self.killers),
			tablebase: self.tablebase.as_deref(),
			placement: self.placement.as_deref(),
		}
	}

	fn new_game(&mut self) {
		self.clear();
	}

	fn set_last_search(&mut self, report: Option<SearchReport>) {
		self.last = report;
	}

	fn last_search(&self) -> Option<SearchReport> {
		self.last
	}
}
