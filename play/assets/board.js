// The board of the play and analysis pages: a position read from the project's notation, drawn
// as a grid of buttons over the lines of the board, so that it can be played by clicks, by
// touch and by the keyboard alone (arrow keys move between points, Enter or Space picks one).
"use strict";

const FILES = "abcde";
const START = "T...T/...../...../...../T...T s 20";

// A position's text as rows of pieces, the side to move and the sheep in hand.
function parsePosition(text) {
	const [rows, side, hand] = text.split(" ");
	const cells = rows.split("/").map((row) => row.split(""));
	let sheep = 0;
	for (const row of cells) for (const c of row) if (c === "S") sheep += 1;
	const inHand = Number(hand);
	return { text, cells, turn: side === "t" ? "tigers" : "sheep", inHand, dead: 20 - inHand - sheep };
}

// The name of the point in column x (0 = file a) and row y (0 = rank 5).
function pointName(x, y) {
	return FILES[x] + String(5 - y);
}

// The board's lines: the grid, and the diagonals through the points whose x + y is even.
function boardLines() {
	const ns = "http://www.w3.org/2000/svg";
	const svg = document.createElementNS(ns, "svg");
	svg.setAttribute("viewBox", "-0.5 -0.5 5 5");
	svg.setAttribute("aria-hidden", "true");
	const line = (x1, y1, x2, y2) => {
		const l = document.createElementNS(ns, "line");
		l.setAttribute("x1", x1); l.setAttribute("y1", y1);
		l.setAttribute("x2", x2); l.setAttribute("y2", y2);
		svg.appendChild(l);
	};
	for (let i = 0; i < 5; i++) { line(0, i, 4, i); line(i, 0, i, 4); }
	line(0, 0, 4, 4); line(0, 4, 4, 0);
	line(0, 2, 2, 0); line(2, 0, 4, 2); line(4, 2, 2, 4); line(2, 4, 0, 2);
	return svg;
}

// A board in `container` that calls `onPoint(name)` when a point is picked.
function makeBoard(container, onPoint) {
	container.classList.add("board");
	container.appendChild(boardLines());
	const grid = document.createElement("div");
	grid.className = "points";
	grid.setAttribute("role", "grid");
	grid.setAttribute("aria-label", "board, rank 5 at the top");
	const buttons = [];
	for (let y = 0; y < 5; y++) {
		for (let x = 0; x < 5; x++) {
			const b = document.createElement("button");
			b.type = "button";
			b.dataset.point = pointName(x, y);
			b.tabIndex = x === 0 && y === 0 ? 0 : -1;
			b.addEventListener("click", () => onPoint(b.dataset.point));
			b.addEventListener("keydown", (event) => {
				const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
				const step = moves[event.key];
				if (!step) return;
				event.preventDefault();
				const nx = Math.min(4, Math.max(0, x + step[0]));
				const ny = Math.min(4, Math.max(0, y + step[1]));
				const next = buttons[ny * 5 + nx];
				for (const other of buttons) other.tabIndex = -1;
				next.tabIndex = 0;
				next.focus();
			});
			buttons.push(b);
			grid.appendChild(b);
		}
	}
	container.appendChild(grid);
	return {
		// Draws `position` (parsed), with `marks`: {selected, targets: [names], last: [names]}.
		draw(position, marks = {}) {
			for (let y = 0; y < 5; y++) {
				for (let x = 0; x < 5; x++) {
					const b = buttons[y * 5 + x];
					const name = pointName(x, y);
					const c = position.cells[y][x];
					b.textContent = "";
					let label = name + ", empty";
					if (c === "T" || c === "S") {
						const p = document.createElement("span");
						p.className = "piece " + (c === "T" ? "tiger" : "sheep");
						p.textContent = c;
						p.setAttribute("aria-hidden", "true");
						b.appendChild(p);
						label = name + (c === "T" ? ", tiger" : ", sheep");
					}
					b.setAttribute("aria-label", label);
					b.classList.toggle("selected", marks.selected === name);
					b.classList.toggle("target", (marks.targets || []).includes(name));
					b.classList.toggle("last", (marks.last || []).includes(name));
				}
			}
		},
		buttons,
	};
}

// The points a move names: "sc3" -> ["c3"], "ta5b5" -> ["a5", "b5"], "ta5xc3" -> ["a5", "c3"].
function movePoints(text) {
	const rest = text.slice(1).replace("x", "");
	return rest.length === 4 ? [rest.slice(0, 2), rest.slice(2)] : [rest];
}

// The move of `legal` (the API's move objects) that picking `point` makes, given the point
// picked before (`selected`): {move} to play, {select} to pick a piece, or {} for nothing.
function pick(position, legal, selected, point) {
	const side = position.turn === "tigers" ? "t" : "s";
	if (position.inHand > 0 && side === "s") {
		const move = legal.find((m) => m.move === side + point);
		return move ? { move } : {};
	}
	const steps = legal.map((m) => ({ move: m, points: movePoints(m.move) })).filter((m) => m.points.length === 2);
	if (selected) {
		const found = steps.find((m) => m.points[0] === selected && m.points[1] === point);
		if (found) return { move: found.move };
	}
	const from = steps.filter((m) => m.points[0] === point);
	if (from.length) return { select: point, targets: from.map((m) => m.points[1]) };
	return {};
}

// A value in words for `side`: "win in 7", "draw", "loss", or "unknown".
function valueWords(value, distance) {
	if (value === null || value === undefined) return "unknown";
	return distance === null || distance === undefined ? value : value + " in " + distance;
}

// A JSON request to the API: resolves to {status, body, retryAfter}.
async function api(path, body) {
	const options = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
	const response = await fetch(path, options);
	let parsed = null;
	try { parsed = await response.json(); } catch (e) { parsed = { error: "the server's answer was not JSON" }; }
	return { status: response.status, body: parsed, retryAfter: Number(response.headers.get("Retry-After") || 0) };
}

// How a finished position ended, for the side to move having lost.
function endWords(position) {
	if (position.turn === "sheep" && position.dead >= 5) return "Tigers win: five sheep captured.";
	if (position.turn === "sheep") return "Tigers win: the sheep cannot move.";
	return "Sheep win: the tigers are trapped.";
}

window.Tigers = { START, parsePosition, pointName, makeBoard, movePoints, pick, valueWords, api, endWords };
