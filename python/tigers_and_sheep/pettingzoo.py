"""Tigers and Sheep as a PettingZoo AEC environment: ``tigers_and_sheep.pettingzoo.env()``.

Agents ``"sheep"`` and ``"tigers"`` take turns, the sheep first. Each observes a dict of
``observation`` (the board planes, float32 of shape (PLANES, 5, 5)) and ``action_mask`` (int8
over the ACTIONS actions, all zeros when it is not that agent's turn). A win is +1 and a loss
-1 for the two sides; a draw (a position come up a third time) 0 each. A game still going
after ``max_plies`` plies is truncated. With ``tables``, each agent's info holds ``exact``, the
position's exact value from its own side after every step (None where no table holds it).
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import tigers_and_sheep as ts
from tigers_and_sheep._common import exact_for, load_tables, render

__all__ = ["env", "raw_env"]


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's usual wrappers: an illegal move ends the game with -1
    for the side that made it, actions out of range are refused, and the calls must come in
    the API's order."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):
    """The environment without wrappers."""

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "tigers_and_sheep_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        render_mode: Optional[str] = None,
        max_plies: int = 300,
        tables=None,
        start: Optional[str] = None,
    ):
        EzPickle.__init__(self, render_mode, max_plies, None, start)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.tables = load_tables(tables)
        self.start = start
        self.possible_agents = list(ts.SIDES)
        self.agents = self.possible_agents[:]
        observation = spaces.Box(0.0, 1.0, (ts.PLANES, 5, 5), np.float32)
        mask = spaces.Box(0, 1, (ts.ACTIONS,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": mask})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(ts.ACTIONS) for a in self.possible_agents}
        self.game = ts.Game(start)
        self._reset_state()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _reset_state(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.game.turn
        self._update_infos()

    def _update_infos(self) -> None:
        for agent in self.agents:
            info = {"position": self.game.to_notation(), "ply": self.game.ply}
            if self.tables is not None:
                info["exact"] = exact_for(self.tables, self.game, agent)
            self.infos[agent] = info

    def observe(self, agent):
        mask = np.zeros(ts.ACTIONS, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over():
            mask[self.game.legal_actions()] = 1
        return {"observation": self.game.planes(), "action_mask": mask}

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            for agent in self.possible_agents:
                self.action_spaces[agent].seed(seed)
        self.game = ts.Game(self.start)
        self._reset_state()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.game.play(int(action))
        self.rewards = dict.fromkeys(self.agents, 0)
        if self.game.is_over():
            winner = self.game.winner
            if winner is not None:
                for side in self.agents:
                    self.rewards[side] = 1 if side == winner else -1
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.game.ply >= self.max_plies:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.game.turn
        self._update_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        return render(self.render_mode, self.game)

    def close(self) -> None:
        pass

