// The play page: a game against the server's net, the perfect player or ClaudePlayer (or the
// computer against itself), by clicks, touch or the keyboard, with take-back, the move list,
// the exact value behind a switch, the end of the game said plainly, and the record to save.
"use strict";
(function () {
	const T = window.Tigers;
	const $ = (id) => document.getElementById(id);
	const state = {
		start: T.START,
		moves: [],
		positions: [T.START],
		answer: null, // the API's answer for the position on the board
		selected: null,
		targets: [],
		thinking: false,
		over: null,
		generation: 0, // a new game cancels the answers still coming for the old one
	};
	const board = T.makeBoard($("board"), onPoint);

	function current() { return state.positions[state.positions.length - 1]; }
	function human() { return $("side").value; }
	function isHumanTurn() {
		const turn = T.parsePosition(current()).turn;
		return human() === "both" || human() === turn;
	}

	function say(text, kind) {
		const box = $("message");
		box.textContent = text || "";
		box.className = kind || "";
	}

	// Reads the position on the board from the API, then shows it and lets the next side move.
	async function refresh() {
		const generation = state.generation;
		const position = current();
		const reply = await T.api("/api/v1/position?position=" + encodeURIComponent(position));
		if (generation !== state.generation) return;
		if (reply.status === 429) {
			say("The server is busy: " + reply.body.error, "error");
			setTimeout(refresh, Math.max(1, reply.retryAfter) * 1000);
			return;
		}
		if (reply.status !== 200) { say(reply.body.error, "error"); return; }
		state.answer = reply.body;
		state.over = null;
		if (reply.body.over) state.over = T.endWords(T.parsePosition(position));
		else if (state.positions.filter((p) => p === position).length >= 3) state.over = "Draw: the position came up a third time.";
		draw();
		if (!state.over && !isHumanTurn()) computerMove();
	}

	function draw() {
		const position = T.parsePosition(current());
		const last = state.moves.length ? T.movePoints(state.moves[state.moves.length - 1]) : [];
		board.draw(position, { selected: state.selected, targets: state.targets, last });
		$("position-text").textContent = current();
		$("turn").textContent = state.over ? "" : (position.turn === "sheep" ? "Sheep" : "Tigers") + " to move" +
			(position.inHand > 0 ? ", " + position.inHand + " sheep in hand" : "") + ", " + position.dead + " captured" +
			(state.thinking ? " (thinking...)" : "");
		const end = $("end");
		end.textContent = state.over || "";
		end.classList.toggle("hidden", !state.over);
		const value = $("value");
		value.classList.toggle("hidden", !$("show-value").checked);
		if (state.answer) {
			let words = "Exact value for the " + state.answer.turn + ": " + T.valueWords(state.answer.value, state.answer.distance);
			if (state.answer.unknown) words += " (" + state.answer.unknown + ")";
			value.textContent = words;
		}
		const list = $("moves");
		list.textContent = "";
		state.moves.forEach((move, i) => {
			const item = document.createElement("li");
			item.textContent = (i + 1) + ". " + move;
			list.appendChild(item);
		});
		$("takeback").disabled = state.moves.length === 0;
		const query = new URLSearchParams({ start: state.start, moves: state.moves.join(",") });
		$("analyse").href = "/analysis?" + query.toString();
	}

	function play(move) {
		state.moves.push(move.move);
		state.positions.push(move.after);
		state.selected = null;
		state.targets = [];
		say("");
		refresh();
	}

	async function computerMove() {
		const generation = state.generation;
		state.thinking = true;
		draw();
		const reply = await T.api("/api/v1/move", { position: current(), player: $("opponent").value, ms: Number($("ms").value) });
		if (generation !== state.generation) return;
		state.thinking = false;
		if (reply.status === 429) {
			say("The server is busy: " + reply.body.error, "error");
			setTimeout(() => { if (generation === state.generation) computerMove(); }, Math.max(1, reply.retryAfter) * 1000);
			return;
		}
		if (reply.status !== 200) { say(reply.body.error, "error"); draw(); return; }
		const move = state.answer.moves.find((m) => m.move === reply.body.move);
		if (move) play(move);
	}

	function onPoint(point) {
		if (state.over || state.thinking || !state.answer || !isHumanTurn()) return;
		const picked = T.pick(T.parsePosition(current()), state.answer.moves, state.selected, point);
		if (picked.move) { play(picked.move); return; }
		state.selected = picked.select || null;
		state.targets = picked.targets || [];
		draw();
	}

	function typed(event) {
		event.preventDefault();
		const text = $("typed").value.trim();
		if (!text || state.over || state.thinking || !isHumanTurn() || !state.answer) return;
		const move = state.answer.moves.find((m) => m.move === text);
		if (!move) { say(JSON.stringify(text) + " is not a legal move here; the moves are " + state.answer.moves.map((m) => m.move).join(" "), "error"); return; }
		$("typed").value = "";
		play(move);
	}

	function newGame() {
		state.generation += 1;
		state.moves = [];
		state.positions = [state.start];
		state.thinking = false;
		state.selected = null;
		state.targets = [];
		say("");
		refresh();
	}

	// Takes back to the last position where a person is to move (two plies against the computer).
	function takeBack() {
		state.generation += 1;
		state.thinking = false;
		do {
			state.moves.pop();
			state.positions.pop();
		} while (state.moves.length > 0 && human() !== "both" && human() !== "none" && !isHumanTurn());
		state.selected = null;
		state.targets = [];
		refresh();
	}

	async function download() {
		const reply = await T.api("/api/v1/game", { start: state.start, moves: state.moves });
		if (reply.status !== 200) { say(reply.body.error, "error"); return; }
		const link = document.createElement("a");
		link.href = URL.createObjectURL(new Blob([reply.body.record], { type: "text/plain" }));
		link.download = "tigers-and-sheep-game.txt";
		document.body.appendChild(link);
		link.click();
		link.remove();
	}

	async function start() {
		const reply = await T.api("/api/v1/server");
		if (reply.status === 200) {
			const select = $("opponent");
			select.textContent = "";
			for (const name of reply.body.players) {
				const option = document.createElement("option");
				option.value = name;
				option.textContent = { net: "the net" + (reply.body.net ? " (generation " + reply.body.net.generation + ")" : ""), perfect: "the perfect player", claude: "ClaudePlayer" }[name];
				select.appendChild(option);
			}
		}
		$("new").addEventListener("click", newGame);
		$("takeback").addEventListener("click", takeBack);
		$("download").addEventListener("click", download);
		$("move-form").addEventListener("submit", typed);
		$("show-value").addEventListener("change", draw);
		$("side").addEventListener("change", () => { if (!state.over && !state.thinking && !isHumanTurn()) computerMove(); draw(); });
		refresh();
	}

	start();
})();
