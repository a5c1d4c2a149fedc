"""Python and `tui engine` agree exactly on 10,000 random positions: their legal moves, and
their exact values where the tables hold them."""

import random
import subprocess

import pytest

import tigers_and_sheep as ts
from conftest import TABLEBASE, binary, usual_tables

POSITIONS = 10_000


def positions(count: int, seed: int) -> list:
    """Positions of random games, with every ply of the game equally likely, none over."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        game = ts.Game()
        stop = rng.randrange(1, 160)
        while not game.is_over() and game.ply < stop:
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over():
            found.append(game.to_notation())
    return found


def test_python_and_the_engine_agree_on_ten_thousand_positions():
    tables = usual_tables()
    notations = positions(POSITIONS, seed=12)
    script = "".join(f"position {p}\nlegal\nprobe\n" for p in notations) + "quit\n"
    engine = subprocess.run(
        [str(binary("tui")), "engine"] + (["--tablebase", TABLEBASE] if TABLEBASE else []),
        input=script,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert engine.returncode == 0, engine.stderr[-2000:]
    lines = [l for l in engine.stdout.splitlines() if not l.startswith("info ")]
    assert len(lines) == 2 * POSITIONS, lines[:5]
    probed = 0
    for index, notation in enumerate(notations):
        legal, probe = lines[2 * index], lines[2 * index + 1]
        game = ts.Game.from_notation(notation)
        assert legal.split()[1:] == game.legal_moves(), notation
        words = probe.split()[1:]
        try:
            wdl, distance = tables.probe(game)
            mine = [wdl] + ([] if distance is None else [str(distance)])
            probed += 1
        except ts.TableMissingError:
            mine = ["none"]
        assert words == mine, notation
    if not tables.has_movement:
        pytest.skip(f"legal moves agree; no table here to compare values ({tables.movement_path})")
    assert probed > POSITIONS // 10
