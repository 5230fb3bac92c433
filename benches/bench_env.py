"""Speed of `gokata.env.VecGo` beside the other Go environments for reinforcement learning.

Run from the project root: ``python benches/bench_env.py`` (``--quick`` for a smoke run).
Needs ``pip install '.[test,bench]'`` (pgx and jax, PettingZoo, OpenSpiel) and EnvPool
(``pip install envpool``; without it its rows say so).

Every contestant does the same work at each step of each board: take an action, produce the
observation and the legal-action mask, and choose the next action uniformly among the legal
ones. The two are timed apart: "env" is the step (observation and mask included), "choose"
is drawing the actions (in Rust for VecGo, in the jitted loop for pgx, with numpy for
EnvPool, PettingZoo and OpenSpiel). Contestants run one after the other in each round, round
after round (interleaved), and each figure is the median over rounds. Speed is measured,
never asserted. "env per CPU-s" divides by the processor time of the whole process (all its
threads) instead of the wall clock: on a machine shared with other work it shows how much
work each contestant does per second of processor it got.

* gokata ``VecGo(rules="pgx")``: all cores and one thread.
* pgx 2.6.0 on CPU jax: ``jax.vmap`` of ``init``/``step`` inside one jitted ``fori_loop`` of
  steps (compilation excluded); choosing is timed as a jitted loop of the choice alone, the
  env as the rest.
* EnvPool's port of pgx's Go (``Go9x9-v1``, ``Go19x19-v1``), all cores.
* PettingZoo ``go_v5`` and OpenSpiel ``go``: one board at a time (their step is per board).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from gokata.env import VecGo

TARGETS = {9: 1_000_000, 19: 250_000}


@dataclass
class Timing:
    """Seconds spent stepping and choosing over `steps` board-steps."""

    steps: int
    env_seconds: float
    choose_seconds: float
    # Processor time of the whole process (all its threads) while stepping.
    env_cpu_seconds: float


@dataclass
class Contestant:
    name: str
    run: Callable[[], Timing]
    timings: list[Timing] = field(default_factory=list)
    missing: Optional[str] = None

    def median(self, what: str) -> float:
        """Median board-steps per second of `what`: "env", "choose" or "total"."""

        def rate(t: Timing) -> float:
            seconds = {"env": t.env_seconds, "choose": t.choose_seconds, "cpu": t.env_cpu_seconds}.get(
                what, t.env_seconds + t.choose_seconds
            )
            return t.steps / seconds if seconds > 0 else float("inf")

        return statistics.median(rate(t) for t in self.timings)


def vecgo_runner(size: int, batch: int, threads: int, steps: int) -> Callable[[], Timing]:
    env = VecGo(batch, size, rules="pgx", threads=threads, seed=1)
    env.reset(seed=1)

    def run() -> Timing:
        env_seconds = choose_seconds = cpu_seconds = 0.0
        for _ in range(steps):
            start = time.perf_counter()
            actions = env.random_legal_actions()
            chosen, cpu = time.perf_counter(), time.process_time()
            env.step(actions)
            choose_seconds += chosen - start
            env_seconds += time.perf_counter() - chosen
            cpu_seconds += time.process_time() - cpu
        return Timing(steps * batch, env_seconds, choose_seconds, cpu_seconds)

    return run


def pgx_runner(size: int, batch: int, steps: int) -> Callable[[], Timing]:
    import jax
    import jax.numpy as jnp
    from pgx.go import Go

    env = Go(size=size)
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    ready: Callable[[Any], Any] = jax.block_until_ready

    def choose(key: Any, mask: Any) -> Any:
        logits = jnp.where(mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    def play(state: Any, key: Any) -> tuple[Any, Any]:
        def body(_: int, carry: tuple[Any, Any]) -> tuple[Any, Any]:
            state, key = carry
            key, subkey = jax.random.split(key)
            actions = choose(subkey, state.legal_action_mask)
            state = step(state, actions)
            # Finished games start again, as the other environments' do.
            fresh = init(jax.random.split(subkey, batch))
            done = state.terminated | state.truncated
            state = jax.tree_util.tree_map(
                lambda old, new: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old), state, fresh
            )
            return state, key

        played: tuple[Any, Any] = jax.lax.fori_loop(0, steps, body, (state, key))
        return played

    def choose_only(state: Any, key: Any) -> Any:
        def body(_: int, carry: tuple[Any, Any]) -> tuple[Any, Any]:
            total, key = carry
            key, subkey = jax.random.split(key)
            return total + choose(subkey, state.legal_action_mask).sum(), key

        return jax.lax.fori_loop(0, steps, body, (jnp.int32(0), key))

    play_jit, choose_jit = jax.jit(play), jax.jit(choose_only)
    key = jax.random.PRNGKey(0)
    state = jax.jit(init)(jax.random.split(key, batch))
    # Compile (and run once) before any timing.
    carry = ready(play_jit(state, key))
    ready(choose_jit(carry[0], key))
    holder = {"carry": carry}

    def run() -> Timing:
        start, cpu = time.perf_counter(), time.process_time()
        holder["carry"] = ready(play_jit(*holder["carry"]))
        played, played_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        ready(choose_jit(*holder["carry"]))
        chosen, chosen_cpu = time.perf_counter() - start, time.process_time() - cpu
        return Timing(steps * batch, max(played - chosen, 1e-9), chosen, max(played_cpu - chosen_cpu, 1e-9))

    return run


def envpool_runner(size: int, batch: int, steps: int) -> Callable[[], Timing]:
    import envpool

    env = envpool.make(f"Go{size}x{size}-v1", env_type="gymnasium", num_envs=batch)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    holder = {"info": info}

    def choose(info: dict[str, Any]) -> Any:
        # One mask row per board (EnvPool gives an observation per player, two per board).
        mask = np.asarray(info["legal_action_mask"])
        return np.argmax(rng.random(mask.shape) * mask, axis=1)

    def run() -> Timing:
        env_seconds = choose_seconds = cpu_seconds = 0.0
        for _ in range(steps):
            start = time.perf_counter()
            actions = choose(holder["info"])
            chosen, cpu = time.perf_counter(), time.process_time()
            _, _, _, _, holder["info"] = env.step(actions)
            choose_seconds += chosen - start
            env_seconds += time.perf_counter() - chosen
            cpu_seconds += time.process_time() - cpu
        return Timing(steps * batch, env_seconds, choose_seconds, cpu_seconds)

    return run


def pettingzoo_runner(size: int, steps: int) -> Callable[[], Timing]:
    from pettingzoo.classic import go_v5

    env = go_v5.env(board_size=size)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run() -> Timing:
        env_seconds = choose_seconds = cpu_seconds = 0.0
        for _ in range(steps):
            start = time.perf_counter()
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                observation, *_ = env.last()
            legal = np.flatnonzero(observation["action_mask"])
            action = int(rng.choice(legal))
            chosen, cpu = time.perf_counter(), time.process_time()
            env.step(action)
            # The next player's observation and mask are part of the step.
            env.observe(env.agent_selection)
            choose_seconds += chosen - start
            env_seconds += time.perf_counter() - chosen
            cpu_seconds += time.process_time() - cpu
        return Timing(steps, env_seconds, choose_seconds, cpu_seconds)

    return run


def openspiel_runner(size: int, steps: int) -> Callable[[], Timing]:
    import pyspiel

    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    holder = {"state": game.new_initial_state()}
    rng = np.random.default_rng(0)

    def run() -> Timing:
        env_seconds = choose_seconds = cpu_seconds = 0.0
        for _ in range(steps):
            start = time.perf_counter()
            state = holder["state"]
            if state.is_terminal():
                state = holder["state"] = game.new_initial_state()
            legal = np.flatnonzero(state.legal_actions_mask())
            action = int(rng.choice(legal))
            chosen, cpu = time.perf_counter(), time.process_time()
            state.apply_action(action)
            if not state.is_terminal():
                state.observation_tensor()
                state.legal_actions_mask()
            choose_seconds += chosen - start
            env_seconds += time.perf_counter() - chosen
            cpu_seconds += time.process_time() - cpu
        return Timing(steps, env_seconds, choose_seconds, cpu_seconds)

    return run


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for package in ("gokata", "pgx", "jax", "envpool", "pettingzoo", "open_spiel", "numpy"):
        try:
            parts.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            parts.append(f"{package} (not installed)")
    return ", ".join(parts)


def contestants(size: int, batch: int, quick: bool) -> list[Contestant]:
    cores = os.cpu_count() or 1
    # Steps of each batched contestant per round: about a second of work on this machine.
    vec_steps = (20 if quick else (300 if size == 9 else 100))
    pgx_steps = (2 if quick else (20 if size == 9 else 3))
    pool_steps = (2 if quick else (20 if size == 9 else 10))
    one_board_steps = (200 if quick else 3000)
    entries: list[tuple[str, Callable[[], Callable[[], Timing]]]] = [
        (f"gokata VecGo, {cores} threads", lambda: vecgo_runner(size, batch, cores, vec_steps)),
        ("gokata VecGo, 1 thread", lambda: vecgo_runner(size, batch, 1, vec_steps)),
        ("pgx (CPU jax, jitted loop)", lambda: pgx_runner(size, batch, pgx_steps)),
        (f"EnvPool Go{size}x{size}-v1", lambda: envpool_runner(size, batch, pool_steps)),
        ("PettingZoo go_v5 (one board)", lambda: pettingzoo_runner(size, one_board_steps)),
        ("OpenSpiel go (one board)", lambda: openspiel_runner(size, one_board_steps)),
    ]
    made = []
    for name, make in entries:
        try:
            made.append(Contestant(name, make()))
        except ImportError as error:
            made.append(Contestant(name, lambda: Timing(0, 0.0, 0.0, 0.0), missing=f"not installed here ({error})"))
    return made


def report(size: int, batch: int, entries: list[Contestant], rounds: int) -> None:
    print(f"\n{size}x{size}, batch {batch}: median board-steps per second over {rounds} rounds")
    print(f"  {'contestant':<34} {'env':>12} {'choose':>12} {'env+choose':>12} {'env per CPU-s':>14}")
    for entry in entries:
        if entry.missing:
            print(f"  {entry.name:<34} {entry.missing}")
            continue
        print(
            f"  {entry.name:<34} {entry.median('env'):>12,.0f} {entry.median('choose'):>12,.0f}"
            f" {entry.median('total'):>12,.0f} {entry.median('cpu'):>14,.0f}"
        )
    by_name = {entry.name: entry for entry in entries if not entry.missing}
    ours = entries[0]
    single = entries[1]
    print(f"  speed-up: all cores / one thread (env): {ours.median('env') / single.median('env'):.2f}x")
    for entry in entries[2:]:
        if entry.name in by_name:
            print(
                f"  VecGo / {entry.name}: {ours.median('env') / entry.median('env'):,.1f}x (env),"
                f" {ours.median('total') / entry.median('total'):,.1f}x (env+choose)"
            )
    target = TARGETS.get(size)
    if target is not None:
        reached = ours.median("env")
        verdict = "met" if reached >= target else "MISSED"
        print(f"  target {target:,} env steps/s: {verdict} ({reached:,.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: small batch, two rounds")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    args = parser.parse_args()
    batch = 64 if args.quick else 1024
    rounds = 2 if args.quick else args.rounds
    print(f"bench_env: {datetime.date.today()}, {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"versions: {versions()}")
    print("load average (1, 5, 15 min) at the start: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    for size in args.sizes:
        entries = contestants(size, batch, args.quick)
        for _ in range(rounds):
            for entry in entries:
                if not entry.missing:
                    entry.timings.append(entry.run())
        report(size, batch, entries, rounds)
    print("\nload average (1, 5, 15 min) at the end: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
