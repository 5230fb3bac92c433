"""Reinforcement learning on Go: many boards stepped together in Rust.

>>> from gokata.env import VecGo
>>> env = VecGo(4, size=9)
>>> observation, info = env.reset(seed=0)
>>> observation.shape, info["legal_action_mask"].shape
((4, 9, 9, 17), (4, 82))
>>> observation, rewards, terminated, truncated, info = env.step(env.random_legal_actions())

``VecGo`` needs numpy (``pip install 'gokata[env]'``).
"""

from __future__ import annotations

from gokata.env._vec import VecGo

__all__ = ["VecGo"]
