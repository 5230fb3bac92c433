"""Watching over the WebSocket, against real ``gokata serve`` processes: ``watch`` (a game's
state, then its every turn, in order, once each, and its end once), ``unwatch``, the limit of
64 games a connection, unknown and finished games, ``watch_lobby`` (the lobby's lists pushed
when they change, at most once a second), and a player's ``sync`` again and again while its
game is played (each later turn once after each state). Each runs on SQLite and on PostgreSQL
(the `databases` fixture); and on a site of three processes sharing one PostgreSQL database, a
watcher on one process sees every turn of a game played through the two others, across a
``kill -9`` of one of them and its player's reconnection to another.

A watcher is a raw `Wire` that never says hello; every `played` it gets must have the `ply`
after the last turn it knows (from its state or an earlier `played`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from websockets.exceptions import ConnectionClosed

from support.databases import Databases
from support.expected import shows
from support.game_driver import GameDriver, Seat, drive_until, join_drivers, paired, scripted_game
from support.postgres_cluster import PostgresCluster
from support.server_process import Frame, Player, ServerProcess, Wire, fresh_name, play, sign_in, start_game
from support.waiting import wait_until

MAX_WATCHED = 64
"""Games one connection may watch at once (docs/protocol.md)."""
LOBBY_EVERY = 1.0
"""The least time, in seconds, between two lobbies pushed to one connection."""
JITTER = 0.15
"""Seconds two pushes a second apart may seem closer by, from delivery on loopback."""
HELLO_TIME = 10.0
"""Seconds within which a connection that does not watch must say hello."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("watching"), "server")) as process:
        yield process


class Watcher:
    """A connection without a name that watches one game and checks what it gets: the state,
    then each turn once, in order, with no gap, then the end once."""

    def __init__(self, server: ServerProcess, game: str) -> None:
        self.game = game
        self.wire = server.connect()
        self.wire.send({"type": "watch", "game": game})
        self.state: Frame = self.wire.expect("state")["game"]
        assert self.state["id"] == game
        self.moves: list[Optional[str]] = list(self.state["moves"])
        self.over: Optional[Frame] = None

    def take(self, frame: Frame) -> None:
        """One frame of the game's flow, checked against what came before."""
        assert frame.get("game") == self.game, frame
        assert self.over is None, f"{frame} after the end"
        if frame["type"] == "played":
            assert frame["ply"] == len(self.moves), f"expected turn {len(self.moves)}, got {frame}"
            self.moves.append(frame["point"])
        elif frame["type"] == "over":
            self.over = frame
        else:
            raise AssertionError(f"unexpected {frame}")

    def follow(self, timeout: float = 10.0) -> Frame:
        """Takes frames until the game's end; its `over`."""
        while self.over is None:
            self.take(self.wire.recv(timeout))
        return self.over


def test_watchers_joining_while_a_game_is_played_see_every_turn_once_in_order(server: ServerProcess) -> None:
    black, white, state = start_game(server, "seen")
    game = state["id"]
    script = scripted_game(31, 40)
    played: list[Frame] = []
    failure: list[BaseException] = []

    def play_it() -> None:
        try:
            for ply, point in enumerate(script):
                mover, other = (black, white) if ply % 2 == 0 else (white, black)
                played.append(play(mover, other, game, ply, point))
                time.sleep(0.005)
        except BaseException as error:  # reported below
            failure.append(error)

    player = threading.Thread(target=play_it)
    watchers = [Watcher(server, game)]
    player.start()
    try:
        # Watchers join while turns are stored and announced: each state has some turns, and
        # each watcher gets exactly the rest. None joins in the last turns: one whose watch
        # came after the end would have a finished game's state, and nothing to follow.
        while player.is_alive() and len(watchers) < 12 and len(played) < len(script) - 10:
            watchers.append(Watcher(server, game))
            time.sleep(0.02)
    finally:
        player.join(60)
    assert not failure, failure
    over = black.wire.expect("over")
    assert white.wire.expect("over") == over
    assert len({len(watcher.state["moves"]) for watcher in watchers}) > 2, "watchers joined at various turns"
    for watcher in watchers:
        assert watcher.follow() == over
        assert watcher.moves == script
        watcher.wire.silent(0.3)
    # The copies are the players'.
    late = watchers[-1]
    assert late.state["moves"] == script[: len(late.state["moves"])]
    for player_wire in (black.wire, white.wire):
        player_wire.close()


def test_unwatch_stops_the_flow_and_a_finished_game_is_only_its_state(server: ServerProcess) -> None:
    black, white, state = start_game(server, "unw")
    game = state["id"]
    watcher = Watcher(server, game)
    assert (watcher.state["moves"], watcher.state["status"]) == ([], "playing")
    assert watcher.state["connected"] == {"black": True, "white": True}
    play(black, white, game, 0, "5E")
    watcher.take(watcher.wire.expect("played"))
    # Watching again: the state again, with the turn; the turns after it come once.
    again = watcher.wire.request({"type": "watch", "game": game}, "state")["game"]
    assert again["moves"] == ["5E"]
    play(white, black, game, 1, "4D")
    watcher.take(watcher.wire.expect("played"))
    watcher.wire.ping()
    assert watcher.wire.request({"type": "unwatch", "game": game}, "unwatched") == {"type": "unwatched", "game": game}
    play(black, white, game, 2, None)
    watcher.wire.silent(0.5)
    # Watched by another: the end comes once, and then nothing.
    other = Watcher(server, game)
    assert other.moves == ["5E", "4D", None]
    white.wire.send({"type": "resign", "game": game})
    over = white.wire.expect("over")
    assert other.follow() == over
    other.wire.silent(0.5)
    # A finished game: its state, and nothing more.
    finished = Watcher(server, game)
    assert (finished.state["status"], finished.state["winner"], finished.state["reason"]) == ("over", "black", "resign")
    assert finished.state["moves"] == ["5E", "4D", None]
    finished.wire.ping()
    finished.wire.silent(0.3)
    for wire in (black.wire, white.wire, watcher.wire, other.wire, finished.wire):
        wire.close()


def test_watching_an_unknown_game_is_refused(server: ServerProcess) -> None:
    with server.connect() as wire:
        for game in ("nosuchgame12", "not an id"):
            refused = wire.error({"type": "watch", "game": game}, "unknown_game")
            assert refused["game"] == game and game in refused["message"], refused
        wire.error({"type": "watch"}, "bad_request")
        wire.ping()


def test_a_connection_watches_at_most_64_games(server: ServerProcess) -> None:
    players: list[Player] = []
    games: list[str] = []
    try:
        for _ in range(MAX_WATCHED + 1):
            black, white, state = start_game(server, "lim")
            players += [black, white]
            games.append(state["id"])
        with server.connect() as wire:
            for game in games[:MAX_WATCHED]:
                wire.send({"type": "watch", "game": game})
            for game in games[:MAX_WATCHED]:
                assert wire.expect("state")["game"]["id"] == game
            refused = wire.error({"type": "watch", "game": games[MAX_WATCHED]}, "bad_request")
            assert str(MAX_WATCHED) in refused["message"], refused
            # A game already watched is answered again, not refused, and still watched once.
            assert wire.request({"type": "watch", "game": games[0]}, "state")["game"]["id"] == games[0]
            black, white = players[0], players[1]
            play(black, white, games[0], 0, "5E")
            assert wire.expect("played")["ply"] == 0
            wire.ping()
            # Unwatching one makes room for another.
            wire.request({"type": "unwatch", "game": games[1]}, "unwatched")
            last = wire.request({"type": "watch", "game": games[MAX_WATCHED]}, "state")
            assert last["game"]["id"] == games[MAX_WATCHED]
    finally:
        for player in players:
            player.wire.close()


@pytest.mark.slow
def test_a_watcher_is_not_closed_for_want_of_a_hello(server: ServerProcess) -> None:
    black, white, state = start_game(server, "kept")
    game = state["id"]
    watcher = Watcher(server, game)
    lobby = server.connect()
    before = lobby.request({"type": "watch_lobby"}, "lobby")
    unsigned = server.connect()
    closed = unsigned.closed(HELLO_TIME + 5)
    assert closed.rcvd is not None and closed.rcvd.code == 1008, closed
    time.sleep(0.5)  # the sleep is the test: the watchers, older than the one closed, stay open
    play(black, white, game, 0, "5E")
    watcher.take(watcher.wire.expect("played"))
    after = lobby.expect("lobby", timeout=3)
    assert [listed["moves"] for listed in after["games"] if listed["id"] == game] == [1]
    assert after["total"] == before["total"]
    for wire in (black.wire, white.wire, watcher.wire, lobby):
        wire.close()


class LobbyFrames:
    """The lobbies a connection gets, with the time each arrived, read on a thread of its own."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.frames: list[tuple[float, Frame]] = []
        self.others: list[Frame] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.wire.recv(0.1)
            except TimeoutError:
                continue
            with self._lock:
                if frame["type"] == "lobby":
                    self.frames.append((time.monotonic(), frame))
                else:
                    self.others.append(frame)

    def latest(self) -> Optional[Frame]:
        with self._lock:
            return self.frames[-1][1] if self.frames else None

    def count(self) -> int:
        with self._lock:
            return len(self.frames)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def lobby_now(server: ServerProcess) -> dict[str, Any]:
    """The lobby as the HTTP API lists it."""
    games = server.get_json("/api/games?status=playing")
    return {
        "type": "lobby",
        "seeks": server.get_json("/api/seeks")["seeks"],
        "games": games["games"],
        "total": games["total"],
    }


def test_the_lobby_is_pushed_when_it_changes_at_most_once_a_second(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path)) as server:
        wire = server.connect()
        assert wire.request({"type": "watch_lobby"}, "lobby") == {"type": "lobby", "seeks": [], "games": [], "total": 0}
        lobby = LobbyFrames(wire)
        players = [sign_in(server, fresh_name(f"lob{n}")) for n in range(3)]
        try:
            alice, bob, carol = players
            alice.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
            wait_until(lambda: lobby.count() == 1, 3, "the lobby pushed after a seek")
            seek = {
                "name": alice.name, "size": 9, "color": "black", "opponent": "human", "bot": False,
                "rank": "6k?", "rated": True, "handicap": 0, "komi": 0.5,
                "time": {"system": "per_move", "move_ms": 300_000},
            }
            latest = lobby.latest()
            assert latest is not None
            assert {**latest, "seeks": None} == {"type": "lobby", "seeks": None, "games": [], "total": 0}, latest
            assert len(latest["seeks"]) == 1 and shows(latest["seeks"][0], seek), latest
            # Changes in quick succession for three seconds: a lobby a second at most.
            started = time.monotonic()
            sizes = [[13], [19], [13, 19]]
            n = 0
            while time.monotonic() - started < 3.0:
                bob.wire.request({"type": "seek", "size": sizes[n % 3], "color": "white"}, "seeking")
                n += 1
                time.sleep(0.05)
            carol.wire.send({"type": "seek", "size": 9, "color": "white"})
            game = carol.wire.expect("start")["game"]["id"]
            assert alice.wire.expect("start")["game"]["id"] == game
            play(alice, carol, game, 0, "5E")
            # The last lobby pushed is the lobby as it is now.
            expected = lobby_now(server)
            assert [listed["id"] for listed in expected["games"]] == [game] and expected["games"][0]["moves"] == 1
            wait_until(lambda: lobby.latest() == expected, 3, "the lobby as it is now")
            times = [at for at, _ in lobby.frames]
            gaps = [later - earlier for earlier, later in zip(times, times[1:])]
            assert all(gap >= LOBBY_EVERY - JITTER for gap in gaps), gaps
            assert len(times) >= 4, times
            # Nothing changes: nothing comes.
            count = lobby.count()
            time.sleep(2.5)  # the sleep is the test: a lobby is due every second if it changed
            assert lobby.count() == count
            lobby.stop()
            assert lobby.others == []
            assert wire.request({"type": "unwatch_lobby"}, "unwatched_lobby") == {"type": "unwatched_lobby"}
            bob.wire.request({"type": "cancel"}, "cancelled")
            wire.silent(2.0)
        finally:
            for player in players:
                player.wire.close()
            wire.close()


def test_a_player_s_second_connection_syncing_while_the_game_is_played_gets_each_later_turn_once(
    server: ServerProcess,
) -> None:
    black, white, state = start_game(server, "sync")
    game = state["id"]
    script = scripted_game(41, 40)
    failure: list[BaseException] = []

    def play_it() -> None:
        try:
            for ply, point in enumerate(script):
                mover, other = (black, white) if ply % 2 == 0 else (white, black)
                play(mover, other, game, ply, point)
                time.sleep(0.005)
        except BaseException as error:  # reported below
            failure.append(error)

    # Black's second connection gets the game's every turn too, and asks for its state again
    # and again while it is played: no state is older than a turn told before it, and after each
    # state each later turn comes once, in order, up to the end.
    second = sign_in(server, black.name, black.token)
    moves: Optional[list[Optional[str]]] = None
    states = 0

    def take(frame: Frame) -> bool:
        """One frame of the game; whether it ends it."""
        nonlocal moves, states
        if frame["type"] == "state":
            told = frame["game"]["moves"]
            assert moves is None or told[: len(moves)] == moves, f"a state {told} older than {moves}"
            moves, states = told, states + 1
            return bool(frame["game"]["status"] == "over")
        if frame["type"] == "played" and moves is not None:
            assert frame["ply"] == len(moves), f"expected turn {len(moves)}, got {frame}"
            moves.append(frame["point"])
        return bool(frame["type"] == "over")

    player = threading.Thread(target=play_it)
    player.start()
    over = False
    try:
        while player.is_alive() and not over:
            second.wire.send({"type": "sync", "game": game})
            synced = False
            while not synced and not over:
                frame = second.wire.recv(10)
                synced = frame["type"] == "state"
                over = take(frame)
            time.sleep(0.01)
        while not over:
            over = take(second.wire.recv(10))
    finally:
        player.join(60)
    assert not failure, failure
    assert moves == script
    assert states > 3, "states came between turns"
    for wire in (black.wire, white.wire, second.wire):
        wire.close()


# -- several processes on one PostgreSQL database ------------------------------------------


@pytest.fixture
def site(postgres: PostgresCluster) -> Iterator[list[ServerProcess]]:
    url = postgres.new_database()
    servers: list[ServerProcess] = []
    try:
        for _ in range(3):
            servers.append(ServerProcess(url).start())
        yield servers
    finally:
        for process in servers:
            if process.running():
                process.stop()
            process.kill()


def test_a_watcher_sees_every_turn_of_a_game_played_through_other_processes_across_a_kill_9(
    site: list[ServerProcess],
) -> None:
    a, b, c = site
    black = sign_in(b, fresh_name("Wb"))
    white = sign_in(c, fresh_name("Ww"))
    game = paired(black, white)
    watcher = Watcher(a, game)
    script = scripted_game(77, 40)
    driver = GameDriver(game, script, Seat(site, 1, black), Seat(site, 2, white))
    threads = drive_until([driver], 12)
    # A watcher that joins on the process about to die, and one on the last process standing.
    doomed = Watcher(b, game)
    late = Watcher(c, game)
    b.kill()
    join_drivers([driver], threads)
    assert driver.seats[0].reconnects >= 1, "black went to another process"
    assert driver.seats[0].index != 1
    over = watcher.follow(30)
    assert watcher.moves == script
    assert over == driver.over, "the players' own end"
    assert late.follow(30) == over and late.moves == script
    # The one on the dead process was cut off, in order, without a gap, up to then.
    try:
        while True:
            doomed.take(doomed.wire.recv(5))
    except (ConnectionClosed, TimeoutError, OSError):
        pass
    assert doomed.moves == script[: len(doomed.moves)]
    watcher.wire.silent(0.5)
    # The presence frames the watcher set aside were of this game's players.
    names = {black.name, white.name}
    assert all(frame["game"] == game and frame["name"] in names for frame in watcher.wire.presence)
    for wire in (watcher.wire, late.wire):
        wire.close()
