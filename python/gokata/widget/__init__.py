"""A Go board to play on in Jupyter: `Board`, an anywidget showing a `gokata.Go`.

>>> from gokata.widget import Board
>>> board = Board(size=9)
>>> board.move("5E")          # or click a point on the board
>>> board  # doctest: +SKIP

The `Go` is the single source of truth: the front end (``board.js``, drawn as SVG) sends what
the player does (a click, a button) as a message, Python applies it to ``board.game``, and the
new state goes back to the front end through the traitlets tagged ``sync=True``. Needs
anywidget: ``pip install '.[jupyter]'`` in the checkout. The guide: docs/notebook.md.
"""

from __future__ import annotations

import copy
import math
import pathlib
import re
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import index as as_index
from typing import Any, Optional, SupportsIndex, Union, cast

try:
    import anywidget
    import traitlets
except ImportError as missing:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "gokata.widget needs anywidget (and so ipywidgets): pip install anywidget (the jupyter extra)"
    ) from missing

import gokata
from gokata import Go, IllegalMoveError

__all__ = ["Board", "Coordinate", "MARK_SHAPES", "MoveCallback"]

Coordinate = Union[str, "tuple[SupportsIndex, SupportsIndex]"]
"""A point in any form the kata API takes: ``"7C"`` (kata), ``"C7"`` (GTP), or a 0-based
``(row, col)`` tuple into ``game.board``."""

MoveCallback = Callable[["Board", Optional[str]], object]
"""``callback(board, move)``: the move in the kata form (``"7C"``), ``None`` for a pass."""

MARK_SHAPES = ("triangle", "circle", "square", "cross")
"""The shapes ``Board.show(marks=...)`` draws."""

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
_KATA = re.compile(r"\s*(\d+)\s*([A-Za-z])\s*")
_GTP = re.compile(r"\s*([A-Za-z])\s*(\d+)\s*")
_COLORS = {"x": "black", "o": "white"}
_WHY = {
    "occupied": "occupied (a stone is already there)",
    "suicide": "suicide (the stone would have no liberty and capture nothing)",
    "ko": "ko (it would recreate the position as it was before the last turn)",
}
_HERE = pathlib.Path(__file__).parent


@dataclass(frozen=True)
class _Position:
    """One position of the game's history, as the front end shows it."""

    rows: tuple[str, ...]
    turn: str
    last_move: Optional[str]
    """The turn that led here: a point in GTP form (``"C7"``), ``"pass"``, or ``None`` at the
    start."""
    last_color: Optional[str]
    captures: tuple[int, int]
    """Stones captured so far by black, by white."""


def _rows(game: Go) -> tuple[str, ...]:
    return tuple("".join(row) for row in game.board)


def _turn_between(before: tuple[str, ...], after: tuple[str, ...], mover: str) -> tuple[Optional[str], str, int]:
    """What happened from ``before`` to ``after``: the point played (GTP form, ``None`` for a
    pass), the colour that played, and how many stones it captured."""
    height = len(after)
    placed = [
        (r, c)
        for r, (old, new) in enumerate(zip(before, after))
        for c, (was, now) in enumerate(zip(old, new))
        if was == "." and now != "."
    ]
    if len(placed) == 1:
        r, c = placed[0]
        color = _COLORS[after[r][c]]
        point: Optional[str] = f"{LETTERS[c]}{height - r}"
    else:
        color, point = mover, None
    stone = "o" if color == "black" else "x"
    taken = sum(row.count(stone) for row in before) - sum(row.count(stone) for row in after)
    return point, color, max(taken, 0)


def _next_position(previous: _Position, rows: tuple[str, ...], turn: str) -> _Position:
    point, color, taken = _turn_between(previous.rows, rows, previous.turn)
    black, white = previous.captures
    captures = (black + taken, white) if color == "black" else (black, white + taken)
    return _Position(rows, turn, point if point is not None else "pass", color, captures)


def _history(game: Go) -> list[_Position]:
    """Every position of ``game`` from its start (as far as it rolls back) to now."""
    replay = copy.copy(game)
    states = [(_rows(replay), replay.turn)]
    for _ in range(replay.move_number):
        try:
            replay.rollback(1)
        except ValueError:
            break
        states.append((_rows(replay), replay.turn))
    states.reverse()
    positions = [_Position(states[0][0], states[0][1], None, None, (0, 0))]
    for rows, turn in states[1:]:
        positions.append(_next_position(positions[-1], rows, turn))
    return positions


def _parse_point(coord: Coordinate, height: int) -> tuple[int, int]:
    """``(row, col)`` into ``board`` of a coordinate the engine has already found valid."""
    if isinstance(coord, str):
        kata = _KATA.fullmatch(coord)
        if kata:
            number, letter = kata.groups()
        else:
            gtp = _GTP.fullmatch(coord)
            if gtp is None:
                raise ValueError(f"invalid coordinate {coord!r}: expected a form like '7A' or 'A7'")
            letter, number = gtp.groups()
        return height - int(number), LETTERS.index(letter.upper())
    row, col = coord
    return as_index(row), as_index(col)


class Board(anywidget.AnyWidget):
    """A Go board to play on in Jupyter (JupyterLab 4, Notebook 7, VS Code), showing a
    `gokata.Go`: ``game``, or a new ``size`` x ``size`` game when it is ``None``.

    Click an empty point to play it for the side to move; Pass, Undo, and First / Previous /
    Next / Last to look through the game (only the last position is played on). From Python:
    `move`, `pass_turn`, `undo`, `game` (the `Go` itself, kept in step both ways), `refresh`
    after changing that `Go` directly, `on_move` to answer moves made on the board, `show` /
    `clear` to draw overlays and `analyze` to draw the bot's candidates.
    ``coordinates`` shows column letters and row numbers; ``width`` is the board's width in
    pixels (``None``: the width of the output, up to 480 pixels).
    """

    _esm = _HERE / "board.js"
    _css = _HERE / "board.css"

    # The state the front end shows, all of it about the position looked at (`index`) but
    # `history_length`, `overlays`, `message`, `coordinates` and `width`.
    rows = traitlets.List(traitlets.Unicode(), help="Rows top first of '.', 'x', 'o'.").tag(sync=True)
    turn = traitlets.Unicode("black", help="The side to move.").tag(sync=True)
    last_move = traitlets.Unicode(
        None, allow_none=True, help="The turn that led here: 'C7' (letter first), 'pass', or None at the start."
    ).tag(sync=True)
    last_color = traitlets.Unicode(None, allow_none=True, help="Who played last_move.").tag(sync=True)
    captures = traitlets.Dict(help="Stones captured so far: {'black': n, 'white': n}.").tag(sync=True)
    history_length = traitlets.Int(0, help="Turns on record: the game's move number.").tag(sync=True)
    index = traitlets.Int(0, help="The turn looked at, from 0 to history_length.").tag(sync=True)
    overlays = traitlets.Dict(
        help="{'heatmap': {point: 0..1}, 'marks': {point: shape}, 'labels': {point: text}}, points letter first."
    ).tag(sync=True)
    message = traitlets.Unicode("", help="Why the last action on the board failed, or what it found.").tag(sync=True)
    coordinates = traitlets.Bool(True, help="Whether column letters and row numbers are shown.").tag(sync=True)
    width = traitlets.Int(None, allow_none=True, help="The board's width in pixels; None: fits the output.").tag(
        sync=True
    )

    def __init__(
        self,
        game: Optional[Go] = None,
        *,
        size: SupportsIndex = 19,
        coordinates: bool = True,
        width: Optional[SupportsIndex] = None,
    ) -> None:
        self._game = Go(size) if game is None else game
        if not isinstance(self._game, Go):
            raise TypeError(f"game must be a gokata.Go, not {type(game).__name__}")
        self._positions: list[_Position] = _history(self._game)
        self._callbacks: list[MoveCallback] = []
        pixels = None if width is None else as_index(width)
        if pixels is not None and pixels <= 0:
            raise ValueError(f"width must be a positive number of pixels, not {pixels}")
        end = len(self._positions) - 1
        super().__init__(
            coordinates=bool(coordinates),
            width=pixels,
            history_length=end,
            index=end,
            overlays=_empty_overlays(),
        )
        self._show(end)
        self.on_msg(self._on_message)

    # -- the game ------------------------------------------------------------------------

    @property
    def game(self) -> Go:
        """The `gokata.Go` shown: moves made on the board are played on it; after changing it
        directly, call `refresh` (any action on the board also catches up with it)."""
        return self._game

    @game.setter
    def game(self, game: Go) -> None:
        if not isinstance(game, Go):
            raise TypeError(f"game must be a gokata.Go, not {type(game).__name__}")
        self._game = game
        self.refresh()

    @property
    def moves(self) -> list[Optional[str]]:
        """The game's turns on record, in the kata form (``"7C"``), ``None`` for a pass."""
        self._catch_up()
        return [_kata(position.last_move) for position in self._positions[1:]]

    @property
    def looking_back(self) -> bool:
        """Whether the board shows an earlier position than the game's last."""
        return self.index < len(self._positions) - 1

    def move(self, coord: Optional[Coordinate]) -> None:
        """Plays ``coord`` (any form the kata API takes; ``None`` or ``"pass"`` passes) for the
        side to move, and shows the new position (the message line cleared). An illegal move
        raises `IllegalMoveError` and changes nothing. Does not call the `on_move` callbacks."""
        self._catch_up()
        if coord is None or (isinstance(coord, str) and coord.strip().lower() == "pass"):
            self._game.pass_turn()
        else:
            self._game.move(coord)
        self._played()

    def pass_turn(self) -> None:
        """The side to move passes. Does not call the `on_move` callbacks."""
        self.move(None)

    def undo(self, n: SupportsIndex = 1) -> None:
        """Takes back the last ``n`` turns (`Go.rollback`), and shows the new last position."""
        self._catch_up()
        count = as_index(n)
        self._game.rollback(count)
        if count:
            del self._positions[-count:]
        with self.hold_sync():
            self.message = ""
            self._go_to_end()

    def refresh(self) -> None:
        """Shows `game` as it is now, history and all: after changing the `Go` directly."""
        self._positions = _history(self._game)
        self._go_to_end()

    def on_move(self, callback: MoveCallback, remove: bool = False) -> None:
        """Calls ``callback(board, move)`` after each move made on the board (a click, the
        keyboard or Pass), with the move in the kata form (``None`` for a pass); not for moves
        made from Python. ``remove=True`` unregisters it. An exception in a callback is shown
        in the board's message line, its traceback written to standard error."""
        if remove:
            self._callbacks = [known for known in self._callbacks if known != callback]
        else:
            self._callbacks.append(callback)

    # -- overlays ------------------------------------------------------------------------

    def show(
        self,
        heatmap: Optional[Mapping[Coordinate, float]] = None,
        marks: Union[Coordinate, Iterable[Coordinate], Mapping[Coordinate, str], None] = None,
        labels: Optional[Mapping[Coordinate, object]] = None,
    ) -> None:
        """Draws overlays on the board, in place of those shown before: ``heatmap`` values
        from 0 to 1 as translucent squares, ``marks`` as triangles (a mapping gives each
        point a shape of `MARK_SHAPES`; one point alone is a mark too), ``labels`` as text on
        the points (``str(value)``). Points in any coordinate form; a point off the board or
        a value out of range raises ``ValueError`` and keeps the overlays shown. They stay
        until the next `show`, `analyze` or `clear`."""
        overlays = _empty_overlays()
        for coord, value in (heatmap or {}).items():
            number = float(value)
            if math.isnan(number) or not 0.0 <= number <= 1.0:
                raise ValueError(f"heatmap value {value!r} at {coord!r} is not between 0 and 1")
            overlays["heatmap"][self._point(coord)] = number
        shaped: Iterable[tuple[Coordinate, str]]
        if marks is None:
            shaped = ()
        elif isinstance(marks, Mapping):
            shaped = marks.items()
        else:
            shaped = ((coord, "triangle") for coord in _points_of(marks))
        for coord, shape in shaped:
            if shape not in MARK_SHAPES:
                raise ValueError(f"mark {shape!r} at {coord!r}: the shapes are {', '.join(MARK_SHAPES)}")
            overlays["marks"][self._point(coord)] = shape
        for coord, text in (labels or {}).items():
            overlays["labels"][self._point(coord)] = str(text)
        self.overlays = overlays

    def clear(self) -> None:
        """Removes every overlay."""
        self.overlays = _empty_overlays()

    def analyze(
        self,
        playouts: SupportsIndex = 10_000,
        *,
        top: SupportsIndex = 10,
        seed: Optional[SupportsIndex] = None,
        threads: Optional[SupportsIndex] = None,
        komi: float = 0.5,
    ) -> list[dict[str, Any]]:
        """Runs `gokata.analyze` on the game's last position and draws its candidates: a
        heatmap by visits (the most visited 1), and the win rate for the side to move of the
        ``top`` most visited as labels (``"54%"``); the message line names the best. Returns
        the candidates (``move``, ``visits``, ``win_rate``, ``prior``, ``pv``), most visited
        first. ``seed``, ``threads`` and ``komi`` go to `gokata.analyze`."""
        self._catch_up()
        candidates = gokata.analyze(self._game, playouts=playouts, seed=seed, threads=threads, komi=komi)
        on_board = [(c["move"], c) for c in candidates if c["move"] is not None]
        most = max((c["visits"] for _, c in on_board), default=0)
        self.show(
            heatmap={move: c["visits"] / most if most else 0.0 for move, c in on_board},
            labels={move: f"{100 * c['win_rate']:.0f}%" for move, c in on_board[: as_index(top)]},
        )
        self._go_to_end()
        if candidates:
            best = candidates[0]
            name = "pass" if best["move"] is None else self._point(best["move"])
            self.message = (
                f"Best for {self._game.turn}: {name}, {100 * best['win_rate']:.0f}% "
                f"({best['visits']} of {as_index(playouts)} playouts)."
            )
        return [dict(candidate) for candidate in candidates]

    # -- pictures ------------------------------------------------------------------------

    def svg(self) -> str:
        """The position looked at as `gokata.svg` draws it, the heatmap as shaded points and
        the marks as crosses: the picture shown where no widget can run."""
        game = copy.copy(self._game)
        back = game.move_number - self.index
        if 0 < back <= game.move_number:
            game.rollback(back)
        fill: dict[Coordinate, str] = {
            str(_kata(point)): f"rgba(220, 38, 38, {0.75 * value:.3f})"
            for point, value in self.overlays.get("heatmap", {}).items()
        }
        marks = [str(_kata(point)) for point in self.overlays.get("marks", {})]
        return gokata.svg(
            game,
            None if self.width is None else self.width,
            self.coordinates,
            marks=marks or None,
            fill=fill or None,
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The widget's view, and the `svg` picture for viewers without a live kernel (a
        notebook exported to HTML, GitHub's viewer)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data: dict[str, Any]
        metadata: dict[str, Any]
        if isinstance(bundle, tuple):
            data, metadata = dict(bundle[0]), dict(bundle[1])
        else:
            data, metadata = dict(bundle or {}), {}
        data["image/svg+xml"] = self.svg()
        data["text/plain"] = repr(self)
        return data, metadata

    def __repr__(self) -> str:
        size = self._game.size
        return (
            f"<gokata.widget.Board {size['height']}x{size['width']}, move {self.index} of "
            f"{self.history_length}, {self.turn} to move>"
        )

    # -- what the front end sends --------------------------------------------------------

    def _on_message(self, _widget: object, content: object, _buffers: object = None) -> None:
        """A message from the front end: ``{"type": "play", "point": "C7"}``, ``{"type":
        "pass"}``, ``{"type": "undo"}``, ``{"type": "first" | "previous" | "next" | "last"}``."""
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        self._catch_up()
        end = len(self._positions) - 1
        if kind in ("first", "previous", "next", "last"):
            target = {"first": 0, "previous": self.index - 1, "next": self.index + 1, "last": end}[kind]
            self.message = ""
            self.index = max(0, min(end, target))
        elif kind == "play":
            point = content.get("point")
            if isinstance(point, str):
                self._play_from_board(point)
        elif kind == "pass":
            self._play_from_board(None)
        elif kind == "undo":
            if self.looking_back:
                self.message = self._looking_back_message("take back a move")
            elif end == 0:
                self.message = "There is no move to take back."
            else:
                self.undo()

    def _play_from_board(self, point: Optional[str]) -> None:
        if self.looking_back:
            self.message = self._looking_back_message("play")
            return
        color = self._game.turn
        if point is not None:
            try:
                reason = self._game.illegal_reason(point)
            except (TypeError, ValueError) as error:
                self.message = str(error)
                return
            if reason == "off-board":
                self.message = f"{point} is off the board."
                return
            if reason is not None:
                self.message = f"{self._point(point)} is illegal for {color}: {_WHY.get(reason, reason)}."
                return
        try:
            self.move(point)
        except IllegalMoveError as error:  # the oracle said yes: kept for safety all the same
            self.message = f"{point} is illegal for {color}: {_WHY.get(error.reason or '', error.reason)}."
            return
        move = None if point is None else _kata(self._point(point))
        for callback in list(self._callbacks):
            try:
                callback(self, move)
            except Exception as error:  # shown on the board: a message handler has no caller
                self.message = f"on_move callback failed: {type(error).__name__}: {error}"
                traceback.print_exc(file=sys.stderr)

    def _looking_back_message(self, what: str) -> str:
        return (
            f"You are looking at move {self.index} of {len(self._positions) - 1}: "
            f"press Last to {what}."
        )

    # -- keeping the front end in step ---------------------------------------------------

    @traitlets.validate("index")
    def _valid_index(self, proposal: Any) -> int:
        value = as_index(proposal["value"])
        end = len(self._positions) - 1
        if not 0 <= value <= end:
            raise traitlets.TraitError(f"index {value} is out of range: the game has {end} turns on record")
        return value

    @traitlets.observe("index")
    def _index_changed(self, change: Any) -> None:
        self._show(int(change["new"]))

    def _catch_up(self) -> None:
        """Rebuilds the history if the `Go` was changed directly since it was last shown."""
        last = self._positions[-1]
        if self._game.move_number != len(self._positions) - 1 or _rows(self._game) != last.rows:
            self.refresh()

    def _played(self) -> None:
        self._positions.append(_next_position(self._positions[-1], _rows(self._game), self._game.turn))
        with self.hold_sync():
            self.message = ""
            self._go_to_end()

    def _go_to_end(self) -> None:
        end = len(self._positions) - 1
        with self.hold_sync():
            self.history_length = end
            self.index = end
            self._show(end)

    def _show(self, index: int) -> None:
        position = self._positions[index]
        with self.hold_sync():
            self.rows = list(position.rows)
            self.turn = position.turn
            self.last_move = position.last_move
            self.last_color = position.last_color
            self.captures = {"black": position.captures[0], "white": position.captures[1]}

    def _point(self, coord: Coordinate) -> str:
        """A coordinate in GTP form (``"C7"``), checked by the engine (``ValueError`` when it is
        malformed or off the board)."""
        self._game.get_position(coord)
        height = self._game.size["height"]
        row, col = _parse_point(coord, height)
        return f"{LETTERS[col]}{height - row}"


def _kata(point: Optional[str]) -> Optional[str]:
    """A GTP point (``"C7"``) in the kata form (``"7C"``); ``None`` for ``None`` or a pass."""
    if point is None or point == "pass":
        return None
    return f"{point[1:]}{point[0]}"


def _points_of(marks: Union[Coordinate, Iterable[Coordinate]]) -> Sequence[Coordinate]:
    """The points of ``marks``: one point (a str, or a ``(row, col)`` tuple of numbers), or an
    iterable of points."""
    if isinstance(marks, str):
        return [marks]
    if isinstance(marks, tuple) and len(marks) == 2 and not any(isinstance(item, (str, tuple)) for item in marks):
        return [cast(Coordinate, marks)]
    return list(cast(Iterable[Coordinate], marks))


def _empty_overlays() -> dict[str, dict[str, Any]]:
    return {"heatmap": {}, "marks": {}, "labels": {}}
