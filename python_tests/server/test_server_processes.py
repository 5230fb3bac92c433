"""Several `gokata serve` processes on one PostgreSQL database, as one site.

Three real server processes share a throwaway PostgreSQL database; players connect to any of
them. Tested: they start together on an empty database; pairing across processes (oldest seek
first, every seek paired once); a game's turns reach the opponent and every other connection in
order, with no gap and no duplicate; `kill -9` of a process under load loses no acknowledged
turn and its players carry on through the others; 300 clocks run out while a process dies, each
game ending once, on time; PostgreSQL restarted under load.

Each game is driven by a `game_driver.GameDriver`: a fixed, legal script (made with
`gokata.Go`), played as a real client would, reconnecting with its token to a process that is
alive and resending an unacknowledged turn with the same `ply`.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from gokata import Go
from support import glicko2
from support.expected import Ledger, assert_matches
from support.game_driver import (
    GameDriver,
    Seat,
    check_stored,
    drive_until,
    join_drivers,
    paired,
    scripted_game,
    turn_frame,
)
from support.postgres_cluster import PostgresCluster, free_port
from support.server_process import Frame, Player, ServerProcess, Wire, fresh_name, gokata_command, sign_in
from support.waiting import wait_until, wait_until_equal

pytestmark = pytest.mark.slow
"""Every test here starts PostgreSQL (a cluster of the session's, or one of its own)."""

PROCESSES = 3


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


def database_of_url(url: str) -> str:
    return url.rsplit("/", 1)[1]


def database_of(server: ServerProcess) -> str:
    return database_of_url(server.db)


def start_cross_game(servers: list[ServerProcess], number: int, prefix: str) -> tuple[Seat, Seat, str]:
    """A 9x9 game whose black is on one process and white on the next."""
    black_index, white_index = number % len(servers), (number + 1) % len(servers)
    black = sign_in(servers[black_index], fresh_name(prefix + "b"))
    white = sign_in(servers[white_index], fresh_name(prefix + "w"))
    game = paired(black, white)
    return Seat(servers, black_index, black), Seat(servers, white_index, white), game


def test_processes_started_together_on_an_empty_database_migrate_it_once(postgres: PostgresCluster) -> None:
    for _ in range(3):
        url = postgres.new_database()
        servers = start_site(url)
        try:
            name = url.rsplit("/", 1)[1]
            versions = postgres.psql("SELECT version FROM gokata_migrations ORDER BY version", name).split()
            assert versions == [str(n) for n in range(1, len(versions) + 1)] and len(versions) >= 5, versions
            assert "fillfactor=50" in postgres.psql("SELECT reloptions FROM pg_class WHERE relname = 'games'", name)
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
    # A process started a moment ago may not have heard yet who is connected to the others.
    unsettled = ("remaining_ms", "connected")
    for elsewhere in (black.wire, black_elsewhere.wire):
        # Told by another process, which reads the clock as already running.
        other = elsewhere.expect("start")["game"]
        assert 299_000 < other["remaining_ms"] <= 300_000
        assert {k: v for k, v in other.items() if k not in unsettled} == {
            k: v for k, v in state.items() if k not in unsettled
        }
    game = state["id"]
    deadline = time.monotonic() + 10
    for wire in (black.wire, black_elsewhere.wire, white.wire):
        wait_until(
            lambda: wire.sync(game)["connected"] == {"black": True, "white": True},
            deadline - time.monotonic(),
            "every process to learn who is connected",
            every=0.05,
        )
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
    wait_until(
        lambda: second.name not in [seek["name"] for seek in a.get_json("/api/seeks")["seeks"]],
        10,
        "the seek withdrawn by its closed connection",
    )
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
    threads = drive_until(drivers, 10)
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
    move_time = 25.0
    servers = start_site(postgres.new_database(), move_time)
    try:
        started: dict[str, float] = {}
        watchers: list[tuple[str, Wire]] = []

        def make_game(number: int) -> None:
            """Two players seek; seeks of other threads may pair them otherwise, so each player
            takes the game of its own `start`."""
            black_index, white_index = number % PROCESSES, (number + 1) % PROCESSES
            black = sign_in(servers[black_index], fresh_name("Xt"))
            white = sign_in(servers[white_index], fresh_name("Xt"))
            black.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
            white.wire.send({"type": "seek", "size": 9, "color": "white"})
            for index, player in ((white_index, white), (black_index, black)):
                game = player.wire.expect("start")["game"]["id"]
                started.setdefault(game, time.monotonic())
                if index != 1:  # watched from the processes that stay up
                    watchers.append((game, player.wire))
                else:
                    player.wire.close()

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(make_game, range(300)))
        assert len(started) == 300
        assert time.monotonic() - min(started.values()) < move_time - 2, "the games were made in time"
        servers[1].kill()
        lateness: list[float] = []
        for game, wire in sorted(watchers, key=lambda watcher: started[watcher[0]]):
            left = started[game] + move_time + 3 - time.monotonic()
            over = wire.expect("over", timeout=max(0.1, left))
            lateness.append(time.monotonic() - (started[game] + move_time))
            assert (over["game"], over["reason"], over["winner"]) == (game, "timeout", "white")
        assert max(lateness) < 1.0, f"the latest game ended {max(lateness):.2f} s after its deadline"
        name = database_of(servers[0])

        def counts() -> str:
            return postgres.psql(
                "SELECT count(*), count(*) FILTER (WHERE status = 'over' AND reason = 'timeout'),"
                " (SELECT sum(wins) FROM players), (SELECT sum(losses) FROM players),"
                " (SELECT count(*) FROM players WHERE wins + losses <> 1)"
                " FROM games",
                name,
            )

        # Seeks of other threads pair players of one process too: some games had both players
        # on the killed process and no watcher. Held by nobody, they end within about 0.75 s of
        # their deadline, by whichever process the database lets.
        last_deadline = max(started.values()) + move_time
        wait_until(
            lambda: counts().split("|")[1] == "300", max(0.1, last_deadline + 1.5 - time.monotonic()), "every game ended"
        )
        assert counts().split("|") == ["300", "300", "300", "300", "0"], counts()
        # Each game is rated: each player's rating moved once, from a new player's, by a loss
        # (black) or a win (white) against another new player.
        black_lost, white_won = glicko2.after_rated_game(glicko2.NEW, glicko2.NEW, black_won=False)
        rows = postgres.psql("SELECT wins, rating, deviation, volatility, rated_games FROM players", name)
        seen = 0
        for row in rows.splitlines():
            wins, rating, deviation, volatility, rated_games = row.split("|")
            expected = white_won if wins == "1" else black_lost
            assert rated_games == "1", row
            assert (float(rating), float(deviation), float(volatility)) == pytest.approx(
                (expected.rating, expected.deviation, expected.volatility), abs=1e-6
            ), row
            seen += 1
        assert seen == 600
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
        threads = drive_until(drivers, 10)
        cluster.restart("immediate")
        join_drivers(drivers, threads)
        check_stored(servers[2], drivers)
        for server in servers:
            assert server.running(), server.output()
            assert "lost the database" in server.output() and "the database is back" in server.output()
    finally:
        stop_site(servers)
        cluster.stop()



def test_nobody_loses_on_time_while_the_database_is_away() -> None:
    move_time = 3.0
    cluster = PostgresCluster()
    servers: list[ServerProcess] = []
    try:
        servers = start_site(cluster.new_database(), move_time, count=2)
        black, white, game = start_cross_game(servers, 0, "Xaway")
        cluster.stop_server()
        time.sleep(move_time + 1.5)  # the sleep is the test: black's time would have run out
        cluster.start()
        black.wire.send(turn_frame(game, 0, "5E"))
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            frame = black.frame()
            if frame["type"] == "played":
                break
            assert frame["type"] == "error" and frame["code"] == "unavailable", frame
            time.sleep(0.2)
            black.wire.send(turn_frame(game, 0, "5E"))
        else:
            raise AssertionError("the move never went through")
        assert frame["ply"] == 0
        assert white.frame()["type"] == "played"
        state = white.wire.sync(game)
        assert state["status"] == "playing" and state["moves"] == ["5E"], state
    finally:
        stop_site(servers)
        cluster.stop()


def test_the_database_may_be_named_in_libpq_form_and_its_password_is_never_shown(postgres: PostgresCluster) -> None:
    name = database_of_url(postgres.new_database())
    with ServerProcess(f"host=127.0.0.1 port={postgres.port} user=postgres dbname={name}") as server:
        sign_in(server, fresh_name("Xkv")).wire.ping()
    with ServerProcess(f"postgresql://postgres:hunter2@127.0.0.1:{postgres.port}/{name}") as server:
        sign_in(server, fresh_name("Xpw")).wire.ping()
        assert "postgres:***@127.0.0.1" in server.lines[0], server.lines[0]
        server.stop()
        assert "hunter2" not in server.output()


def test_an_unreachable_database_is_a_clear_error_at_start() -> None:
    address = f"postgresql://postgres:hunter2@127.0.0.1:{free_port()}/gokata"
    started = time.monotonic()
    done = subprocess.run(
        gokata_command() + ["serve", "--port", "0", "--db", address], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1, done
    assert time.monotonic() - started < 15
    assert "cannot use the database postgresql://postgres:***@127.0.0.1" in done.stderr, done.stderr
    assert "hunter2" not in done.stderr + done.stdout


def test_a_last_pass_sent_through_two_processes_at_once_ends_the_game_once(site: list[ServerProcess]) -> None:
    a, b, _ = site
    for trial in range(6):
        black = sign_in(a, fresh_name("Xpb"))
        white = sign_in(a, fresh_name("Xpw"))
        white_elsewhere = sign_in(b, white.name, white.token)
        black.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
        white.wire.send({"type": "seek", "size": 9, "color": "white"})
        game = white.wire.expect("start")["game"]["id"]
        white_elsewhere.wire.expect("start")
        black.wire.expect("start")
        black.wire.send(turn_frame(game, 0, None))
        for wire in (black.wire, white.wire, white_elsewhere.wire):
            assert wire.expect("played")["ply"] == 0
        barrier = threading.Barrier(2)

        def last_pass(wire: Wire) -> None:
            barrier.wait(5)
            wire.send(turn_frame(game, 1, None))

        threads = [threading.Thread(target=last_pass, args=(wire,)) for wire in (white.wire, white_elsewhere.wire)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        for wire in (black.wire, white.wire, white_elsewhere.wire):
            kinds = []
            while "over" not in kinds:
                kinds.append(wire.recv()["type"])
            assert kinds.count("played") <= 1 and set(kinds) <= {"played", "over", "state"}, (trial, kinds)
            # The pass that lost the race is stale: its sender may get the final state, once.
            try:
                late = wire.recv(0.3)
            except TimeoutError:
                continue
            assert late["type"] == "state" and late["game"]["status"] == "over", late
            wire.silent(0.3)
        assert a.get_json(f"/api/games/{game}")["moves"] == [None, None]
        records = [a.get_json(f"/api/players/{player.name}") for player in (black, white)]
        assert sorted((r["wins"], r["losses"]) for r in records) == [(0, 1), (1, 0)], "counted once"
        ledger = Ledger()
        ledger.finish(black.name, white.name, "white" if records[1]["wins"] else "black")
        for player, record in zip((black, white), records):
            assert_matches(record, ledger.standing(player.name))  # the rating moved once too
    for server in site:
        assert "lost the database" not in server.output() and "refused" not in server.output(), server.output()


def test_a_resignation_racing_a_turn_from_another_process_comes_after_it(site: list[ServerProcess]) -> None:
    a, b, _ = site
    for _ in range(10):
        black = sign_in(a, fresh_name("Xrb"))
        white = sign_in(b, fresh_name("Xrw"))
        game = paired(black, white)
        black.wire.send(turn_frame(game, 0, "5E"))
        black.wire.expect("played")
        white.wire.expect("played")
        barrier = threading.Barrier(2)

        def white_moves() -> None:
            barrier.wait(5)
            white.wire.send(turn_frame(game, 1, "3C"))

        def black_resigns() -> None:
            barrier.wait(5)
            black.wire.send({"type": "resign", "game": game})

        threads = [threading.Thread(target=white_moves), threading.Thread(target=black_resigns)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        seen: list[tuple[str, object]] = []
        while not seen or seen[-1][0] != "over":
            frame = black.wire.recv()
            seen.append((frame["type"], frame.get("ply")))
        stored = a.get_json(f"/api/games/{game}")
        assert stored["status"] == "over" and stored["reason"] == "resign"
        if len(stored["moves"]) == 2:
            assert ("played", 1) in seen, f"black's connection saw {seen} of the stored {stored['moves']}"


def test_requests_the_database_cannot_take_change_nothing_and_disturb_nobody(site: list[ServerProcess]) -> None:
    a = site[0]
    for path in ("/api/games/%00", "/api/players/%00", "/api/games/%00.sgf", "/api/players/x%00y"):
        status, body = a.get(path)
        assert status == 404, (path, status, body)
    player = sign_in(a, fresh_name("Xnul"))
    player.wire.error({"type": "sync", "game": "\u0000"}, "unknown_game")
    player.wire.error({"type": "move", "game": "abc\u0000", "ply": 0, "point": "5E"}, "unknown_game")
    assert a.get("/health") == (200, {"status": "ok"})
    time.sleep(0.3)  # the sleep is the test: an error these requests caused would be logged by now
    assert "database" not in " ".join(a.errors), a.output()


def test_a_server_stops_at_once_while_its_database_is_away() -> None:
    cluster = PostgresCluster()
    server = ServerProcess(cluster.new_database())
    try:
        server.start()
        cluster.stop_server()
        wait_until(lambda: server.get("/health")[0] == 503, 10, "the server to find its database away", every=0.1)
        assert server.get("/health") == (503, {"status": "the database is unavailable"})
        stopping = time.monotonic()
        assert server.stop(timeout=10) == 0, server.output()
        assert time.monotonic() - stopping < 5
    finally:
        server.kill()
        cluster.stop()


def test_a_game_met_through_another_process_starts_empty_then_each_turn_is_played(site: list[ServerProcess]) -> None:
    a, b, _ = site
    for _ in range(10):
        white = sign_in(b, fresh_name("Xsw"))
        black = sign_in(a, fresh_name("Xsb"))
        white.wire.request({"type": "seek", "size": 9, "color": "white"}, "seeking")
        black.wire.send({"type": "seek", "size": 9, "color": "black"})
        game = black.wire.expect("start")["game"]["id"]
        black.wire.send(turn_frame(game, 0, "5E"))  # at once, before b may have heard of the game
        start = white.wire.expect("start")["game"]
        assert (start["id"], start["moves"]) == (game, []), start
        played = white.wire.expect("played")
        assert (played["ply"], played["point"]) == (0, "5E")


def settle(site: list[ServerProcess], game: str, connected: dict[str, bool]) -> None:
    """Waits until every process says so of the game's players (a process started a moment
    ago may not have heard yet who is connected to the others)."""
    deadline = time.monotonic() + 10
    for server in site:
        wait_until_equal(
            lambda: server.get_json(f"/api/games/{game}")["connected"],
            connected,
            deadline - time.monotonic(),
            f"{server.http_url} to learn who is connected",
            every=0.05,
        )


def test_the_opponent_on_another_process_is_told_when_a_player_goes_comes_back_or_dies(
    site: list[ServerProcess],
) -> None:
    black = sign_in(site[0], fresh_name("Xpb"))
    white = sign_in(site[1], fresh_name("Xpw"))
    game = paired(black, white)
    gone = {"type": "presence", "game": game, "name": white.name, "color": "white", "connected": False}
    settle(site, game, {"black": True, "white": True})
    white.wire.close()
    assert black.wire.expect("presence") == gone
    assert black.wire.sync(game)["connected"] == {"black": True, "white": False}
    back = sign_in(site[2], white.name, white.welcome["token"])
    assert black.wire.expect("presence") == {**gone, "connected": True}
    assert back.welcome["games"][0]["connected"] == {"black": True, "white": True}
    # A process started now asks the others who is connected to them.
    site[1].stop()
    site[1].restart()
    watcher = sign_in(site[1], black.name, black.welcome["token"])
    if watcher.welcome["games"][0]["connected"]["white"] is False:
        # Told once the process heard from the others, as any change.
        assert watcher.wire.expect("presence", timeout=10) == {**gone, "connected": True}
    assert watcher.wire.sync(game)["connected"] == {"black": True, "white": True}
    watcher.wire.close()
    back.wire.silent(0.5, presence=True)  # black was connected to site[0] all along: white was told nothing
    started = time.monotonic()
    site[2].kill()  # says nothing: its players are gone once it is no longer seen alive
    assert black.wire.expect("presence", timeout=10) == gone
    assert time.monotonic() - started < 6
