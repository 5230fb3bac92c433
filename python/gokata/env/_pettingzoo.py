"""``go_aec``: one Go board as a PettingZoo AEC environment, with ``go_v5``'s agents and
observation dictionary, stepped by ``VecGo``."""

from __future__ import annotations

from typing import Any, SupportsIndex

import numpy as np
import numpy.typing as npt
from gymnasium import logger, spaces
from pettingzoo import AECEnv

from gokata.env._vec import VecGo

AGENTS = ("black_0", "white_0")
Observation = dict[str, npt.NDArray[Any]]


class GoAEC(AECEnv[str, Observation, int]):  # type: ignore[misc]
    """A game of Go between ``black_0`` and ``white_0`` (black first). ``observe(agent)``
    gives ``{"observation": planes, "action_mask": int8 mask}`` as ``go_v5`` does, but the
    planes are pgx's, from ``agent``'s own view in every history position, with a colour
    plane of 1 for white; the mask is all zeros for the agent not to move. ``max_cycles``
    caps the moves of each agent (then both are truncated). Under ``rules="gokata"`` an
    illegal action raises ``ValueError``; under ``rules="pgx"`` it loses the game."""

    metadata = {"name": "gokata_go_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        size: SupportsIndex = 19,
        komi: float = 7.5,
        *,
        history: SupportsIndex = 8,
        max_cycles: SupportsIndex | None = None,
        rules: str = "gokata",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        max_steps = None if max_cycles is None else 2 * int(max_cycles)
        self._env = VecGo(1, size, komi=komi, history=history, max_steps=max_steps, rules=rules, threads=1)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        planes = 2 * self._env.history + 1
        size = self._env.size
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=0, high=1, shape=(size, size, planes), dtype=bool),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self._env.num_actions,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(self._env.num_actions) for agent in AGENTS}
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        observation, info = self._env.reset(seed)
        self._observation = observation[0]
        self.agents = list(AGENTS)
        self.agent_selection = AGENTS[0]
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: its action must be an int, not None")
        self._cumulative_rewards[agent] = 0.0
        observation, rewards, terminated, truncated, info = self._env.step([action])
        self._observation = observation[0]
        self.rewards = {"black_0": float(rewards[0, 0]), "white_0": float(rewards[0, 1])}
        if terminated[0] or truncated[0]:
            self.terminations = dict.fromkeys(AGENTS, bool(terminated[0]))
            self.truncations = dict.fromkeys(AGENTS, bool(truncated[0]))
        self.agent_selection = AGENTS[int(info["to_play"][0])]
        self._accumulate_rewards()

    def observe(self, agent: str) -> Observation:
        to_play = int(self._env.to_play[0])
        observation = self._observation
        mask = np.zeros(self._env.num_actions, dtype=np.int8)
        if AGENTS.index(agent) == to_play:
            mask[:] = self._env.legal_action_mask[0]
        else:
            # The other colour's view: own and opponent planes swapped, colour plane flipped.
            stones = observation.shape[-1] - 1
            observation = observation.copy()
            observation[..., 0:stones:2] = self._observation[..., 1:stones:2]
            observation[..., 1:stones:2] = self._observation[..., 0:stones:2]
            observation[..., stones] = ~self._observation[..., stones]
        return {"observation": observation, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode (go_aec offers 'ansi')")
            return None
        return str(self._env.game(0))

    def close(self) -> None:
        pass


def go_aec(
    size: SupportsIndex = 19,
    komi: float = 7.5,
    *,
    history: SupportsIndex = 8,
    max_cycles: SupportsIndex | None = None,
    rules: str = "gokata",
    render_mode: str | None = None,
) -> GoAEC:
    """A PettingZoo AEC Go environment (see ``GoAEC``), ready for ``agent_iter``."""
    return GoAEC(size, komi, history=history, max_cycles=max_cycles, rules=rules, render_mode=render_mode)
