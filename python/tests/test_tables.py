"""The solved values from Python: a missing table named with the command that makes it, a
corrupt one refused, and probes that agree with each other and with the analysis."""

import numpy as np
import pytest

import tigers_and_sheep as ts
from conftest import random_games


def test_a_missing_table_names_the_file_and_the_command(tmp_path):
    with pytest.raises(ts.TableMissingError, match="tui tablebase build") as missing:
        ts.Tables(movement=tmp_path / "none.tb", placement=False)
    assert "none.tb" in str(missing.value)
    assert isinstance(missing.value, FileNotFoundError)
    with pytest.raises(ts.TableMissingError, match="--placement"):
        ts.Tables(movement=False, placement=tmp_path)
    empty = ts.Tables(movement=False, placement=False)
    assert not empty.has_movement and empty.placement_layers == 0 and not empty.complete
    with pytest.raises(ts.TableMissingError, match="tui tablebase build"):
        empty.probe("TSSST/SSSSS/SS.SS/SSSS./TSSST t 0")
    with pytest.raises(ts.TableMissingError, match="placement"):
        empty.probe(ts.Game())
    wdl, distance = empty.probe_codes(ts.codes_from_notations([ts.START]))
    assert wdl.tolist() == [-2] and distance.tolist() == [-1]
    with pytest.raises(ts.TableMissingError, match="perfect player"):
        ts.Player.perfect(empty)


def test_a_corrupt_table_is_refused_with_a_sentence(tmp_path):
    bad = tmp_path / "bad.tb"
    bad.write_bytes(b"this is not a table at all, not even close to one" * 3)
    with pytest.raises(ts.CorruptFileError, match="tablebase"):
        ts.Tables(movement=bad, placement=False)
    with pytest.raises(ValueError, match="path"):
        ts.Tables(movement=3.5)


def test_probes_agree_one_by_one_and_by_the_array(movement_tables):
    games = [g for g in random_games(400, seed=8, max_plies=120) if g.sheep_in_hand == 0]
    assert games, "random games reach the movement phase"
    codes = np.array([g.code for g in games], dtype=np.uint64)
    wdl, distance = movement_tables.probe_codes(codes)
    words = {1: "win", 0: "draw", -1: "loss"}
    for game, w, d in zip(games, wdl, distance):
        expected = movement_tables.probe(game)
        assert (words[int(w)], None if d < 0 else int(d)) == expected


def test_the_analysis_lists_every_move_best_first(movement_tables):
    for game in random_games(100, seed=9, max_plies=120):
        if game.sheep_in_hand > 0 or game.is_over():
            continue
        found = movement_tables.analyse(game)
        assert found["position"] == game.to_notation()
        assert sorted(m for m, _, _ in found["moves"]) == sorted(game.legal_moves())
        best_word = found["moves"][0][1]
        assert best_word == found["value"][0]
        for move, word, distance in found["moves"]:
            after = game.copy()
            after.play(move)
            if after.is_over() or after.repetitions:
                continue
            theirs, their_distance = movement_tables.probe(after)
            assert {"win": "loss", "loss": "win", "draw": "draw"}[theirs] == word
            assert their_distance == distance
