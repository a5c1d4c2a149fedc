"""A run directory a real coordinator wrote, read from Python."""

import numpy as np
import pytest

import tigers_and_sheep as ts


def test_the_ledgers_rows_come_as_dicts(run_dir):
    run = ts.Run(run_dir)
    tables = run.ledger_tables()
    assert {"generations", "gates", "batches", "workers"} <= set(tables)
    generations = run.generations()
    assert generations[0]["generation"] == 0
    assert len(generations[0]["sha256"]) == 64
    assert generations[0]["net"].name == "gen-000000.safetensors"
    assert isinstance(run.gates(), list) and isinstance(run.grades(), list)
    workers = run.rows("workers")
    assert workers and all(isinstance(w["worker_id"], str) for w in workers)
    assert run.net_generations()[0] == 0
    assert ts.Net(generations[-1]["net"]).sha256 == generations[-1]["sha256"]
    with pytest.raises(ValueError, match="no table"):
        run.rows("generations; drop table gates")


def test_the_archives_games_replay(run_dir):
    run = ts.Run(run_dir)
    generations = run.game_generations()
    assert generations
    games = run.games()
    assert games
    for game in games[:50]:
        replayed = ts.Game.from_record(game["record"])
        assert replayed.moves == game["moves"]
        assert replayed.outcome == game["outcome"]
        assert game["plies"] == len(game["moves"])
        assert game["generation"] in generations
    assert len(run.games(generations[0])) <= len(games)
    with pytest.raises(FileNotFoundError, match="generation 999"):
        run.games(999)


def test_the_samples_come_as_arrays_that_train(run_dir):
    run = ts.Run(run_dir)
    window = run.samples("window")
    n = len(window["codes"])
    assert n > 0
    assert window["inputs"].shape == (n, ts.INPUTS[2]) and window["inputs"].dtype == np.float32
    assert window["uses"].shape == (n,)
    assert (np.abs(window["score"]) <= 1).all() and set(np.unique(window["result"])) <= {-1, 0, 1}
    assert (ts.encode(window["codes"], 2) == window["inputs"]).all()
    both = run.samples()
    assert len(both["codes"]) >= n
    assert run.samples("ledger", version=1)["inputs"].shape[1] == ts.INPUTS[1]
    with pytest.raises(ValueError, match="source"):
        run.samples("elsewhere")


def test_a_directory_without_a_ledger_is_not_a_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a run directory"):
        ts.Run(tmp_path)
    (tmp_path / "ledger.sqlite").write_bytes(b"garbage, not a database" * 100)
    with pytest.raises(ts.CorruptFileError):
        ts.Run(tmp_path)
