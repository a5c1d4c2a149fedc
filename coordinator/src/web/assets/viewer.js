// The game viewer: draws the board of each position (data from the page, as JSON) and steps
// through them with the arrow keys, the buttons or a click on a move; the address's fragment
// follows the position shown (#N), so a link can open at one. Text is set as text,
// never as HTML.
"use strict";
(function () {
	const plies = JSON.parse(document.getElementById("plies").textContent);
	const svg = document.getElementById("board");
	const list = document.getElementById("moves");
	const NS = "http://www.w3.org/2000/svg";
	let at = 0;

	function element(name, attributes, parent) {
		const node = document.createElementNS(NS, name);
		for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
		parent.appendChild(node);
		return node;
	}

	// The lines of the board: the grid, and the diagonals through points with x + y even.
	function drawLines() {
		const lines = element("g", { class: "lines" }, svg);
		for (let i = 0; i < 5; i++) {
			element("line", { x1: 0, y1: i, x2: 4, y2: i }, lines);
			element("line", { x1: i, y1: 0, x2: i, y2: 4 }, lines);
		}
		for (let y = 0; y < 4; y++) {
			for (let x = 0; x < 4; x++) {
				if ((x + y) % 2 === 0) element("line", { x1: x, y1: y, x2: x + 1, y2: y + 1 }, lines);
				else element("line", { x1: x + 1, y1: y, x2: x, y2: y + 1 }, lines);
			}
		}
	}

	const pieces = element("g", { class: "pieces" }, svg);

	function show(index) {
		at = Math.max(0, Math.min(plies.length - 1, index));
		const ply = plies[at];
		while (pieces.firstChild) pieces.removeChild(pieces.firstChild);
		[...ply.cells].forEach((cell, point) => {
			if (cell === ".") return;
			const x = point % 5, y = Math.floor(point / 5);
			const piece = element("g", { class: cell === "T" ? "tiger" : "sheep", "data-point": point }, pieces);
			element("circle", { cx: x, cy: y, r: 0.3 }, piece);
			const letter = element("text", { x: x, y: y, "text-anchor": "middle", "dominant-baseline": "central" }, piece);
			letter.textContent = cell;
		});
		document.getElementById("ply").textContent = `${at} / ${plies.length - 1}`;
		document.getElementById("state").textContent =
			`${ply.turn} to move; ${ply.in_hand} sheep in hand, ${ply.dead} captured` + (ply.move ? `; last move ${ply.move}` : "");
		document.getElementById("value").textContent = ply.value ? `Exact value: ${ply.value}` : "Exact value: not known here";
		for (const [i, item] of [...list.children].entries()) item.classList.toggle("current", i + 1 === at);
		svg.dataset.ply = at;
		history.replaceState(null, "", `#${at}`);
	}

	drawLines();
	plies.slice(1).forEach((ply, i) => {
		const item = document.createElement("li");
		const link = document.createElement("a");
		link.href = "#";
		link.textContent = ply.move;
		link.addEventListener("click", (event) => { event.preventDefault(); show(i + 1); });
		item.appendChild(link);
		list.appendChild(item);
	});
	document.getElementById("first").addEventListener("click", () => show(0));
	document.getElementById("back").addEventListener("click", () => show(at - 1));
	document.getElementById("forward").addEventListener("click", () => show(at + 1));
	document.getElementById("last").addEventListener("click", () => show(plies.length - 1));
	document.addEventListener("keydown", (event) => {
		const step = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: plies.length - 1 }[event.key];
		if (step !== undefined) { event.preventDefault(); show(step); }
	});
	// A link may name a position: /games/G/I#N opens at ply N.
	const named = /^#(\d+)$/.exec(location.hash);
	show(named ? Number(named[1]) : 0);
})();
