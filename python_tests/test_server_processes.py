"""Several `gokata serve` processes on one PostgreSQL database, as one site.

Three real server processes share a throwaway PostgreSQL database; players connect to any of
them. Tested: they start together on an empty database; pairing across processes (oldest seek
first, every seek paired once); a game's turns reach the opponent and every other connection in
order, with no gap and no duplicate; `kill -9` of a process under load loses no acknowledged
turn and its players carry on through the others; 300 clocks run out while a process dies, each
game ending once, on time; PostgreSQL restarted under load.

Each game is driven by a `GameDriver` that plays a fixed, legal script (made with `gokata.Go`)
and, like a real client, reconnects with its token to a process that is alive and resends an
unacknowledged turn with the same `ply`.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Optional

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from gokata import Go
from postgres_cluster import PostgresCluster
from server_process import Frame, Player, ServerProcess, Wire, fresh_name, sign_in

PROCESSES = 3
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def start_site(url: str, move_time: float = 300.0, count: int = PROCESSES) -> list[ServerProcess]:
    """``count`` servers on ``url``, started at the same moment (from threads)."""
    servers = [ServerProcess(url, move_time) for _ in range(count)]
    errors: list[BaseException] = []

    def start(server: ServerProcess) -> None:
        try:
            server.start()
        except BaseException as error:  # reported below, with every other one
            errors.append(error)

    threads = [threading.Thread(target=start, args=(server,)) for server in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    if errors:
        for server in servers:
            server.kill()
        raise errors[0]
    return servers


def stop_site(servers: list[ServerProcess]) -> None:
    for server in servers:
        if server.running():
            server.stop()
        server.kill()


@pytest.fixture
def site(postgres: PostgresCluster) -> Iterator[list[ServerProcess]]:
    servers = start_site(postgres.new_database())
    try:
        yield servers
    finally:
        stop_site(servers)


def database_of(server: ServerProcess) -> str:
    return server.db.rsplit("/", 1)[1]


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
    """One player's connection to the site, moved to a live process when its own dies.

    Every `played` on one connection must be the next turn after the last it saw (no gap, no
    duplicate); `next_ply` is that turn."""

    def __init__(self, servers: list[ServerProcess], index: int, player: Player) -> None:
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

    def run(self) -> None:
        try:
            while self.acknowledged < len(self.script):
                self.play_turn(self.acknowledged)
            self.await_over()
        except BaseException as error:  # the test reports it
            self.failure = error

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


def start_cross_game(servers: list[ServerProcess], number: int, prefix: str) -> tuple[Seat, Seat, str]:
    """A 9x9 game whose black is on one process and white on the next."""
    black_index, white_index = number % len(servers), (number + 1) % len(servers)
    black = sign_in(servers[black_index], fresh_name(prefix + "b"))
    white = sign_in(servers[white_index], fresh_name(prefix + "w"))
    black.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
    white.wire.send({"type": "seek", "size": 9, "color": "white"})
    state = white.wire.expect("start")["game"]
    assert black.wire.expect("start")["game"]["id"] == state["id"]
    return Seat(servers, black_index, black), Seat(servers, white_index, white), str(state["id"])


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


def test_processes_started_together_on_an_empty_database_migrate_it_once(postgres: PostgresCluster) -> None:
    for _ in range(3):
        url = postgres.new_database()
        servers = start_site(url)
        try:
            name = url.rsplit("/", 1)[1]
            assert postgres.psql("SELECT version FROM gokata_migrations ORDER BY version", name) == "1"
            assert postgres.psql("SELECT size FROM seek_sizes ORDER BY size", name).split() == ["9", "13", "19"]
            for server in servers:
                assert server.get_json("/health") == {"status": "ok"}
        finally:
            stop_site(servers)


def test_a_game_across_processes_reaches_every_connection_in_order(site: list[ServerProcess]) -> None:
    a, b, c = site
    black = sign_in(a, fresh_name("Xb"))
    white = sign_in(b, fresh_name("Xw"))
    black_elsewhere = sign_in(c, black.name, black.token)
    black.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
    white.wire.send({"type": "seek", "size": 9, "color": "white"})
    state = white.wire.expect("start")["game"]
    for elsewhere in (black.wire, black_elsewhere.wire):
        # Told by another process, which reads the clock as already running.
        other = elsewhere.expect("start")["game"]
        assert 299_000 < other.pop("remaining_ms") <= 300_000
        assert other == {key: value for key, value in state.items() if key != "remaining_ms"}
    game = state["id"]
    script = scripted_game(7, 30)
    go = Go(9)
    seats = {"black": [black.wire, black_elsewhere.wire], "white": [white.wire]}
    for ply, point in enumerate(script):
        color = "black" if ply % 2 == 0 else "white"
        seats[color][ply % len(seats[color])].send(turn_frame(game, ply, point))
        frames = [wire.expect("played") for wires in seats.values() for wire in wires]
        assert all(frame == frames[0] for frame in frames), frames
        assert (frames[0]["ply"], frames[0]["color"], frames[0]["point"]) == (ply, color, point)
        if point is None:
            go.pass_turn()
        else:
            go.move(point)
        if ply == 20:
            watched = sign_in(c, fresh_name("Xwatch")).wire.sync(game)
            assert watched["moves"] == script[:21]
            assert watched["board"] == ["".join(row) for row in go.board]
    overs = [wire.expect("over") for wires in seats.values() for wire in wires]
    assert all(over == overs[0] for over in overs), overs
    score = go.score(komi=0.5)
    assert (overs[0]["winner"], overs[0]["reason"]) == (score["winner"], "passes")
    for server in site:
        stored = server.get_json(f"/api/games/{game}")
        assert stored["moves"] == script and stored["status"] == "over"
        records = [server.get_json(f"/api/players/{name}") for name in (black.name, white.name)]
        assert sorted((r["wins"], r["losses"]) for r in records) == [(0, 1), (1, 0)]


def test_the_oldest_seek_is_paired_whichever_process_holds_it(site: list[ServerProcess]) -> None:
    a, b, c = site
    first = sign_in(a, fresh_name("Xold"))
    second = sign_in(b, fresh_name("Xnew"))
    first.wire.request({"type": "seek", "size": 13, "color": "black"}, "seeking")
    second.wire.request({"type": "seek", "size": 13, "color": "black"}, "seeking")
    taker = sign_in(c, fresh_name("Xtake"))
    taker.wire.send({"type": "seek", "size": 13, "color": "white"})
    state = taker.wire.expect("start")["game"]
    assert (state["black"], state["white"]) == (first.name, taker.name)
    assert first.wire.expect("start")["game"]["id"] == state["id"]
    second.wire.silent(0.3)
    # A seek withdrawn by closing its last connection is not paired.
    second.wire.close()
    time.sleep(0.3)
    late = sign_in(a, fresh_name("Xlate"))
    late.wire.request({"type": "seek", "size": 13, "color": "white"}, "seeking")
    late.wire.request({"type": "cancel"}, "cancelled")


def test_seeks_sent_together_to_three_processes_are_each_paired_once(site: list[ServerProcess]) -> None:
    players = [sign_in(site[n % PROCESSES], fresh_name("Xmany")) for n in range(30)]
    starts: dict[str, Frame] = {}
    barrier = threading.Barrier(len(players))
    problems: list[str] = []

    def seek(player: Player) -> None:
        barrier.wait(10)
        player.wire.send({"type": "seek", "size": 19, "color": "any"})
        try:
            frame = player.wire.recv(15)
            if frame["type"] == "seeking":
                frame = player.wire.recv(15)
            assert frame["type"] == "start", frame
            starts[player.name] = frame["game"]
            player.wire.silent(0.5)
        except (AssertionError, TimeoutError) as error:
            problems.append(f"{player.name}: {error!r}")

    threads = [threading.Thread(target=seek, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(40)
    assert not problems, problems
    assert len(starts) == len(players), "every seek was paired"
    games: dict[str, set[str]] = {}
    for name, state in starts.items():
        assert name in (state["black"], state["white"])
        assert state["black"] != state["white"]
        games.setdefault(state["id"], set()).add(name)
    assert len(games) == len(players) // 2
    assert all(len(names) == 2 for names in games.values()), games


def test_kill_9_of_a_process_under_load_loses_no_acknowledged_turn(site: list[ServerProcess]) -> None:
    drivers = []
    for number in range(18):
        black, white, game = start_cross_game(site, number, "Xk")
        drivers.append(GameDriver(game, scripted_game(100 + number, 40), black, white))
    threads = run_drivers(drivers)
    deadline = time.monotonic() + 30
    while min(driver.acknowledged for driver in drivers) < 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    victim = site[1]
    victim.kill()
    join_drivers(drivers, threads)
    moved = sum(seat.reconnects for driver in drivers for seat in driver.seats)
    assert moved >= 12, "the players of the killed process (12 of 36) went elsewhere"
    check_stored(site[0], drivers)
    # Restarted, the process serves the same site.
    victim.restart()
    check_stored(victim, drivers)


def test_clocks_run_out_on_300_games_while_a_process_dies(postgres: PostgresCluster) -> None:
    move_time = 20.0
    servers = start_site(postgres.new_database(), move_time)
    try:
        started: dict[str, float] = {}
        watchers: list[tuple[str, Wire]] = []
        names: list[str] = []
        for number in range(300):
            black_index, white_index = number % PROCESSES, (number + 1) % PROCESSES
            black = sign_in(servers[black_index], fresh_name("Xt"))
            white = sign_in(servers[white_index], fresh_name("Xt"))
            black.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
            white.wire.send({"type": "seek", "size": 9, "color": "white"})
            game = white.wire.expect("start")["game"]["id"]
            started[game] = time.monotonic()
            black.wire.expect("start")
            names += [black.name, white.name]
            # Watched from a process that stays up.
            for index, player in ((black_index, black), (white_index, white)):
                if index != 1:
                    watchers.append((game, player.wire))
                else:
                    player.wire.close()
        assert time.monotonic() - min(started.values()) < move_time - 2, "the games were made in time"
        servers[1].kill()
        lateness: list[float] = []
        for game, wire in watchers:
            left = started[game] + move_time + 3 - time.monotonic()
            over = wire.expect("over", timeout=max(0.1, left))
            lateness.append(time.monotonic() - (started[game] + move_time))
            assert (over["game"], over["reason"], over["winner"]) == (game, "timeout", "white")
        assert max(lateness) < 1.0, f"the latest game ended {max(lateness):.2f} s after its deadline"
        name = database_of(servers[0])
        counts = postgres.psql(
            "SELECT count(*), count(*) FILTER (WHERE status = 'over' AND reason = 'timeout'),"
            " (SELECT sum(wins) FROM players), (SELECT sum(losses) FROM players),"
            " (SELECT count(*) FROM players WHERE wins + losses <> 1)"
            " FROM games",
            name,
        )
        assert counts.split("|") == ["300", "300", "300", "300", "0"], counts
    finally:
        stop_site(servers)


def test_postgres_restarted_under_load_loses_no_acknowledged_turn() -> None:
    cluster = PostgresCluster()
    servers: list[ServerProcess] = []
    try:
        servers = start_site(cluster.new_database())
        drivers = []
        for number in range(12):
            black, white, game = start_cross_game(servers, number, "Xr")
            drivers.append(GameDriver(game, scripted_game(200 + number, 40), black, white))
        threads = run_drivers(drivers)
        deadline = time.monotonic() + 30
        while min(driver.acknowledged for driver in drivers) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        cluster.restart("immediate")
        join_drivers(drivers, threads)
        check_stored(servers[2], drivers)
        for server in servers:
            assert server.running(), server.output()
            assert "lost the database" in server.output() and "the database is back" in server.output()
    finally:
        stop_site(servers)
        cluster.stop()

