"""`gokata serve --bot` answers a person who asks for the computer on terms of its own (a time
control, unrated with a handicap and komi): it seeks the same terms and the two are paired at
once; then it plays within the clock. A real server process on SQLite, raw WebSocket frames.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from support.server_process import ServerProcess, fresh_name, sign_in
from support.waiting import wait_until

BYOYOMI = {"system": "byoyomi", "main_ms": 2_000, "period_ms": 3_000, "periods": 2}


@pytest.mark.parametrize(
    "terms, size",
    [
        ({"time": BYOYOMI}, 9),
        ({"rated": False, "handicap": 2, "komi": 6.5, "time": {"system": "fischer", "initial_ms": 5_000,
                                                              "increment_ms": 2_000, "max_ms": 10_000}}, 13),
    ],
    ids=["byoyomi", "unrated-handicap-fischer"],
)
def test_the_computer_answers_a_seek_with_its_own_terms_and_plays_in_time(
    tmp_path: Path, terms: dict[str, object], size: int
) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0, ("--bot",)) as server:
        person = sign_in(server, fresh_name("person"))
        seek = {"type": "seek", "size": size, "color": "black", "opponent": "computer", **terms}
        person.wire.send(seek)
        deadline = time.monotonic() + 10
        while True:
            frame = person.wire.recv(timeout=max(0.1, deadline - time.monotonic()))
            if frame["type"] == "start":
                break
            assert frame["type"] == "seeking", frame
        game = frame["game"]
        assert (game["black"], game["white"]) == (person.name, "gokata-bot")
        assert game["time"] == terms["time"]
        assert game["rated"] is terms.get("rated", True)
        assert game["handicap"] == terms.get("handicap", 0)
        assert game["komi"] == terms.get("komi", 0.5)
        if game["handicap"]:
            assert game["to_move"] == "white", "white moves first in a handicap game"
            assert sum(row.count("x") for row in game["board"]) == game["handicap"]
        # The person passes at once each turn; the computer must answer inside its clock for
        # ten turns of its own.
        ply, computer_turns = len(game["moves"]), 0
        while computer_turns < 10:
            if game["to_move"] == "black":
                person.wire.send({"type": "pass", "game": game["id"], "ply": ply})
            frame = person.wire.recv(timeout=15)
            if frame["type"] == "over":
                assert frame["reason"] != "timeout", frame
                break
            assert frame["type"] == "played", frame
            ply = frame["ply"] + 1
            game["to_move"] = frame["to_move"]
            if frame["color"] == "white":
                computer_turns += 1
        # Once it has a game, the computer seeks on its own terms again.
        default = {"system": "per_move", "move_ms": 60_000}
        wait_until(
            lambda: [seek for seek in server.get_json("/api/seeks")["seeks"] if seek["time"] == default],
            10,
            "the computer's own seek again",
        )
