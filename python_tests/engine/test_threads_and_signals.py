"""Threads and signals: one `Go` shared by many threads, numpy imported once from many threads
and never swallowing Ctrl-C, and `playouts` stopped promptly by Ctrl-C however many it was
asked for. Each case that depends on a first import or a signal runs in a fresh Python."""

from __future__ import annotations

import copy
import pickle
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

import gokata
from gokata import Go, IllegalMoveError, playouts
from support.processes import TICKS_PER_SECOND, cpu_ticks
from support.waiting import wait_until


def run_racing(threads: list[threading.Thread]) -> None:
    """Starts ``threads`` and waits for them, switching between threads every 10 µs meanwhile
    (Python's default is 5 ms), so that their calls interleave as much as they can."""
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)


def run_python(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


# numpy, imported once through the import machinery

SLOW_NUMPY_IMPORT = """
    import importlib.abc, importlib.util, sys, time

    class SlowNumpy(importlib.abc.MetaPathFinder):
        # numpy's own import, with a pause once numpy is in sys.modules but not yet made.
        def find_spec(self, name, path, target=None):
            if name != "numpy":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec("numpy")
            run = spec.loader.exec_module
            def exec_module(module):
                time.sleep(0.5)  # the window in which the other threads import numpy too
                run(module)
            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, SlowNumpy())
"""


def test_the_first_legal_mask_from_many_threads_at_once() -> None:
    # Threads that came while numpy was half imported got it from sys.modules, half made
    # ("partially initialized module 'numpy' has no attribute 'frombuffer'").
    done = run_python(
        SLOW_NUMPY_IMPORT
        + """
    import threading
    from gokata import Go
    games = [Go(5) for _ in range(8)]
    start = threading.Barrier(len(games))
    results = []
    def work(game):
        start.wait()
        try:
            results.append(type(game.legal_mask()).__name__)
        except BaseException as error:
            results.append(repr(error))
    threads = [threading.Thread(target=work, args=(game,)) for game in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(sorted(results))
    """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(["ndarray"] * 8)


def test_ctrl_c_during_the_first_numpy_import_is_raised_and_not_remembered() -> None:
    # It used to be swallowed, and every later call returned bytes although numpy was there.
    done = run_python(
        """
    import importlib.abc, sys
    class Interrupted(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "numpy":
                sys.meta_path.remove(self)
                raise KeyboardInterrupt
            return None
    sys.meta_path.insert(0, Interrupted())
    from gokata import Go
    try:
        Go(3).legal_mask()
        print("not interrupted")
    except KeyboardInterrupt:
        print("interrupted")
    print(type(Go(3).legal_mask()).__name__)
    """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["interrupted", "ndarray"]


@pytest.mark.parametrize(
    "block",
    [
        'sys.modules["numpy"] = None',
        """
        import importlib.abc
        class NoNumpy(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name == "numpy":
                    raise ModuleNotFoundError("No module named 'numpy'", name="numpy")
                return None
        sys.meta_path.insert(0, NoNumpy())
        """,
    ],
)
def test_without_numpy_the_mask_is_bytes(block: str) -> None:
    game = Go.from_board([".xo.", "x.xo", ".xo."], turn="white")
    expected = (game.legal_mask(), game.legal_mask("black"))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import pickle, sys\n"
            + textwrap.dedent(block)
            + "\ngame = pickle.load(sys.stdin.buffer)\n"
            "pickle.dump((game.legal_mask(), game.legal_mask('black'), game.legal_mask()),"
            " sys.stdout.buffer)\n",
        ],
        input=pickle.dumps(game),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    default, black, again = pickle.loads(done.stdout)
    for mask, array in ((default, expected[0]), (black, expected[1]), (again, expected[0])):
        assert isinstance(mask, bytes) and isinstance(array, np.ndarray)
        assert list(mask) == [int(flag) for flag in array.flatten()]


# One Go shared by many threads


def test_one_game_shared_by_many_threads() -> None:
    # Reads while another thread moved raised "RuntimeError: Already mutably borrowed": a
    # play_many over a generator held the game while the generator let other threads run.
    game = Go(7)
    errors: list[BaseException] = []
    stop = time.monotonic() + 3.0

    def slow_moves(rng: random.Random) -> Iterator[tuple[int, int]]:
        for _ in range(rng.randint(1, 4)):
            time.sleep(0)  # lets the other threads run in the middle of play_many
            yield (rng.randrange(7), rng.randrange(7))

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        try:
            while time.monotonic() < stop:
                action = rng.randrange(9)
                try:
                    if action == 0:
                        game.play_many(slow_moves(rng))
                    elif action == 1:
                        game.move((rng.randrange(7), rng.randrange(7)))
                    elif action == 2:
                        game.rollback(rng.randint(0, 2))
                    elif action == 3:
                        game.play_many([(rng.randrange(7), rng.randrange(7)), None])
                    elif action == 4:
                        assert pickle.loads(pickle.dumps(game)).size == {"height": 7, "width": 7}
                    elif action == 5:
                        copy.deepcopy(game).legal_mask()
                    elif action == 6:
                        game.legal_moves()
                        game.score()
                        str(game)
                    elif action == 7:
                        playouts(game, 2, seed=seed)
                    else:
                        board, turn = game.board, game.turn
                        assert len(board) == 7 and turn in ("black", "white")
                except IllegalMoveError:
                    pass
                except ValueError as error:
                    assert "rollback" in str(error), error
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    run_racing([threading.Thread(target=worker, args=(seed,)) for seed in range(8)])
    assert errors == []
    # Whatever happened, the game is a consistent one: it sets up again, and every turn on
    # record rolls back to the empty board.
    Go.from_board(game.board)
    restored = pickle.loads(pickle.dumps(game))
    assert restored.board == game.board and restored.move_number == game.move_number
    game.rollback(game.move_number)
    assert game.board == Go(7).board


def test_a_list_for_play_many_is_played_in_one_hold() -> None:
    # Between the moves of one call, no other thread sees the game: a reader counting stones
    # only ever sees a whole number of play_many calls of two moves each.
    game = Go(9)
    seen: list[int] = []
    done = threading.Event()

    def reader() -> None:
        while not done.is_set():
            seen.append(game.move_number)

    thread = threading.Thread(target=reader)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        thread.start()
        points = [(row, col) for row in range(9) for col in range(9)]
        for i in range(0, 80, 2):
            assert game.play_many([points[i], points[i + 1]]) == 2
    finally:
        done.set()
        thread.join()
        sys.setswitchinterval(switch)
    assert all(number % 2 == 0 for number in seen)


class SlowIndex:
    """An index whose reading lets other threads run, now and then."""

    def __init__(self, value: int, rng: random.Random) -> None:
        self.value, self.pause = value, rng.random() < 0.3

    def __index__(self) -> int:
        if self.pause:
            time.sleep(0)
        return self.value


def test_states_of_other_sizes_set_while_other_threads_play() -> None:
    # The size was fixed, so coordinates were read against it without the lock. Now that
    # __setstate__ changes it, a coordinate read against one size must never be played on a
    # board of another (past its end) nor named with the other's names.
    game = Go(9)
    sizes = [(3, 3), (9, 9), (19, 19), (25, 25), (2, 25), (25, 1)]
    states = [Go(*size).__getstate__() for size in sizes]
    errors: list[BaseException] = []
    stop = time.monotonic() + 3.0

    def resizer(seed: int) -> None:
        rng = random.Random(seed)
        try:
            while time.monotonic() < stop:
                game.__setstate__(rng.choice(states))
                time.sleep(0.0005)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    def checked_calls(rng: random.Random) -> None:
        point = (SlowIndex(rng.randrange(25), rng), SlowIndex(rng.randrange(25), rng))
        action = rng.randrange(8)
        if action == 0:
            game.move(point)
        elif action == 1:
            game.play(rng.choice(["black", "white"]), point)
        elif action == 2:
            game.play_many([point, None, (SlowIndex(0, rng), SlowIndex(0, rng))])
        elif action == 3:
            turns: list[tuple[SlowIndex, SlowIndex] | str] = [point, "pass"]
            game.play_many(iter(turns))
        elif action == 4:
            game.captures(point)
            assert game.get_position(point) in ".xo" and game.illegal_reason(point) in (None, "occupied", "suicide", "ko", "off-board")
        elif action == 5:
            board, moves, mask = game.board, game.legal_moves(), game.legal_mask()
            assert isinstance(mask, np.ndarray) and mask.shape in sizes
            assert (len(board), len(board[0])) in sizes and len(moves) <= 625
        elif action == 6:
            picture = gokata.svg(game, marks=[point], fill={point: "red"})
            assert picture.count('class="mark"') == 1
        else:
            restored = pickle.loads(pickle.dumps(game))
            board = restored.board
            assert (len(board), len(board[0])) == (restored.size["height"], restored.size["width"]) in sizes

    calls = {"done": 0, "gave up": 0}

    def player(seed: int) -> None:
        rng = random.Random(seed)
        try:
            while time.monotonic() < stop:
                try:
                    checked_calls(rng)
                    calls["done"] += 1
                except IllegalMoveError:
                    calls["done"] += 1
                except ValueError as error:
                    assert "off the board" in str(error), error
                    calls["done"] += 1
                except RuntimeError as error:
                    # The documented way out when the size changed every time the arguments
                    # were read (a loaded machine makes that likely): nothing was played.
                    assert "changed size each time" in str(error), error
                    calls["gave up"] += 1
        except BaseException as error:  # noqa: BLE001 - reported below (a panic included)
            errors.append(error)

    threads = [threading.Thread(target=resizer, args=(0,))]
    threads += [threading.Thread(target=player, args=(seed,)) for seed in range(1, 6)]
    run_racing(threads)
    assert errors == []
    assert calls["done"] > 10 * calls["gave up"], calls
    restored = pickle.loads(pickle.dumps(game))
    assert restored.board == game.board and restored.size == game.size


# Ctrl-C during playouts


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signal")
def test_ctrl_c_stops_playouts_at_once() -> None:
    # It used to wait for all n playouts: n = 2**40 needed SIGKILL.
    script = """
        import time
        import gokata
        game = gokata.Go(19)
        print("ready", flush=True)
        try:
            gokata.playouts(game, 2**40)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
    """
    with subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        try:
            assert process.stdout.readline() == "ready\n"
            start = cpu_ticks(process.pid)
            wait_until(
                lambda: cpu_ticks(process.pid) - start >= TICKS_PER_SECOND // 5,
                10,
                "0.2 s of processor time in the child's playouts",
            )
            process.send_signal(signal.SIGINT)
            sent = time.monotonic()
            out, err = process.communicate(timeout=10)
        finally:
            process.kill()
    assert time.monotonic() - sent < 2.0
    assert (process.returncode, out, err) == (0, "KeyboardInterrupt\n", "")


def test_playouts_in_another_thread_are_not_slowed_by_signal_checks() -> None:
    # Only the main thread runs signal handlers, so only there do playouts stop to look.
    results: list[dict[str, object]] = []
    thread = threading.Thread(target=lambda: results.append(dict(playouts(Go(9), 300, seed=4))))
    thread.start()
    thread.join()
    assert results == [dict(playouts(Go(9), 300, seed=4))]

