"""The game from Python: notation, moves, actions, results, symmetries and records, checked
against the rules as the core applies them."""

import copy
import pickle

import numpy as np
import pytest

import tigers_and_sheep as ts
from conftest import random_games

# Tigers trapped in their corners by sheep: the sheep have won.
TRAPPED = "TSSST/SS.SS/SSSSS/SSSSS/TSSST t 0"
# A movement-phase position where a tiger and a sheep can step back and forth.
SHUFFLE = "TSSST/SSSSS/SS.SS/SSSS./TSSST t 0"


def test_the_start_has_twenty_one_placements_and_round_trips():
    game = ts.Game()
    assert game.to_notation() == ts.START
    assert game.turn == "sheep"
    assert game.sheep_in_hand == 20 and game.dead_sheep == 0
    assert len(game.legal_moves()) == 21
    assert all(m.startswith("s") and len(m) == 3 for m in game.legal_moves())
    assert ts.Game.from_notation(ts.START).to_notation() == ts.START


def test_moves_play_and_refusals_say_why_and_change_nothing():
    game = ts.Game()
    assert game.play("sc3") == "sc3"
    assert game.turn == "tigers"
    before = game.to_notation()
    with pytest.raises(ts.IllegalMoveError, match="sheep|tigers|turn"):
        game.play("sb2")
    with pytest.raises(ValueError):
        game.play("ta1a1")
    with pytest.raises(ts.NotationError, match="move"):
        game.play("not a move")
    with pytest.raises(ts.IllegalMoveError, match="action 9999"):
        game.play(9999)
    with pytest.raises(ValueError, match="notation|action"):
        game.play(3.5)
    assert game.to_notation() == before
    game.undo()
    assert game.to_notation() == ts.START and game.ply == 0
    with pytest.raises(ValueError, match="take back"):
        game.undo(1)


def test_bad_positions_are_notation_errors_with_a_sentence():
    for text in ["", "T...T", "T...T/...../...../...../T...T x 20", "TTTTT/...../...../...../..... s 20"]:
        with pytest.raises(ts.NotationError) as refused:
            ts.Game.from_notation(text)
        assert len(str(refused.value)) > 10


def test_a_finished_game_has_its_outcome_and_takes_no_move():
    game = ts.Game.from_notation(TRAPPED)
    assert game.is_over()
    assert game.outcome == "sheep-by-trapping" and game.winner == "sheep"
    assert game.result() == -1.0
    assert game.legal_moves() == [] and game.legal_actions() == []
    assert not game.action_mask().any()
    with pytest.raises(ts.IllegalMoveError, match="over"):
        game.play("ta1b1")


def test_a_third_repetition_draws():
    game = ts.Game.from_notation(SHUFFLE)
    for _ in range(2):
        for mv in ["te1e2", "sd3c3", "te2e1", "sc3d3"]:
            assert not game.is_over()
            game.play(mv)
    assert game.repetitions == 2
    assert game.outcome == "draw-by-repetition"
    assert game.result() == 0.0 and game.winner is None


def test_every_legal_move_has_one_action_and_back():
    assert ts.ACTIONS == 217
    for game in random_games(200, seed=1):
        moves, actions = game.legal_moves(), game.legal_actions()
        assert len(set(actions)) == len(actions)
        assert [ts.move_to_action(m) for m in moves] == actions
        assert [ts.action_to_move(a, game.turn) for a in actions] == moves
        mask = game.action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (ts.ACTIONS,)
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(actions)
        if moves:
            copy_by_action = game.copy()
            copy_by_action.play(actions[0])
            game.play(moves[0])
            assert copy_by_action == game


def test_symmetries_turn_positions_moves_and_actions_alike():
    for game in random_games(50, seed=2):
        for k in range(ts.SYMMETRIES):
            turned = game.transformed(k)
            expected = sorted(ts.transform_move(m, k) for m in game.legal_moves())
            if game.is_over():
                continue
            assert sorted(turned.legal_moves()) == expected
            perm = ts.action_permutation(k)
            mask = np.zeros(ts.ACTIONS, bool)
            mask[perm[game.legal_actions()]] = True
            assert (mask == turned.action_mask()).all()
    assert ts.Game().transformed(0).to_notation() == ts.START
    with pytest.raises(ValueError, match="0 to 7"):
        ts.Game().transformed(8)


def test_records_round_trip_and_a_bad_record_is_refused():
    for game in random_games(20, seed=3):
        text = game.to_record(sheep="alice", tigers="bob")
        again = ts.Game.from_record(text)
        assert again == game
        assert again.moves == game.moves
    with pytest.raises(ts.NotationError):
        ts.Game.from_record("tigers-and-sheep record 1\nstart nonsense\nmoves\nresult *\n")
    cut = ts.Game().to_record().replace("result *", "result tigers-by-captures")
    with pytest.raises(ts.NotationError, match="result|over"):
        ts.Game.from_record(cut)


def test_games_copy_and_pickle_with_their_history():
    game = random_games(1, seed=4, max_plies=60)[0]
    for other in [copy.copy(game), copy.deepcopy(game), pickle.loads(pickle.dumps(game))]:
        assert other == game and other.moves == game.moves
        if not other.is_over():
            other.play(other.legal_moves()[0])
            assert other != game


def test_observations_have_their_documented_shapes():
    game = ts.Game()
    assert game.encode().shape == (ts.INPUTS[2],) and game.encode().dtype == np.float32
    assert game.encode(1).shape == (ts.INPUTS[1],)
    with pytest.raises(ValueError, match="versions"):
        game.encode(3)
    planes = game.planes()
    assert planes.shape == (ts.PLANES, 5, 5) and planes.dtype == np.float32
    # The four tigers in the corners; no sheep; sheep to move; all 20 in hand.
    assert planes[0].sum() == 4 and planes[0][0][0] == 1 and planes[0][4][4] == 1
    assert planes[1].sum() == 0 and planes[2].sum() == 21
    assert planes[4].sum() == 0 and (planes[5] == 1.0).all() and (planes[6] == 0).all()
