"""``VecGo``: the batched environment, a thin layer over the Rust ``_VecGo``."""

from __future__ import annotations

from typing import Any, SupportsIndex

import numpy as np
import numpy.typing as npt

from gokata._gokata import Go, _VecGo

Info = dict[str, Any]
BoolArray = npt.NDArray[np.bool_]


class VecGo:
    """``num_envs`` Go boards stepped together in Rust, with the GIL released and the boards
    spread over ``threads`` threads (``None``: one per core).

    Actions are numbered as pgx numbers them: ``row * size + col`` for a point, row 0 being
    the top row of ``Go.board``, and ``size * size`` to pass. Observations are pgx's Go
    observation: bool, ``(num_envs, size, size, 2 * history + 1)`` (``layout="NCHW"``:
    ``(num_envs, planes, size, size)``), from the view of the player to move: its stones,
    then the opponent's, for the current position and each of the ``history - 1`` before,
    then a plane of 1 if white is to move. Rewards are float32 ``(num_envs, 2)`` indexed by
    colour (0 black, 1 white): +1 to the winner and -1 to the loser at the step that ends the
    game. ``rules`` is ``"gokata"`` (simple ko, no suicide, area score; an illegal action
    raises ``ValueError``; ``max_steps`` truncates) or ``"pgx"`` (pgx 2.6.0's Go exactly).
    A batch that would need more memory than the machine has free raises ``MemoryError``
    before anything is allocated. See docs/env.md.
    """

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
        self._env = _VecGo(num_envs, size, komi, history, max_steps, rules, autoreset, layout, threads, seed)
        self.num_envs: int = self._env.num_envs
        self.size: int = self._env.size
        self.num_actions: int = self.size * self.size + 1
        _, self.legal_action_mask, self.to_play = self._env.reset(None)

    @property
    def komi(self) -> float:
        return self._env.komi

    @property
    def history(self) -> int:
        return self._env.history

    @property
    def max_steps(self) -> int:
        return self._env.max_steps

    @property
    def rules(self) -> str:
        return self._env.rules

    @property
    def autoreset(self) -> str:
        return self._env.autoreset

    @property
    def layout(self) -> str:
        return self._env.layout

    @property
    def threads(self) -> int:
        return self._env.threads

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """The shape of one board's observation."""
        planes = 2 * self.history + 1
        if self.layout == "NCHW":
            return (planes, self.size, self.size)
        return (self.size, self.size, planes)

    def reset(self, seed: SupportsIndex | None = None) -> tuple[BoolArray, Info]:
        """New games on every board; ``seed`` reseeds ``random_legal_actions``' streams.
        Returns ``(observation, info)``, ``info`` holding ``legal_action_mask`` and ``to_play``."""
        observation, self.legal_action_mask, self.to_play = self._env.reset(seed)
        return observation, self._info()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[BoolArray, npt.NDArray[np.float32], BoolArray, BoolArray, Info]:
        """Board ``i`` takes ``actions[i]``: ``(observation, rewards, terminated, truncated,
        info)``. A board whose game ended at the last step starts a new one and ignores its
        action (``autoreset="next_step"``); with ``"same_step"`` it starts it at once, and
        ``info["final_observation"]`` holds the last observation of each game that ended
        (zeros in other rows). Bad actions raise ``TypeError`` or ``ValueError`` and change
        nothing."""
        observation, rewards, terminated, truncated, mask, to_play, final = self._env.step(self._actions(actions))
        self.legal_action_mask, self.to_play = mask, to_play
        info = self._info()
        if final is not None:
            info["final_observation"] = final
        return observation, rewards, terminated, truncated, info

    def random_legal_actions(self, seed: SupportsIndex | None = None) -> npt.NDArray[np.int64]:
        """One uniformly random legal action per board (pass included), drawn in Rust from each
        board's stream, reseeded from ``seed`` if given."""
        return self._env.random_legal_actions(seed)

    def game(self, index: SupportsIndex) -> Go:
        """A copy of the game on board ``index``, with its history."""
        return self._env.game(index)

    def games(self) -> list[Go]:
        """A copy of every board's game, with its history."""
        return self._env.games()

    def _info(self) -> Info:
        return {"legal_action_mask": self.legal_action_mask, "to_play": self.to_play}

    def _actions(self, actions: npt.ArrayLike) -> npt.NDArray[np.int64]:
        array = np.asarray(actions)
        if array.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, not {array.dtype}")
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {array.shape}")
        if array.dtype.kind == "u" and array.dtype.itemsize == 8:
            too_big = np.flatnonzero(array > self.num_actions)
            if too_big.size:
                board = int(too_big[0])
                raise ValueError(
                    f"board {board}: action {int(array[board])} is out of range: actions are 0 to "
                    f"{self.num_actions - 1}"
                )
        return np.ascontiguousarray(array, dtype=np.int64)

    def __repr__(self) -> str:
        return (
            f"VecGo({self.num_envs}, size={self.size}, komi={self.komi}, history={self.history}, "
            f"max_steps={self.max_steps}, rules={self.rules!r}, autoreset={self.autoreset!r}, "
            f"layout={self.layout!r}, threads={self.threads})"
        )
