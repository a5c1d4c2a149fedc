"""The environments pass the ecosystem's own checks: PettingZoo's api_test and seed_test,
Gymnasium's check_env and OpenSpiel's random_sim_test."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import tigers_and_sheep as ts
import tigers_and_sheep.pettingzoo as ts_pettingzoo


def test_pettingzoo_api_test():
    api_test(ts_pettingzoo.env(), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(ts_pettingzoo.env, num_cycles=500)


def test_pettingzoo_plays_to_an_end_with_rewards_that_sum_to_zero():
    env = ts_pettingzoo.env(max_plies=400)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
    assert sum(totals.values()) == 0


def test_pettingzoo_reports_the_exact_value(movement_tables):
    start = "TSSST/SSSSS/SS.SS/SSSS./TSSST t 0"
    env = ts_pettingzoo.env(tables=movement_tables, start=start)
    env.reset()
    _, _, _, _, info = env.last()
    wdl, distance = movement_tables.probe(start)
    assert info["exact"] == {"wdl": wdl, "distance": distance}
    flipped = {"win": "loss", "loss": "win", "draw": "draw"}[wdl]
    assert env.unwrapped.infos["sheep"]["exact"]["wdl"] == flipped


def test_gymnasium_check_env_for_both_sides():
    for side in ts.SIDES:
        for opponent in ("random", "claude"):
            check_env(
                gymnasium.make(
                    "tigers_and_sheep/TigersAndSheep-v0", side=side, opponent=opponent
                ).unwrapped
            )


def test_gymnasium_games_end_and_illegal_actions_lose():
    env = gymnasium.make("tigers_and_sheep/TigersAndSheep-v0", side="tigers", opponent="claude")
    observation, info = env.reset(seed=1)
    assert info["ply"] == 1  # the opponent's sheep placed first
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert reward == -1.0 and terminated and "illegal" in info
    observation, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(400):
        legal = np.flatnonzero(observation["action_mask"])
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            break
    assert terminated or truncated
    assert reward in (-1.0, 0.0, 1.0)


def test_openspiel_random_sim_test():
    pyspiel = pytest.importorskip("pyspiel")
    import tigers_and_sheep.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_tigers_and_sheep")
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    short = pyspiel.load_game("python_tigers_and_sheep", {"max_plies": 40})
    state = short.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.returns()[0] == -state.returns()[1]
    assert len(state.history()) <= 40
