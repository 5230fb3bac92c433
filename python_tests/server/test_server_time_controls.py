"""`gokata serve`, time controls asked in the seek's ``time``: per move, absolute, Fischer,
byo-yomi and Canadian, each played on a real server (SQLite and PostgreSQL) with short settings
to a loss on time.

Each turn waits a chosen time, and the clocks of its `played` are checked against a model of
the system written here from its definition: the mover's clock less the time the turn took
(the server measures from the commit of the turn before, a little before the client sees it,
so its clock may be a little lower than the model's, never higher), byo-yomi periods used up
and kept, Canadian stones and periods starting again, Fischer increments up to the maximum.
Passes are turns for the clock. The loser's `over` comes within about a second of its deadline,
once, with one rating update. Bad settings are bad requests naming the field; seeks pair only
under the same time control.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from dataclasses import dataclass, replace
from typing import Any, Optional

import pytest

from support.databases import Databases
from support.expected import Ledger, assert_matches, assert_shows, seeking
from support.postgres_cluster import PostgresCluster
from support.server_process import Frame, Player, ServerProcess, fresh_name, sign_in

MOVE_TIME = 300.0
SLOWER_MS = 250
"""How much lower than the model a clock may be: the turn as the server measured it includes
the delivery of the `played` before it and of the turn itself."""
HIGHER_MS = 30
"""How much higher: the server may start a clock a moment after it sent the turn before."""
EARLY = 0.15
"""How long before its deadline, as the client reckons it, a loss on time may come."""
LATE = 1.5
"""How long after its deadline a loss on time may come ("within about a second"; margin for a
busy machine)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("time"), "server"), MOVE_TIME) as process:
        yield process


# -- a model of the clocks ------------------------------------------------------------------


@dataclass(frozen=True)
class Clock:
    main_ms: int
    periods: int = 0
    period_ms: int = 0
    stones: int = 0


def new_clock(control: dict[str, Any]) -> Clock:
    system = control["system"]
    if system == "per_move":
        return Clock(control["move_ms"])
    if system == "absolute":
        return Clock(control["total_ms"])
    if system == "fischer":
        return Clock(control["initial_ms"])
    if system == "byoyomi":
        return Clock(control["main_ms"], periods=control["periods"])
    return Clock(control["main_ms"], period_ms=control["period_ms"], stones=control["stones"])


def clock_json(control: dict[str, Any], clock: Clock) -> dict[str, int]:
    """CLOCK as the protocol shows it."""
    if control["system"] == "byoyomi":
        return {"main_ms": clock.main_ms, "periods": clock.periods, "period_ms": control["period_ms"]}
    if control["system"] == "canadian":
        return {"main_ms": clock.main_ms, "period_ms": clock.period_ms, "stones": clock.stones}
    return {"main_ms": clock.main_ms}


def clock_of(control: dict[str, Any], shown: dict[str, int]) -> Clock:
    """The model's clock from CLOCK (the byo-yomi period's length is the control's)."""
    if control["system"] == "byoyomi":
        assert set(shown) == {"main_ms", "periods", "period_ms"} and shown["period_ms"] == control["period_ms"], shown
        return Clock(shown["main_ms"], periods=shown["periods"])
    if control["system"] == "canadian":
        assert set(shown) == {"main_ms", "period_ms", "stones"}, shown
        return Clock(shown["main_ms"], period_ms=shown["period_ms"], stones=shown["stones"])
    assert set(shown) == {"main_ms"}, shown
    return Clock(shown["main_ms"])


def time_left(control: dict[str, Any], clock: Clock) -> int:
    """How long the player whose turn starts with ``clock`` has before it loses."""
    system = control["system"]
    if system == "per_move":
        return int(control["move_ms"])
    if system == "byoyomi":
        return clock.main_ms + clock.periods * int(control["period_ms"])
    if system == "canadian":
        return clock.main_ms + clock.period_ms
    return clock.main_ms


def after_turn(control: dict[str, Any], clock: Clock, elapsed: int) -> Clock:
    """The clock after a turn of ``elapsed`` ms (in time)."""
    assert elapsed < time_left(control, clock)
    system = control["system"]
    if system == "per_move":
        return clock
    if system == "absolute":
        return replace(clock, main_ms=clock.main_ms - elapsed)
    if system == "fischer":
        return replace(clock, main_ms=min(clock.main_ms - elapsed + control["increment_ms"], control["max_ms"]))
    if system == "byoyomi":
        if elapsed <= clock.main_ms:
            return replace(clock, main_ms=clock.main_ms - elapsed)
        used = (elapsed - clock.main_ms) // control["period_ms"]
        return Clock(0, periods=clock.periods - used)
    # Canadian: main time first; once it is gone each turn is a stone of the period.
    if clock.main_ms > 0 and elapsed <= clock.main_ms:
        return replace(clock, main_ms=clock.main_ms - elapsed)
    period_ms, stones = clock.period_ms - (elapsed - clock.main_ms), clock.stones - 1
    if stones == 0:
        period_ms, stones = control["period_ms"], control["stones"]
    return Clock(0, period_ms=period_ms, stones=stones)


def assert_clock_near(control: dict[str, Any], actual: Clock, model: Clock, what: str) -> None:
    """``actual`` is the model's, its times at most `SLOWER_MS` lower (`HIGHER_MS` higher)."""
    for field in ("main_ms", "period_ms"):
        got, want = getattr(actual, field), getattr(model, field)
        assert want - SLOWER_MS <= got <= want + HIGHER_MS, f"{what}: {field} {got}, the model says {want} ({actual} / {model})"
    assert (actual.periods, actual.stones) == (model.periods, model.stones), f"{what}: {actual} / {model}"


# -- playing with the clock ------------------------------------------------------------------


class TimedGame:
    """Two players paired under a time control; turns played after chosen waits, each turn's
    clocks checked against the model."""

    def __init__(self, server: ServerProcess, control: dict[str, Any], prefix: str, **terms: Any) -> None:
        self.control = control
        self.black = sign_in(server, fresh_name(prefix + "b"))
        self.white = sign_in(server, fresh_name(prefix + "w"))
        frame = {"type": "seek", "size": 9, "time": control, **terms}
        answer = self.black.wire.request({**frame, "color": "black"}, "seeking")
        assert_shows(answer, seeking(9, "black", rated=terms.get("rated", True), time=control,
                                     handicap=terms.get("handicap", 0), komi=terms.get("komi", 0.5)))
        self.white.wire.send({**frame, "color": "white"})
        self.state: Frame = self.white.wire.expect("start")["game"]
        self.since = time.monotonic()
        """When the player to move saw its turn begin (roughly)."""
        assert self.black.wire.expect("start")["game"] == self.state
        self.id: str = self.state["id"]
        first = new_clock(control)
        assert self.state["time"] == control
        assert self.state["clocks"] == {"black": clock_json(control, first), "white": clock_json(control, first)}
        assert self.state["move_time_ms"] == time_left(control, first)
        assert 0 < self.state["remaining_ms"] <= self.state["move_time_ms"]
        self.clocks = {"black": first, "white": first}
        self.to_move: str = self.state["to_move"]
        self.ply = 0

    def player(self, color: str) -> Player:
        return self.black if color == "black" else self.white

    def turn(self, wait: float, point: Optional[str]) -> Frame:
        """The player to move plays ``point`` (None: passes) ``wait`` seconds into its turn."""
        color, other = self.to_move, "white" if self.to_move == "black" else "black"
        time.sleep(max(0.0, wait - (time.monotonic() - self.since)))  # the test: the turn's length
        elapsed = int((time.monotonic() - self.since) * 1000)
        frame: Frame = {"type": "move", "game": self.id, "ply": self.ply, "point": point}
        if point is None:
            frame = {"type": "pass", "game": self.id, "ply": self.ply}
        self.player(color).wire.send(frame)
        played = self.player(other).wire.expect("played")
        self.since = time.monotonic()
        assert self.player(color).wire.expect("played") == played
        assert (played["ply"], played["color"], played["to_move"]) == (self.ply, color, other), played
        model = after_turn(self.control, self.clocks[color], elapsed)
        shown = {c: clock_of(self.control, played["clocks"][c]) for c in ("black", "white")}
        assert_clock_near(self.control, shown[color], model, f"{color}'s clock after turn {self.ply}")
        assert shown[other] == self.clocks[other], "the other clock stands still"
        assert played["remaining_ms"] == time_left(self.control, shown[other])
        self.clocks = shown
        self.to_move = other
        self.ply += 1
        return played

    def lose_on_time(self, ledger: Optional[Ledger] = None) -> Frame:
        """The player to move plays no more: `over` by timeout within about a second of its
        deadline, once; the rating moved once."""
        loser = self.to_move
        winner = "white" if loser == "black" else "black"
        deadline = self.since + time_left(self.control, self.clocks[loser]) / 1000
        # Meanwhile STATE shows the loser's clock as its turn began, and the time running.
        state = self.black.wire.sync(self.id)
        assert state["clocks"][loser] == clock_json(self.control, self.clocks[loser])
        assert 0 < state["remaining_ms"] <= time_left(self.control, self.clocks[loser])
        over = self.black.wire.expect("over", timeout=deadline + LATE + 1 - time.monotonic())
        ended = time.monotonic()
        assert self.white.wire.expect("over") == over
        assert (over["winner"], over["reason"], over["score"]) == (winner, "timeout", None), over
        assert deadline - EARLY <= ended <= deadline + LATE, f"over {ended - deadline:+.2f} s from the deadline"
        self.black.wire.silent(1.0)  # the test: no second `over` (in a second: nor to white)
        self.white.wire.silent(0.05)
        ledger = ledger or Ledger()
        rated = self.state["rated"]
        expected = ledger.finish(self.black.name, self.white.name, winner, rated=rated, handicap=self.state["handicap"])
        ledger.check_over(over, self.black.name, self.white.name, expected)
        return over


def check_counted_once(server: ServerProcess, game: TimedGame) -> None:
    ledger = Ledger()
    state = server.get_json(f"/api/games/{game.id}")
    assert (state["status"], state["reason"]) == ("over", "timeout")
    ledger.finish(game.black.name, game.white.name, state["winner"], rated=state["rated"], handicap=state["handicap"])
    for who in (game.black, game.white):
        assert_matches(server.get_json(f"/api/players/{who.name}"), ledger.standing(who.name))


# -- each system -----------------------------------------------------------------------------


def test_per_move_gives_each_turn_the_same_time(server: ServerProcess) -> None:
    control = {"system": "per_move", "move_ms": 1500}
    game = TimedGame(server, control, "Tpm")
    game.turn(1.0, "5E")  # most of a move's time: the next is whole again
    game.turn(0.0, "4D")
    game.turn(1.0, None)
    game.turn(0.5, "3C")
    game.lose_on_time()
    check_counted_once(server, game)


def test_absolute_time_runs_down_over_the_whole_game(server: ServerProcess) -> None:
    control = {"system": "absolute", "total_ms": 3000}
    game = TimedGame(server, control, "Tabs")
    game.turn(0.6, "5E")
    game.turn(0.2, "4D")
    game.turn(0.5, None)  # a pass is a turn for the clock
    game.turn(0.0, "3C")
    assert 1600 <= game.clocks["black"].main_ms <= 1900
    game.lose_on_time()
    check_counted_once(server, game)


def test_fischer_adds_the_increment_up_to_the_maximum(server: ServerProcess) -> None:
    control = {"system": "fischer", "initial_ms": 2000, "increment_ms": 1000, "max_ms": 2500}
    game = TimedGame(server, control, "Tfis")
    game.turn(1.2, "5E")  # 2000 - 1200 + 1000
    assert 1550 <= game.clocks["black"].main_ms <= 1800
    game.turn(0.0, "4D")  # white: 2000 + 1000, kept to 2500
    assert game.clocks["white"].main_ms == 2500
    game.turn(0.1, None)  # a pass earns the increment too: 1800 - 100 + 1000, kept to 2500
    assert game.clocks["black"].main_ms == 2500
    game.turn(0.9, "3C")  # white: 2500 - 900 + 1000, kept to 2500
    game.turn(0.0, "6F")
    game.lose_on_time()  # white: 2500 and nothing more
    check_counted_once(server, game)


def test_byoyomi_keeps_a_period_played_within_and_loses_with_the_last(server: ServerProcess) -> None:
    control = {"system": "byoyomi", "main_ms": 1000, "period_ms": 1000, "periods": 2}
    game = TimedGame(server, control, "Tbyo")
    assert game.state["move_time_ms"] == 3000
    game.turn(1.4, "5E")  # main time gone, 400 ms into the first period: kept
    assert game.clocks["black"] == Clock(0, periods=2)
    game.turn(0.0, "4D")
    game.turn(1.5, "3C")  # a whole period used, the turn played in the next
    assert game.clocks["black"] == Clock(0, periods=1)
    game.turn(0.0, "6F")
    game.turn(0.5, None)  # a pass within the last period keeps it
    assert game.clocks["black"] == Clock(0, periods=1)
    game.turn(0.0, "7G")
    game.lose_on_time()  # the last period runs out
    check_counted_once(server, game)


def test_canadian_starts_the_period_again_after_its_stones(server: ServerProcess) -> None:
    control = {"system": "canadian", "main_ms": 1000, "period_ms": 2000, "stones": 2}
    game = TimedGame(server, control, "Tcan")
    assert game.state["move_time_ms"] == 3000
    game.turn(1.3, "5E")  # main time gone, 300 ms into the period: one stone left
    assert game.clocks["black"].stones == 1 and 1450 <= game.clocks["black"].period_ms <= 1700
    game.turn(0.0, "4D")  # white is in its main time
    assert game.clocks["white"].stones == 2 and game.clocks["white"].main_ms > 500
    game.turn(0.5, None)  # the period's last stone, a pass: the period starts again
    assert game.clocks["black"] == Clock(0, period_ms=2000, stones=2)
    game.turn(0.0, "3C")
    game.turn(0.0, "6F")  # an instant turn is a stone of the period too
    assert game.clocks["black"].stones == 1
    game.turn(0.0, "7G")
    game.lose_on_time()  # the rest of the period for its last stone: too little
    check_counted_once(server, game)


def test_white_moves_first_in_a_handicap_game_and_its_clock_runs_first(server: ServerProcess) -> None:
    control = {"system": "absolute", "total_ms": 1500}
    game = TimedGame(server, control, "Thc", rated=False, handicap=2)
    assert (game.state["to_move"], game.state["handicap"]) == ("white", 2)
    over = game.lose_on_time()
    assert over["winner"] == "black" and over["ratings"] is None
    check_counted_once(server, game)


# -- the seek's settings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("time_control", "named"),
    [
        ([1000], "'time'"),
        ("fast", "'time'"),
        ({"move_ms": 1000}, "'system'"),
        ({"system": "hourglass"}, "'time.system'"),
        ({"system": 1}, "'time.system'"),
        ({"system": "per_move"}, "'move_ms'"),
        ({"system": "per_move", "move_ms": 999}, "'time.move_ms'"),
        ({"system": "per_move", "move_ms": 604_800_001}, "'time.move_ms'"),
        ({"system": "per_move", "move_ms": 1500.5}, "'time.move_ms'"),
        ({"system": "per_move", "move_ms": "1500"}, "'time.move_ms'"),
        ({"system": "absolute", "total_ms": 0}, "'time.total_ms'"),
        ({"system": "absolute", "total_ms": 5000, "periods": 3}, "'time.periods'"),
        ({"system": "fischer", "initial_ms": 9000, "increment_ms": 1000}, "'max_ms'"),
        ({"system": "fischer", "initial_ms": 9000, "increment_ms": 999, "max_ms": 9000}, "'time.increment_ms'"),
        ({"system": "fischer", "initial_ms": 9000, "increment_ms": 1000, "max_ms": 8000}, "'time.max_ms'"),
        ({"system": "byoyomi", "main_ms": 1000, "period_ms": 1000, "periods": 0}, "'time.periods'"),
        ({"system": "byoyomi", "main_ms": 1000, "period_ms": 1000, "periods": 31}, "'time.periods'"),
        ({"system": "byoyomi", "main_ms": 1000, "period_ms": 500, "periods": 3}, "'time.period_ms'"),
        ({"system": "byoyomi", "main_ms": 604_800_001, "period_ms": 1000, "periods": 3}, "'time.main_ms'"),
        ({"system": "canadian", "main_ms": 1000, "period_ms": 1000, "stones": 0}, "'time.stones'"),
        ({"system": "canadian", "main_ms": 1000, "period_ms": 1000, "stones": 101}, "'time.stones'"),
        ({"system": "canadian", "main_ms": 1000, "period_ms": 1000}, "'stones'"),
    ],
)
def test_bad_time_settings_are_bad_requests_naming_the_field(
    server: ServerProcess, time_control: Any, named: str
) -> None:
    who = sign_in(server, fresh_name("Tbad"))
    error = who.wire.error({"type": "seek", "size": 9, "time": time_control}, "bad_request")
    assert named in error["message"], error
    assert who.name not in [s["name"] for s in server.get_json("/api/seeks")["seeks"]], "nothing waits"
    who.wire.close()


def test_the_bounds_of_each_setting_are_accepted(server: ServerProcess) -> None:
    who = sign_in(server, fresh_name("Tedge"))
    for control in (
        {"system": "per_move", "move_ms": 1000},
        {"system": "per_move", "move_ms": 604_800_000},
        {"system": "absolute", "total_ms": 604_800_000},
        {"system": "fischer", "initial_ms": 1000, "increment_ms": 604_800_000, "max_ms": 1000},
        {"system": "byoyomi", "main_ms": 1000, "period_ms": 1000, "periods": 30},
        {"system": "byoyomi", "main_ms": 1000, "period_ms": 1000, "periods": 1},
        {"system": "canadian", "main_ms": 1000, "period_ms": 1000, "stones": 100},
        {"system": "canadian", "main_ms": 1000, "period_ms": 1000, "stones": 1},
    ):
        answer = who.wire.request({"type": "seek", "size": 9, "time": control}, "seeking")
        assert answer["time"] == control
    who.wire.request({"type": "cancel"}, "cancelled")


def test_seeks_pair_only_under_the_same_time_control(server: ServerProcess) -> None:
    byoyomi = {"system": "byoyomi", "main_ms": 60_000, "period_ms": 10_000, "periods": 3}
    a, b, c, d = (sign_in(server, fresh_name("Tsame")) for _ in range(4))
    a.wire.request({"type": "seek", "size": 9, "color": "black", "time": byoyomi}, "seeking")
    b.wire.request({"type": "seek", "size": 9, "color": "white", "time": {**byoyomi, "periods": 4}}, "seeking")
    c.wire.request({"type": "seek", "size": 9, "color": "white"}, "seeking")  # the server's, per move
    a.wire.silent(0.1)
    # The server's default is the same as per move with its move time, said outright.
    d.wire.send({"type": "seek", "size": 9, "color": "black", "time": {"system": "per_move", "move_ms": int(MOVE_TIME * 1000)}})
    per_move = d.wire.expect("start")["game"]
    assert (per_move["black"], per_move["white"]) == (d.name, c.name)
    assert c.wire.expect("start")["game"] == per_move
    e = sign_in(server, fresh_name("Tsame"))
    e.wire.send({"type": "seek", "size": 9, "color": "white", "time": dict(reversed(list(byoyomi.items())))})
    state = e.wire.expect("start")["game"]
    assert (state["black"], state["white"], state["time"]) == (a.name, e.name, byoyomi)
    assert a.wire.expect("start")["game"] == state
    assert state["clocks"] == {c_: {"main_ms": 60_000, "periods": 3, "period_ms": 10_000} for c_ in ("black", "white")}
    b.wire.request({"type": "cancel"}, "cancelled")
    for game, (black, white) in ((state, (a, e)), (per_move, (d, c))):
        black.wire.send({"type": "resign", "game": game["id"]})
        assert black.wire.expect("over") == white.wire.expect("over")


# -- several processes -----------------------------------------------------------------------


def test_a_byoyomi_clock_runs_out_through_another_process_when_one_dies(postgres: PostgresCluster) -> None:
    """Black plays through process A, white through B. Black's clock (periods of byo-yomi) is
    told to white through B; A is killed on black's turn; B ends the game on time at black's
    deadline, once, with one rating update."""
    control = {"system": "byoyomi", "main_ms": 1000, "period_ms": 1000, "periods": 2}
    url = postgres.new_database()
    with ServerProcess(url, MOVE_TIME) as a, ServerProcess(url, MOVE_TIME) as b:
        black, white = sign_in(a, fresh_name("Tpb")), sign_in(b, fresh_name("Tpw"))
        black.wire.request({"type": "seek", "size": 9, "color": "black", "time": control}, "seeking")
        white.wire.send({"type": "seek", "size": 9, "color": "white", "time": control})
        game = white.wire.expect("start")["game"]["id"]
        black.wire.expect("start")
        since = time.monotonic()
        time.sleep(1.4)  # the test: main time gone, 400 ms into the first period
        black.wire.send({"type": "move", "game": game, "ply": 0, "point": "5E"})
        played = black.wire.expect("played")
        told = white.wire.expect("played")
        assert told == played, "told through the other process as it was played"
        assert played["clocks"]["black"] == {"main_ms": 0, "periods": 2, "period_ms": 1000}
        assert 0 < int((time.monotonic() - since) * 1000) < 2000
        white.wire.send({"type": "move", "game": game, "ply": 1, "point": "4D"})
        played = white.wire.expect("played")
        acknowledged = time.monotonic()
        assert played["remaining_ms"] == 2000 and played["to_move"] == "black"
        assert black.wire.expect("played") == played
        a.kill()
        deadline = acknowledged + 2.0
        over = white.wire.expect("over", timeout=deadline + LATE + 1 - time.monotonic())
        ended = time.monotonic()
        assert (over["winner"], over["reason"]) == ("white", "timeout"), over
        assert deadline - EARLY <= ended <= deadline + LATE, f"over {ended - deadline:+.2f} s from the deadline"
        white.wire.silent(1.0)  # the test: no second `over`
        ledger = Ledger()
        ledger.check_over(over, black.name, white.name, ledger.finish(black.name, white.name, "white"))
        a.restart()
        for server in (a, b):
            for who in (black, white):
                assert_matches(server.get_json(f"/api/players/{who.name}"), ledger.standing(who.name))
            state = server.get_json(f"/api/games/{game}")
            assert (state["status"], state["reason"], state["moves"]) == ("over", "timeout", ["5E", "4D"])


def test_a_server_killed_and_restarted_keeps_each_clock(tmp_path: Path, databases: Databases) -> None:
    """``kill -9`` on black's turn of an absolute-time game, and a restart: the game's clocks
    are as the last turn left them. The one SQLite server gives black its turn's time again,
    from the restart; on PostgreSQL the database's clock ran on through the restart."""
    control = {"system": "absolute", "total_ms": 4000}
    with ServerProcess(databases.new(tmp_path), MOVE_TIME) as server:
        game = TimedGame(server, control, "Tkill")
        game.turn(1.0, "5E")
        game.turn(0.0, "4D")
        clocks = dict(game.clocks)
        turn_began = game.since
        server.kill()
        server.restart()
        restarted = time.monotonic()
        black = sign_in(server, game.black.name, game.black.token)
        [state] = black.welcome["games"]
        assert state["clocks"] == {c: clock_json(control, clocks[c]) for c in ("black", "white")}
        assert state["move_time_ms"] == clocks["black"].main_ms
        if databases.kind == "sqlite":
            assert clocks["black"].main_ms - 1000 * (time.monotonic() - restarted) - 100 <= state["remaining_ms"] <= clocks["black"].main_ms
            began = restarted
        else:
            assert state["remaining_ms"] <= clocks["black"].main_ms - 1000 * (restarted - turn_began) + HIGHER_MS
            began = turn_began
        white = sign_in(server, game.white.name, game.white.token)
        time.sleep(max(0.0, 0.5 - (time.monotonic() - began)))  # the test: half a second into the turn
        elapsed = int(1000 * (time.monotonic() - began))
        black.wire.send({"type": "move", "game": game.id, "ply": 2, "point": "3C"})
        played = black.wire.expect("played")
        assert white.wire.expect("played") == played
        model = after_turn(control, clocks["black"], elapsed)
        assert_clock_near(control, clock_of(control, played["clocks"]["black"]), model, "black's clock after the restart")
        assert played["clocks"]["white"] == clock_json(control, clocks["white"])
        white.wire.send({"type": "resign", "game": game.id})
        assert black.wire.expect("over")["reason"] == "resign"
