"""`VecGo(rules="pgx")` against pgx itself (pgx 2.6.0's Go, installed from PyPI, on CPU jax).

Both step the same boards in lockstep with the same actions, as EnvPool checks its port of
pgx's Go: a batch of pgx states is stepped with one jitted `vmap` of `pgx.go.Go.step`, and at
every step of every board the observation, the legal-action mask, the rewards, `terminated`
and the player to move must agree. pgx gives each game a random player order (player ids
0 and 1 mapped to black and white); the test maps its rewards and `current_player` to
colours with each state's `_player_order`. Some runs mix in random actions that may be
illegal, which pgx ends as a loss for the player who took them.

When pgx's game has ended, the next step of `VecGo` (`autoreset="next_step"`) starts a new
game and ignores its action; pgx only returns the ended state again, so the test replaces
those boards' states with new `init` states, which must then agree with `VecGo`'s new games.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

# The reference is required: a missing pgx or jax is an error, never a skip.
import jax
import jax.numpy as jnp
import pgx
from pgx.go import Go as PgxGo

from gokata.env import VecGo

Batch = Callable[..., Any]


def test_the_reference_is_pgx_2_6_0() -> None:
    assert pgx.__version__ == "2.6.0"


def pgx_batch(size: int, komi: float, history: int, max_steps: int | None) -> tuple[Batch, Batch, Batch]:
    """pgx's Go: jitted batched `init`, `step`, and `restart(state, where, keys)`, which
    replaces the states of the boards where `where` is true with new games."""
    env = PgxGo(size=size, komi=komi, history_length=history, max_terminal_steps=max_steps)
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))

    def restart(state: Any, where: Any, keys: Any) -> Any:
        fresh = jax.vmap(env.init)(keys)

        def pick(old: Any, new: Any) -> Any:
            return jnp.where(where.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)

        return jax.tree_util.tree_map(pick, state, fresh)

    return init, step, jax.jit(restart)


def compare(
    where: str,
    state: Any,
    observation: npt.NDArray[np.bool_],
    rewards: npt.NDArray[np.float32],
    terminated: npt.NDArray[np.bool_],
    info: dict[str, Any],
) -> None:
    order = np.asarray(state._player_order)  # order[board, colour] is that colour's player id
    boards = np.arange(len(order))
    expected = {
        "observation": np.asarray(state.observation),
        "legal_action_mask": np.asarray(state.legal_action_mask),
        "rewards by colour": np.asarray(state.rewards)[boards[:, None], order],
        "terminated": np.asarray(state.terminated),
        "player to move": np.asarray(state.current_player),
    }
    actual = {
        "observation": observation,
        "legal_action_mask": info["legal_action_mask"],
        "rewards by colour": rewards,
        "terminated": terminated,
        "player to move": order[boards, info["to_play"]],
    }
    for name, want in expected.items():
        got = actual[name]
        assert got.shape == want.shape, f"{where}: {name} has shape {got.shape}, pgx {want.shape}"
        differ = (got != want).reshape(len(boards), -1).any(axis=1)
        if differ.any():
            board = int(np.flatnonzero(differ)[0])
            pytest.fail(f"{where}, board {board}: {name} differs from pgx's:\n{got[board]!r}\npgx:\n{want[board]!r}")


@pytest.mark.parametrize(
    ("size", "num_envs", "steps", "komi", "history", "max_steps", "any_action"),
    [
        # pgx's defaults: thousands of 9x9 games to their end. (pgx on a CPU is fastest at
        # small batches: 64 boards on 9x9, 8 on 19x19.)
        pytest.param(9, 64, 4000, 7.5, 8, None, 0.0, marks=pytest.mark.slow),
        # Integer komi (ties go to white), short history, a low step limit, and illegal actions.
        pytest.param(9, 64, 600, 0.0, 2, 30, 0.03, marks=pytest.mark.slow),
        # 19x19 to the default step limit (722) and beyond.
        pytest.param(19, 8, 760, 7.5, 8, None, 0.0, marks=pytest.mark.slow),
        # Hundreds of 19x19 games cut short by a low step limit (then scored), with illegal actions.
        pytest.param(19, 8, 4000, 6.0, 4, 60, 0.01, marks=pytest.mark.slow),
    ],
)
def test_vecgo_agrees_with_pgx_at_every_step(
    size: int, num_envs: int, steps: int, komi: float, history: int, max_steps: int | None, any_action: float
) -> None:
    init, step, restart = pgx_batch(size, komi, history, max_steps)
    ours = VecGo(num_envs, size, komi=komi, history=history, max_steps=max_steps, rules="pgx", seed=size)
    key = jax.random.PRNGKey(size)
    key, subkey = jax.random.split(key)
    state = init(jax.random.split(subkey, num_envs))
    observation, info = ours.reset(seed=1)
    zeros = np.zeros((num_envs, 2), dtype=np.float32)
    compare("after reset", state, observation, zeros, np.zeros(num_envs, dtype=bool), info)
    mix = np.random.default_rng(size)
    ended_last_step = np.zeros(num_envs, dtype=bool)
    games = endings = illegal = superko = 0
    start = time.perf_counter()
    for t in range(steps):
        actions = ours.random_legal_actions()
        if any_action:
            wild = mix.random(num_envs) < any_action
            actions[wild] = mix.integers(0, size * size + 1, int(wild.sum()))
            illegal += int((~info["legal_action_mask"][np.arange(num_envs), actions] & ~ended_last_step).sum())
        state = step(state, jnp.asarray(actions, dtype=jnp.int32))
        if ended_last_step.any():
            key, subkey = jax.random.split(key)
            state = restart(state, jnp.asarray(ended_last_step), jax.random.split(subkey, num_envs))
            games += int(ended_last_step.sum())
        observation, rewards, terminated, truncated, info = ours.step(actions)
        compare(f"step {t + 1}", state, observation, rewards, terminated, info)
        assert not truncated.any(), "pgx's rules end a game at the step limit, never truncate it"
        ended_last_step = terminated
        endings += int(terminated.sum())
        superko += int(np.asarray(state._x.is_psk).sum())
    assert games > 0 and endings >= games
    if size == 9 and max_steps is None:
        # Thousands of games, some ended by a repeated position.
        assert endings >= 1500 and superko > 0, (endings, superko)
    if any_action:
        assert illegal > 0
    seconds = time.perf_counter() - start
    print(f"{size}x{size}: {endings} games ended ({superko} by superko), {illegal} illegal actions, {seconds:.1f} s")


def test_illegal_actions_end_the_game_as_in_pgx() -> None:
    """Chosen illegal actions on a 4x4 board, each a loss for its player: a stone on a
    stone, a ko retaken at once, a suicide."""
    init, step, _ = pgx_batch(4, 0.5, 2, None)
    lines = {
        "occupied": [5, 5],
        # Black (0,1), (1,0), (2,1); white (0,2), (2,2), (1,3); black passes, white plays
        # (1,1), black takes it at (1,2), and white retakes at once.
        "ko": [1, 2, 4, 10, 9, 7, 16, 5, 6, 5],
        # Black (0,1) and (1,0) around the corner, which white then fills.
        "suicide": [1, 15, 4, 0],
    }
    for name, actions in lines.items():
        ours = VecGo(1, 4, komi=0.5, history=2, rules="pgx")
        state = init(jax.random.split(jax.random.PRNGKey(3), 1))
        for t, action in enumerate(actions):
            state = step(state, jnp.asarray([action], dtype=jnp.int32))
            observation, rewards, terminated, _, info = ours.step([action])
            compare(f"{name}, step {t + 1}", state, observation, rewards, terminated, info)
        assert terminated[0], name
        mover = 1 - int(info["to_play"][0])
        assert rewards[0, mover] == -1.0 and rewards[0, 1 - mover] == 1.0, name
