"""Tigers and Sheep as an OpenSpiel game, registered by importing this module:
``pyspiel.load_game("python_tigers_and_sheep")``.

Player 0 is the sheep and player 1 the tigers; the sheep move first. Actions are the package's
fixed action space (ACTIONS of them); a win is +1 and a loss -1, a draw 0. OpenSpiel needs a
bound on a game's length: a game still going after the parameter ``max_plies`` (300 by
default) ends there as a draw. The observation tensor is the board planes (PLANES x 5 x 5).
With the tables at their usual places, ``state.exact()`` gives the position's exact value for
the player to move.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pyspiel

import tigers_and_sheep as ts

__all__ = ["TigersAndSheepGame", "TigersAndSheepState"]

_SHORT_NAME = "python_tigers_and_sheep"
_DEFAULT_MAX_PLIES = 300
_PLAYERS = {"sheep": 0, "tigers": 1}

_GAME_TYPE = pyspiel.GameType(
    short_name=_SHORT_NAME,
    long_name="Python Tigers and Sheep",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"max_plies": _DEFAULT_MAX_PLIES},
)


def _game_info(max_plies: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=ts.ACTIONS,
        max_chance_outcomes=0,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=max_plies,
    )


class TigersAndSheepGame(pyspiel.Game):
    """The game, with its length bounded by the parameter ``max_plies``."""

    def __init__(self, params=None):
        params = params or {}
        max_plies = int(params.get("max_plies", _DEFAULT_MAX_PLIES))
        if max_plies < 1:
            raise ValueError(f"max_plies is at least 1, not {max_plies}")
        self.max_plies = max_plies
        super().__init__(_GAME_TYPE, _game_info(max_plies), params)

    def new_initial_state(self):
        return TigersAndSheepState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _BoardObserver(params)


class TigersAndSheepState(pyspiel.State):
    """A position with its game's history."""

    def __init__(self, game: TigersAndSheepGame):
        super().__init__(game)
        self.max_plies = game.max_plies
        self.game = ts.Game()

    def current_player(self):
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return _PLAYERS[self.game.turn]

    def _legal_actions(self, player):
        return sorted(self.game.legal_actions())

    def _apply_action(self, action):
        self.game.play(int(action))

    def _action_to_string(self, player, action):
        side = "sheep" if player == 0 else "tigers"
        try:
            return ts.action_to_move(int(action), side)
        except ValueError:
            return f"action {action}"

    def is_terminal(self):
        return self.game.is_over() or self.game.ply >= self.max_plies

    def returns(self):
        if not self.game.is_over():
            return [0.0, 0.0]
        tigers = self.game.result()
        return [-tigers, tigers]

    def exact(self, tables: Optional[ts.Tables] = None):
        """The exact value for the player to move, ("win"/"draw"/"loss", plies or None), from
        ``tables`` or the tables at their usual places."""
        return (tables or ts.Tables(movement=True)).probe(self.game)

    def __str__(self):
        return self.game.to_notation()


class _BoardObserver:
    """The board planes, the same for both players (the game hides nothing)."""

    def __init__(self, params):
        if params:
            raise ValueError(f"the observer takes no parameters, not {params}")
        shape = (ts.PLANES, 5, 5)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": np.reshape(self.tensor, shape)}

    def set_from(self, state, player):
        del player
        self.tensor[:] = state.game.planes().reshape(-1)

    def string_from(self, state, player):
        del player
        return state.game.to_notation()


pyspiel.register_game(_GAME_TYPE, TigersAndSheepGame)
