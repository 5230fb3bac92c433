"""What the client and the server say to each other, as the client reads it: the errors a
request may meet, the frames' values (`Played`, `Over`, `Record`, `Score`, `RatingChange`,
`Clock`), their readers, the server's address (`websocket_url`), and a request awaiting its
answer. Re-exported by :mod:`gokata.client`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, TypedDict, Union
from urllib.parse import urlsplit, urlunsplit

import gokata
from gokata._time_control import Clock

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
DEFAULT_PORT = 8080
"""The port ``gokata serve`` listens on unless told otherwise: that of a server given as a bare
host, without a port."""
RECONNECT_FOR = 300.0
"""Seconds a lost connection is retried before the player gives up (default)."""

Frame = dict[str, Any]
Point = Optional[str]
Coordinate = Union[str, tuple[int, int]]


# Errors


class ServerError(ValueError):
    """A request the server refused (``{"type":"error"}``), or one the client refuses for the
    same kind of reason. ``code`` is the protocol's error code; nothing changed."""

    code: str
    message: str
    game: str | None
    reason: str | None
    frame: Frame | None

    def __init__(self, code: str, message: str, frame: Frame | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.frame = frame
        game = frame.get("game") if frame else None
        reason = frame.get("reason") if frame else None
        self.game = game if isinstance(game, str) else None
        self.reason = reason if isinstance(reason, str) else None


class BadRequestError(ServerError):
    """``bad_request``: malformed request, bad name or point, or a second hello."""


class NameTakenError(ServerError):
    """``name_taken``: the name is registered; sign in with its token."""


class BadTokenError(ServerError):
    """``bad_token``: the token does not belong to the name."""


class NotYourGameError(ServerError):
    """``not_your_game``: a move, pass or resignation in a game the player does not play."""


class NotYourTurnError(ServerError):
    """``not_your_turn``: a move or pass out of turn."""


class UnknownGameError(ServerError):
    """``unknown_game``: no game with that id."""


class RateLimitedError(ServerError):
    """``rate_limited``: too many frames (the server closed the connection), or too many chat
    messages or new names from one place in a while (the connection stays open)."""


class IllegalMoveError(ServerError, gokata.IllegalMoveError):
    """``illegal_move``: occupied, suicide or ko (``reason``), at ``coord`` (kata form) for
    ``color`` (mine); also a :class:`gokata.IllegalMoveError`, as in the local engine. (A point
    off the board raises :class:`BadRequestError` before it is sent, as ``gokata.Go.move``
    raises a plain ``ValueError``.)"""


class GameOverError(ServerError):
    """(client side, ``game_over``) a turn or resignation in a game that is over."""


class OutOfSyncError(ServerError):
    """(client side, ``out_of_sync``) the game moved on before the turn arrived (another
    connection of the same player played); the game is resynchronised, the turn not played."""


class ConnectionFailedError(ConnectionError):
    """The server could not be reached, the player was closed, or a lost connection could not
    be restored."""


_ERRORS: dict[str, type[ServerError]] = {
    "bad_request": BadRequestError,
    "name_taken": NameTakenError,
    "bad_token": BadTokenError,
    "not_your_game": NotYourGameError,
    "not_your_turn": NotYourTurnError,
    "illegal_move": IllegalMoveError,
    "unknown_game": UnknownGameError,
    "rate_limited": RateLimitedError,
}


def _server_error(frame: Frame) -> ServerError:
    code = frame.get("code")
    code = code if isinstance(code, str) else "unknown"
    message = frame.get("message")
    message = message if isinstance(message, str) else code
    return _ERRORS.get(code, ServerError)(code, message, frame)


# What the server reports


class Score(TypedDict):
    """Area score after two passes: stones plus surrounded empty points; white adds komi."""

    black: float
    white: float
    komi: float


@dataclass(frozen=True)
class Record:
    """A player's wins and losses, whether the player is a program (a bot), and the player's
    Glicko-2 ``rating``, ``deviation``, ``volatility``, ``rank`` (``"6k?"``: a ``?`` while the
    deviation is 160 or more) and ``rated_games`` (``None`` where the server did not say)."""

    name: str
    wins: int
    losses: int
    bot: bool = False
    rating: Optional[float] = None
    deviation: Optional[float] = None
    volatility: Optional[float] = None
    rank: Optional[str] = None
    rated_games: Optional[int] = None


@dataclass(frozen=True)
class RatingChange:
    """What a rated game did to a player's rating: ``before`` and ``after`` it, and the
    ``rank`` after it."""

    before: float
    after: float
    rank: str

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class Played:
    """A turn stored by the server: ``ply`` turns were played before it; ``point`` is ``None``
    for a pass; ``captured`` the stones taken; ``remaining_ms`` the time of ``to_move`` and
    ``clocks`` both players' clocks after the turn, by colour (both ``None`` when the turn was
    learnt from a resynchronisation rather than announced)."""

    game: str
    ply: int
    color: str
    point: str | None
    captured: tuple[str, ...]
    to_move: str
    remaining_ms: int | None = None
    clocks: Optional[dict[str, Clock]] = None


@dataclass(frozen=True)
class Over:
    """The end of a game: ``winner`` ``"black"``/``"white"`` (``None``: a draw, which a
    whole-number komi allows), ``reason`` ``"passes"``, ``"timeout"`` or ``"resign"``,
    ``score`` after two passes (else ``None``), both players' ``records`` with this result
    counted and, for a rated game, ``ratings``, what it did to each player's rating by colour
    (both ``None`` when learnt from a game's state; ``ratings`` ``None`` for an unrated game)."""

    game: str
    winner: Optional[str]
    reason: str
    score: Score | None
    records: dict[str, Record] | None = None
    ratings: Optional[dict[str, RatingChange]] = None

    @property
    def how(self) -> str:
        """How the winner won, in the words of the server's page: ``"by resignation"``,
        ``"on time"``, ``"by 3.5 points"`` (after two passes); ``"a draw"`` for a draw."""
        if self.winner is None:
            return "a draw"
        if self.score is not None:
            margin = abs(self.score["black"] - self.score["white"] - self.score["komi"])
            return f"by {margin:g} point{'' if margin == 1 else 's'}"
        return {"resign": "by resignation", "timeout": "on time"}.get(self.reason, f"by {self.reason}")


# Reading frames: the server's JSON is checked before use


def _get(frame: Frame, key: str, kind: type[Any] | tuple[type[Any], ...]) -> Any:
    value = frame.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float)):
        raise ValueError(f"field {key!r} of a {frame.get('type')!r} frame is {value!r}")
    return value


def _opt(frame: Frame, key: str, kind: type[Any] | tuple[type[Any], ...]) -> Any:
    return None if frame.get(key) is None else _get(frame, key, kind)


def _score(value: Any) -> Score | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"score is {value!r}")
    number = (int, float)
    return Score(
        black=_get(value, "black", number),
        white=_get(value, "white", number),
        komi=_get(value, "komi", number),
    )


def _records(value: Any) -> dict[str, Record]:
    if not isinstance(value, dict):
        raise ValueError(f"records is {value!r}")
    records: dict[str, Record] = {}
    for color in ("black", "white"):
        entry = value.get(color)
        if not isinstance(entry, dict):
            raise ValueError(f"records.{color} is {entry!r}")
        records[color] = _record(entry)
    return records


def _record(entry: Frame) -> Record:
    """A RECORD: a player's record, rating and rank."""
    number = (int, float)
    return Record(
        _get(entry, "name", str),
        _get(entry, "wins", int),
        _get(entry, "losses", int),
        entry.get("bot") is True,
        _opt(entry, "rating", number),
        _opt(entry, "deviation", number),
        _opt(entry, "volatility", number),
        _opt(entry, "rank", str),
        _opt(entry, "rated_games", int),
    )


def _ratings(value: Any) -> dict[str, RatingChange] | None:
    """``over``'s ``ratings``: ``None`` for an unrated game."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"ratings is {value!r}")
    ratings: dict[str, RatingChange] = {}
    number = (int, float)
    for color in ("black", "white"):
        entry = value.get(color)
        if not isinstance(entry, dict):
            raise ValueError(f"ratings.{color} is {entry!r}")
        ratings[color] = RatingChange(
            float(_get(entry, "before", number)), float(_get(entry, "after", number)), _get(entry, "rank", str)
        )
    return ratings


def _clocks(value: Any) -> dict[str, Clock] | None:
    """Both players' CLOCK, by colour (``None`` if the server gave none)."""
    if not isinstance(value, dict):
        return None
    clocks: dict[str, Clock] = {}
    for color in ("black", "white"):
        entry = value.get(color)
        if not isinstance(entry, dict):
            raise ValueError(f"clocks.{color} is {entry!r}")
        clock = Clock(main_ms=_get(entry, "main_ms", int))
        for key in ("periods", "period_ms", "stones"):
            if entry.get(key) is not None:
                clock[key] = _get(entry, key, int)
        clocks[color] = clock
    return clocks


def _played(game: str, frame: Frame) -> Played:
    """A ``played`` frame of ``game``."""
    return Played(
        game,
        _get(frame, "ply", int),
        _get(frame, "color", str),
        _opt(frame, "point", str),
        tuple(_get(frame, "captured", list)),
        _get(frame, "to_move", str),
        _opt(frame, "remaining_ms", int),
        _clocks(frame.get("clocks")),
    )


def _over(game: str, frame: Frame, known: Over | None = None) -> Over:
    """An ``over`` frame of ``game``, or a finished game's STATE, which has no records or
    ratings: those of the end ``known`` already, if any, are kept."""
    records: dict[str, Record] | None
    if frame.get("type") == "over":
        records, ratings = _records(frame.get("records")), _ratings(frame.get("ratings"))
    else:
        records, ratings = (known.records, known.ratings) if known is not None else (None, None)
    return Over(
        game,
        _opt(frame, "winner", str),
        _get(frame, "reason", str),
        _score(frame.get("score")),
        records,
        ratings,
    )


def _other(color: str) -> str:
    return "white" if color == "black" else "black"


def people_point(point: str) -> str:
    """A point as people write it, column letter first: ``"7C"`` (the protocol's kata form)
    is ``"C7"``; anything else is returned as it is."""
    match = _KATA_POINT.fullmatch(point)
    return f"{match.group(2)}{match.group(1)}" if match else point


def people_points(text: str) -> str:
    """``text`` with every kata-form point in it (``5E``) written column letter first (``E5``),
    for a message shown to people (a server's error message, say)."""
    return _KATA_POINT_IN_TEXT.sub(lambda match: f"{match.group(2)}{match.group(1)}", text)


_KATA_POINT = re.compile(r"([1-9][0-9]?)([A-HJ-Z])")
_KATA_POINT_IN_TEXT = re.compile(r"(?<![\w])([1-9][0-9]?)([A-HJ-Z])(?![\w])")


def websocket_url(url: str) -> str:
    """The WebSocket address of a server given as ``ws://host:port/ws``, ``http://host:port/``
    or ``host:port``: ``ws://host:port/ws`` (``wss`` for ``https``). A bare host, without a
    scheme or a port (``localhost``), is on ``gokata serve``'s default port, 8080; a URL with a
    scheme and no port keeps the scheme's own (80 or 443: a server behind a proxy). Raises
    ValueError naming what is wrong: the scheme, a missing host, a port that is not 1 to 65535."""
    text = url.strip()
    bare = "://" not in text
    if bare:
        text = "ws://" + text
    parts = urlsplit(text)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme.lower())
    netloc = parts.netloc
    after_host = netloc.rsplit("@", 1)[-1]
    if after_host.startswith("["):  # an IPv6 address: [::1]:8080
        after_host = after_host.partition("]")[2]
    elif after_host.count(":") > 1:
        raise ValueError(f"not a server address: {url!r} (an IPv6 address goes in brackets: [::1]:8080)")
    if scheme is None or not parts.hostname:
        raise ValueError(f"not a server address: {url!r} (try ws://HOST:PORT/ws)")
    port_text = after_host.partition(":")[2]
    if ":" in after_host and not (port_text.isdigit() and port_text.isascii() and 1 <= int(port_text) <= 65535):
        raise ValueError(f"not a server address: {url!r}: the port must be 1 to 65535, not {port_text!r}")
    if bare and ":" not in after_host:
        netloc += f":{DEFAULT_PORT}"
    path = parts.path
    if scheme != parts.scheme.lower() or path in ("", "/"):
        path = path.rstrip("/")
        if not path.endswith("/ws"):
            path += "/ws"
    return urlunsplit((scheme, netloc, path, parts.query, ""))


class _Request:
    """A request waiting for its answer: a turn or resignation, a seek, a cancel, a sync; or
    one that the server answers only when it refuses it (``acknowledged``: an undo, a chat
    message, a mark...), followed by a ``ping`` with the same ``ref`` whose ``pong`` says it
    was taken."""

    def __init__(self, frame: Frame, acknowledged: bool = False) -> None:
        self.frame = frame
        self.acknowledged = acknowledged
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None

    def resolve(self, result: Any = None, error: BaseException | None = None) -> None:
        if not self.done:
            self.done, self.result, self.error = True, result, error
