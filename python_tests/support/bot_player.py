"""A program that plays on a real ``gokata serve``, in a thread of the test: the computer
opponent of the page's and the terminal's tests.

It signs in through ``gokata.client`` as a bot and seeks with the default ``opponent``, so the
server pairs it only with people who asked for the computer (or for anyone). On its turn it
plays the bot's move after a short search, and passes once its opponent has passed, so that a
person's pass ends the game by two passes."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Optional

import gokata
from gokata.client import ConnectionFailedError, Over, RemoteGame, connect

PLAYOUTS = 50
"""Simulations a move: a legal, quick, not entirely foolish move."""


class BotPlayer:
    """Plays ``games`` games of ``size`` one after the other as ``name`` at ``url``, then stops.
    A failure in its thread is raised by :meth:`stop` (and so on leaving the ``with``)."""

    def __init__(self, url: str, name: str, size: int = 9, games: int = 1) -> None:
        self.name = name
        self.size = size
        self.games = games
        self.played: list[RemoteGame] = []
        """Its games so far, the one being played last."""
        self.player = connect(url, name, bot=True)
        self._stopping = threading.Event()
        self._failure: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, name=f"bot-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for _ in range(self.games):
                game = self.player.seek(self.size, "any")
                self.played.append(game)
                self._play(game)
        except BaseException as error:  # kept for stop() to raise in the test's thread
            if not (self._stopping.is_set() and isinstance(error, ConnectionFailedError)):
                self._failure = error

    def _play(self, game: RemoteGame) -> None:
        while not isinstance(game.wait(), Over):
            moves = game.moves
            if moves and moves[-1] is None:
                game.pass_turn()
                continue
            point = gokata.genmove(game.local_copy(), playouts=PLAYOUTS, seed=len(moves), threads=1)
            if point is None:
                game.pass_turn()
            else:
                game.move(point)

    def stop(self) -> None:
        """Leaves the server (its seek is withdrawn; a game goes on there, its clock running)."""
        self._stopping.set()
        self.player.close()
        self._thread.join(timeout=10)
        assert not self._thread.is_alive(), f"the bot {self.name} did not stop"
        if self._failure is not None:
            raise AssertionError(f"the bot {self.name} failed: {self._failure!r}") from self._failure

    def __enter__(self) -> BotPlayer:
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.stop()
