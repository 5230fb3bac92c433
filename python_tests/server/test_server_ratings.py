"""`gokata serve`, ratings: Glicko-2 as OGS keeps it, checked against the reference of
`support.glicko2` (written from Glickman's paper, apart from the server's Rust).

First the reference itself, against the paper's worked example. Then, on a real server (SQLite
and PostgreSQL): rated games between fresh players ending by resignation, by timeout and by
score, each `over`'s ``ratings`` and ``records``, ``/api/players/NAME``, ``welcome`` and the
player's list of games equal to the reference within 1e-6; unrated games, which move no rating;
rated and unrated seeks, which never pair; and rank labels (``welcome``, the API, the lobby,
STATE's ``ranks``) equal to the reference's for ratings on both sides of each boundary (written
into the database while the server is stopped).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Optional

import pytest

from support import glicko2
from support.databases import Databases
from support.expected import Ledger, assert_matches, assert_shows, assert_welcome, per_move, seeking
from support.glicko2 import Rating
from support.player_rows import players_rated
from support.server_process import Frame, Player, ServerProcess, fresh_name, play, sign_in

MOVE_TIME = 300.0
QUICK = per_move(1000)
"""A time control of one second a move, for games lost on time."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("ratings"), "server"), MOVE_TIME) as process:
        yield process


# -- the reference --------------------------------------------------------------------------


def test_the_reference_reproduces_glickmans_worked_example() -> None:
    # 1500 (RD 200, volatility 0.06) beats a 1400 (RD 30), loses to a 1550 (RD 100) and to a
    # 1700 (RD 300), tau 0.5: the paper finds 1464.06, 151.52 and 0.05999 (rounded as it goes).
    after = glicko2.rate(
        Rating(1500, 200, 0.06),
        [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)],
        tau=0.5,
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    # A period without games widens the deviation only (step 6).
    idle = glicko2.rate(Rating(1500, 200, 0.06), [])
    assert (idle.rating, idle.volatility) == (1500, 0.06)
    assert idle.deviation == pytest.approx(math.hypot(200, 0.06 * glicko2.SCALE))


def test_the_reference_keeps_ogs_bounds_and_labels_ranks_as_ogs() -> None:
    won, lost = glicko2.after_rated_game(glicko2.NEW, glicko2.NEW, True)
    assert won.rating - 1500 == pytest.approx(1500 - lost.rating)
    assert won.deviation == pytest.approx(lost.deviation) and won.deviation < 350
    top = glicko2.after_game(Rating(6000, 30, 0.01), glicko2.NEW, 1.0)
    assert top.rating == 6000 and top.deviation >= 30 and top.volatility >= 0.01
    assert glicko2.rate(Rating(6000, 30, 0.01), [(glicko2.NEW, 1.0)]).rating > 6000, "kept within bounds"
    bottom = glicko2.after_game(Rating(100, 500, 0.15), Rating(6000, 30, 0.01), 0.0)
    assert bottom.rating == 100 and bottom.deviation <= 500 and bottom.volatility <= 0.15
    assert glicko2.rank_of(1500) == pytest.approx(24.3034, abs=1e-4)
    assert glicko2.label(glicko2.NEW) == "6k?"
    for rank, label in [(29.999, "1k"), (30, "1d"), (30.999, "1d"), (31, "2d"), (29, "1k"), (28.999, "2k"),
                        (5.5, "25k"), (6, "24k"), (-3, "25k"), (37.999, "8d"), (38, "9d"), (45, "9d")]:
        assert glicko2.rank_label(rank) == label, rank
    assert glicko2.label(Rating(1500, 159.999)) == "6k" and glicko2.label(Rating(1500, 160)) == "6k?"
    assert glicko2.rating_of(glicko2.rank_of(1234.5)) == pytest.approx(1234.5)


# -- games on the server --------------------------------------------------------------------


def start(black: Player, white: Player, ledger: Ledger, size: int = 9, **terms: Any) -> Frame:
    """``black`` and ``white`` paired by colour under ``terms`` (seek fields); the STATE of
    `start`, whose terms and ranks are checked."""
    rated = terms.get("rated", True)
    answer = black.wire.request({"type": "seek", "size": size, "color": "black", **terms}, "seeking")
    assert_shows(answer, seeking(size, "black", move_ms=int(MOVE_TIME * 1000), rated=rated, time=terms.get("time")))
    white.wire.send({"type": "seek", "size": size, "color": "white", **terms})
    state: Frame = white.wire.expect("start")["game"]
    assert black.wire.expect("start")["game"] == state
    assert (state["black"], state["white"], state["rated"], state["handicap"], state["komi"]) == (
        black.name, white.name, rated, 0, 0.5
    )
    assert state["ranks"] == {
        "black": glicko2.label(ledger.of(black.name).rating),
        "white": glicko2.label(ledger.of(white.name).rating),
    }
    return state


def over_of(black: Player, white: Player, timeout: Optional[float] = None) -> Frame:
    over = black.wire.expect("over", timeout)
    assert white.wire.expect("over") == over
    return over


def resign(black: Player, white: Player, loser: Player, game: str) -> Frame:
    loser.wire.send({"type": "resign", "game": game})
    return over_of(black, white)


def by_score(black: Player, white: Player, game: str, winner: str) -> Frame:
    """The winner's only stone on the board, then two passes: the winner's by area."""
    if winner == "black":
        turns = [(black, white, "5E"), (white, black, None), (black, white, None)]
    else:
        turns = [(black, white, None), (white, black, "5E"), (black, white, None), (white, black, None)]
    for ply, (mover, other, point) in enumerate(turns):
        play(mover, other, game, ply, point)
    over = over_of(black, white)
    assert (over["winner"], over["reason"]) == (winner, "passes"), over
    return over


def on_time(black: Player, white: Player, game: str, loser: str) -> Frame:
    """The loser lets its clock (a second a move) run out."""
    if loser == "white":
        play(black, white, game, 0, "5E")
    over = over_of(black, white, timeout=4)
    assert (over["winner"], over["reason"]) == ("black" if loser == "white" else "white", "timeout"), over
    return over


def check_records(server: ServerProcess, ledger: Ledger, *players: Player) -> None:
    for who in players:
        assert_matches(server.get_json(f"/api/players/{who.name}"), ledger.standing(who.name))


def test_rated_games_move_ratings_as_the_reference_does(server: ServerProcess) -> None:
    a, b, c = (sign_in(server, fresh_name("Rate")) for _ in range(3))
    ledger = Ledger()
    games: list[tuple[str, Frame]] = []
    # (black, white, how it ends, winner)
    plan: list[tuple[Player, Player, str, str]] = [
        (a, b, "resign", "black"),
        (b, c, "timeout", "white"),
        (c, a, "score", "white"),
        (a, b, "score", "black"),
        (b, a, "resign", "black"),
        (c, b, "timeout", "black"),
        (a, c, "resign", "white"),
    ]
    for black, white, ending, winner in plan:
        terms: dict[str, Any] = {"time": QUICK} if ending == "timeout" else {}
        state = start(black, white, ledger, **terms)
        game = state["id"]
        if ending == "resign":
            over = resign(black, white, white if winner == "black" else black, game)
            assert (over["winner"], over["reason"]) == (winner, "resign")
        elif ending == "score":
            over = by_score(black, white, game, winner)
        else:
            over = on_time(black, white, game, "white" if winner == "black" else "black")
        ratings = ledger.finish(black.name, white.name, winner)
        ledger.check_over(over, black.name, white.name, ratings)
        check_records(server, ledger, a, b, c)
        games.append((game, over))
    # Each player's rating moved by every game: seven games, none lost or counted twice.
    assert sum(ledger.of(who.name).rated_games for who in (a, b, c)) == 2 * len(plan)
    assert len({ledger.of(who.name).rating for who in (a, b, c)}) == 3
    # Welcome shows the same record and rating.
    for who in (a, b, c):
        record = ledger.of(who.name)
        again = sign_in(server, who.name, who.token)
        assert_welcome(again.welcome, who.name, wins=record.wins, losses=record.losses, rating=record.rating)
        again.wire.close()
    # Each player's list of games: the rating changes of each, as `over` told them.
    for who in (a, b, c):
        listed = server.get_json(f"/api/players/{who.name}/games")
        assert listed["name"] == who.name
        mine = [(game, over) for game, over in games if who.name in (over["records"]["black"]["name"], over["records"]["white"]["name"])]
        assert [entry["id"] for entry in listed["games"]] == [game for game, _ in reversed(mine)], "newest first"
        for entry, (_, over) in zip(listed["games"], reversed(mine)):
            assert entry["rated"] is True and (entry["winner"], entry["reason"]) == (over["winner"], over["reason"])
            for color in ("black", "white"):
                assert_matches(entry["ratings"][color], over["ratings"][color])


def test_unrated_games_move_no_rating_and_unrated_seeks_meet_only_unrated(server: ServerProcess) -> None:
    a, b = sign_in(server, fresh_name("Unr")), sign_in(server, fresh_name("Unr"))
    ledger = Ledger()
    # A rated game first, so that a's rating is not a new player's.
    state = start(a, b, ledger)
    ledger.check_over(resign(a, b, b, state["id"]), a.name, b.name, ledger.finish(a.name, b.name, "black"))
    before = {who.name: server.get_json(f"/api/players/{who.name}") for who in (a, b)}
    for ending, winner in (("resign", "white"), ("score", "black"), ("timeout", "white")):
        terms: dict[str, Any] = {"rated": False}
        if ending == "timeout":
            terms["time"] = QUICK
        state = start(a, b, ledger, **terms)
        game = state["id"]
        if ending == "resign":
            over = resign(a, b, a, game)
        elif ending == "score":
            over = by_score(a, b, game, winner)
        else:
            over = on_time(a, b, game, "black")
        assert over["winner"] == winner
        assert ledger.finish(a.name, b.name, winner, rated=False) is None
        ledger.check_over(over, a.name, b.name, None)
        check_records(server, ledger, a, b)
    for who in (a, b):
        after = server.get_json(f"/api/players/{who.name}")
        fields = ("rating", "deviation", "volatility", "rank", "rated_games")
        assert {k: after[k] for k in fields} == {k: before[who.name][k] for k in fields}, "unrated: no rating moved"
        assert after["wins"] + after["losses"] == 4
    listed = server.get_json(f"/api/players/{a.name}/games")["games"]
    assert [(entry["rated"], entry["ratings"] is None) for entry in listed] == [(False, True)] * 3 + [(True, False)]

    # A rated seek and an unrated one do not pair, whatever else they share.
    a.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
    b.wire.request({"type": "seek", "size": 9, "color": "white", "rated": False}, "seeking")
    a.wire.silent(0.2)
    c = sign_in(server, fresh_name("Unr"))
    c.wire.send({"type": "seek", "size": 9, "color": "white", "rated": True})
    state = c.wire.expect("start")["game"]
    assert (state["black"], state["white"], state["rated"]) == (a.name, c.name, True)
    assert a.wire.expect("start")["game"]["id"] == state["id"]
    b.wire.silent(0.1)
    b.wire.request({"type": "cancel"}, "cancelled")
    c.wire.send({"type": "resign", "game": state["id"]})
    over_of(a, c)


# -- rank labels -----------------------------------------------------------------------------


def rating_at(rank: float) -> float:
    return glicko2.rating_of(rank)


BOUNDARIES: dict[str, Rating] = {
    # Just either side of 1k/1d (rank 30), 1k/2k (29), 24k/25k (6), 8d/9d (38), and beyond
    # the labels' ends; the deviation either side of 160.
    "below1d": Rating(rating_at(30 - 1e-6), 100),
    "at1d": Rating(rating_at(30 + 1e-6), 100),
    "below1k": Rating(rating_at(29 - 1e-6), 100),
    "above1k": Rating(rating_at(29 + 1e-6), 100),
    "below24k": Rating(rating_at(6 - 1e-6), 100),
    "at24k": Rating(rating_at(6 + 1e-6), 100),
    "below9d": Rating(rating_at(38 - 1e-6), 100),
    "at9d": Rating(rating_at(38 + 1e-6), 100),
    "weakest": Rating(100, 100),
    "strongest": Rating(6000, 100),
    "settled": Rating(1500, 159.999),
    "unsettled": Rating(1500, 160),
}


def test_rank_labels_at_their_boundaries_are_the_references(server: ServerProcess, databases: Databases) -> None:
    players = players_rated(server, databases, BOUNDARIES)
    expected_labels = {
        "below1d": "1k", "at1d": "1d", "below1k": "2k", "above1k": "1k", "below24k": "25k", "at24k": "24k",
        "below9d": "8d", "at9d": "9d", "weakest": "25k", "strongest": "9d", "settled": "6k", "unsettled": "6k?",
    }
    assert {key: glicko2.label(rating) for key, rating in BOUNDARIES.items()} == expected_labels
    for key, who in players.items():
        rating = BOUNDARIES[key]
        assert_welcome(who.welcome, who.name, rating=rating)
        shown = server.get_json(f"/api/players/{who.name}")
        assert shown["rank"] == expected_labels[key], (key, shown)
        assert (shown["rating"], shown["deviation"], shown["volatility"]) == (rating.rating, rating.deviation, rating.volatility)
    # The lobby shows each seek's rank; a game's STATE the ranks at its start.
    first, second = players["below1d"], players["at1d"]
    first.wire.request({"type": "seek", "size": 19, "color": "black"}, "seeking")
    listed = [seek for seek in server.get_json("/api/seeks")["seeks"] if seek["name"] == first.name]
    assert [seek["rank"] for seek in listed] == ["1k"]
    second.wire.send({"type": "seek", "size": 19, "color": "white"})
    state = second.wire.expect("start")["game"]
    assert state["ranks"] == {"black": "1k", "white": "1d"}
    assert first.wire.expect("start")["game"] == state
    second.wire.send({"type": "resign", "game": state["id"]})
    over = over_of(first, second)
    ledger = Ledger()
    ledger.set_rating(first.name, BOUNDARIES["below1d"])
    ledger.set_rating(second.name, BOUNDARIES["at1d"])
    ledger.of(first.name).rated_games = ledger.of(second.name).rated_games = 10
    ratings = ledger.finish(first.name, second.name, "black", size=19)
    ledger.check_over(over, first.name, second.name, ratings)
    assert ratings is not None and (ratings["black"]["rank"], ratings["white"]["rank"]) == ("1d", "1k")
    for who in players.values():
        who.wire.close()


def test_a_seeks_rank_in_the_lobby_and_the_game_is_its_players_at_a_whole_rank(
    server: ServerProcess, databases: Databases
) -> None:
    """A rating whose rank is a whole number (15.0: 15k; a hair less is 16k) shows the same rank
    in ``/api/players``, in the lobby's seek and in the game's STATE.

    A regression test: on PostgreSQL a waiting seek keeps its player's rating as JSON text in
    the ``seeks`` row, and the server read it back with serde_json's default float parser, not
    correctly rounded: one ulp low (1003.5976036531721 as 1003.597603653172), rank
    14.999999999999995, shown as 16k; the same rating drives an automatic handicap's stones."""
    whole = {"whole": Rating(glicko2.rating_of(15.0), 100), "other": Rating(glicko2.rating_of(15.5), 100)}
    assert glicko2.label(whole["whole"]) == "15k"
    players = players_rated(server, databases, whole)
    who, other = players["whole"], players["other"]
    assert server.get_json(f"/api/players/{who.name}")["rank"] == "15k"
    assert who.welcome["rank"] == "15k"
    who.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
    listed = [seek["rank"] for seek in server.get_json("/api/seeks")["seeks"] if seek["name"] == who.name]
    other.wire.send({"type": "seek", "size": 9, "color": "white"})
    state = other.wire.expect("start")["game"]
    assert who.wire.expect("start")["game"]["id"] == state["id"]
    other.wire.send({"type": "resign", "game": state["id"]})
    over_of(who, other)
    assert (listed, state["ranks"]["black"]) == (["15k"], "15k")


def test_a_games_listed_rating_changes_are_exactly_those_over_told(server: ServerProcess) -> None:
    """``/api/players/NAME/games`` gives each game's ``ratings`` exactly as its `over` did (the
    same float, not one a hair away).

    A regression test: the rating changes are stored as JSON text, and were read back with
    serde_json's default float parser, not correctly rounded: about one value in ten came back
    an ulp away (1605.0846457975001 listed as 1605.0846457975). The results below are fixed, so
    the same values come every run."""
    a, b = sign_in(server, fresh_name("Exact")), sign_in(server, fresh_name("Exact"))
    ledger = Ledger()
    told: dict[str, Frame] = {}
    for n in range(20):
        black, white = (a, b) if n % 2 else (b, a)
        state = start(black, white, ledger)
        over = resign(black, white, a if n % 3 else b, state["id"])
        ledger.finish(black.name, white.name, over["winner"])
        told[state["id"]] = over
    listed = server.get_json(f"/api/players/{a.name}/games")["games"]
    assert len(listed) == 20
    differ = [
        f"{entry['id']} {color} {key}: listed {entry['ratings'][color][key]!r}, told {told[entry['id']]['ratings'][color][key]!r}"
        for entry in listed
        for color in ("black", "white")
        for key in ("before", "after")
        if entry["ratings"][color][key] != told[entry["id"]]["ratings"][color][key]
    ]
    assert not differ, "\n".join(differ)
