"""Reinforcement learning on Go: many boards stepped together in Rust.

>>> from gokata.env import VecGo
>>> env = VecGo(4, size=9)
>>> observation, info = env.reset(seed=0)
>>> observation.shape, info["legal_action_mask"].shape
((4, 9, 9, 17), (4, 82))
>>> observation, rewards, terminated, truncated, info = env.step(env.random_legal_actions())

``VecGo`` needs numpy (``pip install '.[env]'`` in the checkout); ``GoVectorEnv`` (Gymnasium) and
``go_aec`` (PettingZoo) import their libraries only when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gokata.env._vec import VecGo

if TYPE_CHECKING:
    from gokata.env._gymnasium import GoVectorEnv
    from gokata.env._pettingzoo import GoAEC, go_aec

__all__ = ["GoAEC", "GoVectorEnv", "VecGo", "go_aec"]


def __getattr__(name: str) -> Any:
    if name == "GoVectorEnv":
        from gokata.env._gymnasium import GoVectorEnv

        return GoVectorEnv
    if name in ("go_aec", "GoAEC"):
        from gokata.env import _pettingzoo

        return getattr(_pettingzoo, name)
    raise AttributeError(f"module 'gokata.env' has no attribute {name!r}")
