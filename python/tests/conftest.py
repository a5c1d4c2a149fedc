"""Fixtures shared by the package's tests: the workspace's binaries, a real run directory made
by a coordinator process, and the solved tables where this machine has them."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import time

import pytest

import tigers_and_sheep as ts

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The movement table, where it is not at its usual place (CI solves it into the target
# directory); `tui engine` is given the same file.
TABLEBASE = os.environ.get("TIGERS_TABLEBASE")


def usual_tables() -> ts.Tables:
    """The tables the tests compare against: TIGERS_TABLEBASE's movement table if set, and
    whatever is at the usual places."""
    return ts.Tables(movement=TABLEBASE) if TABLEBASE else ts.Tables()


def binary(name: str) -> pathlib.Path:
    """A workspace binary: from TIGERS_BIN_DIR if set, else the newest of target/release and
    target/debug."""
    explicit = os.environ.get("TIGERS_BIN_DIR")
    candidates = (
        [pathlib.Path(explicit) / name]
        if explicit
        else [ROOT / "target" / "release" / name, ROOT / "target" / "debug" / name]
    )
    found = [c for c in candidates if c.is_file()]
    if not found:
        pytest.fail(
            f"no {name} binary at {', '.join(map(str, candidates))}: "
            f"cargo build --release --bin {name} (or set TIGERS_BIN_DIR)"
        )
    return max(found, key=lambda p: p.stat().st_mtime)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory) -> pathlib.Path:
    """A run directory a real coordinator wrote: about 25 seconds of self-play and training
    with one local worker and no tablebase, then stopped with SIGINT as a person stops it."""
    path = tmp_path_factory.mktemp("run") / "run"
    log = open(path.parent / "coordinator.log", "wb")
    process = subprocess.Popen(
        [
            str(binary("coordinator")),
            "--listen",
            f"127.0.0.1:{free_port()}",
            "--local-workers",
            "1",
            "--headless",
            "--run-dir",
            str(path),
            "--no-tablebase",
            "--no-grades",
            "--checkpoint-seconds",
            "5",
            "--steps-per-candidate",
            "2000",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        games = path / "games"
        # Long enough for games to reach the archive and a checkpoint to hold a window.
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if any(games.glob("*.records.gz")) and (path / "checkpoint" / "window.bin").exists():
                time.sleep(3)
                break
            time.sleep(0.5)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
    if not (path / "ledger.sqlite").exists():
        pytest.fail(
            "the coordinator made no run directory: "
            + (path.parent / "coordinator.log").read_text(errors="replace")[-2000:]
        )
    return path


@pytest.fixture(scope="session")
def movement_tables() -> ts.Tables:
    """The tables at their usual places, with the movement table (CI solves it first)."""
    tables = usual_tables()
    if not tables.has_movement:
        pytest.skip(f"no movement table at {tables.movement_path}: tui tablebase build")
    return tables


def random_games(count: int, seed: int, max_plies: int = 200) -> list:
    """`count` games of uniformly random moves, each stopped at a random ply."""
    import random

    rng = random.Random(seed)
    games = []
    for _ in range(count):
        game = ts.Game()
        stop = rng.randrange(max_plies)
        while not game.is_over() and game.ply < stop:
            game.play(rng.choice(game.legal_moves()))
        games.append(game)
    return games
