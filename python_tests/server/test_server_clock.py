"""`gokata serve --move-time 1.5`: the server's clock. The player to move loses by timeout,
within a couple of seconds, connected or not; each stored turn gives the next player the full
time; a last pass racing the timeout is counted once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from support.databases import Databases
from support.expected import Ledger, assert_matches
from support.server_process import Frame, Player, ServerProcess, play, start_game
from support.waiting import wait_until

MOVE_TIME = 1.5
LATE = 2.0
"""How long after the deadline `over` may come ("within about a second"; margin for a busy machine)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("clock"), "server"), MOVE_TIME) as process:
        yield process


def records(server: ServerProcess, *players: Player) -> list[tuple[int, int]]:
    answers = [server.get(f"/api/players/{p.name}") for p in players]
    assert all(status == 200 for status, _ in answers), answers
    return [(body["wins"], body["losses"]) for _, body in answers]


def expect_timeout(black: Player, white: Player, since: float, winner: str) -> Frame:
    over = black.wire.expect("over", timeout=MOVE_TIME + LATE + 1)
    elapsed = time.monotonic() - since
    assert white.wire.expect("over", timeout=1) == over
    assert (over["winner"], over["reason"], over["score"]) == (winner, "timeout", None)
    assert MOVE_TIME - 0.1 <= elapsed <= MOVE_TIME + LATE, elapsed
    return over


def test_the_player_to_move_loses_on_time(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Ctime")
    assert start["move_time_ms"] == start["remaining_ms"] == 1500
    game = start["id"]
    play(black, white, game, 0, "5E")
    since = time.monotonic()
    over = expect_timeout(black, white, since, "black")
    ledger = Ledger()
    ratings = ledger.finish(black.name, white.name, "black")
    ledger.check_over(over, black.name, white.name, ratings)
    state = black.wire.sync(game)
    assert (state["status"], state["winner"], state["reason"], state["remaining_ms"]) == ("over", "black", "timeout", None)
    assert state["moves"] == ["5E"]
    # Too late now: the turn gets the state.
    assert white.wire.request({"type": "move", "game": game, "ply": 1, "point": "4D"}, "state")["game"] == state
    assert records(server, black, white) == [(1, 0), (0, 1)]


def test_black_loses_a_game_nobody_starts(server: ServerProcess) -> None:
    black, white, _ = start_game(server, "Cidle")
    since = time.monotonic()
    expect_timeout(black, white, since, "white")


def test_a_game_times_out_with_nobody_connected(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Cgone")
    game = start["id"]
    play(black, white, game, 0, "5E")
    play(white, black, game, 1, "4D")
    since = time.monotonic()
    black.wire.close()
    white.wire.close()

    def over() -> Frame | None:
        status, state = server.get(f"/api/games/{game}")
        assert status == 200
        return state if state["status"] == "over" else None

    state = wait_until(over, MOVE_TIME + LATE - (time.monotonic() - since), "the timeout with nobody connected")
    assert time.monotonic() - since >= MOVE_TIME - 0.1
    assert (state["winner"], state["reason"], state["moves"]) == ("white", "timeout", ["5E", "4D"])
    assert records(server, black, white) == [(0, 1), (1, 0)]


def test_each_turn_gives_the_full_time_again(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Cfull")
    game = start["id"]
    begun = time.monotonic()
    for ply, point in enumerate(["5E", "4D", "3C"]):
        time.sleep(0.9)  # the test: within the move time; together more than it
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        assert play(mover, other, game, ply, point)["remaining_ms"] == 1500
    assert time.monotonic() - begun > 1.5 * MOVE_TIME
    state = white.wire.sync(game)
    assert state["status"] == "playing"
    assert 0 < state["remaining_ms"] <= 1500
    time.sleep(0.5)  # the sleep is the test: how far the clock runs in half a second
    later = white.wire.sync(game)
    assert later["remaining_ms"] <= state["remaining_ms"] - 400, "the clock runs"
    white.wire.send({"type": "resign", "game": game})
    assert black.wire.expect("over")["reason"] == "resign"


def test_a_last_pass_racing_the_timeout_is_counted_once(server: ServerProcess) -> None:
    # Several games; in each, white's second pass is sent close to its deadline, a little
    # before or after. Whichever wins, each game ends once and each record changes once.
    # Black passes as soon as each game starts (a loaded machine may take longer than a move
    # time to start them all); white's pass then races its deadline, counted from that pass.
    delays = [1.40, 1.46, 1.49, 1.50, 1.51, 1.54]
    games = []
    for i in range(len(delays)):
        black, white, start = start_game(server, f"Crace{i}")
        play(black, white, start["id"], 0, None)
        games.append((black, white, start, time.monotonic()))
    outcomes: list[str] = [""] * len(delays)
    failures: list[BaseException] = []

    def race(index: int) -> None:
        black, white, start, sent = games[index]
        game = start["id"]
        try:
            # The sleep is the test: white's pass timed to race its deadline.
            time.sleep(max(0.0, delays[index] - (time.monotonic() - sent)))
            white.wire.send({"type": "pass", "game": game, "ply": 1})
            first = white.wire.recv(timeout=MOVE_TIME + LATE)
            if first["type"] == "played":  # the pass was in time: the game ends by passes
                assert black.wire.expect("played") == first
                over = white.wire.expect("over")
                assert over["reason"] == "passes"
            elif first["type"] == "state":
                # On PostgreSQL the deadline is the database's, set as black's pass was
                # stored, a moment before the server started its own timer: a pass the timer
                # let through may find the database's time up. It is not played (the sender
                # gets the game as it is), and the timeout follows.
                assert first["game"]["moves"] == [None], first
                over = white.wire.expect("over")
                assert over["reason"] == "timeout", over
            else:  # the clock was first: `over`, then the state for the late pass
                assert first["type"] == "over" and first["reason"] == "timeout", first
                over = first
                assert white.wire.expect("state")["game"]["status"] == "over"
            assert black.wire.expect("over") == over
            for wire in (black.wire, white.wire):
                wire.silent(0.3)
            outcomes[index] = over["reason"]
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(len(delays))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    assert not failures, failures
    assert all(outcomes), outcomes
    for black, white, start, _ in games:
        status, state = server.get(f"/api/games/{start['id']}")
        assert status == 200 and state["status"] == "over"
        (bw, bl), (ww, wl) = records(server, black, white)
        assert bw + bl == 1 and ww + wl == 1, "each record changes exactly once"
        assert (bw, ww) == ((1, 0) if state["winner"] == "black" else (0, 1))
        # And each rating once: one rated game's update from the new players' ratings.
        ledger = Ledger()
        ledger.finish(black.name, white.name, state["winner"])
        for who in (black, white):
            assert_matches(server.get_json(f"/api/players/{who.name}"), ledger.standing(who.name))
