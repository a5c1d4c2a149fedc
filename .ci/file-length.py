#!/usr/bin/env python3
"""Fails if a Rust source file outside tests is longer than 700 lines.

Counts the lines of every `.rs` file in the workspace except those under a `tests/` folder
(integration tests), `target/` (build output) or a hidden folder, and names each one over the
limit. A file that grows past it holds more than one concern (split it by concern, a submodule
file each) or carries its unit tests inline (move them to a sibling `<module>/tests.rs`).

Usage: file-length.py [ROOT]   (default: the workspace, this script's parent folder)
"""

import os
import sys

LIMIT = 700
# Folders not looked into, besides hidden ones.
SKIPPED = {"tests", "target"}


def lines_in(path):
	with open(path, "rb") as file:
		return sum(1 for _ in file)


def main(argv):
	root = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
	root = os.path.normpath(root)
	long, checked = [], 0
	for folder, subfolders, names in os.walk(root):
		subfolders[:] = sorted(
			d for d in subfolders if d not in SKIPPED and not d.startswith(".")
		)
		for name in sorted(names):
			if not name.endswith(".rs"):
				continue
			path = os.path.join(folder, name)
			checked += 1
			count = lines_in(path)
			if count > LIMIT:
				long.append((count, os.path.relpath(path, root)))
	for count, path in sorted(long, reverse=True):
		print(f"{path}: {count} lines, more than {LIMIT}")
	if long:
		print(
			f"{len(long)} file(s) longer than {LIMIT} lines; split each by concern, or move its "
			"unit tests to a sibling tests.rs"
		)
		return 1
	print(f"every one of {checked} source files is at most {LIMIT} lines")
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
