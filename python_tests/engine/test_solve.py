"""The puzzle "A Game of Go" through `gokata.solve` and the `gokata solve` command.

Each case in `puzzles/` is `NAME.in` with either `NAME.out`, the expected standard output
(compared after stripping trailing whitespace), or `NAME.err`, a substring the error message
must contain. The expected boards were drawn by hand; the flood-fill reference model
(`play_stone` of ``support/reference_model.py``, checked against the rules in `test_oracle`)
is checked against all of them, and derived the long game's board.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
import pytest

from gokata import IllegalMoveError, solve
from support.reference_model import BLACK, EMPTY, WHITE, Board, play_stone

PUZZLES = Path(__file__).parent / "puzzles"
CASES = sorted(path.stem for path in PUZZLES.glob("*.in"))
VALID = [name for name in CASES if (PUZZLES / f"{name}.out").exists()]
MALFORMED = [name for name in CASES if (PUZZLES / f"{name}.err").exists()]
STONES = {"B": BLACK, "W": WHITE, ".": EMPTY}
CELLS = {stone: cell for cell, stone in STONES.items()}


def read(name: str, suffix: str) -> str:
    return (PUZZLES / f"{name}{suffix}").read_text(encoding="utf-8")


def expected_output(name: str) -> str:
    return read(name, ".out").rstrip()


def expected_error(name: str) -> str:
    return read(name, ".err").strip()


def command() -> list[str]:
    """The installed `gokata` command next to this Python, else ``python -m gokata``."""
    found = shutil.which("gokata", path=os.path.dirname(sys.executable))
    return [found, "solve"] if found else [sys.executable, "-m", "gokata", "solve"]


def run_command(text: str) -> subprocess.CompletedProcess[str]:
    """`gokata solve` with ``text`` (UTF-8) on standard input; output decoded, line ends kept."""
    result = subprocess.run(command(), input=text.encode("utf-8"), capture_output=True, timeout=60, check=False)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode("utf-8"), result.stderr.decode("utf-8"))


def assert_solved(text: str, expected: str) -> None:
    """`solve` and the command both print ``expected``; `solve` without a final newline."""
    output = solve(text)
    assert not output.endswith("\n")
    assert output.rstrip() == expected
    result = run_command(text)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.rstrip() == expected
    assert result.stdout.endswith("\n")


def assert_malformed(text: str, substring: str) -> None:
    """`solve` raises ValueError (no IllegalMoveError) saying ``substring``; the command fails
    with one line on standard error, and no traceback."""
    with pytest.raises(ValueError) as info:
        solve(text)
    assert not isinstance(info.value, IllegalMoveError)
    assert substring in str(info.value), str(info.value)
    result = run_command(text)
    assert result.returncode != 0
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gokata solve:"), lines[0]
    assert substring in lines[0], lines[0]


# --- the puzzle on the reference model -------------------------------------------------------


def reference_solve(text: str) -> str:
    """The puzzle by the reference model, for well-formed input only. Ko compares with the
    board before the previous move, the initial board counting as the board before move 1."""
    lines = text.splitlines()
    size, count = int(lines[0]), int(lines[1])
    boards: list[Board] = [[[STONES[cell] for cell in row] for row in lines[2 : 2 + size]]]
    for number, line in enumerate(lines[2 + size : 2 + size + count]):
        colour, row, col = line.split()
        previous = boards[number - 1] if number >= 1 else None
        reason, after, _ = play_stone(boards[-1], int(row), int(col), STONES[colour], previous)
        if reason is not None:
            return "NOT_VALID"
        boards.append(after)
    return "\n".join("".join(CELLS[stone] for stone in row) for row in boards[-1])


def moves_of(name: str) -> tuple[int, int]:
    """(board size, number of moves) of a case."""
    lines = read(name, ".in").splitlines()
    return int(lines[0]), int(lines[1])


# --- the cases ---------------------------------------------------------------------------


def test_every_case_has_one_answer() -> None:
    answers = {path.name for path in PUZZLES.iterdir() if path.suffix in (".out", ".err")}
    assert answers == {f"{name}.out" for name in VALID} | {f"{name}.err" for name in MALFORMED}
    assert not set(VALID) & set(MALFORMED)
    assert set(VALID) | set(MALFORMED) == set(CASES)


def test_the_cases_cover_the_puzzle() -> None:
    """The long game, a 19x19 board, no moves, and both verdicts are among the cases."""
    sizes = [moves_of(name) for name in VALID]
    assert any(size >= 9 and count >= 40 and expected_output(name) != "NOT_VALID" for name, (size, count) in zip(VALID, sizes))
    assert any(size == 19 for size, _ in sizes)
    assert any(count == 0 for _, count in sizes)
    assert {expected_output(name) == "NOT_VALID" for name in VALID} == {True, False}


@pytest.mark.parametrize("name", VALID)
def test_model_agrees_with_the_drawn_answer(name: str) -> None:
    assert reference_solve(read(name, ".in")) == expected_output(name)


@pytest.mark.parametrize("name", VALID)
def test_case(name: str) -> None:
    assert_solved(read(name, ".in"), expected_output(name))


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_case(name: str) -> None:
    assert_malformed(read(name, ".in"), expected_error(name))


# --- line endings and blank lines --------------------------------------------------------


def variants(text: str) -> dict[str, str]:
    """The same input with other line endings and trailing blank lines."""
    lines = text.rstrip("\n").split("\n")
    return {
        "crlf": "\r\n".join(lines) + "\r\n",
        "no final newline": "\n".join(lines),
        "crlf without final newline": "\r\n".join(lines),
        "trailing blank lines": "\n".join(lines) + "\n\n\n",
        "crlf and trailing blank lines": "\r\n".join(lines) + "\r\n\r\n\r\n",
    }


@pytest.mark.parametrize("name", VALID)
def test_line_endings_and_trailing_blank_lines(name: str) -> None:
    expected = expected_output(name)
    for kind, text in variants(read(name, ".in")).items():
        output = solve(text)
        assert output.rstrip() == expected, kind
        assert "\r" not in output, kind


@pytest.mark.parametrize("name", ["capture_two_groups", "ko_against_initial_board", "no_moves"])
def test_line_endings_through_the_command(name: str) -> None:
    expected = expected_output(name)
    for text in variants(read(name, ".in")).values():
        result = run_command(text)
        assert (result.returncode, result.stderr) == (0, "")
        assert result.stdout.rstrip() == expected
        assert "\r" not in result.stdout


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_text_after_blank_lines_is_still_extra(ending: str) -> None:
    text = ending.join(["3", "1", "...", "...", "...", "B 1 1", "", "", "W 0 0", ""])
    with pytest.raises(ValueError):
        solve(text)


def test_lines_after_an_illegal_move_do_not_matter() -> None:
    """Once a move is illegal the answer is NOT_VALID, whatever legal moves follow."""
    text = "\n".join(["3", "3", ".B.", "B..", "...", "W 0 0", "B 2 2", "W 1 1"])
    assert solve(text) == "NOT_VALID"


def test_solve_takes_a_str() -> None:
    with pytest.raises(TypeError):
        solve(b"1\n0\n.\n")  # type: ignore[arg-type]


def test_undecodable_input_to_the_command() -> None:
    result = subprocess.run(command(), input=b"3\n0\n..\xff\n...\n...\n", capture_output=True, timeout=60, check=False)
    assert result.returncode != 0
    stderr = result.stderr.decode("utf-8", "replace")
    assert stderr.startswith("gokata solve:") and len(stderr.splitlines()) == 1
    assert "Traceback" not in stderr
