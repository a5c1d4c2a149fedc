"""Calls on arrays of positions agree with the same calls on one game at a time, and refuse
bad arrays with a sentence and no result."""

import numpy as np
import pytest

import tigers_and_sheep as ts
from conftest import random_games


@pytest.fixture(scope="module")
def games():
    return [g for g in random_games(300, seed=5)]


def test_codes_round_trip_through_notation(games):
    notations = [g.to_notation() for g in games]
    codes = ts.codes_from_notations(notations)
    assert codes.dtype == np.uint64 and codes.shape == (len(games),)
    assert [int(c) for c in codes] == [g.code for g in games]
    assert ts.notations_from_codes(codes) == notations


def test_batch_observations_match_one_game_at_a_time(games):
    codes = np.array([g.code for g in games], dtype=np.uint64)
    for version in (1, 2):
        inputs = ts.encode(codes, version)
        assert inputs.shape == (len(games), ts.INPUTS[version])
        assert all((inputs[i] == g.encode(version)).all() for i, g in enumerate(games))
    planes = ts.planes(codes)
    assert planes.shape == (len(games), ts.PLANES, 5, 5)
    assert all((planes[i] == g.planes()).all() for i, g in enumerate(games))


def test_batch_masks_and_moves_match_the_game(games):
    live = [g for g in games if not g.is_over() and g.repetitions == 0]
    codes = np.array([g.code for g in live], dtype=np.uint64)
    masks = ts.legal_masks(codes)
    assert masks.shape == (len(live), ts.ACTIONS)
    assert all((masks[i] == g.action_mask()).all() for i, g in enumerate(live))
    actions = np.array([g.legal_actions()[-1] for g in live], dtype=np.int64)
    after = ts.play_actions(codes, actions)
    for game, action, code in zip(live, actions, after):
        game = game.copy()
        game.play(int(action))
        assert game.code == int(code)


def test_terminal_positions_are_told_by_the_board():
    codes = ts.codes_from_notations(
        [ts.START, "TSSST/SS.SS/SSSSS/SSSSS/TSSST t 0"]
    )
    assert ts.terminal(codes).tolist() == [0, -1]


def test_bad_arrays_are_refused_with_the_index_and_nothing_returned():
    good = ts.codes_from_notations([ts.START])[0]
    with pytest.raises(ts.PositionError, match="position code 1"):
        ts.encode(np.array([good, 0], dtype=np.uint64))
    with pytest.raises(ts.PositionError, match="bits"):
        ts.planes(np.array([good | (1 << 62)], dtype=np.uint64))
    with pytest.raises(TypeError, match=r"array of float64 with shape \[1\]"):
        ts.encode(np.array([1.5]))
    with pytest.raises(TypeError, match=r"one-dimensional numpy array of position codes .*\[1, 2\]"):
        ts.planes(np.zeros((1, 2), dtype=np.uint64))
    with pytest.raises(TypeError, match="not a str"):
        ts.legal_masks("codes")
    assert ts.encode([int(good)]).shape == (1, ts.INPUTS[2])
    with pytest.raises(ValueError, match="one action a position"):
        ts.play_actions(np.array([good], dtype=np.uint64), np.array([0, 1], dtype=np.int64))
    with pytest.raises(ts.IllegalMoveError, match="position 0"):
        ts.play_actions(np.array([good], dtype=np.uint64), np.array([0], dtype=np.int64))
    with pytest.raises(ts.NotationError, match="position 1"):
        ts.codes_from_notations([ts.START, "nonsense"])


def test_a_batch_of_games_plays_random_playouts_to_their_ends():
    rng = np.random.default_rng(7)
    batch = ts.GameBatch(64, max_plies=400)
    assert len(batch) == 64
    while not batch.done().all():
        counts = batch.legal_counts()
        batch.play_nth((rng.random(64) * np.maximum(counts, 1)).astype(np.int64))
    outcomes, results = batch.outcomes(), batch.results()
    for i in range(64):
        game = batch.game(i)
        if batch.truncated()[i]:
            assert outcomes[i] == -1 and not game.is_over() and game.ply == 400
        else:
            assert ts.OUTCOMES[outcomes[i]] == game.outcome
            assert results[i] == game.result()
    assert (batch.plies() == [batch.game(i).ply for i in range(64)]).all()
    batch.reset(np.arange(64) < 32)
    assert (batch.plies()[:32] == 0).all() and (batch.plies()[32:] > 0).all()
    batch.reset()
    assert (batch.codes() == ts.codes_from_notations([ts.START])[0]).all()


def test_a_batch_refuses_a_bad_choice_and_moves_no_game():
    batch = ts.GameBatch(3)
    with pytest.raises(ValueError, match="game 2: choice 21"):
        batch.play_nth(np.array([0, 1, 21], dtype=np.int64))
    with pytest.raises(ts.IllegalMoveError, match="game 1"):
        batch.play_actions(np.array([1, 30, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="2 choices for a batch of 3"):
        batch.play_nth(np.array([0, 1], dtype=np.int64))
    assert (batch.plies() == 0).all()
    batch.play_actions(np.array([1, 2, 3], dtype=np.int64))
    assert batch.game(2).moves == [ts.action_to_move(3, "sheep")]
    with pytest.raises(IndexError):
        batch.game(3)


def test_rusts_own_playouts_count_every_game():
    counts = ts.random_playouts(200, seed=1, max_plies=300)
    ends = sum(counts[o] for o in ts.OUTCOMES) + counts["cut-off"]
    assert counts["games"] == 200 == ends
    assert counts["plies"] >= 200 * 20
