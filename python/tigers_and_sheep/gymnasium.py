"""Tigers and Sheep as a single-agent Gymnasium environment against a built-in opponent:
``gymnasium.make("tigers_and_sheep/TigersAndSheep-v0")`` (registered on import of
``tigers_and_sheep``).

The agent plays ``side`` ("sheep" by default) against ``opponent``: "random" (a uniformly
random legal move, drawn from the environment's seeded generator), "claude" (``ClaudePlayer``
at ``opponent_depth`` plies, 1 by default, deterministic), "perfect" (the solved tables, which
must all be there) or a ``tigers_and_sheep.Player``. The observation is a dict of
``observation`` (the board planes, float32 of shape (PLANES, 5, 5)) and ``action_mask`` (int8
over the ACTIONS actions); ``action_masks()`` gives the mask too, as maskable learners ask. A
win is +1, a loss -1, a draw 0; an illegal action loses at once (-1, ``info["illegal"]``). A
game still going after ``max_plies`` plies is truncated. With ``tables``, ``info["exact"]``
holds the position's exact value from the agent's side after every step.
"""

from __future__ import annotations

from typing import Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

import tigers_and_sheep as ts
from tigers_and_sheep._common import exact_for, load_tables, render

__all__ = ["TigersAndSheepEnv"]


class TigersAndSheepEnv(gymnasium.Env):
    """One side of Tigers and Sheep against a built-in opponent."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        side: str = "sheep",
        opponent: Union[str, ts.Player] = "random",
        opponent_depth: int = 1,
        max_plies: int = 300,
        tables=None,
        start: Optional[str] = None,
        render_mode: Optional[str] = None,
    ):
        if side not in ts.SIDES:
            raise ValueError(f'side is "sheep" or "tigers", not {side!r}')
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None")
        self.side = side
        self.max_plies = max_plies
        self.start = start
        self.render_mode = render_mode
        self.tables = load_tables(tables)
        self.opponent = self._opponent(opponent, opponent_depth)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (ts.PLANES, 5, 5), np.float32),
                "action_mask": spaces.Box(0, 1, (ts.ACTIONS,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(ts.ACTIONS)
        self.game = ts.Game(start)

    def _opponent(self, opponent, depth: int) -> Optional[ts.Player]:
        if isinstance(opponent, ts.Player):
            return opponent
        if opponent == "random":
            return None
        if opponent == "claude":
            return ts.Player.claude(depth=depth)
        if opponent == "perfect":
            tables = self.tables or ts.Tables(movement=True, placement=True)
            return ts.Player.perfect(tables, depth=depth)
        raise ValueError(
            f'opponent is "random", "claude", "perfect" or a Player, not {opponent!r}'
        )

    def action_masks(self) -> np.ndarray:
        """The legal actions, as a boolean array over the action space."""
        if self.game.turn != self.side:
            return np.zeros(ts.ACTIONS, dtype=bool)
        return self.game.action_mask()

    def _observation(self) -> dict:
        return {
            "observation": self.game.planes(),
            "action_mask": self.action_masks().astype(np.int8),
        }

    def _info(self, **extra) -> dict:
        info = {"position": self.game.to_notation(), "ply": self.game.ply, **extra}
        if self.tables is not None:
            info["exact"] = exact_for(self.tables, self.game, self.side)
        return info

    def _opponent_moves(self) -> None:
        """The opponent plays while it is its turn and the game goes on."""
        while not self.game.is_over() and self.game.turn != self.side:
            if self.game.ply >= self.max_plies:
                return
            if self.opponent is None:
                legal = self.game.legal_actions()
                self.game.play(legal[int(self.np_random.integers(len(legal)))])
            else:
                self.game.play(self.opponent.choose(self.game))

    def _reward(self) -> float:
        winner = self.game.winner
        if winner is None:
            return 0.0
        return 1.0 if winner == self.side else -1.0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.game = ts.Game(self.start)
        self._opponent_moves()
        return self._observation(), self._info()

    def step(self, action):
        if self.game.is_over() or self.game.turn != self.side:
            raise RuntimeError("the game is over: call reset() before step()")
        try:
            self.game.play(int(action))
        except ts.IllegalMoveError as refused:
            return self._observation(), -1.0, True, False, self._info(illegal=str(refused))
        self._opponent_moves()
        terminated = self.game.is_over()
        truncated = not terminated and self.game.ply >= self.max_plies
        reward = self._reward() if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self):
        return render(self.render_mode, self.game)
