"""Tests of `gokata.env.VecGo` under the engine's rules (`rules="gokata"`).

The oracle is the pure-Python `ReferenceGo` of ``support/reference_model.py`` (independent of
the engine), stepped with the same actions: from it the test builds pgx's observation planes,
the legal-action mask, the area score (the model's `area_score`) and the ending of each game,
and checks every row of every step. pgx's own rules are checked against pgx itself in `test_env_pgx.py`.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from gokata import Go
from gokata.env import VecGo
from support.reference_model import ReferenceGo, ReferenceIllegalMove, area_score


def legal_points(game: ReferenceGo, size: int) -> list[int]:
    """The actions (points) the side to move may play, by trying each and taking it back."""
    legal = []
    for action in range(size * size):
        try:
            game.move((action // size, action % size))
        except ReferenceIllegalMove:
            continue
        game.rollback(1)
        legal.append(action)
    return legal


class ReferenceBoard:
    """One board of the batch, as the documentation describes it, on `ReferenceGo`."""

    def __init__(self, size: int, komi: float, history: int, max_steps: int) -> None:
        self.size, self.komi, self.history, self.max_steps = size, komi, history, max_steps
        self.reset()

    def reset(self) -> None:
        self.game = ReferenceGo(self.size)
        self.positions: list[list[list[str]]] = []
        self.passes = 0
        self.finished = False

    def to_play(self) -> int:
        return 0 if self.game.turn == "black" else 1

    def observation(self) -> npt.NDArray[np.bool_]:
        """pgx's planes: own stones then the opponent's, newest position first, then colour."""
        own, opponent = ("x", "o") if self.to_play() == 0 else ("o", "x")
        planes = np.zeros((self.size, self.size, 2 * self.history + 1), dtype=bool)
        for age, board in enumerate(reversed(self.positions[-self.history :])):
            planes[:, :, 2 * age] = np.array(board) == own
            planes[:, :, 2 * age + 1] = np.array(board) == opponent
        planes[:, :, -1] = self.to_play() == 1
        return planes

    def mask(self) -> npt.NDArray[np.bool_]:
        mask = np.zeros(self.size * self.size + 1, dtype=bool)
        if self.finished:
            mask[:] = True
        else:
            mask[legal_points(self.game, self.size)] = True
            mask[-1] = True
        return mask

    def step(self, action: int) -> tuple[list[float], bool, bool]:
        """Rewards by colour, terminated, truncated."""
        if self.finished:
            self.reset()
            return [0.0, 0.0], False, False
        if action == self.size * self.size:
            self.game.pass_turn()
            self.passes += 1
        else:
            self.game.move((action // self.size, action % self.size))
            self.passes = 0
        self.positions.append(self.game.board)
        if self.passes >= 2:
            self.finished = True
            black, white = area_score(self.game.board)
            margin = black - white - self.komi
            return [float(np.sign(margin)), float(-np.sign(margin))], True, False
        if len(self.positions) >= self.max_steps:
            self.finished = True
            return [0.0, 0.0], False, True
        return [0.0, 0.0], False, False


def check_row(
    env: VecGo,
    reference: ReferenceBoard,
    i: int,
    observation: npt.NDArray[np.bool_],
    info: dict[str, Any],
) -> None:
    np.testing.assert_array_equal(observation[i], reference.observation(), err_msg=f"observation of board {i}")
    np.testing.assert_array_equal(info["legal_action_mask"][i], reference.mask(), err_msg=f"mask of board {i}")
    assert info["to_play"][i] == reference.to_play()


@pytest.mark.parametrize(("size", "komi", "history", "max_steps"), [(5, 0.0, 3, 40), (7, 7.5, 8, 70)])
def test_every_step_matches_the_reference_model(size: int, komi: float, history: int, max_steps: int) -> None:
    num_envs = 6
    env = VecGo(num_envs, size, komi=komi, history=history, max_steps=max_steps, seed=5)
    references = [ReferenceBoard(size, komi, history, max_steps) for _ in range(num_envs)]
    observation, info = env.reset(seed=11)
    assert observation.shape == (num_envs, size, size, 2 * history + 1) and observation.dtype == np.bool_
    for i, reference in enumerate(references):
        check_row(env, reference, i, observation, info)
    endings = {"terminated": 0, "truncated": 0, "draw": 0}
    for _ in range(250):
        actions = env.random_legal_actions()
        assert all(info["legal_action_mask"][i, a] for i, a in enumerate(actions))
        observation, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (num_envs, 2)
        for i, reference in enumerate(references):
            expected_rewards, expected_terminated, expected_truncated = reference.step(int(actions[i]))
            assert rewards[i].tolist() == expected_rewards, f"board {i}"
            assert (terminated[i], truncated[i]) == (expected_terminated, expected_truncated), f"board {i}"
            check_row(env, reference, i, observation, info)
            endings["terminated"] += expected_terminated
            endings["truncated"] += expected_truncated
            endings["draw"] += expected_terminated and expected_rewards == [0.0, 0.0]
    # The run covered both endings (and, with integer komi, draws).
    assert endings["terminated"] > 0 and endings["truncated"] > 0
    if komi == 0.0:
        assert endings["draw"] > 0


def test_same_step_autoreset_gives_the_final_observation_apart() -> None:
    size, num_envs = 5, 4
    next_step = VecGo(num_envs, size, komi=0.5, max_steps=30, seed=3)
    same_step = VecGo(num_envs, size, komi=0.5, max_steps=30, seed=3, autoreset="same_step")
    next_step.reset(seed=1)
    same_step.reset(seed=1)
    ended_games = 0
    for _ in range(120):
        # Boards in step: the same action on both (a board of `next_step` that ended at the
        # last step takes its ignored step, and `same_step`'s restarted at that step).
        actions = same_step.random_legal_actions()
        obs_same, rewards_same, term_same, trunc_same, info_same = same_step.step(actions)
        obs_next, rewards_next, term_next, trunc_next, info_next = next_step.step(actions)
        ended = term_next | trunc_next
        np.testing.assert_array_equal(rewards_same, rewards_next)
        np.testing.assert_array_equal(term_same, term_next)
        np.testing.assert_array_equal(trunc_same, trunc_next)
        final = info_same["final_observation"]
        np.testing.assert_array_equal(final[ended], obs_next[ended])
        assert not final[~ended].any()
        assert not obs_same[ended].any() and (info_same["to_play"][ended] == 0).all()
        np.testing.assert_array_equal(obs_same[~ended], obs_next[~ended])
        ended_games += int(ended.sum())
        if ended.any():
            # Bring `next_step`'s ended boards to their new game with their ignored step.
            obs_next, rewards_next, term_next, trunc_next, info_next = next_step.step(next_step.random_legal_actions())
            np.testing.assert_array_equal(obs_next[ended], obs_same[ended])
            assert not rewards_next[ended].any() and not term_next[ended].any()
            # The others took a second step: resynchronise by starting over.
            same_step.reset()
            next_step.reset()
    assert ended_games > 0
    assert "final_observation" not in info_next


def test_nchw_is_the_same_observation_transposed() -> None:
    nhwc = VecGo(3, 6, history=4, max_steps=50, seed=2)
    nchw = VecGo(3, 6, history=4, max_steps=50, seed=2, layout="NCHW")
    assert nchw.observation_shape == (9, 6, 6) and nhwc.observation_shape == (6, 6, 9)
    for _ in range(80):
        actions = nhwc.random_legal_actions()
        a, *_ = nhwc.step(actions)
        b, *_ = nchw.step(actions)
        assert b.shape == (3, 9, 6, 6)
        np.testing.assert_array_equal(a.transpose(0, 3, 1, 2), b)


def test_threads_seeds_and_random_actions() -> None:
    def run(threads: int) -> list[npt.NDArray[Any]]:
        env = VecGo(37, 9, threads=threads, seed=123, max_steps=60)
        out = []
        for _ in range(150):
            actions = env.random_legal_actions()
            observation, rewards, terminated, truncated, info = env.step(actions)
            out += [actions, observation, rewards, terminated, info["legal_action_mask"]]
        return out

    one, three = run(1), run(3)
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a, b)
    env = VecGo(2, 9, seed=7)
    first = env.random_legal_actions(seed=99)
    assert (env.random_legal_actions(seed=99) == first).all()
    # Uniform over the legal actions: on the empty 2x2 board, 5 actions (4 points, pass).
    small = VecGo(1, 2, seed=1)
    counts = np.bincount([int(small.random_legal_actions()[0]) for _ in range(5000)], minlength=5)
    assert counts.min() > 850 and counts.max() < 1150, counts


def test_games_give_each_board_with_its_history() -> None:
    env = VecGo(2, 9, seed=4)
    env.step(np.array([40, 81]))
    env.step(np.array([41, 0]))
    game = env.game(0)
    assert isinstance(game, Go)
    assert game.move_number == 2 and game.board[4][4] == "x" and game.board[4][5] == "o"
    assert env.game(-1).board[0][0] == "o" and env.games()[1].move_number == 2
    assert "B[ee]" in game.to_sgf() and game._repr_svg_().startswith("<svg")
    with pytest.raises(IndexError, match="board index 2"):
        env.game(2)


def snapshot(env: VecGo) -> list[Any]:
    return [g.to_sgf() for g in env.games()] + [env.legal_action_mask.copy(), env.to_play.copy()]


@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        ([0, 1.5], TypeError, "actions must be integers, not float64"),
        ([True, False], TypeError, "actions must be integers, not bool"),
        (["a", "b"], TypeError, "actions must be integers"),
        ([0, 1, 2], ValueError, r"actions must have shape \(2,\), not \(3,\)"),
        ([[0, 1]], ValueError, r"shape \(2,\), not \(1, 2\)"),
        ([0, 82], ValueError, "board 1: action 82 is out of range"),
        ([-1, 0], ValueError, "board 0: action -1 is out of range"),
        (np.array([0, 2**64 - 1], dtype=np.uint64), ValueError, "board 1: action 18446744073709551615"),
        ([0, 41], ValueError, r"board 1: action 41 \(5F\) is illegal: illegal move 5F for white: the point is occupied"),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(actions: Any, error: type[Exception], message: str) -> None:
    env = VecGo(2, 9, seed=1)
    env.step([40, 41])
    before = snapshot(env)
    with pytest.raises(error, match=message):
        env.step(actions)
    after = snapshot(env)
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)


def test_ko_and_suicide_are_refused_with_their_reason() -> None:
    env = VecGo(1, 4, seed=1)
    # Black (0,1), (1,0), (2,1) and white (0,2), (2,2), (1,3) around a ko at (1,1)/(1,2);
    # black passes, white plays (1,1), black takes it at (1,2): white may not retake at once.
    for action in [1, 2, 4, 10, 9, 7, 16, 5, 6]:
        env.step([action])
    assert env.game(0).board[1] == ["x", ".", "x", "o"] and not env.legal_action_mask[0, 5]
    with pytest.raises(ValueError, match=r"board 0: action 5 \(3B\) is illegal: illegal move 3B for white: ko"):
        env.step([5])
    # On 3x3, white may not fill black's corner (0, 0): suicide.
    suicide = VecGo(1, 3, seed=1)
    for action in [1, 8, 3]:
        suicide.step([action])
    with pytest.raises(ValueError, match=r"action 0 \(3A\) is illegal: illegal move 3A for white: suicide"):
        suicide.step([0])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_envs": 0}, ValueError, "num_envs must be a positive int, not 0"),
        ({"num_envs": 2.0}, TypeError, "num_envs must be an int, not float"),
        ({"size": 1}, ValueError, "size must be 2 to 25, not 1"),
        ({"size": 26}, ValueError, "size must be 2 to 25, not 26"),
        ({"size": "9"}, TypeError, "size must be an int, not str"),
        ({"rules": "japanese"}, ValueError, "rules must be one of \"gokata\", \"pgx\", not \"japanese\""),
        ({"rules": None}, TypeError, "rules must be a str, not NoneType"),
        ({"layout": "NWHC"}, ValueError, "layout must be one of \"NHWC\", \"NCHW\", not \"NWHC\""),
        ({"autoreset": "never"}, ValueError, "autoreset must be one of"),
        ({"history": 0}, ValueError, "history must be a positive int, not 0"),
        ({"history": 65}, ValueError, "history must be 1 to 64, not 65"),
        ({"max_steps": 0}, ValueError, "max_steps must be a positive int, not 0"),
        ({"komi": float("nan")}, ValueError, "komi must be a finite number, not nan"),
        ({"komi": "7.5"}, TypeError, "komi must be a number, not str"),
        ({"threads": 0}, ValueError, "threads must be a positive int, not 0"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    settings: dict[str, Any] = {"num_envs": 2, "size": 9}
    settings.update(kwargs)
    with pytest.raises(error, match=message):
        VecGo(**settings)


def test_a_batch_too_big_for_the_memory_is_refused_before_anything_is_allocated() -> None:
    with pytest.raises(MemoryError, match=r"num_envs=16777216 boards of 25x25 would take about [0-9.]+ GB of memory, more than"):
        VecGo(2**24, 25)
    with pytest.raises(ValueError, match="num_envs must be at most 2\\*\\*24, not 16777217"):
        VecGo(2**24 + 1, 9)


def test_defaults_and_attributes() -> None:
    env = VecGo(3)
    assert (env.size, env.komi, env.history, env.max_steps, env.rules) == (19, 7.5, 8, 722, "gokata")
    assert env.autoreset == "next_step" and env.layout == "NHWC" and env.threads >= 1
    assert env.legal_action_mask.shape == (3, 362) and env.legal_action_mask.all()
    assert env.to_play.tolist() == [0, 0, 0]
    observation, info = env.reset()
    assert not observation.any() and info["legal_action_mask"] is env.legal_action_mask
    assert "VecGo(3, size=19" in repr(env)


def test_the_gil_is_released_while_boards_step() -> None:
    """With a long switch interval the main thread gets the GIL back only when the stepping
    thread gives it up: if the step held it, the main thread would see the step finished."""
    env = VecGo(4096, 19, threads=1, seed=1)
    actions = env.random_legal_actions()
    entered, finished = threading.Event(), threading.Event()

    def stepper() -> None:
        entered.set()
        env.step(actions)
        finished.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    try:
        worker = threading.Thread(target=stepper)
        worker.start()
        entered.wait()
        seen_running = not finished.is_set()
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert seen_running


def test_threads_may_share_one_env() -> None:
    env = VecGo(64, 9, seed=1, max_steps=40)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(200):
                env.step(env.random_legal_actions())
        except ValueError:
            # Another thread stepped between drawing and stepping: a refused step, not a crash.
            pass
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and time.perf_counter() - start < 60


def test_importing_gokata_imports_no_numpy_gymnasium_or_pettingzoo() -> None:
    code = (
        "import sys, gokata, gokata.env as e; "
        "assert 'gymnasium' not in sys.modules and 'pettingzoo' not in sys.modules; "
        "print('numpy' in sys.modules)"
    )
    bare = subprocess.run(
        [sys.executable, "-c", "import sys, gokata; print('numpy' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert bare.stdout.strip() == "False"
    with_env = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert with_env.stdout.strip() == "True"
