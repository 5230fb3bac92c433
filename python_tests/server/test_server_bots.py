"""`gokata serve`: programs as players. `hello` with `"bot": true` marks an account as a bot for
good; `seek` says whom it will play (`opponent`: human, the default; computer; any) and may
accept several sizes; the lobby's lists (`/api/seeks`, `/api/games?status=playing`).

On SQLite and on PostgreSQL, each with a real server process; on PostgreSQL also across two
processes sharing the database. Every test leaves no seek waiting (the lobby is shared).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.databases import Databases
from support.expected import Ledger, assert_shows, per_move, seeking, shows
from support.postgres_cluster import PostgresCluster
from support.server_process import Frame, Player, ServerProcess, fresh_name, sign_in


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("bots"), "server"), 300.0) as process:
        yield process


def sign_in_bot(server: ServerProcess, prefix: str) -> Player:
    wire = server.connect()
    welcome = wire.request({"type": "hello", "name": fresh_name(prefix), "bot": True}, "welcome")
    return Player(wire, welcome)


def seek(who: Player, size: int | list[int], opponent: str | None = None, color: str = "any") -> Frame:
    frame: dict[str, Any] = {"type": "seek", "size": size, "color": color}
    if opponent is not None:
        frame["opponent"] = opponent
    answer: Frame = who.wire.request(frame, "seeking")
    return answer


def started(*players: Player) -> Frame:
    """The `start` every player gets: the same game (the time left, and who is connected, are
    each process's reading)."""
    states: list[Frame] = [who.wire.expect("start")["game"] for who in players]
    for state in states:
        assert {**state, "remaining_ms": 0, "connected": None} == {**states[0], "remaining_ms": 0, "connected": None}
    return states[0]


def cancel(*players: Player) -> None:
    for who in players:
        who.wire.request({"type": "cancel"}, "cancelled")


def test_a_bot_says_so_once_and_stays_a_bot(server: ServerProcess) -> None:
    robot = sign_in_bot(server, "Robot")
    assert robot.welcome["bot"] is True
    assert server.get_json(f"/api/players/{robot.name}")["bot"] is True
    robot.wire.close()
    again = sign_in(server, robot.name, robot.token)
    assert again.welcome["bot"] is True, "without the flag, still a bot"
    again.wire.close()

    person = sign_in(server, fresh_name("Person"))
    assert person.welcome["bot"] is False
    person.wire.close()
    wire = server.connect()
    hello = {"type": "hello", "name": person.name, "token": person.token, "bot": True}
    assert wire.request(hello, "welcome")["bot"] is True
    wire.close()
    assert server.get_json(f"/api/players/{person.name}")["bot"] is True, "marked for good"


def test_bad_bot_and_opponent_fields_are_refused_naming_them(server: ServerProcess) -> None:
    wire = server.connect()
    error = wire.error({"type": "hello", "name": fresh_name("Bad"), "bot": "yes"}, "bad_request")
    assert "'bot'" in error["message"]
    who = sign_in(server, fresh_name("Bad"))
    cases: list[tuple[Frame, str]] = [
        ({"type": "seek", "size": 9, "opponent": "robot"}, '"robot"'),
        ({"type": "seek", "size": 9, "opponent": 1}, "'opponent'"),
        ({"type": "seek", "size": []}, "empty"),
        ({"type": "seek", "size": [9, 9]}, "9 twice"),
        ({"type": "seek", "size": [9, 12]}, "not 12"),
    ]
    for frame, named in cases:
        assert named in who.wire.error(frame, "bad_request")["message"], frame
    names = [waiting["name"] for waiting in server.get_json("/api/seeks")["seeks"]]
    assert who.name not in names, "nothing was sought"
    who.wire.close()
    wire.close()


def test_people_meet_a_bot_only_when_they_ask_for_the_computer(server: ServerProcess) -> None:
    robot = sign_in_bot(server, "Robot")
    assert_shows(seek(robot, [9, 13, 19]), seeking([9, 13, 19]))
    person = sign_in(server, fresh_name("Alice"))
    assert seek(person, 9)["opponent"] == "human", "a person asks for a person by default"
    waiting = server.get_json("/api/seeks")["seeks"]
    terms = {"rank": "6k?", "rated": True, "handicap": 0, "komi": 0.5, "time": per_move(300_000)}
    listed = {"name": robot.name, "size": [9, 13, 19], "color": "any", "opponent": "human", "bot": True, **terms}
    assert any(shows(waiting_seek, listed) for waiting_seek in waiting), waiting
    listed = {"name": person.name, "size": 9, "color": "any", "opponent": "human", "bot": False, **terms}
    assert any(shows(waiting_seek, listed) for waiting_seek in waiting), waiting
    cancel(person)

    asker = sign_in(server, fresh_name("Bob"))
    asker.wire.send({"type": "seek", "size": 13, "color": "white", "opponent": "computer"})
    state = started(asker, robot)
    assert (state["size"], state["white"], state["black"]) == (13, asker.name, robot.name)
    assert state["bots"] == {"black": True, "white": False}
    names = [s["name"] for s in server.get_json("/api/seeks")["seeks"]]
    assert robot.name not in names and asker.name not in names, "both seeks were taken"

    listed = server.get_json("/api/games?status=playing")
    summary = next(game for game in listed["games"] if game["id"] == state["id"])
    assert_shows(summary, {
        "id": state["id"], "size": 13, "black": robot.name, "white": asker.name,
        "bots": {"black": True, "white": False}, "moves": 0, "to_move": "black",
        # The game's terms and the players' ranks at its start, as its STATE has them.
        "ranks": {"black": "6k?", "white": "6k?"}, "rated": True, "time": per_move(300_000),
    })
    assert listed["total"] >= 1
    robot.wire.request({"type": "move", "game": state["id"], "ply": 0, "point": "7G"}, "played")
    asker.wire.expect("played")
    assert server.get_json(f"/api/games/{state['id']}")["bots"] == {"black": True, "white": False}
    summary = next(g for g in server.get_json("/api/games")["games"] if g["id"] == state["id"])
    assert (summary["moves"], summary["to_move"]) == (1, "white")

    asker.wire.send({"type": "resign", "game": state["id"]})
    over = asker.wire.expect("over")
    assert robot.wire.expect("over") == over
    assert over["records"]["black"]["bot"] is True and over["records"]["white"]["bot"] is False
    # A bot's game is rated like any other.
    ledger = Ledger()
    ledger.of(robot.name).bot = True
    ratings = ledger.finish(robot.name, asker.name, "black", size=13)
    ledger.check_over(over, robot.name, asker.name, ratings)
    assert all(g["id"] != state["id"] for g in server.get_json("/api/games?status=playing")["games"])
    status, body = server.get("/api/games?status=over")
    assert status == 400 and '"over"' in body["error"]
    for who in (robot, person, asker):
        who.wire.close()


def test_bots_meet_each_other_only_when_both_asked_and_any_takes_both(server: ServerProcess) -> None:
    first = sign_in_bot(server, "Tin")
    second = sign_in_bot(server, "Iron")
    seek(first, 9)
    seek(second, 9, opponent="any")  # the first asked for people
    third = sign_in_bot(server, "Steel")
    third.wire.send({"type": "seek", "size": [19, 9], "opponent": "computer"})
    state = started(third, second)
    assert state["size"] == 9, "the new seek's first size the waiting one accepts"
    assert state["bots"] == {"black": True, "white": True}
    cancel(first)

    person = sign_in(server, fresh_name("Carol"))
    seek(person, 19, opponent="any")
    fourth = sign_in_bot(server, "Brass")
    fourth.wire.send({"type": "seek", "size": [9, 13, 19]})
    state = started(fourth, person)
    assert state["size"] == 19 and sorted(state["bots"].values()) == [False, True]
    for who in (first, second, third, fourth, person):
        who.wire.close()


def test_a_bot_seeking_through_one_process_meets_a_person_on_another(postgres: PostgresCluster) -> None:
    url = postgres.new_database()
    with ServerProcess(url, 300.0) as one, ServerProcess(url, 300.0) as other:
        robot = sign_in_bot(one, "Robot")
        seek(robot, [9, 19])
        listed = other.get_json("/api/seeks")["seeks"]
        assert [(s["name"], s["size"], s["bot"]) for s in listed] == [(robot.name, [9, 19], True)]
        person = sign_in(other, fresh_name("Dave"))
        seek(person, 13, opponent="computer")  # no size in common: both wait
        person.wire.send({"type": "seek", "size": 19, "opponent": "computer"})
        state = started(person, robot)
        assert state["size"] == 19 and state["bots"] == {"black": state["black"] == robot.name,
                                                         "white": state["white"] == robot.name}
        assert any(g["id"] == state["id"] for g in one.get_json("/api/games")["games"])
        assert other.get_json("/api/seeks")["seeks"] == []
        robot.wire.close()
        person.wire.close()
