"""``GoVectorEnv``: ``VecGo`` as a Gymnasium 1.x ``VectorEnv``."""

from __future__ import annotations

from typing import Any, SupportsIndex

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gokata.env._vec import VecGo

Observation = dict[str, npt.NDArray[np.bool_]]


class GoVectorEnv(VectorEnv[Observation, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` Go boards as a Gymnasium ``VectorEnv``, stepped by ``VecGo`` (same
    arguments). An observation is a dict of ``observation`` (pgx's planes) and
    ``action_mask``. Go has two players: ``rewards`` is the reward of the player who took each
    action (+1 for a win, -1 for a loss, at the step that ends the game), and
    ``info["rewards"]`` holds both, by colour (0 black, 1 white), with ``info["to_play"]``.
    With ``autoreset="same_step"`` a finished board's last observation is in
    ``info["final_obs"]`` (Gymnasium's convention: ``info["_final_obs"]`` marks the boards)."""

    def __init__(
        self,
        num_envs: SupportsIndex,
        size: SupportsIndex = 19,
        *,
        komi: float = 7.5,
        history: SupportsIndex = 8,
        max_steps: SupportsIndex | None = None,
        rules: str = "gokata",
        autoreset: str = "next_step",
        layout: str = "NHWC",
        threads: SupportsIndex | None = None,
        seed: SupportsIndex | None = None,
    ) -> None:
        self.env = VecGo(
            num_envs,
            size,
            komi=komi,
            history=history,
            max_steps=max_steps,
            rules=rules,
            autoreset=autoreset,
            layout=layout,
            threads=threads,
            seed=seed,
        )
        self.num_envs = self.env.num_envs
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.MultiBinary(self.env.observation_shape),
                "action_mask": spaces.MultiBinary(self.env.num_actions),
            }
        )
        self.single_action_space = spaces.Discrete(self.env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        mode = AutoresetMode.SAME_STEP if autoreset == "same_step" else AutoresetMode.NEXT_STEP
        self.metadata = {"autoreset_mode": mode}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        if isinstance(seed, list):
            raise TypeError("GoVectorEnv takes one int seed for all its boards, not a list")
        observation, info = self.env.reset(seed)
        self.action_space.seed(seed)
        return self._observation(observation), info

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Observation, npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        movers = self.env.to_play.astype(np.intp)
        observation, rewards, terminated, truncated, info = self.env.step(actions)
        info["rewards"] = rewards
        final = info.pop("final_observation", None)
        if final is not None:
            ended = terminated | truncated
            final_obs = np.full(self.num_envs, None, dtype=object)
            for board in np.flatnonzero(ended):
                final_obs[board] = {
                    "observation": final[board],
                    # As pgx: once a game is over, every action is accepted (and ignored).
                    "action_mask": np.ones(self.env.num_actions, dtype=bool),
                }
            info["final_obs"], info["_final_obs"] = final_obs, ended
            info["final_info"], info["_final_info"] = {}, ended
        mover_rewards = rewards[np.arange(self.num_envs), movers]
        return self._observation(observation), mover_rewards, terminated, truncated, info

    def _observation(self, observation: npt.NDArray[np.bool_]) -> Observation:
        return {"observation": observation, "action_mask": self.env.legal_action_mask}
