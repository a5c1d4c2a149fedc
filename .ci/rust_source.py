"""What the checks that read Rust source share: the source of a file without its comments and
test module, the `use` lines, the `crate::`/`super::` paths, and `use` bodies unfolded.

Imported by import-circles.py and room-order.py (run as scripts from the workspace root, so
that this file's folder is on the import path).
"""

import re

COMMENT = re.compile(r"//[^\n]*")
# A test module, to the end of the file: `#[cfg(test)]` or `#[cfg(all(test, ...))]`, any
# visibility.
TESTS = re.compile(
	r"#\[cfg\((?:test|all\(test[^]]*\))\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod tests\s*\{.*", re.S
)
# A `use` line: its visibility (group 1, if any) and its body (group 2).
USE = re.compile(r"^[ \t]*(pub(?:\([a-z]+\))?\s+)?use\s+([^;]+);", re.M)
# A path from the crate root or the parent, not `$crate::` in a macro.
PATH = re.compile(r"(?<![A-Za-z0-9_$])(?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)+")


def without_comments(text):
	"""`text` without its line comments."""
	return COMMENT.sub("", text)


def source(path):
	"""A file's text without its comments and its test module."""
	with open(path, encoding="utf-8") as file:
		return TESTS.sub("", without_comments(file.read()))


def split_use(body):
	"""`a::{b, c::{d, e}}` to ['a::b', 'a::c::d', 'a::c::e']."""
	body = " ".join(body.split())
	if "{" not in body or "}" not in body:
		return [body.split(" as ")[0].strip()]
	prefix = body[: body.index("{")].strip().rstrip(":")
	inner = body[body.index("{") + 1 : body.rindex("}")]
	items, depth, current = [], 0, ""
	for ch in inner:
		depth += ch == "{"
		depth -= ch == "}"
		if ch == "," and depth == 0:
			items.append(current)
			current = ""
		else:
			current += ch
	items.append(current)
	paths = []
	for item in (i.strip() for i in items):
		if item == "self":
			paths.append(prefix)
		elif item:
			paths.extend(f"{prefix}::{p}" for p in split_use(item))
	return paths
