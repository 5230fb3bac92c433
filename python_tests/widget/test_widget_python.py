"""`gokata.widget.Board`'s Python side, without a browser: the messages the front end sends (a
click, the buttons) applied to the `Go`, the state synced back (the traitlets), illegal clicks,
undo, looking through the game, overlays, `on_move`, `refresh`, and the picture shown where no
widget runs (`_repr_mimebundle_`).

A message is handed to the widget as ipywidgets hands a custom message from the front end,
through `_handle_custom_msg`, so the callback `Board` registers with `on_msg` is what runs.
"""

from __future__ import annotations

import builtins
import copy
import importlib
import re
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

import gokata
import gokata.widget
from gokata import Go, IllegalMoveError
from gokata.widget import Board

KO_SETUP = ["4B", "4C", "3A", "3D", "2B", "2C", "5E", "3B"]
"""On 5x5: black 3C then takes white's 3B, and white may not retake at once (ko)."""

SYNCED = {
    "rows", "turn", "last_move", "last_color", "captures", "history_length", "index",
    "overlays", "message", "coordinates", "width", "_esm", "_css",
}


def send(board: Board, **content: Any) -> None:
    """A message from the front end, as ipywidgets delivers it."""
    board._handle_custom_msg(content, [])


def click(board: Board, point: str) -> None:
    send(board, type="play", point=point)


def state(board: Board) -> dict[str, Any]:
    """What the front end is shown, and the game behind it."""
    return {
        "rows": list(board.rows),
        "turn": board.turn,
        "last_move": board.last_move,
        "last_color": board.last_color,
        "captures": dict(board.captures),
        "history_length": board.history_length,
        "index": board.index,
        "game": (board.game.board, board.game.turn, board.game.move_number),
    }


def rows_of(game: Go) -> list[str]:
    return ["".join(row) for row in game.board]


def ko_board() -> Board:
    board = Board(size=5)
    for point in KO_SETUP:
        board.move(point)
    return board


# -- a new board ---------------------------------------------------------------------------


def test_a_new_board_shows_an_empty_game_of_its_size() -> None:
    board = Board(size=9)
    assert board.game.size == {"height": 9, "width": 9}
    assert board.rows == ["." * 9] * 9
    assert (board.turn, board.last_move, board.last_color) == ("black", None, None)
    assert board.captures == {"black": 0, "white": 0}
    assert (board.history_length, board.index, board.message) == (0, 0, "")
    assert board.overlays == {"heatmap": {}, "marks": {}, "labels": {}}
    assert board.coordinates is True and board.width is None
    assert Board().game.size == {"height": 19, "width": 19}
    assert Board(size=9, coordinates=False, width=320).get_state(["coordinates", "width"]) == {
        "coordinates": False,
        "width": 320,
    }


def test_the_state_the_front_end_needs_is_synced() -> None:
    board = Board(size=5)
    assert SYNCED <= set(board.get_state())
    synced = board.get_state()
    assert "export default" in synced["_esm"] and "render" in synced["_esm"]
    assert ".gokata-board" in synced["_css"]


def test_a_board_shows_the_game_given_with_its_history() -> None:
    game = Go(5)
    game.move("3C", "C2", "2B")
    game.pass_turn()
    board = Board(game)
    assert board.game is game
    assert board.rows == rows_of(game)
    assert (board.history_length, board.index, board.turn) == (4, 4, "black")
    assert (board.last_move, board.last_color) == ("pass", "white")
    assert board.moves == ["3C", "2C", "2B", None]
    send(board, type="first")
    assert board.rows == ["....."] * 5
    send(board, type="next")
    assert board.rows[2] == "..x.." and board.last_move == "C3" and board.last_color == "black"


def test_a_game_that_is_not_a_go_is_refused() -> None:
    with pytest.raises(TypeError, match="gokata.Go"):
        Board("9x9")  # type: ignore[arg-type]


# -- clicks --------------------------------------------------------------------------------


def test_a_click_plays_for_the_side_to_move_in_the_go() -> None:
    board = Board(size=9)
    click(board, "C7")
    assert board.game.get_position("7C") == "x"
    assert board.game.move_number == 1 and board.game.turn == "white"
    assert board.rows == rows_of(board.game)
    assert (board.turn, board.last_move, board.last_color) == ("white", "C7", "black")
    assert (board.history_length, board.index) == (1, 1)
    click(board, "D7")
    assert board.game.get_position("D7") == "o"
    assert board.moves == ["7C", "7D"]


def test_captures_are_counted_for_each_side() -> None:
    board = ko_board()
    click(board, "C3")
    assert board.game.get_position("3B") == "."
    assert board.captures == {"black": 1, "white": 0}
    send(board, type="previous")
    assert board.captures == {"black": 0, "white": 0}


@pytest.mark.parametrize(
    ("setup", "point", "reason"),
    [
        (lambda: ko_board(), "C4", "occupied"),
        (lambda: Board(Go.from_board([".o...", "o....", ".....", ".....", "....."], turn="black")), "A5", "suicide"),
    ],
    ids=["occupied", "suicide"],
)
def test_an_illegal_click_says_why_and_changes_nothing(setup: Any, point: str, reason: str) -> None:
    board: Board = setup()
    before = state(board)
    click(board, point)
    assert state(board) == before
    assert board.message.startswith(f"{point} is illegal for black: {reason}")


def test_a_click_on_the_ko_says_ko_and_changes_nothing() -> None:
    board = ko_board()
    click(board, "C3")
    before = state(board)
    click(board, "B3")
    assert state(board) == before
    assert board.message.startswith("B3 is illegal for white: ko")
    click(board, "A1")
    assert board.message == "" and board.game.get_position("1A") == "o"


def test_a_malformed_point_from_the_front_end_is_a_message() -> None:
    board = Board(size=5)
    click(board, "Z9")
    assert board.message == "Z9 is off the board."
    assert board.game.move_number == 0
    send(board, type="play")  # no point: ignored
    send(board, type="unknown")
    board._handle_custom_msg("not a dict", [])
    assert board.game.move_number == 0


def test_pass_and_undo_from_the_buttons() -> None:
    board = Board(size=5)
    click(board, "C3")
    send(board, type="pass")
    assert board.game.move_number == 2 and board.game.turn == "black"
    assert (board.last_move, board.last_color) == ("pass", "white")
    send(board, type="undo")
    assert board.game.move_number == 1 and board.game.turn == "white"
    assert (board.last_move, board.history_length, board.index) == ("C3", 1, 1)
    send(board, type="undo")
    assert board.rows == ["....."] * 5 and board.history_length == 0
    send(board, type="undo")
    assert board.message == "There is no move to take back." and board.game.move_number == 0


# -- looking through the game --------------------------------------------------------------


def test_first_previous_next_last_look_through_the_game_and_change_nothing() -> None:
    board = Board(size=5)
    for point in ("C3", "D3", "C4"):
        click(board, point)
    game_before = (board.game.board, board.game.move_number)
    seen = []
    for kind in ("first", "previous", "next", "next", "last", "next", "previous"):
        send(board, type=kind)
        seen.append(board.index)
        assert (board.game.board, board.game.move_number) == game_before
        assert board.history_length == 3
    assert seen == [0, 0, 1, 2, 3, 3, 2]
    assert board.rows == ["....."] * 2 + ["..xo."] + ["....."] * 2
    assert board.turn == "black" and board.last_move == "D3"


def test_while_looking_back_the_board_does_not_play() -> None:
    board = Board(size=5)
    click(board, "C3")
    click(board, "D3")
    send(board, type="first")
    before = state(board)
    for content in ({"type": "play", "point": "A1"}, {"type": "pass"}, {"type": "undo"}):
        send(board, **content)
        assert state(board) == before
        assert "press Last to" in board.message
    assert board.looking_back
    send(board, type="last")
    assert board.message == "" and not board.looking_back
    click(board, "A1")
    assert board.game.get_position("1A") == "x"


def test_the_index_can_be_set_from_python_within_the_game() -> None:
    board = Board(size=5)
    board.move("3C")
    board.move("3D")
    board.index = 1
    assert board.rows[2] == "..x.."
    with pytest.raises(Exception, match="out of range"):
        board.index = 3
    assert board.index == 1


# -- Python drives it ----------------------------------------------------------------------


@pytest.mark.parametrize("point", ["5E", "E5", "e5", (4, 4)])
def test_board_move_takes_every_coordinate_form(point: Any) -> None:
    board = Board(size=9)
    board.move(point)
    assert board.game.get_position("5E") == "x" and board.last_move == "E5"


def test_an_illegal_board_move_raises_and_changes_nothing() -> None:
    board = ko_board()
    click(board, "C3")
    board.message = "kept"
    before = state(board)
    with pytest.raises(IllegalMoveError) as error:
        board.move("3B")
    assert error.value.reason == "ko"
    with pytest.raises(IllegalMoveError):
        board.move("C3")
    with pytest.raises(ValueError):
        board.move("Z9")
    assert state(board) == before and board.message == "kept"
    board.move("A1")
    assert board.message == ""


def test_board_pass_turn_undo_and_move_none() -> None:
    board = Board(size=5)
    board.move("3C")
    board.pass_turn()
    board.move(None)
    board.move("pass")
    assert board.moves == ["3C", None, None, None]
    board.undo(3)
    assert board.moves == ["3C"] and board.index == 1
    with pytest.raises(ValueError):
        board.undo(2)
    assert board.moves == ["3C"]


def test_a_python_move_while_looking_back_plays_at_the_end_and_shows_it() -> None:
    board = Board(size=5)
    board.move("3C")
    send(board, type="first")
    board.move("3D")
    assert (board.index, board.history_length, board.last_move) == (2, 2, "D3")


def test_refresh_shows_a_go_changed_directly() -> None:
    board = Board(size=5)
    board.move("3C")
    board.game.move("3D", "4C")
    assert board.history_length == 1  # not yet shown
    board.refresh()
    assert board.rows == rows_of(board.game)
    assert (board.history_length, board.index, board.last_move) == (3, 3, "C4")
    board.game.rollback(2)
    board.refresh()
    assert board.moves == ["3C"] and board.turn == "white"


def test_an_action_on_the_board_catches_up_with_a_go_changed_directly() -> None:
    board = Board(size=5)
    board.game.move("3C")
    click(board, "3C")  # the board still showed it empty: the game says occupied
    assert board.message.startswith("C3 is illegal for white: occupied")
    assert board.rows == rows_of(board.game) and board.history_length == 1
    board.game.move("3D")
    click(board, "E5")
    assert board.moves == ["3C", "3D", "5E"]


def test_assigning_a_game_shows_it() -> None:
    board = Board(size=5)
    game = Go(9)
    game.move("5E")
    board.game = game
    assert board.game is game and len(board.rows) == 9 and board.last_move == "E5"
    with pytest.raises(TypeError):
        board.game = None  # type: ignore[assignment]


# -- on_move -------------------------------------------------------------------------------


def test_on_move_is_called_once_for_each_move_made_on_the_board() -> None:
    board = Board(size=5)
    calls: list[tuple[Board, Optional[str]]] = []
    board.on_move(lambda b, move: calls.append((b, move)))
    click(board, "C3")
    send(board, type="pass")
    assert calls == [(board, "3C"), (board, None)]
    board.move("3D")
    board.pass_turn()
    board.undo()
    send(board, type="undo")
    click(board, "C3")  # occupied
    send(board, type="first")
    click(board, "A1")  # looking back
    send(board, type="last")
    assert calls == [(board, "3C"), (board, None)]


def test_on_move_answering_with_a_move_plays_against_the_computer() -> None:
    board = Board(size=5)
    answers: list[Optional[str]] = []

    def reply(b: Board, move: Optional[str]) -> None:
        answer = gokata.genmove(b.game, playouts=200, seed=3, threads=1)
        answers.append(answer)
        b.move(answer)

    board.on_move(reply)
    click(board, "C3")
    assert board.game.move_number == 2 and len(answers) == 1
    assert board.game.turn == "black" and board.index == 2
    assert board.moves == ["3C", answers[0]]


def test_on_move_remove_and_a_failing_callback() -> None:
    board = Board(size=5)
    calls: list[Optional[str]] = []

    def record(_board: Board, move: Optional[str]) -> None:
        calls.append(move)

    def fail(_board: Board, _move: Optional[str]) -> None:
        raise RuntimeError("no engine")

    board.on_move(record)
    board.on_move(fail)
    click(board, "C3")
    assert calls == ["3C"]
    assert board.message == "on_move callback failed: RuntimeError: no engine"
    assert board.game.move_number == 1
    board.on_move(fail, remove=True)
    board.on_move(record, remove=True)
    click(board, "D3")
    assert calls == ["3C"] and board.message == ""


# -- overlays ------------------------------------------------------------------------------


def test_show_keys_overlays_by_points_letter_first() -> None:
    board = Board(size=9)
    board.show(
        heatmap={"5E": 0.5, "C7": 1, (0, 0): 0.0},
        marks=["3C", (8, 8)],
        labels={"7G": "A", "G3": 2},
    )
    assert board.overlays == {
        "heatmap": {"E5": 0.5, "C7": 1.0, "A9": 0.0},
        "marks": {"C3": "triangle", "J1": "triangle"},
        "labels": {"G7": "A", "G3": "2"},
    }
    board.show(marks={"5E": "circle", "e4": "square", "D4": "cross"})
    assert board.overlays == {"heatmap": {}, "marks": {"E5": "circle", "E4": "square", "D4": "cross"}, "labels": {}}
    board.show(marks="5E")
    assert board.overlays["marks"] == {"E5": "triangle"}
    board.show(marks=(0, 1))
    assert board.overlays["marks"] == {"B9": "triangle"}
    board.clear()
    assert board.overlays == {"heatmap": {}, "marks": {}, "labels": {}}


def test_overlays_survive_moves_and_stay_until_cleared() -> None:
    board = Board(size=9)
    board.show(labels={"5E": "A"})
    click(board, "C3")
    board.move("D3")
    send(board, type="first")
    assert board.overlays["labels"] == {"E5": "A"}


@pytest.mark.parametrize(
    "arguments",
    [
        {"heatmap": {"5E": 1.5}},
        {"heatmap": {"5E": -0.1}},
        {"heatmap": {"5E": float("nan")}},
        {"marks": {"5E": "star"}},
        {"labels": {"Z9": "A"}},
        {"marks": ["10A"]},
        {"heatmap": {"nowhere": 0.5}},
    ],
)
def test_bad_overlays_are_refused_and_the_old_ones_kept(arguments: dict[str, Any]) -> None:
    board = Board(size=9)
    board.show(labels={"5E": "A"})
    with pytest.raises(ValueError):
        board.show(**arguments)
    assert board.overlays["labels"] == {"E5": "A"}


def test_analyze_draws_the_candidates() -> None:
    board = Board(size=5)
    board.move("3C")
    candidates = board.analyze(playouts=400, seed=1, threads=1, top=3)
    assert candidates == gokata.analyze(board.game, playouts=400, seed=1, threads=1)
    on_board = [c for c in candidates if c["move"] is not None]
    most = on_board[0]["visits"]
    expected_heat = {f"{c['move'][1:]}{c['move'][0]}": c["visits"] / most for c in on_board}
    assert board.overlays["heatmap"] == expected_heat
    labels = board.overlays["labels"]
    assert len(labels) == 3
    best = on_board[0]["move"]
    assert labels[f"{best[1:]}{best[0]}"] == f"{100 * on_board[0]['win_rate']:.0f}%"
    assert board.message.startswith(f"Best for white: {best[1:]}{best[0]}, ")


# -- outside a live kernel -----------------------------------------------------------------


def test_the_mimebundle_has_the_view_and_gokatas_svg() -> None:
    game = Go(9)
    game.move("5E", "3C")
    board = Board(game)
    data, _metadata = board._repr_mimebundle_()
    view = data["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == board.model_id
    assert data["image/svg+xml"] == gokata.svg(game)
    assert data["text/plain"] == "<gokata.widget.Board 9x9, move 2 of 2, black to move>"


def test_the_svg_shows_the_position_looked_at_and_the_overlays() -> None:
    game = Go(9)
    game.move("5E", "3C")
    board = Board(game, coordinates=False, width=300)
    send(board, type="previous")
    earlier = copy.copy(game)
    earlier.rollback(1)
    assert board.svg() == gokata.svg(earlier, 300, False)
    assert game.move_number == 2
    board.show(heatmap={"7G": 1.0}, marks=["2B"])
    picture = board.svg()
    assert picture == gokata.svg(earlier, 300, False, marks=["2B"], fill={"7G": "rgba(220, 38, 38, 0.750)"})
    assert re.search(r"<desc>", picture)


def test_the_front_end_files_are_in_the_package() -> None:
    """Beside the module, where the wheel carries them (maturin takes every file of
    python/gokata)."""
    here = Path(gokata.widget.__file__).parent
    assert (here / "board.js").read_text().strip().endswith("export default { render };")
    assert (here / "board.css").read_text() == Board(size=5).get_state()["_css"]


def test_without_anywidget_the_import_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_anywidget(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "anywidget":
            raise ImportError("No module named 'anywidget'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_anywidget)
    monkeypatch.delitem(sys.modules, "gokata.widget")
    with pytest.raises(ImportError, match=r"pip install anywidget \(the jupyter extra\)"):
        importlib.import_module("gokata.widget")
    monkeypatch.undo()
    assert importlib.import_module("gokata.widget").Board is not None


def test_the_guides_examples_run() -> None:
    """docs/notebook.md's ```python blocks, one after the other in one namespace, as cells."""
    guide = Path(__file__).resolve().parents[2] / "docs" / "notebook.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(), re.DOTALL)
    assert len(blocks) >= 4
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, str(guide), "exec"), namespace)
    board = namespace["board"]
    assert isinstance(board, Board) and board.overlays["labels"]
