// The Run page: fills the figures from /api/status once a second. Values are set as text,
// never as HTML.
"use strict";
(function () {
	const utc = (t) => (t > 0 ? new Date(t * 1000).toISOString().replace("T", " ").slice(0, 19) : "-");
	const score = (s, lo, hi) => (s === null || s === undefined ? "-" : `${s.toFixed(3)} (${lo.toFixed(2)}–${hi.toFixed(2)})`);
	const last = (list) => (list && list.length ? list[list.length - 1] : null);
	const figures = {
		generation: (s) => `${s.generation} (promoted ${utc(s.generation_since)})`,
		samples: (s) => `${s.samples_total}`,
		disk: (s) => {
			const d = s.disk;
			if (!d) return "-";
			const free = d.free_bytes === null ? "free space unknown" : `${Math.floor(d.free_bytes / 1048576)} MiB free`;
			const state = d.low ? "SHORT OF SPACE: batches wait unacknowledged and training pauses until space is freed" : "ok";
			return `${state} (${free} in ${d.dir}, ${Math.floor(d.margin_bytes / 1048576)} MiB kept)`;
		},
		games: (s) => `${s.games_total} (${s.games_kept} kept)`,
		setup: (s) => (s.setup ? `net ${s.setup.net_shape}, encoding ${s.setup.input_version}, gate ${s.setup.gate}` : "unknown"),
		steps: (s) => `${s.training_steps}`,
		loss: (s) => (s.loss === null ? "-" : s.loss.toFixed(4)),
		window: (s) => `${s.window.samples} of ${s.window.capacity}`,
		workers: (s) => `${s.workers_connected} connected of ${s.workers_known}`,
		cpu: (s) => s.cpu_hours.toFixed(2),
		depth: (s) => (s.selfplay ? `${s.selfplay.depth} (${s.selfplay.arriving_per_second.toFixed(0)} samples/s arriving, ${s.selfplay.trainable_per_second.toFixed(0)} trainable)` : "-"),
		recent: (s) => (s.recent_games ? `tigers ${s.recent_games.tiger_wins}, sheep ${s.recent_games.sheep_wins}, draws ${s.recent_games.draws}` : "-"),
		tablebase: (s) => s.tablebase.state,
		gate: (s) => {
			const g = last(s.gates);
			const verdict = g && (g.measurement ? "measured" : g.promoted ? "promoted" : "not promoted");
			const against = g && g.opponent !== "ClaudePlayer" ? ` against ${g.opponent}` : "";
			return g ? `generation ${g.generation} ${verdict}, score ${score(g.score, g.score_low, g.score_high)}${against}` : "-";
		},
		timed: (s) => {
			const t = last(s.timed);
			return t ? `generation ${t.generation} at ${t.move_ms} ms, score ${score(t.score, t.score_low, t.score_high)}` : "-";
		},
		uptime: (s) => `${s.uptime_seconds.toFixed(0)} s`,
	};
	const updated = document.getElementById("updated");
	async function refresh() {
		try {
			const answer = await fetch("/api/status", { credentials: "same-origin", cache: "no-store" });
			if (!answer.ok) {
				updated.textContent = `The coordinator answered ${answer.status}; figures as of the last answer.`;
				return;
			}
			const status = await answer.json();
			for (const [id, text] of Object.entries(figures)) {
				const cell = document.getElementById(id);
				if (cell) {
					try { cell.textContent = text(status); } catch (e) { cell.textContent = "-"; }
				}
			}
			updated.textContent = `Updated ${new Date().toLocaleTimeString()}.`;
		} catch (e) {
			updated.textContent = "The coordinator cannot be reached; figures as of the last answer.";
		}
	}
	setInterval(refresh, 1000);
})();
