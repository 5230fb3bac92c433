"""A game's terms (rated or not, handicap, komi, time control, the players' ranks), its clocks
and what it did to the ratings, as the server tells them: kept alike by a player's own game
(:class:`~gokata.client.RemoteGame`) and a game watched (:class:`~gokata.client.WatchedGame`),
which both take these from the server's frames with :meth:`GameTerms._merge_clocks` and build
their board with :func:`start_position`."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from gokata import Go
from gokata._frames import Frame, Over, RatingChange, _clocks, _get, _opt
from gokata._time_control import Clock, TimeControl

if TYPE_CHECKING:
    from gokata.client import Player

DEFAULT_KOMI = 0.5


@dataclass(frozen=True)
class Terms:
    """What a game was agreed on, as its STATE says (the defaults where an older server says
    nothing)."""

    komi: float
    rated: bool
    handicap: int
    time: Optional[TimeControl]
    ranks: Optional[dict[str, str]]
    scoring: str = "all_alive"


def read_terms(state: Frame) -> Terms:
    """A STATE's terms."""
    ranks = state.get("ranks")
    return Terms(
        komi=float(_get(state, "komi", (int, float))),
        rated=state.get("rated") is not False,
        handicap=_opt(state, "handicap", int) or 0,
        time=dict(state["time"]) if isinstance(state.get("time"), dict) else None,
        ranks={c: str(ranks[c]) for c in ("black", "white") if isinstance(ranks.get(c), str)}
        if isinstance(ranks, dict)
        else None,
        scoring=state["scoring"] if isinstance(state.get("scoring"), str) else "all_alive",
    )


def first_to_move(handicap: int) -> str:
    """Who plays the first turn: white when black has two handicap stones or more."""
    return "white" if handicap >= 2 else "black"


def start_position(size: int, handicap: int) -> Go:
    """The board before the first turn: empty, or black's handicap stones on their fixed points
    (as the server puts them), white to move, and the handicap on record (``HA``), so that a GTP
    engine is given it as a handicap."""
    go = Go(size)
    if handicap < 2:
        return go
    go.handicap_stones(handicap)
    return Go.from_sgf(go.to_sgf().replace("PL[B]", "PL[W]"))


class GameTerms:
    """The terms, clocks and ratings of a game, for :class:`~gokata.client.RemoteGame` and
    :class:`~gokata.client.WatchedGame` alike. Frames are merged by the player's reader thread,
    under the player's lock."""

    _player: Player
    _terms: Terms
    _over: Over | None

    def _init_terms(self, state: Frame | None) -> None:
        self._terms = read_terms(state) if state is not None else Terms(DEFAULT_KOMI, True, 0, None, None)
        self._clocks: dict[str, Clock] = {}
        self._turn_ms: int | None = None

    def _merge_clocks(self, frame: Frame) -> None:
        """The clocks a STATE or a ``played`` frame tells, and the time the player to move
        had when its turn began."""
        clocks = _clocks(frame.get("clocks"))
        if clocks is not None:
            self._clocks = clocks
        turn_ms = _opt(frame, "remaining_ms" if frame.get("type") == "played" else "move_time_ms", int)
        if turn_ms is not None:
            self._turn_ms = turn_ms

    @property
    def komi(self) -> float:
        """The game's komi (0.5 unless an unrated game agreed on another)."""
        return self._terms.komi

    @property
    def rated(self) -> bool:
        """Whether the game moves the players' ratings."""
        return self._terms.rated

    @property
    def handicap(self) -> int:
        """Black's handicap stones (0 for an even game); with 2 or more white moves first."""
        return self._terms.handicap

    @property
    def time(self) -> TimeControl | None:
        """The time control, as the protocol writes it: ``{"system": "byoyomi", "main_ms":
        600000, "period_ms": 30000, "periods": 5}`` (``None`` from a server without them)."""
        return copy.deepcopy(self._terms.time)

    @property
    def scoring(self) -> str:
        """How the game is scored after two passes: ``"all_alive"`` (every stone counts as
        alive: the game ends there) or ``"agreement"`` (a scoring phase: the players agree on
        the dead stones first)."""
        return self._terms.scoring

    @property
    def ranks(self) -> dict[str, str] | None:
        """The players' ranks when the game started, by colour: ``{"black": "3k", "white":
        "1d?"}``."""
        return dict(self._terms.ranks) if self._terms.ranks is not None else None

    @property
    def clocks(self) -> dict[str, Clock]:
        """Each player's clock, by colour, as the server last told it (after each turn; the
        clock of the player to move as its turn began): ``{"black": {"main_ms": 0, "periods":
        3, "period_ms": 30000}, "white": {...}}``. Empty until the server gives one."""
        with self._player._cond:
            return copy.deepcopy(self._clocks)

    @property
    def move_time_ms(self) -> int | None:
        """The time the player to move had when its turn began."""
        with self._player._cond:
            return self._turn_ms

    @property
    def ratings(self) -> dict[str, RatingChange] | None:
        """What the game did to each player's rating, by colour, once it is over (as announced:
        ``None`` for an unrated game, while it goes on, or when its end was learnt from its state)."""
        with self._player._cond:
            return None if self._over is None else self._over.ratings
