"""`gokata bot` answers a request to take back a turn (``undo_answer``): it refuses in a rated
game and accepts in an unrated one, while its engine (the stand-in, slowed down) is thinking;
after a turn taken back it plays on from the game as it stands. Against a real `gokata serve`
on both stores; the person is the Python client, seeking the computer. Its seek is never for
scoring by agreement."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.test_bot_bridge import BridgeProcess, answered, bridge, bridges, standin  # noqa: F401 (bridges: a fixture)
from gokata.client import connect
from support.databases import Databases
from support.server_process import ServerProcess, fresh_name

WAIT = 30.0


@pytest.mark.parametrize("rated", [True, False], ids=["rated", "unrated"])
def test_the_bot_refuses_an_undo_in_a_rated_game_and_accepts_in_an_unrated_one(
    tmp_path: Path, databases: Databases, bridges: list[BridgeProcess], rated: bool
) -> None:
    log = tmp_path / "engine.log"
    options = [] if rated else ["--unrated"]
    with ServerProcess(databases.new(tmp_path), 60.0) as server:
        robot = bridge(bridges, server, tmp_path, standin("--delay", "2", "--log", str(log)), *options)
        seek = robot.wait_seeking(server)
        assert (seek["rated"], seek.get("scoring", "all_alive")) == (rated, "all_alive")
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=WAIT, rated=rated)
            assert game.rated is rated and game.scoring == "all_alive"
            game.move("5E")
            game.undo()  # the engine thinks for two seconds: the bot answers meanwhile
            taken_back = game.wait_undo(WAIT)
            assert taken_back is not rated and game.undo_accepted is not rated
            if rated:
                assert game.moves[0] == "5E"
            else:
                assert game.moves == [] and game.my_turn  # the engine's move for 5E was not sent
                game.move("3C")
            answered(game, None)  # the bot plays on from the game as it stands
            assert game.moves[0] == ("5E" if rated else "3C") and len(game.moves) == 2
            assert game.history[1].color == "white"
            game.resign()
        output = robot.output()
        assert ("refused" if rated else "accepted") + " the request to take back turn 1" in output, output
        assert "failure" not in output
