// The analysis board: any position, set up by clicks or pasted in the project's notation, or a
// game opened from the play page or the game viewer; every legal move with its exact value,
// best first, the net's evaluation and its search's choice, and a game stepped through with
// each move that gave a value away marked.
"use strict";
(function () {
	const T = window.Tigers;
	const $ = (id) => document.getElementById(id);
	const state = {
		start: T.START,
		moves: [], // the game's moves
		positions: [T.START], // the positions of the game, one more than its moves
		index: 0, // the position shown
		plies: [], // the API's analysis of each move
		answer: null,
		selected: null,
		targets: [],
		editing: false,
		request: 0,
	};
	const board = T.makeBoard($("board"), onPoint);

	function shown() { return state.positions[state.index]; }

	function say(text) {
		const box = $("message");
		box.textContent = text || "";
		box.className = text ? "error" : "";
	}

	async function show() {
		const request = ++state.request;
		const position = shown();
		$("position").value = position;
		const reply = await T.api("/api/v1/position?position=" + encodeURIComponent(position));
		if (request !== state.request) return;
		if (reply.status !== 200) {
			say(reply.body.error);
			if (reply.status === 429) setTimeout(show, Math.max(1, reply.retryAfter) * 1000);
			return;
		}
		say("");
		state.answer = reply.body;
		draw();
		evaluate(position, request);
	}

	async function evaluate(position, request) {
		const reply = await T.api("/api/v1/evaluation?position=" + encodeURIComponent(position));
		if (request !== state.request) return;
		$("net").textContent = reply.status === 200
			? "The net (generation " + reply.body.generation + ") scores this " + reply.body.score.toFixed(3) + " for the side to move (-1 lost, 1 won)."
			: reply.body.error;
	}

	function draw() {
		const position = T.parsePosition(shown());
		const last = state.index > 0 ? T.movePoints(state.moves[state.index - 1]) : [];
		board.draw(position, { selected: state.selected, targets: state.targets, last });
		const a = state.answer;
		if (!a) return;
		let summary = (a.turn === "sheep" ? "Sheep" : "Tigers") + " to move, " + a.phase + " phase: " + T.valueWords(a.value, a.distance);
		if (a.over) summary = "The game is over here. " + T.endWords(position);
		if (a.unknown) summary += " (" + a.unknown + ")";
		$("summary").textContent = summary;
		const body = $("move-rows");
		body.textContent = "";
		for (const m of a.moves) {
			const row = document.createElement("tr");
			row.className = "clickable";
			row.tabIndex = 0;
			const cells = [m.move, m.value === null ? "unknown" : m.value, m.distance === null ? "" : String(m.distance)];
			cells.forEach((text, i) => {
				const cell = document.createElement("td");
				cell.textContent = text;
				if (i === 1) cell.className = m.value === null ? "unknown" : m.value;
				row.appendChild(cell);
			});
			row.addEventListener("click", () => playMove(m));
			row.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); playMove(m); } });
			body.appendChild(row);
		}
		const list = $("game");
		list.textContent = "";
		state.moves.forEach((move, i) => {
			const item = document.createElement("li");
			const ply = state.plies[i];
			const gave = ply && ply.gave_away;
			item.textContent = (i + 1) + ". " + move + (gave ? "?" : "");
			if (gave) {
				item.className = "gave";
				item.title = "gave a value away: " + ply.before.value + " before, " + ply.after.value + " after";
			}
			if (i + 1 === state.index) item.classList.add("current");
			list.appendChild(item);
		});
		$("step").textContent = "Position " + state.index + " of " + (state.positions.length - 1);
	}

	// Plays `move` from the position shown: a new line of the game from there.
	function playMove(move) {
		state.moves = state.moves.slice(0, state.index);
		state.positions = state.positions.slice(0, state.index + 1);
		state.plies = state.plies.slice(0, state.index);
		state.moves.push(move.move);
		state.positions.push(move.after);
		state.index += 1;
		state.selected = null;
		state.targets = [];
		analyseGame();
		show();
	}

	async function analyseGame() {
		if (state.moves.length === 0) { state.plies = []; return; }
		const reply = await T.api("/api/v1/game", { start: state.start, moves: state.moves });
		if (reply.status === 200) { state.plies = reply.body.plies; draw(); }
	}

	function onPoint(point) {
		if (state.editing) { edit(point); return; }
		if (!state.answer) return;
		const picked = T.pick(T.parsePosition(shown()), state.answer.moves, state.selected, point);
		if (picked.move) { playMove(picked.move); return; }
		state.selected = picked.select || null;
		state.targets = picked.targets || [];
		draw();
	}

	// Setting up: a click turns an empty point into a sheep, a sheep into a tiger, a tiger empty.
	function edit(point) {
		const position = T.parsePosition(shown());
		const x = "abcde".indexOf(point[0]);
		const y = 5 - Number(point[1]);
		const next = { ".": "S", S: "T", T: "." }[position.cells[y][x]];
		position.cells[y][x] = next;
		const text = position.cells.map((r) => r.join("")).join("/") + " " + (position.turn === "tigers" ? "t" : "s") + " " + position.inHand;
		state.positions[state.index] = text;
		$("position").value = text;
		board.draw(T.parsePosition(text), {});
	}

	// A position from the text box (or the editor): a new game from it, or the sentence why not.
	async function setPosition(text) {
		const reply = await T.api("/api/v1/position?position=" + encodeURIComponent(text));
		if (reply.status !== 200) { say(reply.body.error); return; }
		state.start = reply.body.position;
		state.moves = [];
		state.plies = [];
		state.positions = [state.start];
		state.index = 0;
		state.selected = null;
		state.targets = [];
		show();
	}

	function step(to) {
		state.index = Math.max(0, Math.min(state.positions.length - 1, to));
		state.selected = null;
		state.targets = [];
		show();
	}

	async function searchChoice() {
		$("choice").textContent = "searching...";
		const reply = await T.api("/api/v1/move", { position: shown(), player: "net", ms: Number($("ms").value) });
		$("choice").textContent = reply.status === 200 ? "The net's search plays " + reply.body.move + "." : reply.body.error;
	}

	// Opens the game or position the address names: ?position=TEXT, or ?start=TEXT&moves=a,b,c.
	async function open() {
		const query = new URLSearchParams(window.location.search);
		const start = query.get("start") || query.get("position") || T.START;
		const moves = (query.get("moves") || "").split(",").filter((m) => m);
		const first = await T.api("/api/v1/position?position=" + encodeURIComponent(start));
		if (first.status !== 200) { say(first.body.error); state.positions = [T.START]; show(); return; }
		state.start = first.body.position;
		state.positions = [state.start];
		if (moves.length) {
			const reply = await T.api("/api/v1/game", { start: state.start, moves });
			if (reply.status !== 200) { say(reply.body.error); show(); return; }
			state.moves = reply.body.plies.map((p) => p.move);
			state.plies = reply.body.plies;
			state.positions = reply.body.plies.map((p) => p.position).concat([reply.body.end]);
		}
		state.index = query.get("ply") ? Number(query.get("ply")) : 0;
		step(state.index);
	}

	$("position-form").addEventListener("submit", (event) => { event.preventDefault(); setPosition($("position").value.trim()); });
	$("edit").addEventListener("change", () => {
		state.editing = $("edit").checked;
		$("edit-tools").classList.toggle("hidden", !state.editing);
		if (!state.editing) setPosition(shown());
	});
	$("edit-side").addEventListener("change", () => {
		const position = T.parsePosition(shown());
		const text = position.text.split(" ")[0] + " " + $("edit-side").value + " " + position.inHand;
		state.positions[state.index] = text;
		$("position").value = text;
	});
	$("edit-hand").addEventListener("change", () => {
		const position = T.parsePosition(shown());
		const [rows, side] = position.text.split(" ");
		const text = rows + " " + side + " " + $("edit-hand").value;
		state.positions[state.index] = text;
		$("position").value = text;
	});
	$("first").addEventListener("click", () => step(0));
	$("back").addEventListener("click", () => step(state.index - 1));
	$("forward").addEventListener("click", () => step(state.index + 1));
	$("last").addEventListener("click", () => step(state.positions.length - 1));
	$("search").addEventListener("click", searchChoice);
	document.addEventListener("keydown", (event) => {
		const tag = (event.target.tagName || "").toLowerCase();
		if (tag === "input" || tag === "select" || tag === "textarea" || event.target.closest(".points")) return;
		if (event.key === "ArrowLeft") step(state.index - 1);
		else if (event.key === "ArrowRight") step(state.index + 1);
		else if (event.key === "Home") step(0);
		else if (event.key === "End") step(state.positions.length - 1);
	});
	open();
})();
