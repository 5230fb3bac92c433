"""The interface as documented: the ko rule as every text states it, `repr`, docstrings, and
the README's signatures and statements, compared with the package. What `IllegalMoveError`
carries, and the ko rule as the engine applies it: `test_illegal_move_error`. The README's
examples are run by ``python_tests/docs/test_readme_examples.py``."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import gokata
from gokata import Go, IllegalMoveError

README = Path(__file__).resolve().parents[2] / "README.md"
KO_RULE = "recreate the position as it was before the last turn"
"""How every text words the ko rule (and the message of a ko refusal; see `test_illegal_move_error`)."""


def test_every_text_states_the_ko_rule_the_same_way() -> None:
    readme = " ".join(README.read_text().split())
    assert "may not recreate the position as it was before the last turn" in readme
    assert "same player's previous turn" not in readme
    assert KO_RULE in " ".join((IllegalMoveError.__doc__ or "").split())
    assert KO_RULE in " ".join((Go.__doc__ or "").split())
    stub = Path(gokata.__file__).with_name("_gokata.pyi").read_text()
    assert KO_RULE in " ".join(stub.split())


# Small slips: repr and docstrings


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
