"""`ref`, a client's id for a frame, against the real server: echoed in every frame that answers
it (to the sender only), refused when it is not a short string or an integer, and never sent to
a client that gives none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.databases import Databases
from support.server_process import ServerProcess, Wire, fresh_name, sign_in


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("refs"), "server")) as process:
        yield process


def answer(wire: Wire, frame: dict[str, Any], kind: str, ref: Any) -> dict[str, Any]:
    """Sends ``frame`` with ``ref`` and expects a frame of type ``kind`` carrying it back."""
    wire.send({**frame, "ref": ref})
    reply = wire.expect(kind)
    assert reply.get("ref") == ref, reply
    return reply


def test_every_answer_echoes_its_frames_ref(server: ServerProcess) -> None:
    alice = Wire(server.ws_url)
    answer(alice, {"type": "ping", "t": 5}, "pong", "p-1")
    answer(alice, {"type": "watch_lobby"}, "lobby", 1)
    answer(alice, {"type": "unwatch_lobby"}, "unwatched_lobby", 2)
    welcome = answer(alice, {"type": "hello", "name": fresh_name("Ref")}, "welcome", "hello")
    answer(alice, {"type": "seek", "size": 9, "color": "black"}, "seeking", "s1")
    answer(alice, {"type": "cancel"}, "cancelled", "c1")
    answer(alice, {"type": "seek", "size": 9, "color": "black"}, "seeking", "s2")
    bob = sign_in(server, fresh_name("Reb"))
    start = answer(bob.wire, {"type": "seek", "size": 9, "color": "white"}, "start", 2**63 - 1)
    game = start["game"]["id"]
    assert "ref" not in alice.expect("start"), "the other player's start is not an answer"
    played = answer(alice, {"type": "move", "game": game, "ply": 0, "point": "5E"}, "played", "m")
    assert "ref" not in bob.wire.expect("played"), played
    answer(bob.wire, {"type": "pass", "game": game, "ply": 0}, "state", "stale")
    answer(bob.wire, {"type": "sync", "game": game}, "state", "sync")
    answer(alice, {"type": "watch", "game": game}, "state", "w")
    answer(alice, {"type": "unwatch", "game": game}, "unwatched", "u")
    refused = answer(bob.wire, {"type": "move", "game": game, "ply": 1, "point": "5E"}, "error", -1)
    assert refused["code"] == "illegal_move", refused
    answer(bob.wire, {"type": "no such type"}, "error", "odd")
    answer(bob.wire, {"type": "resign", "game": game}, "over", "gg")
    assert "ref" not in alice.expect("over")
    assert welcome["token"]


@pytest.mark.parametrize("ref", [None, 1.5, True, ["a"], {"a": 1}, "x" * 65], ids=repr)
def test_a_malformed_ref_is_refused_and_nothing_is_done(server: ServerProcess, ref: Any) -> None:
    wire = Wire(server.ws_url)
    refused = wire.error({"type": "hello", "name": fresh_name("Bad"), "ref": ref}, "bad_request")
    assert "field 'ref'" in refused["message"] and "ref" not in refused, refused
    wire.error({"type": "seek", "size": 9}, "bad_request")  # still not signed in
    answer(wire, {"type": "ping"}, "pong", "y" * 64)
    wire.send({"type": "ping"})
    assert "ref" not in wire.expect("pong"), "no ref given, none sent"
