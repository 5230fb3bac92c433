"""Games played through a site as real clients would: a fixed legal script per game, and seats
that reconnect with their tokens to an entry point that is alive and resend an unacknowledged
turn with the same `ply`. Every `played` on one connection must be the next turn after the last
it saw: no gap, no duplicate.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Sequence
from typing import Optional

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from gokata import Go
from support.server_process import Entry, Frame, Player, ServerProcess, Wire, sign_in

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def scripted_game(seed: int, turns: int, size: int = 9) -> list[Optional[str]]:
    """``turns`` random legal moves, then two passes."""
    rng = random.Random(seed)
    go = Go(size)
    moves: list[Optional[str]] = []
    while len(moves) < turns:
        legal = [
            f"{row}{column}"
            for row in range(1, size + 1)
            for column in COLUMNS[:size]
            if go.illegal_reason(f"{row}{column}") is None
        ]
        point = rng.choice(legal)
        go.move(point)
        moves.append(point)
    return moves + [None, None]


def turn_frame(game: str, ply: int, point: Optional[str]) -> Frame:
    if point is None:
        return {"type": "pass", "game": game, "ply": ply}
    return {"type": "move", "game": game, "ply": ply, "point": point}


class Seat:
    """One player's connection to the site, moved to a live entry point when its own dies.

    Every `played` on one connection must be the next turn after the last it saw (no gap, no
    duplicate); `next_ply` is that turn."""

    def __init__(self, servers: Sequence[Entry], index: int, player: Player) -> None:
        self.servers = servers
        self.index = index
        self.name = player.name
        self.token = player.token
        self.wire: Wire = player.wire
        self.next_ply = 0
        self.reconnects = 0

    def reconnect(self, game: str) -> Frame:
        """Signs in again on the first live process from the next one on; the game's state."""
        for _ in range(50):
            for offset in range(1, len(self.servers) + 1):
                server = self.servers[(self.index + offset) % len(self.servers)]
                if not server.running():
                    continue
                try:
                    again = sign_in(server, self.name, self.token)
                except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError, AssertionError):
                    continue
                self.index = (self.index + offset) % len(self.servers)
                self.wire = again.wire
                self.reconnects += 1
                live = [state for state in again.welcome["games"] if state["id"] == game]
                state: Frame = live[0] if live else self.finished(game)
                self.next_ply = len(state["moves"])
                return state
            time.sleep(0.1)
        raise AssertionError(f"{self.name} found no live process")

    def finished(self, game: str) -> Frame:
        """The state of a game that is no longer live (so no turn of it can arrive)."""
        self.wire.send({"type": "sync", "game": game})
        while True:
            frame = self.wire.recv()
            if frame["type"] == "state":
                state: Frame = frame["game"]
                return state

    def frame(self, timeout: float = 10.0) -> Frame:
        frame = self.wire.recv(timeout)
        if frame["type"] == "played":
            assert frame["ply"] == self.next_ply, f"{self.name} expected turn {self.next_ply}, got {frame}"
            self.next_ply += 1
        return frame


class GameDriver:
    """Plays ``script`` in one game for two seats, as clients that reconnect would."""

    def __init__(self, game: str, script: list[Optional[str]], black: Seat, white: Seat) -> None:
        self.game = game
        self.script = script
        self.seats = (black, white)
        self.acknowledged = 0
        """Turns whose `played` the mover saw."""
        self.over: Optional[Frame] = None
        self.failure: Optional[BaseException] = None
        self.unavailable = 0
        self.hold_at: Optional[int] = None
        """A turn to wait at, before playing it, until `released` is set."""
        self.held = threading.Event()
        self.released = threading.Event()

    def run(self) -> None:
        try:
            while self.acknowledged < len(self.script):
                if self.acknowledged == self.hold_at:
                    self.held.set()
                    self.released.wait(60)
                self.play_turn(self.acknowledged)
            self.await_over()
        except BaseException as error:  # the test reports it
            self.failure = error
        finally:
            self.held.set()  # a driver that failed before its hold holds nobody up

    def play_turn(self, ply: int) -> None:
        mover, other = self.seats[ply % 2], self.seats[1 - ply % 2]
        deadline = time.monotonic() + 60
        sent = False
        while time.monotonic() < deadline:
            try:
                if not sent:
                    mover.wire.send(turn_frame(self.game, ply, self.script[ply]))
                    sent = True
                frame = mover.frame()
            except (ConnectionClosed, TimeoutError, OSError):
                state = mover.reconnect(self.game)
                sent = False
                if len(state["moves"]) > ply:
                    assert state["moves"][ply] == self.script[ply], state
                    break
                continue
            if frame["type"] == "played" and frame["ply"] == ply:
                break
            if frame["type"] == "error" and frame["code"] == "unavailable":
                self.unavailable += 1
                time.sleep(0.1)
                sent = False
            elif frame["type"] == "state":
                moves = frame["game"]["moves"]
                if len(moves) > ply:
                    assert moves[ply] == self.script[ply], frame
                    break
                sent = False
            elif frame["type"] == "error":
                raise AssertionError(f"turn {ply} refused: {frame}")
        else:
            raise AssertionError(f"turn {ply} of {self.game} never went through")
        self.acknowledged = ply + 1
        self.catch_up(other, ply)

    def catch_up(self, seat: Seat, ply: int) -> None:
        """The other seat sees turn ``ply`` (from its process, or by reconnecting)."""
        deadline = time.monotonic() + 30
        while seat.next_ply <= ply and time.monotonic() < deadline:
            try:
                seat.frame()
            except (ConnectionClosed, TimeoutError, OSError):
                seat.reconnect(self.game)
        assert seat.next_ply > ply, f"{seat.name} never saw turn {ply} of {self.game}"

    def await_over(self) -> None:
        for seat in self.seats:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    frame = seat.frame()
                except (ConnectionClosed, TimeoutError, OSError):
                    state = seat.reconnect(self.game)
                    if state["status"] == "over":
                        break
                    continue
                if frame["type"] == "over":
                    self.over = frame
                    break
            else:
                raise AssertionError(f"{seat.name} never saw the end of {self.game}")


def run_drivers(drivers: list[GameDriver]) -> list[threading.Thread]:
    threads = [threading.Thread(target=driver.run, daemon=True) for driver in drivers]
    for thread in threads:
        thread.start()
    return threads


def join_drivers(drivers: list[GameDriver], threads: list[threading.Thread], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    for driver in drivers:
        assert driver.failure is None, f"{driver.game}: {driver.failure!r}"
        assert driver.over is not None, driver.game


def check_stored(server: ServerProcess, drivers: list[GameDriver]) -> None:
    """Every game is stored as played, once: its moves are its script."""
    for driver in drivers:
        state = server.get_json(f"/api/games/{driver.game}")
        assert state["moves"] == driver.script, driver.game
        assert state["status"] == "over" and state["reason"] == "passes"


def paired(black: Player, white: Player, size: int = 9) -> str:
    """``black`` seeks black and ``white`` white: the id of the game both are told of."""
    black.wire.request({"type": "seek", "size": size, "color": "black"}, "seeking")
    white.wire.send({"type": "seek", "size": size, "color": "white"})
    game = str(white.wire.expect("start")["game"]["id"])
    assert black.wire.expect("start")["game"]["id"] == game
    return game


def drive_until(drivers: list[GameDriver], turns: int, timeout: float = 30) -> list[threading.Thread]:
    """Starts every game's driver and holds each at ``turns`` turns acknowledged; once all are
    there, lets them go on together and returns: whatever the caller does next strikes every
    game in its middle, with turns in flight (a fast game cannot be over already)."""
    assert all(turns < len(driver.script) for driver in drivers)
    for driver in drivers:
        driver.hold_at = turns
    threads = run_drivers(drivers)
    deadline = time.monotonic() + timeout
    try:
        for driver in drivers:
            held = driver.held.wait(max(0.0, deadline - time.monotonic()))
            assert held, f"{driver.game} never reached turn {turns}"
    finally:
        for driver in drivers:
            driver.released.set()
    return threads