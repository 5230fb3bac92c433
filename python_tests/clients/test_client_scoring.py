"""``gokata.client`` in a game scored by agreement: seeking it (``scoring="agreement"``), the
scoring phase after two passes (``status``, ``marks``, ``wait`` waking on each change, ``is_over``
false, ``result`` still waiting), ``mark`` (either form of point), ``accept``, ``resume``, and
the end by ``score``; a watcher's view and news. The real server, both stores."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from gokata import Go
from gokata.client import BadRequestError, Marks, Over, Played, RemoteGame, Resumed, ServerError, connect
from support.clients import news_so_far, pair, settle, unique
from support.server_process import ServerProcess
from support.waiting import wait_until, wait_until_equal

WAIT = 10.0
# Black walls off the top of the board on row 5, white the bottom on row 4; a white stone at 7C
# is left alone in black's area: the server's proposal marks it dead.
WALLS = [point for column in "ABCDEFGHJ" for point in (f"5{column}", f"4{column}")]
TURNS: list[str | None] = [*WALLS, None, "7C", None, None]


def play(black: RemoteGame, white: RemoteGame, turns: list[str | None]) -> None:
    """Plays ``turns`` alternately, black's game first (each waits to see the other's turn)."""
    for point in turns:
        mover, other = (black, white) if black.my_turn else (white, black)
        assert mover.my_turn, (black.moves, point)
        number = mover.move_number
        mover.pass_turn() if point is None else mover.move(point)
        settle(other, number + 1)


def areas(dead: list[str]) -> tuple[int, int]:
    """Black's and white's areas after `TURNS` with ``dead`` taken off (gokata.Go's count)."""
    go = Go(9)
    go.play_many(TURNS)
    rows = [[cell for cell in row] for row in go.board]
    for point in dead:
        rows[9 - int(point[:-1])]["ABCDEFGHJ".index(point[-1])] = "."
    score = Go.from_board(rows).score(komi=0.5)
    return score["black"], score["white"]


def test_a_scoring_phase_with_marks_a_resume_and_an_agreement(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url, scoring="agreement")
    with black, white, connect(server.ws_url, unique("carol")) as carol:
        assert (game.scoring, theirs.scoring, game.status) == ("agreement", "agreement", "playing")
        watched = carol.watch(game.id, timeout=WAIT)
        assert watched.scoring == "agreement"
        play(game, theirs, TURNS)
        marks = wait_until(lambda: game.marks, WAIT, "the scoring phase")
        wait_until(lambda: theirs.marks, WAIT, "white to see the scoring phase")
        black_area, white_area = areas(["7C"])
        assert marks == Marks(game.id, ("7C",), {"black": black_area, "white": white_area, "komi": 0.5},
                              {"black": False, "white": False})
        for view in (game, theirs):
            assert (view.status, view.is_over, view.my_turn, view.over, view.score) == ("scoring", False, False, None, None)
        assert game.wait(WAIT) == marks and theirs.wait(WAIT) == marks  # wait wakes on the phase
        with pytest.raises(TimeoutError, match="being scored"):
            game.result(timeout=0.3)  # the game is not over: result waits on
        with pytest.raises(TimeoutError):
            game.wait(timeout=0.3)  # nothing new since the marks were returned
        with pytest.raises(BadRequestError, match="being scored"):
            theirs.move("1A")
        with pytest.raises(BadRequestError, match="no stone"):
            game.mark("9A")
        # White says its stone lives (GTP's form of the point): both acceptances cleared.
        game.accept()
        wait_until(lambda: theirs.marks and theirs.marks.accepted["black"], WAIT, "white to see black accept")
        theirs.mark("C7", dead=False)
        alive = wait_until(lambda: game.marks if game.marks and not game.marks.dead else None, WAIT, "7C alive")
        assert alive.accepted == {"black": False, "white": False} and alive.score["white"] == white_area + 1
        assert game.wait(WAIT) == alive  # the marks as they are now (each change wakes it)
        # Back to play: black, who passed first, is to move.
        theirs.resume()
        assert (theirs.status, theirs.marks, theirs.turn) == ("playing", None, "black")
        wait_until_equal(lambda: game.status, "playing", WAIT, "black to see play resumed")
        assert game.my_turn and game.wait(WAIT) is not None and not theirs.my_turn
        play(game, theirs, ["8H", None, None])
        marks = wait_until(lambda: theirs.marks, WAIT, "the second scoring phase")
        assert marks.dead == ("7C",)
        wait_until(lambda: game.marks, WAIT, "black to see the second scoring phase")
        assert theirs.accept() is None  # black has not accepted yet
        over = game.accept()
        assert isinstance(over, Over) and (over.reason, over.winner) == ("score", "black")
        assert over.score == marks.score and over.how.startswith("by ")
        assert theirs.result(WAIT) == over and game.status == "over" and game.marks is None
        # The watcher saw the phases, the changes, the resumption and the end, in order.
        news = news_so_far(watched)
        kinds = [type(item).__name__ for item in news]
        assert kinds.count("Played") == len(TURNS) + 3 and kinds[-1] == "Over", kinds
        assert isinstance(news[len(TURNS)], Marks) and Resumed(game.id, "black") in news, kinds
        assert [item.dead for item in news if isinstance(item, Marks)][-1] == ("7C",)
        assert watched.status == "over" and watched.over == over


def test_the_scoring_phase_is_found_again_after_signing_in(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url, scoring="agreement")
    with black, white:
        play(game, theirs, TURNS)
        wait_until(lambda: game.marks, WAIT, "the scoring phase")
        game.accept()
        with connect(server.ws_url, white.name, white.token) as again:
            found = again.game(game.id)
            assert (found.status, found.is_over) == ("scoring", False)
            assert found.marks is not None and found.marks.accepted == {"black": True, "white": False}
            assert found.remaining_ms is not None and 0 < found.remaining_ms <= 60_000  # time to agree
            over = found.accept()
            assert isinstance(over, Over) and over.reason == "score"
        assert game.result(WAIT).reason == "score"


def test_a_game_counting_every_stone_alive_ends_at_two_passes(server: ServerProcess) -> None:
    """The default: no scoring phase, as before."""
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        assert game.scoring == "all_alive"
        game.move("5E")
        settle(theirs, 1)
        theirs.pass_turn()
        settle(game, 2)
        played = game.pass_turn()
        assert isinstance(played, Played)
        assert game.is_over and game.reason == "passes" and game.status == "over"
        with pytest.raises(BadRequestError):
            game.resume()


def test_an_agreement_seek_is_echoed_and_programs_cannot_ask_it(server: ServerProcess) -> None:
    with connect(server.ws_url, unique("solo")) as solo, connect(server.ws_url, unique("robo"), bot=True) as robot:
        with ThreadPoolExecutor(1) as pool:
            seeking = pool.submit(solo.seek, 9, timeout=WAIT, scoring="agreement")
            echo = wait_until(lambda: solo.seeking, WAIT, "the seek's echo")
            assert echo["scoring"] == "agreement"
            solo.cancel()
            with pytest.raises(ServerError, match="withdrawn"):
                seeking.result(WAIT)
        with pytest.raises(BadRequestError, match="program"):
            robot.seek(9, timeout=5, scoring="agreement", opponent="any")
        with pytest.raises(ValueError, match="scoring"):
            solo.seek(9, scoring="japanese")
