"""The interface as documented: `IllegalMoveError`'s attributes, the ko rule as the engine
applies it and as every text states it, `repr`, docstrings, and the README's examples and
signatures, run and compared with the package."""

from __future__ import annotations

import inspect
import re
import threading
from pathlib import Path
from typing import Callable

import pytest

import gokata
from gokata import Go, IllegalMoveError

README = Path(__file__).resolve().parent.parent / "README.md"
KO_RULE = "recreate the position as it was before the last turn"


# IllegalMoveError carries what a program needs


@pytest.mark.parametrize(
    ("set_up", "call", "attributes"),
    [
        (lambda g: g.move("3C"), lambda g: g.move("3C"), ("3C", "white", "occupied")),
        (lambda g: g.move("3C"), lambda g: g.play("b", (2, 2)), ("3C", "black", "occupied")),
        (lambda g: g.move("3C"), lambda g: g.captures("C3", "w"), ("3C", "white", "occupied")),
        (lambda g: g.move("2A", "4E", "1B"), lambda g: g.move("1A"), ("1A", "white", "suicide")),
    ],
)
def test_illegal_move_error_attributes(
    set_up: Callable[[Go], object], call: Callable[[Go], object], attributes: tuple[str, str, str]
) -> None:
    game = Go(5)
    set_up(game)
    with pytest.raises(IllegalMoveError) as info:
        call(game)
    error = info.value
    assert (error.coord, error.color, error.reason) == attributes
    assert isinstance(error, ValueError)


def test_ko_error_attributes_and_message() -> None:
    game = Go.from_board([".xo.", "xo.o", ".xo."])
    game.move((1, 2))  # black takes at 2C: white may not retake at once
    with pytest.raises(IllegalMoveError) as info:
        game.move("2B")
    assert (info.value.coord, info.value.color, info.value.reason) == ("2B", "white", "ko")
    assert str(info.value) == f"illegal move 2B for white: ko (it would {KO_RULE})"


def test_illegal_move_error_from_a_message_alone() -> None:
    error = IllegalMoveError("illegal move 3C for white: the point is occupied")
    assert (error.coord, error.color, error.reason) == (None, None, None)
    assert str(error) == "illegal move 3C for white: the point is occupied"

    class Remote(ValueError):
        pass

    class RemoteIllegalMove(Remote, IllegalMoveError):  # as gokata.client defines its own
        pass

    remote = RemoteIllegalMove("refused")
    assert remote.reason is None and isinstance(remote, IllegalMoveError)


# Ko: the position before the last turn, whoever played it


def test_ko_with_explicit_colours_is_the_position_before_the_last_turn() -> None:
    # White plays twice in a row, the second time taking a black stone in a ko. Black's retake
    # would not recreate the position after black's own previous turn (black has none: the
    # game was set up), but it would recreate the one before the last turn: ko.
    game = Go.from_board([".xo.", "x.xo", ".xo.", "...."], turn="white")
    game.play("white", "1D")
    game.play("white", "3B")  # takes the black stone at 3C
    assert game.board[1] == list("xo.o")
    assert game.illegal_reason("3C", "black") == "ko"
    with pytest.raises(IllegalMoveError, match=re.escape(KO_RULE)):
        game.play("black", "3C")
    # One more turn, by anyone, and the retake no longer recreates the position before it.
    game.play("white", "1A")
    assert game.illegal_reason("3C", "black") is None


def test_every_text_states_the_ko_rule_the_same_way() -> None:
    readme = " ".join(README.read_text().split())
    assert "may not recreate the position as it was before the last turn" in readme
    assert "same player's previous turn" not in readme
    assert KO_RULE in " ".join((IllegalMoveError.__doc__ or "").split())
    assert KO_RULE in " ".join((Go.__doc__ or "").split())
    stub = Path(gokata.__file__).with_name("_gokata.pyi").read_text()
    assert KO_RULE in " ".join(stub.split())


# Small slips


def test_repr_counts_turns_in_english() -> None:
    game = Go(9)
    assert repr(game) == "<Go 9x9, black to move, 0 turns played>"
    game.move("5E")
    assert repr(game) == "<Go 9x9, white to move, 1 turn played>"
    game.pass_turn()
    assert repr(Go(3, 4)) == "<Go 3x4, black to move, 0 turns played>"
    assert repr(game) == "<Go 9x9, black to move, 2 turns played>"


def test_the_playouts_docstring_names_its_parameters() -> None:
    doc = gokata.playouts.__doc__ or ""
    assert "`n` light random playouts" in doc
    assert "count" not in doc


def readme_python_blocks() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    assert len(blocks) >= 4
    assert any("gokata.client" in block for block in blocks), "the Internet play example is among them"
    return blocks


@pytest.mark.parametrize("block", readme_python_blocks(), ids=lambda block: block.splitlines()[0])
def test_every_readme_example_runs_as_written(block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The batch example used Go without importing it; the Internet play example waited forever
    # for an opponent. Each runs on its own, in a folder of its own, within a time limit.
    monkeypatch.chdir(tmp_path)
    finished = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            exec(compile(block, str(README), "exec"), {})
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            finished.set()

    threading.Thread(target=run, daemon=True).start()
    assert finished.wait(60), "the example did not finish"
    if errors:
        raise errors[0]


def test_the_readme_signatures_are_the_real_ones() -> None:
    readme = README.read_text()
    signature = str(inspect.signature(Go.from_board))
    assert f"`from_board{signature}`" in readme  # it said turn="black"


def test_the_readme_says_what_off_board_coordinates_do() -> None:
    readme = " ".join(README.read_text().split())
    game = Go(9)
    assert game.is_legal("10A") is False and game.illegal_reason("10A") == "off-board"
    with pytest.raises(ValueError):
        game.move("10A")
    assert "`is_legal` answers `False` for them and `illegal_reason` `'off-board'`" in readme
