#!/usr/bin/env python3
"""Makes a large run directory from a small one, to time the web pages (docs/benchmarks.md,
"The web pages"): the small run's ledger gets promoted generations up to 999, each with a
promoting gate, a measurement at fixed depth and one at equal time (copies of the newest
ones, a minute apart), and the newest generation's archive file becomes 100,000 and more games
(the run's games repeated, one gzip member per copy). Net files are not copied: a net holds
its own generation, and a coordinator refuses one that says another.

Usage: web_big_run.py SMALL_RUN_DIR BIG_RUN_DIR   (the small run's coordinator stopped)
"""

import gzip
import os
import shutil
import sqlite3
import sys


def copy_rows(db, top):
	"""Generations top+1..999, each with its gates and its measurement at equal time."""
	gen = db.execute("SELECT * FROM generations ORDER BY generation DESC LIMIT 1").fetchone()
	gate = db.execute("SELECT * FROM gates WHERE promoted = 1 ORDER BY id DESC LIMIT 1").fetchone()
	gate_columns = [c[1] for c in db.execute("PRAGMA table_info(gates)")]
	timed = db.execute("SELECT * FROM timed LIMIT 1").fetchone()
	timed_columns = [c[1] for c in db.execute("PRAGMA table_info(timed)")]
	insert = lambda table, row: db.execute(
		"INSERT OR REPLACE INTO %s (%s) VALUES (%s)" % (table, ",".join(row), ",".join("?" * len(row))),
		list(row.values()),
	)
	for g in range(top + 1, 1000):
		db.execute(
			"INSERT INTO generations VALUES (?, ?, ?, ?, ?)",
			(g, gen[1], gen[2] + g, gen[3] + g * 60, gen[4] + g),
		)
		row = dict(zip(gate_columns, gate))
		row.pop("id")
		row.update(candidate_generation=g, finished_at=row["finished_at"] + g * 60)
		row["cpu_seconds"] += g * 30
		for stop in (row["stop"], "Measured"):
			insert("gates", dict(row, stop=stop))
		if timed:
			measured = dict(zip(timed_columns, timed))
			measured.update(generation=g, finished_at=measured["finished_at"] + g * 60)
			measured["cpu_seconds"] += g * 30
			insert("timed", measured)


def grow_archive(db, run, top, games_wanted=100_000):
	"""The newest generation's file made of copies of every game the run kept."""
	games = os.path.join(run, "games")
	text = b"".join(gzip.open(os.path.join(games, name)).read() for name in sorted(os.listdir(games)))
	count = text.count(b"tigers-and-sheep record ")
	copies = games_wanted // count + 1
	member = gzip.compress(text, 6)
	path = os.path.join(games, "gen-%06d.records.gz" % top)
	with open(path, "wb") as out:
		for _ in range(copies):
			out.write(member)
	db.execute(
		"INSERT OR REPLACE INTO game_files (generation, bytes, games, pruned_at) VALUES (?, ?, ?, NULL)",
		(top, os.path.getsize(path), copies * count),
	)
	return copies * count


def main():
	small, big = sys.argv[1], sys.argv[2]
	shutil.rmtree(big, ignore_errors=True)
	shutil.copytree(small, big)
	db = sqlite3.connect(os.path.join(big, "ledger.sqlite"))
	top = db.execute("SELECT max(generation) FROM generations").fetchone()[0]
	copy_rows(db, top)
	games = grow_archive(db, big, top)
	db.commit()
	nets = db.execute("SELECT count(*) FROM generations").fetchone()[0]
	print(f"{nets} promoted generations; {games} games in generation {top}'s file")


if __name__ == "__main__":
	main()
