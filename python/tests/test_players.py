"""The computer players and nets from Python."""

import pytest

import tigers_and_sheep as ts
from conftest import random_games


def test_claude_plays_legal_moves_at_a_depth_and_a_time():
    player = ts.Player.claude(depth=2)
    assert player.name == "claude"
    for game in random_games(20, seed=10, max_plies=80):
        if game.is_over():
            with pytest.raises(ts.IllegalMoveError, match="over"):
                player.choose(game)
            continue
        assert player.choose(game) in game.legal_moves()
        assert player.choose(game, ms=5) in game.legal_moves()
    report = player.search_report(ts.Game(), depth=3)
    assert report["depth"] == 3 and report["move"] in ts.Game().legal_moves()
    assert -1.0 <= report["score"] <= 1.0 and report["nodes"] > 0


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="not both"):
        ts.Player.claude(depth=2, ms=10)
    with pytest.raises(ValueError, match="depth"):
        ts.Player.claude(depth=0)
    with pytest.raises(ValueError, match="time"):
        ts.Player.claude(ms=0)


def test_a_corrupt_or_missing_net_file_is_refused(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x00" * 64)
    with pytest.raises(ts.CorruptFileError):
        ts.Net(bad)
    with pytest.raises(OSError):
        ts.Net(tmp_path / "absent.safetensors")


def test_a_runs_net_evaluates_and_plays(run_dir):
    net = ts.Run(run_dir).net(0)
    assert net.generation == 0 and net.shape == (64, 32) and net.input_version == 2
    assert len(net.sha256) == 64
    games = [g for g in random_games(30, seed=11, max_plies=60) if not g.is_over()]
    values = net.evaluate_codes(ts.codes_from_notations([g.to_notation() for g in games]))
    for game, value in zip(games, values):
        assert -1.0 <= value <= 1.0
        assert abs(net.evaluate(game) - value) < 1e-6
    player = ts.Player.net(net, depth=2)
    assert player.name == "net 0"
    assert player.choose(games[0]) in games[0].legal_moves()
    assert ts.Player.net(net.path, ms=5).choose(games[1]) in games[1].legal_moves()


def test_the_perfect_player_keeps_the_value_where_the_tables_are_whole():
    tables = ts.Tables()
    if not tables.complete:
        pytest.skip("the perfect player needs every placement layer (tui tablebase build --placement)")
    player = ts.Player.perfect(tables)
    game = ts.Game()
    move = player.choose(game)
    after = game.copy()
    after.play(move)
    assert tables.probe(after)[0] in ("draw", "loss")
