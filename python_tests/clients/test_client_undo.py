"""``gokata.client`` takes back turns: ``RemoteGame.undo`` asks, the opponent sees
``undo_requested`` (and its ``on_undo_request`` callback) and answers with ``answer_undo``, or
plays on. Accepted, refused, lapsed by a turn, over the limit of 3 a game, and what a watcher
sees (the turn dropped, an ``Undone`` news). The real server, on both stores."""

from __future__ import annotations

import threading

import pytest

from gokata.client import BadRequestError, Played, Undone, UndoRequest, connect
from support.clients import news_so_far, pair, settle, unique
from support.server_process import ServerProcess
from support.waiting import wait_until, wait_until_equal

WAIT = 10.0


def test_an_undo_accepted_takes_the_turn_back_for_both_players_and_a_watcher(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url, rated=False)
    with black, white, connect(server.ws_url, unique("carol")) as carol:
        watched = carol.watch(game.id, timeout=WAIT)
        asked: list[UndoRequest] = []
        answered = threading.Event()

        def on_request(request: UndoRequest) -> None:  # on the client's thread for callbacks
            asked.append(request)
            theirs.answer_undo(True)  # a callback may call the client
            answered.set()

        theirs.on_undo_request = on_request
        game.move("5E")
        settle(theirs, 1)
        assert theirs.my_turn and not game.undo_pending and game.undo_accepted is None
        game.undo()
        assert game.undo_pending or game.moves == []  # answered at once by the callback, maybe
        assert game.wait_undo(WAIT) is True
        assert answered.wait(WAIT) and asked == [UndoRequest(game.id, 1, "black")]
        assert game.undo_accepted is True and not game.undo_pending
        assert game.moves == [] and game.my_turn and game.board[4][4] == "."
        wait_until_equal(lambda: theirs.moves, [], WAIT, "white to see the turn taken back")
        assert theirs.undo_requested is None and not theirs.my_turn
        wait_until_equal(lambda: watched.moves, [], WAIT, "the watcher to see the turn taken back")
        # The turn played in its place counts as the first; the watcher's news say it all.
        game.move("3C")
        settle(theirs, 1)
        assert theirs.moves == ["3C"] and theirs.get_position("C3") == "x"
        wait_until_equal(lambda: watched.moves, ["3C"], WAIT, "the watcher to see 3C")
        news = news_so_far(watched)
        assert [type(item) for item in news] == [Played, Undone, Played], news
        first, undone, again = news
        assert isinstance(first, Played) and first.point == "5E"
        assert undone == Undone(game.id, 0)
        assert isinstance(again, Played) and (again.ply, again.point) == (0, "3C")


def test_an_undo_refused_leaves_the_turn(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        game.move("5E")
        settle(theirs, 1)
        game.undo()
        request = wait_until(lambda: theirs.undo_requested, WAIT, "white to see the request")
        assert request == UndoRequest(game.id, 1, "black")
        theirs.answer_undo(False)
        assert theirs.undo_requested is None
        assert game.wait_undo(WAIT) is False
        assert game.undo_accepted is False and game.moves == ["5E"] and not game.my_turn
        assert theirs.moves == ["5E"] and theirs.my_turn
        with pytest.raises(BadRequestError, match="no request"):
            theirs.answer_undo(True)  # nothing waits any more


def test_an_undo_lapses_when_the_opponent_plays_on(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        game.move("5E")
        settle(theirs, 1)
        game.undo()
        wait_until(lambda: theirs.undo_requested, WAIT, "white to see the request")
        theirs.move("4D")  # playing on refuses it
        assert theirs.undo_requested is None
        assert game.wait_undo(WAIT) is False
        assert game.undo_accepted is False and game.moves == ["5E", "4D"] and game.my_turn


def test_undo_is_refused_out_of_place_and_past_three_a_game(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        with pytest.raises(BadRequestError):
            game.undo()  # no turn yet
        game.move("5E")
        settle(theirs, 1)
        with pytest.raises(BadRequestError, match="last turn is not yours"):
            theirs.undo()  # black's turn is the last
        game.undo()
        with pytest.raises(BadRequestError, match="already waiting"):
            game.undo()  # one at a time
        wait_until(lambda: theirs.undo_requested, WAIT, "the first request")
        theirs.answer_undo(False)
        game.wait_undo(WAIT)
        for _ in range(2):  # the second and third
            game.undo()
            wait_until(lambda: theirs.undo_requested, WAIT, "another request")
            theirs.answer_undo(False)
            assert game.wait_undo(WAIT) is False
        with pytest.raises(BadRequestError, match="at most 3"):
            game.undo()
        assert not game.undo_pending and game.moves == ["5E"]
        # White has requests of its own.
        theirs.move("4D")
        settle(game, 2)
        theirs.undo()
        wait_until(lambda: game.undo_requested, WAIT, "black to see white's request")
        game.answer_undo(True)
        assert theirs.wait_undo(WAIT) is True and theirs.moves == ["5E"] and theirs.my_turn
