"""`gokata serve`'s lists: ``/api/players/NAME/games?before=ID`` (a player's finished games,
newest first, 50 a page, each with its terms and rating changes) and ``/api/leaderboard``
(players whose rank is settled, deviation under 160, best first). On SQLite and PostgreSQL.

How many games settle a new player's rank comes from the reference Glicko-2
(`support.glicko2`): two new players who win in turn need seven.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support import glicko2
from support.databases import Databases
from support.expected import Ledger, assert_matches, per_move
from support.glicko2 import Rating
from support.player_rows import players_rated
from support.server_process import Frame, Player, ServerProcess, fresh_name, play, sign_in

MOVE_TIME = 300.0
PAGE = 50
ENTRY_FIELDS = {
    "id", "size", "black", "white", "winner", "reason", "score", "moves", "rated", "handicap", "komi", "time",
    "ranks", "ratings",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("lists"), "server"), MOVE_TIME) as process:
        yield process


def game(black: Player, white: Player, loser: Player, size: int = 9, **terms: Any) -> tuple[Frame, Frame]:
    """A game between ``black`` and ``white`` that ``loser`` resigns; its start STATE and `over`."""
    black.wire.request({"type": "seek", "size": size, "color": "black", **terms}, "seeking")
    white.wire.send({"type": "seek", "size": size, "color": "white", **terms})
    state: Frame = white.wire.expect("start")["game"]
    assert black.wire.expect("start")["game"] == state
    loser.wire.send({"type": "resign", "game": state["id"]})
    over: Frame = black.wire.expect("over")
    assert white.wire.expect("over") == over
    return state, over


def check_entry(entry: Frame, state: Frame, over: Frame, moves: int = 0) -> None:
    """A listed game is the game as it started and ended."""
    assert ENTRY_FIELDS <= set(entry), entry  # a server may add fields
    assert {key: entry[key] for key in ENTRY_FIELDS - {"ratings"}} == {
        "id": state["id"], "size": state["size"], "black": state["black"], "white": state["white"],
        "winner": over["winner"], "reason": over["reason"], "score": over["score"], "moves": moves,
        "rated": state["rated"], "handicap": state["handicap"], "komi": state["komi"], "time": state["time"],
        "ranks": state["ranks"],
    }
    if over["ratings"] is None:
        assert entry["ratings"] is None
    else:
        for color in ("black", "white"):
            assert_matches(entry["ratings"][color], over["ratings"][color])


def test_a_players_games_come_newest_first_fifty_a_page(server: ServerProcess) -> None:
    a, b = sign_in(server, fresh_name("Lpage")), sign_in(server, fresh_name("Lpage"))
    played: list[tuple[Frame, Frame]] = []
    for n in range(PAGE + 5):
        black, white = (a, b) if n % 2 == 0 else (b, a)
        terms: dict[str, Any] = {"rated": False} if n % 5 == 4 else {}
        played.append(game(black, white, a if n % 3 else b, **terms))
    newest_first = list(reversed(played))
    first = server.get_json(f"/api/players/{a.name}/games")
    assert first["name"] == a.name
    assert [entry["id"] for entry in first["games"]] == [state["id"] for state, _ in newest_first[:PAGE]]
    for entry, (state, over) in zip(first["games"], newest_first):
        check_entry(entry, state, over)
    second = server.get_json(f"/api/players/{a.name}/games?before={first['games'][-1]['id']}")
    assert [entry["id"] for entry in second["games"]] == [state["id"] for state, _ in newest_first[PAGE:]]
    for entry, (state, over) in zip(second["games"], newest_first[PAGE:]):
        check_entry(entry, state, over)
    last = server.get_json(f"/api/players/{a.name}/games?before={second['games'][-1]['id']}")
    assert last == {"name": a.name, "games": []}
    # From the middle; the other player's list is the same games; any case of the name.
    middle = newest_first[10][0]["id"]
    assert [g["id"] for g in server.get_json(f"/api/players/{b.name.upper()}/games?before={middle}")["games"]] == [
        state["id"] for state, _ in newest_first[11:11 + PAGE]
    ]
    # An unknown game to start before gives none; an unknown player is not found.
    assert server.get_json(f"/api/players/{a.name}/games?before=zzzzzzzzzzzz")["games"] == []
    status, body = server.get(f"/api/players/{fresh_name('Lnobody')}/games")
    assert status == 404 and "error" in body
    # The records add up to the games listed.
    for who in (a, b):
        record = server.get_json(f"/api/players/{who.name}")
        assert record["wins"] + record["losses"] == PAGE + 5
        assert record["rated_games"] == sum(1 for state, _ in played if state["rated"])


def test_only_finished_games_are_listed_with_their_turns_and_terms(server: ServerProcess) -> None:
    a, b, c = (sign_in(server, fresh_name("Lfin")) for _ in range(3))
    byoyomi = {"system": "byoyomi", "main_ms": 60_000, "period_ms": 10_000, "periods": 3}
    a.wire.request({"type": "seek", "size": 13, "color": "black", "rated": False, "handicap": 2, "komi": 3.5, "time": byoyomi}, "seeking")
    b.wire.send({"type": "seek", "size": 13, "color": "white", "rated": False, "handicap": 2, "komi": 3.5, "time": byoyomi})
    state = b.wire.expect("start")["game"]
    assert a.wire.expect("start")["game"] == state
    play(b, a, state["id"], 0, "7G")  # white first: a handicap game
    play(a, b, state["id"], 1, "3C")
    # A game still being played is not listed.
    _, other = game(a, c, c)
    listed = server.get_json(f"/api/players/{a.name}/games")["games"]
    assert [entry["id"] for entry in listed] == [other["game"]]
    play(b, a, state["id"], 2, None)
    play(a, b, state["id"], 3, None)
    over = a.wire.expect("over")
    assert b.wire.expect("over") == over
    # Newest first by when the games began: the one finished last began first.
    listed = server.get_json(f"/api/players/{a.name}/games")["games"]
    assert [entry["id"] for entry in listed] == [other["game"], state["id"]]
    check_entry(listed[1], state, over, moves=4)
    assert (listed[1]["handicap"], listed[1]["komi"], listed[1]["time"], listed[1]["ratings"]) == (2, 3.5, byoyomi, None)
    assert listed[0]["time"] == per_move(int(MOVE_TIME * 1000))
    assert [entry["id"] for entry in server.get_json(f"/api/players/{c.name}/games")["games"]] == [other["game"]]


def settling_games() -> int:
    """How many games two new players who win in turn need before both ranks are settled."""
    a = b = glicko2.NEW
    for n in range(1, 100):
        a, b = glicko2.after_rated_game(a, b, n % 2 == 1)
        if a.deviation < glicko2.UNCERTAIN and b.deviation < glicko2.UNCERTAIN:
            return n
    raise AssertionError("never settled")


def leaderboard(server: ServerProcess) -> list[Frame]:
    body = server.get_json("/api/leaderboard")
    assert set(body) == {"players"}
    players: list[Frame] = body["players"]
    assert len(players) <= 100
    for entry in players:
        assert entry["deviation"] < 160 and entry["rated_games"] > 0 and not entry["rank"].endswith("?"), entry
    assert [(-e["rating"], e["name"]) for e in players] == sorted((-e["rating"], e["name"]) for e in players), "best first"
    return players


def test_the_leaderboard_lists_players_once_their_rank_is_settled(server: ServerProcess) -> None:
    needed = settling_games()
    assert needed == 7
    a, b = sign_in(server, fresh_name("Lboard")), sign_in(server, fresh_name("Lboard"))
    ledger = Ledger()
    for n in range(1, needed + 1):
        black, white = (a, b) if n % 2 == 1 else (b, a)
        _, over = game(black, white, white)  # each wins in turn, as black
        ledger.check_over(over, black.name, white.name, ledger.finish(black.name, white.name, "black"))
        listed = {entry["name"]: entry for entry in leaderboard(server)}
        if n < needed:
            assert a.name not in listed and b.name not in listed, f"after {n} games"
            assert server.get_json(f"/api/players/{a.name}")["rank"].endswith("?")
    for who in (a, b):
        assert ledger.of(who.name).rating.deviation < 160
        assert_matches(listed[who.name], ledger.standing(who.name))
        assert not listed[who.name]["rank"].endswith("?")


def test_the_leaderboard_draws_the_line_at_a_deviation_of_160(server: ServerProcess, databases: Databases) -> None:
    top = {
        "LbTopA": Rating(5900.0, 100.0),
        "LbTieA": Rating(5800.0, 100.0),
        "LbTieB": Rating(5800.0, 100.0),
        "LbSettled": Rating(5700.0, 159.999),
        "LbUnsure": Rating(5950.0, 160.0),
    }
    players = players_rated(server, databases, top, rated_games=20)
    names = {key: who.name for key, who in players.items()}
    listed = [entry["name"] for entry in leaderboard(server)]
    assert listed[:4] == [names["LbTopA"], names["LbTieA"], names["LbTieB"], names["LbSettled"]]
    assert names["LbUnsure"] not in listed, "a deviation of 160 is not settled"
    first = leaderboard(server)[0]
    assert_matches(first, {
        "name": names["LbTopA"], "wins": 0, "losses": 0, "bot": False, "rating": 5900.0, "deviation": 100.0,
        "volatility": 0.06, "rank": glicko2.label(top["LbTopA"]), "rated_games": 20,
    })
    for who in players.values():
        who.wire.close()
