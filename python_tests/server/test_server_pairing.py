"""`gokata serve`, pairing: seeks, colours, sizes, the oldest compatible seek, cancel.

One server for the module. The lobby is shared, so every test leaves no seek waiting: its
seeks end paired, cancelled (answered), or withdrawn by a close that the server has seen (the
client waits for the server's close frame, which the server sends after it has noted the close).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.databases import Databases
from support.expected import assert_shows, seeking
from support.server_process import Frame, Player, ServerProcess, fresh_name, sign_in

MOVE_TIME = 300.0
MOVE_MS = int(MOVE_TIME * 1000)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("pairing"), "server"), MOVE_TIME) as process:
        yield process


def player(server: ServerProcess, prefix: str) -> Player:
    return sign_in(server, fresh_name(prefix))


def seek(who: Player, size: int, color: str | None) -> None:
    """A seek that waits: answered with `seeking`."""
    frame: dict[str, Any] = {"type": "seek", "size": size}
    if color is not None:
        frame["color"] = color
    assert_shows(who.wire.request(frame, "seeking"), seeking(size, color or "any", move_ms=MOVE_MS))


def paired(newcomer: Player, waiting: Player, size: int, color: str | None) -> Frame:
    """``newcomer`` seeks and is paired with ``waiting``: both get the same `start`."""
    frame: dict[str, Any] = {"type": "seek", "size": size}
    if color is not None:
        frame["color"] = color
    newcomer.wire.send(frame)
    state: Frame = newcomer.wire.expect("start")["game"]
    assert waiting.wire.expect("start")["game"] == state
    assert {state["black"], state["white"]} == {newcomer.name, waiting.name}
    return state


def cancel(*players: Player) -> None:
    for who in players:
        assert who.wire.request({"type": "cancel"}, "cancelled") == {"type": "cancelled"}


def check_new_game(state: Frame, size: int) -> None:
    assert isinstance(state["id"], str) and state["id"]
    assert state["size"] == size
    assert state["komi"] == 0.5
    assert state["moves"] == []
    assert state["to_move"] == "black"
    assert state["board"] == ["." * size] * size
    assert state["status"] == "playing"
    assert (state["winner"], state["reason"], state["score"]) == (None, None, None)
    assert state["move_time_ms"] == MOVE_MS
    assert 0 < state["remaining_ms"] <= state["move_time_ms"]
    # A seek says nothing of its terms: a rated even game under the server's time per move,
    # between two new players (rank 6k, uncertain).
    assert (state["rated"], state["handicap"]) == (True, 0)
    assert state["time"] == {"system": "per_move", "move_ms": MOVE_MS}
    assert state["clocks"] == {"black": {"main_ms": MOVE_MS}, "white": {"main_ms": MOVE_MS}}
    assert state["ranks"] == {"black": "6k?", "white": "6k?"}


def test_black_meets_white(server: ServerProcess) -> None:
    alice, bob = player(server, "Pbw"), player(server, "Pbw")
    seek(alice, 9, "black")
    state = paired(bob, alice, 9, "white")
    assert (state["black"], state["white"]) == (alice.name, bob.name)
    check_new_game(state, 9)
    status, public = server.get(f"/api/games/{state['id']}")
    assert status == 200
    assert 0 <= state["remaining_ms"] - public.pop("remaining_ms") < 5000
    assert public == {key: value for key, value in state.items() if key != "remaining_ms"}
    # The same pairing the other way round, on the other sizes.
    for size in (13, 19):
        seek(bob, size, "white")
        state = paired(alice, bob, size, "black")
        assert (state["black"], state["white"]) == (alice.name, bob.name)
        check_new_game(state, size)


@pytest.mark.parametrize(
    ("first", "second", "first_is_black"),
    [
        ("black", "any", True),
        ("black", None, True),  # colour defaults to any
        ("any", "black", False),
        ("white", "any", False),
        (None, "white", True),
        ("any", "white", True),
    ],
)
def test_a_colour_decides_against_any(
    server: ServerProcess, first: str | None, second: str | None, first_is_black: bool
) -> None:
    a, b = player(server, "Pany"), player(server, "Pany")
    seek(a, 13, first)
    state = paired(b, a, 13, second)
    expected = (a.name, b.name) if first_is_black else (b.name, a.name)
    assert (state["black"], state["white"]) == expected


def test_any_with_any_draws_the_colours(server: ServerProcess) -> None:
    a, b = player(server, "Pdraw"), player(server, "Pdraw")
    first_black = set()
    for _ in range(40):  # both outcomes turn up, but for a chance of 2**-39
        seek(a, 9, "any")
        state = paired(b, a, 9, "any")
        first_black.add(state["black"] == a.name)
        if len(first_black) == 2:
            break
    assert first_black == {True, False}


def test_the_same_colour_does_not_pair_and_waits(server: ServerProcess) -> None:
    a, b = player(server, "Psame"), player(server, "Psame")
    seek(a, 9, "black")
    seek(b, 9, "black")
    a.wire.silent()
    cancel(a)
    seek(b, 9, "white")  # b's new seek replaces its old one; a's is gone: it waits
    seek(a, 9, "white")
    cancel(a, b)


def test_different_sizes_do_not_pair(server: ServerProcess) -> None:
    a, b, c = player(server, "Psize"), player(server, "Psize"), player(server, "Psize")
    seek(a, 9, "any")
    seek(b, 13, "any")
    seek(c, 19, "any")
    for who in (a, b):
        who.wire.silent(0.1)
    cancel(a, b, c)


def test_the_oldest_compatible_seek_is_paired(server: ServerProcess) -> None:
    b13 = player(server, "Pold")
    a, c, d = player(server, "Pold"), player(server, "Pold"), player(server, "Pold")
    seek(b13, 13, "white")  # the oldest, but another size
    seek(a, 9, "black")  # the oldest compatible
    seek(c, 9, "black")
    state = paired(d, a, 9, "white")
    assert (state["black"], state["white"]) == (a.name, d.name)
    c.wire.silent(0.1)
    # c still waits, and is next.
    e = player(server, "Pold")
    state = paired(e, c, 9, "any")
    assert (state["black"], state["white"]) == (c.name, e.name)
    # b13 still waits too.
    state = paired(player(server, "Pold"), b13, 13, None)
    assert state["white"] == b13.name


def test_any_pairs_with_the_oldest_whatever_its_colour(server: ServerProcess) -> None:
    a, b, c = player(server, "Pfifo"), player(server, "Pfifo"), player(server, "Pfifo")
    seek(a, 19, "white")
    seek(b, 19, "white")
    state = paired(c, a, 19, "any")
    assert (state["black"], state["white"]) == (c.name, a.name)
    cancel(b)


def test_a_new_seek_replaces_the_old_one(server: ServerProcess) -> None:
    a, b, c = player(server, "Prepl"), player(server, "Prepl"), player(server, "Prepl")
    seek(a, 9, "black")
    seek(a, 13, "white")
    seek(b, 9, "white")  # a's 9x9 seek is gone
    state = paired(c, a, 13, "black")
    assert (state["size"], state["black"], state["white"]) == (13, c.name, a.name)
    b.wire.silent(0.1)
    cancel(b)


def test_cancel_withdraws_the_seek_and_is_answered_without_one(server: ServerProcess) -> None:
    a, b = player(server, "Pcan"), player(server, "Pcan")
    cancel(a)  # no seek: still cancelled
    seek(a, 9, "any")
    cancel(a)
    cancel(a)
    seek(b, 9, "any")  # nobody waits
    a.wire.silent(0.1)
    cancel(b)


def test_a_seek_is_withdrawn_when_the_players_last_connection_closes(server: ServerProcess) -> None:
    a = player(server, "Pgone")
    seek(a, 9, "any")
    a.wire.close()
    b = player(server, "Pgone")
    seek(b, 9, "any")
    cancel(b)
    # With two connections, closing one keeps the seek; the other connection gets the start.
    one = player(server, "Ptwo")
    two = sign_in(server, one.name, one.token)
    seek(one, 9, "black")
    assert_shows(two.wire.expect("seeking"), seeking(9, "black", move_ms=MOVE_MS))
    one.wire.close()
    state = paired(b, two, 9, "any")
    assert (state["black"], state["white"]) == (two.name, b.name)


def test_a_player_never_meets_itself(server: ServerProcess) -> None:
    one = player(server, "Pself")
    two = sign_in(server, one.name.upper(), one.token)
    seek(one, 9, "black")
    two.wire.expect("seeking")
    two.wire.send({"type": "seek", "size": 9, "color": "white"})
    for wire in (one.wire, two.wire):  # replaced, not paired: every connection is told
        assert_shows(wire.expect("seeking"), seeking(9, "white", move_ms=MOVE_MS))
    other = player(server, "Pself")
    state = paired(other, one, 9, "any")
    assert two.wire.expect("start")["game"] == state
    assert (state["black"], state["white"]) == (other.name, one.name)
    for wire in (one.wire, two.wire, other.wire):
        wire.silent(0.1)


def test_a_player_may_have_several_games(server: ServerProcess) -> None:
    a, b, c = player(server, "Pmany"), player(server, "Pmany"), player(server, "Pmany")
    seek(a, 9, "any")
    first = paired(b, a, 9, "any")
    seek(a, 9, "any")
    second = paired(c, a, 9, "any")
    assert first["id"] != second["id"]
    again = sign_in(server, a.name, a.token)
    assert sorted(game["id"] for game in again.welcome["games"]) == sorted([first["id"], second["id"]])


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "seek"},
        {"type": "seek", "size": 10},
        {"type": "seek", "size": 0},
        {"type": "seek", "size": -9},
        {"type": "seek", "size": 9.5},
        {"type": "seek", "size": "9"},
        {"type": "seek", "size": 9, "color": "red"},
        {"type": "seek", "size": 9, "color": "Black"},
        {"type": "seek", "size": 9, "color": 1},
    ],
)
def test_bad_seeks_are_bad_requests_and_do_not_wait(server: ServerProcess, frame: dict[str, Any]) -> None:
    a, b = player(server, "Pbad"), player(server, "Pbad")
    a.wire.error(frame, "bad_request")
    seek(b, 9, "any")  # a is not waiting
    cancel(b)
