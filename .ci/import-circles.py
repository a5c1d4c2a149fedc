#!/usr/bin/env python3
"""Fails if any crate's modules import each other round a circle.

Reads the `use` lines and the `crate::`/`super::` paths of every `.rs` file under each crate's
`src/` (comments and `#[cfg(test)] mod tests` left out), resolves each path to the file that
defines it (following `pub use` re-exports, so `crate::Board` counts as the module that defines
`Board`), and prints every strongly connected group of two or more modules. A parent that only
declares and re-exports its children is not in a circle with them; a child that imports its
parent's items is.

Usage: import-circles.py [SRC_DIR ...]   (default: every crate's src/ in the workspace)
"""

import os
import re
import sys
from collections import defaultdict

from rust_source import PATH, USE, source, split_use


def modules_of(src):
	"""Module path ('a::b', '' for the crate root) to its file."""
	files = {}
	for folder, _, names in os.walk(src):
		for name in names:
			if not name.endswith(".rs"):
				continue
			path = os.path.join(folder, name)
			parts = os.path.relpath(path, src)[:-3].split(os.sep)
			# A binary's main.rs is a crate of its own that uses the library: taken as the
			# root, it would hide lib.rs.
			if parts == ["main"] and os.path.exists(os.path.join(src, "lib.rs")):
				continue
			if parts[-1] in ("lib", "main", "mod"):
				parts = parts[:-1]
			if parts and parts[0] == "bin":
				continue
			files["::".join(parts)] = path
	return files


def absolute(current, path):
	"""A `crate::`, `super::`, `self::` or child-relative path as segments from the root."""
	segments = path.split("::")
	base = current.split("::") if current else []
	if segments[0] == "crate":
		return segments[1:]
	if segments[0] == "self":
		return base + segments[1:]
	if segments[0] == "super":
		while segments and segments[0] == "super":
			base = base[:-1]
			segments = segments[1:]
		return base + segments
	return base + segments


def graph(src):
	files = modules_of(src)
	sources = {module: source(path) for module, path in files.items()}
	reexports = {}
	for module, text in sources.items():
		for match in USE.finditer(text):
			if not match.group(1):
				continue
			for path in split_use(match.group(2)):
				name = path.split("::")[-1]
				reexports[(module, name)] = absolute(module, path)

	def resolve(current, path, depth=0):
		segments = absolute(current, path)
		best, used = None, 0
		for i in range(len(segments) + 1):
			candidate = "::".join(segments[:i])
			if candidate in files:
				best, used = candidate, i
		if best is None:
			return None
		if used < len(segments) and (best, segments[used]) in reexports and depth < 8:
			target = "::".join(reexports[(best, segments[used])] + segments[used + 1 :])
			through = resolve("", "crate::" + target, depth + 1) if target else None
			if through is not None:
				return through
		return best

	edges = defaultdict(set)
	for module, text in sources.items():
		paths = []
		for match in USE.finditer(text):
			paths.extend(split_use(match.group(2)))
		paths.extend(match.group(0) for match in PATH.finditer(text))
		for path in paths:
			first = path.split("::")[0]
			if first not in ("crate", "super", "self") and (
				"::".join(filter(None, [module, first])) not in files
			):
				continue
			target = resolve(module, path)
			if target is not None and target != module:
				edges[module].add(target)
	return files, edges


def circles(nodes, edges):
	index, low, stack, on_stack, found = {}, {}, [], set(), []

	def visit(v):
		index[v] = low[v] = len(index)
		stack.append(v)
		on_stack.add(v)
		for w in sorted(edges[v]):
			if w not in index:
				visit(w)
				low[v] = min(low[v], low[w])
			elif w in on_stack:
				low[v] = min(low[v], index[w])
		if low[v] == index[v]:
			group = []
			while True:
				w = stack.pop()
				on_stack.discard(w)
				group.append(w)
				if w == v:
					break
			if len(group) > 1:
				found.append(sorted(group))

	sys.setrecursionlimit(10_000)
	for v in sorted(nodes):
		if v not in index:
			visit(v)
	return found


def main(argv):
	root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
	srcs = argv or sorted(
		os.path.relpath(os.path.join(folder, "src"), root)
		for folder, _, names in os.walk(root)
		if "Cargo.toml" in names
		and os.path.isdir(os.path.join(folder, "src"))
		and "/target" not in folder
	)
	bad = 0
	for src in srcs:
		files, edges = graph(os.path.join(root, src))
		for group in circles(files, edges):
			bad += 1
			print(f"{src}: these modules import each other round a circle:")
			for module in group:
				into = sorted(edges[module] & set(group))
				print(f"  {module or '(crate root)'} imports {', '.join(m or '(crate root)' for m in into)}")
	if bad:
		print(f"{bad} import circle(s); move what the modules share into a module of its own")
		return 1
	print(f"no import circles in {len(srcs)} crates")
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
