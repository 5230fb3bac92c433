"""What a game tells besides its turns, kept alike by a player's own game
(:class:`~gokata.client.RemoteGame`) and a game watched (:class:`~gokata.client.WatchedGame`):
its chat (``messages``, ``on_chat``), its scoring phase under scoring by agreement (``status``,
``marks``), and the values the server reports of them and of undo requests. Also the thread
that runs the games' callbacks. Re-exported by :mod:`gokata.client`."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from gokata._frames import Frame, Over, Score, _get, _score, people_point

if TYPE_CHECKING:
    from gokata.client import Player

log = logging.getLogger("gokata.client")

# What the server reports


@dataclass(frozen=True)
class ChatMessage:
    """A chat message of game ``game``: ``sender`` (a name) said ``text`` when ``ply`` turns
    had been played, at ``at_ms`` (the server's clock, milliseconds since the Unix epoch), on
    ``channel`` ``"players"``, or ``"watchers"`` for a watcher's message while the game is on
    (which only watchers get). Show ``text`` as text, never as markup."""

    game: str
    sender: str
    text: str
    ply: int
    at_ms: int
    channel: str

    def __str__(self) -> str:
        return f"{self.sender}: {self.text}"


@dataclass(frozen=True)
class Marks:
    """The scoring phase of a game scored by agreement, as it stands: the stones marked
    ``dead`` (kata form, in board order), the area ``score`` with them taken off, and which
    players have ``accepted`` these marks (``{"black": True, "white": False}``). Any change
    of the marks clears both acceptances; both accepting ends the game by ``score``."""

    game: str
    dead: tuple[str, ...]
    score: Score
    accepted: dict[str, bool]

    def __str__(self) -> str:
        dead = " ".join(people_point(point) for point in self.dead) or "none"
        black, white, komi = self.score["black"], self.score["white"], self.score["komi"]
        accepted = [color for color in ("black", "white") if self.accepted.get(color)]
        return (
            f"dead: {dead}; black {black:g}, white {white:g} + {komi:g} komi; "
            f"accepted by {' and '.join(accepted) or 'nobody yet'}"
        )


@dataclass(frozen=True)
class UndoRequest:
    """A request to take back the last turn of game ``game``, asked by ``by`` (a colour) when
    ``ply`` turns had been played (the turn taken back would be turn ``ply``, counted from 1)."""

    game: str
    ply: int
    by: str


@dataclass(frozen=True)
class Undone:
    """(a watched game's news) The last turn was taken back: ``moves`` turns are left, and the
    next :class:`~gokata.client.Played` has ``ply`` ``moves``."""

    game: str
    moves: int


@dataclass(frozen=True)
class Resumed:
    """(a watched game's news) The players left the scoring phase to play on: ``to_move``, who
    passed first, is to move."""

    game: str
    to_move: str


def read_chat(game: str, entry: Frame) -> ChatMessage:
    """A ``chat`` frame, or a message of a STATE's ``chat``."""
    return ChatMessage(
        game,
        _get(entry, "from", str),
        _get(entry, "text", str),
        _get(entry, "ply", int),
        _get(entry, "at_ms", int),
        str(entry.get("channel") or "players"),
    )


def read_marks(game: str, entry: Frame) -> Marks:
    """A ``scoring`` frame, or a STATE's ``marks``."""
    accepted = _get(entry, "accepted", dict)
    score = _score(_get(entry, "score", dict))
    assert score is not None
    return Marks(
        game,
        tuple(str(point) for point in _get(entry, "dead", list)),
        score,
        {color: accepted.get(color) is True for color in ("black", "white")},
    )


# The games' side


class GameEvents:
    """The chat and the scoring phase of a game, for :class:`~gokata.client.RemoteGame` and
    :class:`~gokata.client.WatchedGame` alike. Frames are taken by the player's reader thread,
    under the player's lock."""

    _player: Player
    _over: Over | None
    id: str

    def _init_events(self) -> None:
        self._messages: list[ChatMessage] = []
        self._status = "playing"
        self._marks: Marks | None = None
        self._marks_version = 0  # how many times the marks were told
        self.on_chat: Optional[Callable[[ChatMessage], object]] = None
        """Called with each new :class:`ChatMessage` (mine too, as the server echoes it), on
        a thread of the client's own for callbacks (one at a time, in order): it may call the
        client, and should not take long."""

    @property
    def messages(self) -> list[ChatMessage]:
        """The chat as received, oldest first: the last messages the server keeps with the
        game (100), then each one said since (``on_chat`` is told of those)."""
        with self._player._cond:
            return list(self._messages)

    @property
    def status(self) -> str:
        """``"playing"``; ``"scoring"`` after two passes in a row in a game scored by
        agreement, until both players accept the marks or one resumes play; ``"over"``."""
        with self._player._cond:
            return "over" if self._over is not None else self._status

    @property
    def marks(self) -> Marks | None:
        """The scoring phase's marks as last told (dead stones, score, who accepted); ``None``
        but in the scoring phase."""
        with self._player._cond:
            return self._marks if self._status == "scoring" and self._over is None else None

    def chat(self, text: str, *, timeout: float | None = None) -> None:
        """Says ``text`` in the game; returns once the server has taken it (the message, as
        everyone gets it, is then in :attr:`messages`). A player's message goes to both
        players and the watchers; a watcher's, while the game is on, to the watchers only.
        Raises :class:`~gokata.client.BadRequestError` (empty once trimmed, over 500
        characters, a control character such as a line break),
        :class:`~gokata.client.RateLimitedError` (more than 5 messages in 10 seconds), or
        ``TimeoutError`` (it is not sent again after a reconnection)."""
        self._player._acknowledged({"type": "chat", "game": self.id, "text": text}, timeout)

    # Frames from the server (the reader thread, under the player's lock)

    def _adopt_events(self, state: Frame) -> list[ChatMessage]:
        """A STATE's chat, status and marks; the messages it has that were not known."""
        known = set(self._messages)
        new = []
        for entry in state.get("chat") or []:
            if isinstance(entry, dict):
                message = read_chat(self.id, entry)
                if message not in known:
                    known.add(message)
                    new.append(message)
        self._messages += new
        status = _get(state, "status", str)
        self._status = status
        marks = state.get("marks")
        if status == "scoring" and isinstance(marks, dict):
            self._set_marks(read_marks(self.id, marks))
        elif status != "scoring":
            self._marks = None
        return new

    def _on_chat(self, frame: Frame) -> ChatMessage | None:
        """A ``chat`` frame: the message, if it is new (``on_chat`` is told)."""
        message = read_chat(self.id, frame)
        if message in self._messages[-200:]:
            return None
        self._messages.append(message)
        self._player._callbacks.call(self.on_chat, message)
        return message

    def _on_scoring(self, frame: Frame) -> Marks:
        """A ``scoring`` frame: the game is being scored, with these marks."""
        self._status = "scoring"
        marks = read_marks(self.id, frame)
        self._set_marks(marks)
        return marks

    def _set_marks(self, marks: Marks) -> None:
        if marks != self._marks:
            self._marks = marks
            self._marks_version += 1


# The callbacks' thread


class Callbacks:
    """Runs the games' callbacks (``on_chat``, ``on_undo_request``) one at a time, in order, on
    a thread of their own (started with the first), so that they may call the client (answer
    a request, say something), which the reader thread could not: it must read the answers."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._queue: queue.SimpleQueue[Optional[tuple[Callable[..., object], tuple[Any, ...]]]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def call(self, callback: Optional[Callable[..., object]], *args: Any) -> None:
        """``callback(*args)`` on the callbacks' thread (nothing if ``callback`` is None)."""
        if callback is None:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()
        self._queue.put((callback, args))

    def close(self) -> None:
        """Ends the thread once the callbacks queued have run."""
        if self._thread is not None:
            self._queue.put(None)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            callback, args = item
            try:
                callback(*args)
            except Exception:  # a callback's failure is its own: the others still run
                log.exception("a gokata.client callback failed")
