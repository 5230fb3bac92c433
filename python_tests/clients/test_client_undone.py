"""``gokata.client`` follows a turn taken back (the server's ``undone``, the game's state after
an accepted ``undo``): a player's own game and a watched game drop the turn, and the turn played
in its place is taken as the next, not as one already known. The undo itself is asked and
answered here on raw connections (the client has no call for it)."""

from __future__ import annotations

from gokata.client import connect
from support.clients import settle, unique
from support.server_process import ServerProcess, sign_in
from support.waiting import wait_until


def test_a_turn_taken_back_is_dropped_by_the_players_game_and_the_watchers(server: ServerProcess) -> None:
    with connect(server.ws_url, unique("alice")) as alice, connect(server.ws_url, unique("carol")) as carol:
        bob = sign_in(server, unique("bob"))
        try:
            bob.wire.request({"type": "seek", "size": 9, "color": "white", "rated": False}, "seeking")
            game = alice.seek(9, "black", timeout=10, rated=False)
            bob.wire.expect("start")
            watched = carol.watch(game.id, timeout=10)
            game.move("5E")
            bob.wire.expect("played")
            bob.wire.request({"type": "move", "game": game.id, "ply": 1, "point": "4D"}, "played")
            settle(game, 2)
            wait_until(lambda: len(watched.moves) == 2, 10, "the watcher to see 4D")
            elsewhere = sign_in(server, alice.name, alice.token)  # alice's second connection answers
            try:
                bob.wire.request({"type": "undo", "game": game.id, "ply": 2}, "undo_requested")
                elsewhere.wire.expect("undo_requested")
                elsewhere.wire.send({"type": "undo_answer", "game": game.id, "ply": 2, "accept": True})
                assert bob.wire.expect("undone")["game"]["moves"] == ["5E"]
            finally:
                elsewhere.wire.close()
            wait_until(lambda: game.moves == ["5E"] and watched.moves == ["5E"], 10, "the turn dropped")
            for view in (game, watched):
                assert view.turn == "white" and view.board[5][3] == "."
            assert not game.my_turn
            bob.wire.request({"type": "move", "game": game.id, "ply": 1, "point": "6F"}, "played")
            settle(game, 2)
            assert game.moves == ["5E", "6F"] and game.my_turn and game.get_position("6F") == "o"
            wait_until(lambda: watched.moves == ["5E", "6F"], 10, "the watcher to see 6F")
            assert game.move("3C").ply == 2
        finally:
            bob.wire.close()
