#!/usr/bin/env python3
"""Fails if a module file of a crate is not named in docs/architecture.md.

Each crate's section of docs/architecture.md (a `### \\`DIR/\\`` heading, up to the next heading)
must name every `.rs` file under DIR/src (other than lib.rs and main.rs) by its stem in a code
span: `ledger`, or `store::ledger` (`compaction`, `schema`). A section that says its modules are
listed in a crate's lib.rs is checked against that file's `//!` comment instead.

Usage: architecture-modules.py   (from the workspace root)
"""

import pathlib
import re
import sys

DOC = pathlib.Path("docs/architecture.md")
HEADING = re.compile(r"^#{2,3} ", re.M)
CRATE = re.compile(r"`([a-z/_]+)/`")
LISTED_IN = re.compile(r"listed in `([a-z/_]+/src/lib\.rs)`")


def names_in(text):
	"""Every identifier inside a code span of `text`."""
	spans = " ".join(re.findall(r"`([^`]*)`", text))
	return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", spans))


def main():
	doc = DOC.read_text()
	starts = [m.start() for m in HEADING.finditer(doc)] + [len(doc)]
	missing = []
	checked = 0
	for start, end in zip(starts, starts[1:]):
		section = doc[start:end]
		heading = section.splitlines()[0]
		if not heading.startswith("### "):
			continue
		for crate in CRATE.findall(heading):
			src = pathlib.Path(crate, "src")
			if not src.is_dir():
				missing.append(f"{DOC}: `{crate}/` has no src/ folder")
				continue
			listed = LISTED_IN.search(section)
			if listed and listed.group(1).startswith(crate + "/"):
				lib = pathlib.Path(listed.group(1)).read_text()
				names = names_in("\n".join(l for l in lib.splitlines() if l.startswith("//!")))
				where = listed.group(1)
			else:
				names = names_in(section)
				where = f"{DOC}, section {heading[4:].strip()}"
			for file in sorted(src.rglob("*.rs")):
				if file.stem in ("lib", "main"):
					continue
				checked += 1
				if file.stem not in names:
					missing.append(f"{file}: not named in {where}")
	for line in missing:
		print(line)
	if missing:
		print(f"{len(missing)} module files not named; add them where the line says")
		return 1
	print(f"every one of {checked} module files is named in {DOC}")
	return 0


if __name__ == "__main__":
	sys.exit(main())
