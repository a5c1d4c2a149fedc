#!/usr/bin/env python3
"""Fails if a module of a crate calls a room above its own.

A crate's rooms are its library's top-level modules (the folders and files declared in lib.rs).
docs/architecture.md gives their order in the crate's section (a `### \\`DIR/\\`` heading), in
a sentence that begins "Its rooms, in the order they may call" and lists them in code spans
after its colon, lowest first. Every `crate::` path (in `use` lines and in the code) and every
`super::` path that leaves its room must name a room before the one it is written in; a path
through a re-export of lib.rs counts as the room the item comes from. The tests may use any
room: `#[cfg(test)] mod tests` blocks, `tests.rs` files and modules declared `#[cfg(test)]` in
lib.rs are not read, nor is the binary's side (modules declared in main.rs), which stands above
every room and reaches them through the library's public names.

Prints each upward path with its file and line, and fails as well on a room missing from the
order or a name in the order that is not a room.

Usage: room-order.py   (from the workspace root)
"""

import pathlib
import re
import sys

from rust_source import PATH, TESTS, USE, split_use, without_comments

DOC = pathlib.Path("docs/architecture.md")
HEADING = re.compile(r"^#{2,3} ", re.M)
CRATE = re.compile(r"`([a-z/_]+)/`")
ORDER = re.compile(r"Its rooms, in the order they may call[^:]*:(.*?)\.(?:\s|$)", re.S)
SPAN = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")

MOD = re.compile(r"^((?:#\[[^\n]*\]\s*)*)(?:pub(?:\([a-z]+\))?\s+)?mod ([a-z_][a-z0-9_]*);", re.M)


def orders(doc):
	"""Each crate folder with an order in `doc`, to its rooms lowest first."""
	starts = [m.start() for m in HEADING.finditer(doc)] + [len(doc)]
	found = {}
	for start, end in zip(starts, starts[1:]):
		section = doc[start:end]
		heading = section.splitlines()[0]
		order = ORDER.search(section)
		if not heading.startswith("### ") or not order:
			continue
		for crate in CRATE.findall(heading):
			found[crate] = SPAN.findall(order.group(1))
	return found


def declared(path):
	"""The modules a crate root declares: (name, whether only for tests)."""
	if not path.exists():
		return []
	text = without_comments(path.read_text(encoding="utf-8"))
	return [(m.group(2), "cfg(test)" in m.group(1)) for m in MOD.finditer(text)]


def reexports(lib):
	"""The names lib.rs re-exports, to the room they come from."""
	text = without_comments(lib.read_text(encoding="utf-8"))
	rooms = {}
	for match in USE.finditer(text):
		for path in split_use(match.group(2)):
			segments = [s for s in path.split("::") if s not in ("crate", "self")]
			if len(segments) > 1:
				rooms[segments[-1]] = segments[0]
	return rooms


def module_of(src, file):
	"""A file's module path under `src`, as segments."""
	parts = list(file.relative_to(src).with_suffix("").parts)
	return parts[:-1] if parts[-1] == "mod" else parts


def target_room(module, path, rooms, through):
	"""The room `path`, written in `module`, names; None for one outside the crate's rooms."""
	segments = path.split("::")
	if segments[0] == "crate":
		absolute = segments[1:]
	else:
		base = list(module)
		while segments and segments[0] == "super":
			base, segments = base[:-1], segments[1:]
		absolute = base + segments
	if not absolute:
		return None
	if absolute[0] in rooms:
		return absolute[0]
	return through.get(absolute[0])


def references(text):
	"""Every `crate::` and `super::` path of `text`, with the offset it starts at."""
	uses = []
	for match in USE.finditer(text):
		uses.append(match.span())
		for path in split_use(match.group(2)):
			if path.startswith(("crate::", "super::")):
				yield path, match.start(2)
	for match in PATH.finditer(text):
		if not any(start <= match.start() < end for start, end in uses):
			yield match.group(0), match.start()


def check(crate, order):
	"""The complaints about one crate's rooms against `order`."""
	src = pathlib.Path(crate, "src")
	lib = src / "lib.rs"
	if not lib.exists():
		return [f"{DOC}: `{crate}/` has an order of rooms but no src/lib.rs"]
	modules = declared(lib)
	rooms = {name for name, test_only in modules if not test_only}
	complaints = [f"{DOC}: `{name}` is in {crate}'s order of rooms but not a module of its lib.rs"
		for name in order if name not in rooms]
	complaints += [f"{lib}: the room `{name}` is missing from {crate}'s order in {DOC}"
		for name in sorted(rooms - set(order))]
	rank = {name: index for index, name in enumerate(order)}
	through = reexports(lib)
	for file in sorted(src.rglob("*.rs")):
		module = module_of(src, file)
		room = module[0] if module else None
		# The binary's modules, those only for tests and the crate root are not rooms.
		if room not in rooms or file.name == "tests.rs":
			continue
		text = TESTS.sub("", without_comments(file.read_text(encoding="utf-8")))
		for path, offset in references(text):
			target = target_room(module, path, rooms, through)
			if target is None or target == room or target not in rank or room not in rank:
				continue
			if rank[target] > rank[room]:
				line = text.count("\n", 0, offset) + 1
				complaints.append(
					f"{file}:{line}: `{path}` calls upwards: `{target}` comes after `{room}` "
					f"in {crate}'s order of rooms"
				)
	return complaints


def main():
	found = orders(DOC.read_text(encoding="utf-8"))
	if not found:
		print(f"{DOC} gives no crate's rooms in order")
		return 1
	complaints = []
	for crate, order in sorted(found.items()):
		complaints += check(crate, order)
	for line in complaints:
		print(line)
	if complaints:
		print(f"{len(complaints)} call(s) against the order of rooms; move what both rooms need "
			"into the lower one, or change the lower room's state through a method of its own")
		return 1
	names = ", ".join(f"{crate} ({len(order)} rooms)" for crate, order in sorted(found.items()))
	print(f"every room calls only the rooms below it: {names}")
	return 0


if __name__ == "__main__":
	sys.exit(main())
