"""The standard interfaces over `VecGo`: `GoVectorEnv` (Gymnasium 1.x) and `go_aec`
(PettingZoo AEC), checked with PettingZoo's own test suite and against `VecGo`."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, max_cycles_test, seed_test
from pettingzoo.utils.conversions import aec_to_parallel

from gokata.env import GoAEC, GoVectorEnv, VecGo, go_aec


@pytest.mark.parametrize("size", [5, 9])
def test_go_aec_passes_pettingzoo_api_test(size: int) -> None:
    api_test(go_aec(size), num_cycles=1000)


def test_go_aec_passes_pettingzoo_seed_test() -> None:
    seed_test(lambda: go_aec(9), num_cycles=500)


def test_go_aec_passes_pettingzoo_max_cycles_test() -> None:
    """`max_cycles` caps each agent's moves. The test samples actions without the mask, so the
    action spaces are seeded (each game is then the same one, and has no illegal move)."""

    def seeded(env: GoAEC) -> GoAEC:
        for i, agent in enumerate(env.possible_agents):
            env.action_space(agent).seed(1000 + i)
        return env

    module = SimpleNamespace(
        env=lambda max_cycles: seeded(go_aec(19, max_cycles=max_cycles)),
        parallel_env=lambda max_cycles: aec_to_parallel(seeded(go_aec(19, max_cycles=max_cycles))),
    )
    max_cycles_test(module)


def test_go_aec_observes_each_agent_from_its_own_view() -> None:
    env = go_aec(5, history=2)
    vec = VecGo(1, 5, history=2)
    for action in [12, 13, 7]:
        env.step(action)
        observation, *_ = vec.step([action])
    # White to move: white's view is VecGo's; black's swaps the planes and flips colour.
    assert env.agent_selection == "white_0"
    white, black = env.observe("white_0"), env.observe("black_0")
    np.testing.assert_array_equal(white["observation"], observation[0])
    np.testing.assert_array_equal(white["action_mask"], vec.legal_action_mask[0].astype(np.int8))
    assert white["action_mask"].dtype == np.int8 and not black["action_mask"].any()
    planes = black["observation"]
    assert planes[2, 2, 0] and planes[1, 2, 0] and planes[2, 3, 1] and not planes[..., 4].any()
    assert planes[2, 2, 2] and planes[2, 3, 3] and not planes[1, 2, 2]
    assert white["observation"][..., 4].all()


def test_go_aec_ends_with_the_score() -> None:
    env = go_aec(3, komi=0.5)
    for action in [4, 9, 9]:
        env.step(action)
    # Black's one stone owns the board: black wins; both agents are done.
    assert env.terminations == {"black_0": True, "white_0": True}
    assert env._cumulative_rewards == {"black_0": 1.0, "white_0": -1.0}
    env.step(None)
    env.step(None)
    assert env.agents == []


def test_go_aec_render_shows_the_board() -> None:
    env = go_aec(5, render_mode="ansi")
    env.step(12)
    text = env.render()
    assert text is not None and "x" in text
    with pytest.raises(ValueError, match="render_mode must be None or 'ansi', not 'human'"):
        go_aec(5, render_mode="human")


def test_go_vector_env_is_a_gymnasium_vector_env() -> None:
    env = GoVectorEnv(4, 9, seed=3, max_steps=40)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    assert env.single_action_space == gymnasium.spaces.Discrete(82)
    assert isinstance(env.single_observation_space, gymnasium.spaces.Dict)
    assert set(env.single_observation_space.keys()) == {"observation", "action_mask"}
    observation, info = env.reset(seed=5)
    assert observation in env.observation_space
    twin = VecGo(4, 9, seed=3, max_steps=40)
    twin.reset(seed=5)
    ended = 0
    for _ in range(120):
        actions = twin.random_legal_actions()
        movers = twin.to_play.copy()
        observation, rewards, terminated, truncated, info = env.step(actions)
        expected, expected_rewards, *_ = twin.step(actions)
        assert observation in env.observation_space
        np.testing.assert_array_equal(observation["observation"], expected)
        np.testing.assert_array_equal(observation["action_mask"], twin.legal_action_mask)
        np.testing.assert_array_equal(rewards, expected_rewards[np.arange(4), movers])
        np.testing.assert_array_equal(info["rewards"], expected_rewards)
        ended += int(terminated.sum() + truncated.sum())
    assert ended > 0


def test_go_vector_env_same_step_follows_gymnasiums_convention() -> None:
    env = GoVectorEnv(3, 5, seed=1, max_steps=6, autoreset="same_step")
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    env.reset(seed=1)
    last: Any = None
    for _ in range(6):
        last = env.step(env.env.random_legal_actions())
    observation, rewards, terminated, truncated, info = last
    ended = terminated | truncated
    assert ended.all() and info["_final_obs"].all()
    assert info["final_obs"][0]["observation"].shape == (5, 5, 17)
    assert not observation["observation"].any()
    with pytest.raises(TypeError, match="one int seed"):
        env.reset(seed=[1, 2, 3])
