"""``gokata.client`` against the real server, ``gokata serve``, run as a process."""

from __future__ import annotations

import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import gokata
from gokata import Go
from gokata.client import (
    BadRequestError,
    BadTokenError,
    ConnectionFailedError,
    GameOverError,
    IllegalMoveError,
    NameTakenError,
    NotYourGameError,
    NotYourTurnError,
    Over,
    Record,
    Played,
    RemoteGame,
    ServerError,
    UnknownGameError,
    connect,
    websocket_url,
)
from support.clients import free_port, pair, settle, unique
from support.databases import Databases
from support.server_process import ServerProcess
from support.waiting import wait_until

EMPTY_9 = ["." * 9] * 9


def rows(game: RemoteGame) -> list[str]:
    return ["".join(row) for row in game.board]


def snapshot(game: RemoteGame) -> tuple[list[str], str, list[str | None]]:
    return rows(game), game.turn, game.moves


def replayed(moves: list[str | None], size: int = 9) -> Go:
    go = Go(size)
    for point in moves:
        if point is None:
            go.pass_turn()
        else:
            go.move(point)
    return go


def play(black: RemoteGame, white: RemoteGame, *points: str) -> None:
    """Black and white alternate ``points``; both views have seen every turn at the end."""
    for ply, point in enumerate(points):
        mover = black if ply % 2 == 0 else white
        mover.wait(timeout=10)  # the opponent's turn may still be on its way
        assert mover.move(point).ply == ply
    settle(black, len(points))
    settle(white, len(points))


def test_websocket_url_forms() -> None:
    assert websocket_url("ws://example.org:8080/ws") == "ws://example.org:8080/ws"
    assert websocket_url("ws://example.org:8080") == "ws://example.org:8080/ws"
    assert websocket_url("http://example.org:8080/") == "ws://example.org:8080/ws"
    assert websocket_url("https://example.org/") == "wss://example.org/ws"
    assert websocket_url("https://example.org/go/") == "wss://example.org/go/ws"
    assert websocket_url("example.org:8080") == "ws://example.org:8080/ws"
    assert websocket_url("127.0.0.1:9") == "ws://127.0.0.1:9/ws"
    with pytest.raises(ValueError):
        websocket_url("ftp://example.org/")


def test_a_new_name_gets_a_token_and_comes_back_with_it(server: ServerProcess) -> None:
    name = unique("Alice")
    with connect(server.ws_url, name) as alice:
        assert alice.name == name
        assert alice.token is not None and re.fullmatch(r"[0-9a-f]{64}", alice.token)
        assert (alice.wins, alice.losses, alice.games) == (0, 0, [])
        token = alice.token
    # The three ways the URL may be given, and the name in another case: the same player.
    for url in (server.ws_url, server.http_url, server.ws_url.replace("ws://", "").replace("/ws", "")):
        with connect(url, name.lower(), token) as again:
            assert again.name == name  # the case it was registered with
            assert again.token == token
    with pytest.raises(NameTakenError) as taken:
        connect(server.ws_url, name.upper())
    assert taken.value.code == "name_taken"
    with pytest.raises(BadTokenError) as bad:
        connect(server.ws_url, name, "0" * 64)
    assert bad.value.code == "bad_token"
    with pytest.raises(BadTokenError):
        connect(server.ws_url, unique("nobody"), token)  # a token cannot belong to a new name
    for bad_name in ("two words", "x" * 21, "", "caf\u00e9"):
        with pytest.raises(BadRequestError) as malformed:
            connect(server.ws_url, bad_name)
        assert malformed.value.code == "bad_request"
        assert isinstance(malformed.value, ServerError) and isinstance(malformed.value, ValueError)


def test_no_server_is_a_connection_error() -> None:
    started = time.monotonic()
    with pytest.raises(ConnectionFailedError) as failure:
        connect(f"127.0.0.1:{free_port()}", unique("nobody"), timeout=3)
    assert isinstance(failure.value, ConnectionError)
    assert time.monotonic() - started < 10


def test_two_players_pair_and_play_a_game_with_a_capture(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        for view, me, other in ((game, black, white), (theirs, white, black)):
            assert view.opponent == other.name
            assert (view.black, view.white) == (black.name, white.name)
            assert rows(view) == EMPTY_9
            assert view.turn == "black" and view.moves == [] and not view.is_over
            assert view.size == {"height": 9, "width": 9}
            assert view in me.games
            remaining = view.remaining_ms
            assert remaining is not None and 0 < remaining <= 60_000
        with pytest.raises(TimeoutError) as waited:
            theirs.wait(timeout=0.3)
        assert "no answer" not in str(waited.value) and black.name in str(waited.value)
        turns = ["6E", "5E", "4E", "9A", "5D", "9B"]
        for ply, point in enumerate(turns):
            mover, waiter = (game, theirs) if ply % 2 == 0 else (theirs, game)
            played = mover.move(point)
            assert isinstance(played, Played)
            assert (played.ply, played.point, played.captured) == (ply, point, ())
            assert played.color == mover.color and played.to_move == waiter.color
            seen = waiter.wait(timeout=10)
            assert seen == played
        capture = game.move("f5")  # the GTP form, in lower case: the server writes 5F
        assert (capture.point, capture.captured) == ("5F", ("5E",))
        assert theirs.wait(timeout=10) == capture
        for view in (game, theirs):
            assert view.get_position("5E") == "."
            assert view.get_position("E5") == "."
            assert view.get_position((3, 4)) == "x"  # 6E
            assert rows(view)[4] == "...x.x..."
            assert view.moves == ["6E", "5E", "4E", "9A", "5D", "9B", "5F"]
            assert view.turn == "white" and view.move_number == 7
            assert [p.captured for p in view.history][-1] == ("5E",)
            assert view.board == replayed(view.moves).board
            assert str(view) == str(replayed(view.moves))
        assert game.my_turn is False and theirs.my_turn is True
        text = repr(theirs)
        assert theirs.id in text and str(theirs).rstrip() in text
        # The server's own record of the game agrees.
        state = server.get_json(f"/api/games/{game.id}")
        assert state["moves"] == game.moves and state["board"] == rows(game)
        assert state["status"] == "playing" and state["to_move"] == "white"


def local_error(moves: list[str | None], coord: str | tuple[int, int]) -> ValueError:
    """What ``gokata.Go.move`` raises for ``coord`` after ``moves``."""
    with pytest.raises(ValueError) as local:
        replayed(moves).move(coord)
    return local.value


def test_an_illegal_move_raises_and_changes_nothing(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        play(game, theirs, "6E", "5E", "4E", "9A", "5D", "9B", "5F")
        before = snapshot(theirs)
        for point, reason in [("6E", "occupied"), ("5E", "suicide"), ("e6", "occupied")]:
            with pytest.raises(IllegalMoveError) as illegal:
                theirs.move(point)
            error = illegal.value
            assert isinstance(error, gokata.IllegalMoveError) and isinstance(error, ValueError)
            assert error.code == "illegal_move" and error.reason == reason
            assert f"illegal move {error.coord} for white" in str(error), str(error)
            assert error.game == game.id
            # The attributes of the local engine's error for the same move.
            local = local_error(game.moves, point)
            assert isinstance(local, gokata.IllegalMoveError)
            assert (error.coord, error.color, error.reason) == (local.coord, local.color, local.reason)
            assert (error.coord, error.color) == ("6E" if reason == "occupied" else "5E", "white")
            assert snapshot(theirs) == before and snapshot(game) == before
        # Out of turn: refused by the server, nothing changes.
        with pytest.raises(NotYourTurnError) as early:
            game.move("1A")
        assert early.value.code == "not_your_turn"
        with pytest.raises(NotYourTurnError):
            game.pass_turn()
        theirs.sync()
        game.sync()
        assert snapshot(theirs) == before and snapshot(game) == before
        state = server.get_json(f"/api/games/{game.id}")
        assert len(state["moves"]) == 7 and state["to_move"] == "white"
        # The same player may then play a legal move.
        assert theirs.move("9C").ply == 7
        assert game.wait(timeout=10) is not None
        assert game.get_position("9C") == "o"


BAD_POINTS: list[str | tuple[int, int]] = ["10A", (9, 0), "5I", "I5", "1Z", "J10", (0, -1), "0A", "ZZ", "5", "E", " 5E", "05E"]


def test_a_point_off_the_board_or_malformed_raises_what_the_engine_raises(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        play(game, theirs, "5E")
        before = snapshot(theirs)
        for point in BAD_POINTS:
            with pytest.raises(BadRequestError) as bad:
                theirs.move(point)
            local = local_error(theirs.moves, point)
            # One mistake, one error, whatever the form of the point: a ValueError that is not
            # an IllegalMoveError, as gokata.Go raises, with the engine's message naming it.
            error = bad.value
            assert isinstance(error, ValueError) and not isinstance(error, gokata.IllegalMoveError)
            assert not isinstance(local, gokata.IllegalMoveError)
            assert str(error) == str(local), point
            assert f'"{point}"' in str(error), str(error)
            assert error.code == "bad_request" and error.game == game.id
            assert snapshot(theirs) == before
        assert theirs.move("4D").ply == 1  # and the game goes on


def test_a_ko_retake_is_illegal(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        play(game, theirs, "4B", "4C", "3A", "3B", "2B", "3D", "9J", "2C")
        assert game.move("3C").captured == ("3B",)
        theirs.wait(timeout=10)
        before = snapshot(theirs)
        with pytest.raises(IllegalMoveError) as ko:
            theirs.move("3B")
        assert ko.value.reason == "ko"
        assert snapshot(theirs) == before and snapshot(game) == before


def test_two_passes_end_the_game_with_the_score_and_records(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        game.move("5E")
        theirs.wait(timeout=10)
        theirs.move("3C")
        game.wait(timeout=10)
        game.move("3D")
        theirs.wait(timeout=10)
        theirs.pass_turn()
        assert not game.is_over and isinstance(game.wait(timeout=10), Played)
        ending = game.pass_turn()
        assert ending.point is None and ending.ply == 4
        # pass_turn() answers the second pass once the end is announced.
        assert game.is_over
        over = theirs.wait(timeout=10)
        assert isinstance(over, Over)
        local = replayed(["5E", "3C", "3D", None, None]).score(0.5)
        for view in (game, theirs):
            assert view.is_over and view.reason == "passes"
            assert view.winner == local["winner"] == "black"
            assert view.score == {"black": local["black"], "white": local["white"], "komi": 0.5}
            assert view.remaining_ms is None
            assert view.over is not None and view.over.records is not None
            assert view.over.records["black"].name == black.name
            assert (view.over.records["black"].wins, view.over.records["black"].losses) == (1, 0)
            assert (view.over.records["white"].wins, view.over.records["white"].losses) == (0, 1)
        assert (black.wins, black.losses, white.wins, white.losses) == (1, 0, 0, 1)
        assert black.record().wins == 1 and white.record().losses == 1
        # A rated game (the default): both ratings moved, once, by as much either way.
        assert game.rated and game.over is not None and game.over.ratings is not None
        ratings = game.over.ratings
        assert ratings == theirs.ratings
        assert ratings["black"].before == ratings["white"].before == 1500.0
        assert ratings["black"].after > 1500.0 > ratings["white"].after
        assert ratings["black"].change == pytest.approx(-ratings["white"].change)
        assert (black.rating, black.rank) == (ratings["black"].after, ratings["black"].rank)
        assert (white.rating, white.rank) == (ratings["white"].after, ratings["white"].rank)
        assert black.record().rank == black.rank and black.rank is not None and black.rank.endswith("?")
        assert f": 1 win, 0 losses, {black.rank}, 0 unfinished games, connected>" in repr(black)
        assert f": 0 wins, 1 loss, {white.rank}, 0 unfinished games, connected>" in repr(white)
        assert repr(game).startswith(f"<RemoteGame {game.id} 9x9: ") and "black won by " in repr(game)
        assert game not in black.games and theirs not in white.games
        with pytest.raises(GameOverError):
            game.move("1A")
        with pytest.raises(GameOverError):
            theirs.resign()
        records = game.over.records
        assert records is not None
        assert server.get_json(f"/api/players/{black.name}") == {
            "name": black.name,
            "wins": 1,
            "losses": 0,
            "bot": False,
            "rating": records["black"].rating,
            "deviation": records["black"].deviation,
            "volatility": records["black"].volatility,
            "rank": records["black"].rank,
            "rated_games": 1,
        }
        assert records["black"].rating == black.rating and records["black"].deviation == black.deviation
        assert records["black"].deviation is not None and records["black"].deviation < 350.0
        assert server.get_json(f"/api/games/{game.id}")["status"] == "over"
        assert black.token is not None
        with connect(server.ws_url, black.name, black.token) as again:
            assert (again.wins, again.losses, again.games) == (1, 0, [])


def test_resigning_on_the_opponents_turn(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        game.move("5E")
        over = game.resign()  # white is to move
        assert isinstance(over, Over)
        assert (over.winner, over.reason, over.score) == ("white", "resign", None)
        assert theirs.result(timeout=10) == theirs.over == over
        assert theirs.wait(timeout=10) == over
        assert theirs.winner == "white" and theirs.reason == "resign" and theirs.score is None
        assert (white.wins, black.losses) == (1, 1)


def test_reconnecting_with_the_token_continues_the_game(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with white:
        with black:
            game.move("5E")
            token = black.token
            assert token is not None
        theirs.wait(timeout=10)
        theirs.move("4E")  # while black is away
        with connect(server.ws_url, black.name, token) as back:
            assert [g.id for g in back.games] == [game.id]
            again = back.games[0]
            assert again.color == "black" and again.opponent == white.name
            assert again.moves == ["5E", "4E"] and again.turn == "black" and again.my_turn
            assert rows(again) == rows(theirs)
            again.move("4D")
            assert theirs.wait(timeout=10) is not None
            assert theirs.moves == ["5E", "4E", "4D"]


def test_a_game_that_ended_while_away_can_be_fetched(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with white:
        with black:
            game.move("5E")
            token = black.token
            assert token is not None
        theirs.wait(timeout=10)
        theirs.resign()  # while black is away
        with connect(server.ws_url, black.name, token) as back:
            assert back.games == [] and (back.wins, back.losses) == (1, 0)
            ended = back.fetch_game(game.id)
            assert ended.is_over and (ended.winner, ended.reason) == ("black", "resign")
            assert ended.moves == ["5E"] and ended.color == "black" and ended.opponent == white.name
            assert back.game(game.id) is ended and back.fetch_game(game.id) is ended
            with pytest.raises(UnknownGameError) as unknown:
                back.fetch_game("nosuchgame00")
            assert unknown.value.game == "nosuchgame00"
            someone, their_opponent, their_game, _ = pair(server.ws_url)
            with someone, their_opponent:
                with pytest.raises(NotYourGameError) as not_mine:
                    back.fetch_game(their_game.id)
                assert their_game.id in str(not_mine.value)


def test_the_opponent_leaving_and_coming_back_is_seen(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    black_token, white_token = black.token, white.token
    assert black_token is not None and white_token is not None
    with black:
        for view in (game, theirs):
            assert view.connected == {"black": True, "white": True} and view.opponent_connected
        white.close()
        wait_until(lambda: not game.opponent_connected, 10, "black to be told that white left")
        assert game.connected == {"black": True, "white": False}
    # Black comes back while white is away: the game's state at sign-in says so.
    with connect(server.ws_url, black.name, black_token) as black_again:
        mine = black_again.game(game.id)
        assert mine.connected == {"black": True, "white": False} and not mine.opponent_connected
        with connect(server.ws_url, white.name, white_token) as white_again:
            wait_until(lambda: mine.opponent_connected, 10, "black to be told that white is back")
            assert mine.connected == {"black": True, "white": True}
            returned = white_again.game(game.id)
            assert returned.connected == {"black": True, "white": True} and returned.opponent_connected
            returned.resign()
            assert mine.result(timeout=10).reason == "resign"


def test_a_seek_that_times_out_is_withdrawn(server: ServerProcess) -> None:
    with connect(server.ws_url, unique("lonely")) as first, connect(server.ws_url, unique("late")) as second:
        with pytest.raises(TimeoutError):
            first.seek(9, "black", timeout=0.5)
        with pytest.raises(TimeoutError):
            second.seek(9, "white", timeout=0.5)  # the first seek is gone: no pairing
        first.cancel()  # harmless without a seek
        assert first.games == [] and second.games == []


def test_a_bot_and_a_person_who_asks_for_the_computer(server: ServerProcess) -> None:
    with connect(server.ws_url, unique("robot"), bot=True) as robot, connect(server.ws_url, unique("human")) as human:
        assert robot.bot and not human.bot and robot.record().bot
        with pytest.raises(ValueError, match="'robots'"):
            human.seek(9, opponent="robots")
        with pytest.raises(TimeoutError):
            human.seek(9, timeout=0.5)  # people by default: the bot is not seeking yet
        with ThreadPoolExecutor(1) as pool:
            robot_game = pool.submit(robot.seek, [19, 9], timeout=30)
            wait_until(
                lambda: robot.name in [s["name"] for s in server.get_json("/api/seeks")["seeks"]],
                10,
                "the bot's seek",
            )
            game = human.seek(9, "black", opponent="computer", timeout=30)
            theirs = robot_game.result(timeout=30)
        assert (game.id, game.color, game.bots) == (theirs.id, "black", {"black": False, "white": True})
        assert theirs.bots == game.bots
        over = game.resign()
        assert over.records is not None and theirs.result(timeout=10) == over
        record = over.records["white"]
        assert (record.name, record.wins, record.losses, record.bot, record.rated_games) == (robot.name, 1, 0, True, 1)
        assert record.rating is not None and record.rating > 1500.0, "a game against a program is rated too"
        assert robot.record() == Record(robot.name, 1, 0, True, record.rating, record.deviation, rank=record.rank)


def test_the_clock_ends_the_game(tmp_path: Path, databases: Databases) -> None:
    with ServerProcess(databases.new(tmp_path, "games"), move_time=1) as quick:
        black, white, game, theirs = pair(quick.ws_url)
        with black, white:
            remaining = game.remaining_ms
            assert remaining is not None and remaining <= 1000
            started = time.monotonic()
            over = theirs.wait(timeout=15)  # black never moves
            assert isinstance(over, Over)
            assert (over.winner, over.reason, over.score) == ("white", "timeout", None)
            assert 0.5 < time.monotonic() - started < 10
            assert game.result(timeout=10) == over
            assert (white.wins, black.losses) == (1, 1)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["goodbye", "crash"])
def test_the_client_reconnects_after_a_server_restart(own_server: ServerProcess, stop: int) -> None:
    black, white, game, theirs = pair(own_server.ws_url)
    with black, white:
        game.move("5E")
        theirs.wait(timeout=10)
        own_server.stop(stop)
        with ThreadPoolExecutor(1) as pool:
            # Sent while the server is down: resent with the same ply once reconnected.
            in_flight = pool.submit(theirs.move, "4E", timeout=60)
            wait_until(
                lambda: theirs._pending is not None and not white.connected,
                10,
                "white's move in flight while the server is gone",
            )
            assert not in_flight.done()
            own_server.restart()
            played = in_flight.result(timeout=60)
        assert (played.ply, played.point) == (1, "4E")
        seen = game.wait(timeout=30)  # announced, or learnt from the welcome if black was late
        assert isinstance(seen, Played)
        assert (seen.ply, seen.color, seen.point, seen.captured) == (1, "white", "4E", ())
        assert game.move("3E").ply == 2
        assert theirs.wait(timeout=10) is not None
        assert theirs.moves == game.moves == ["5E", "4E", "3E"]
        assert black.connected and white.connected


def test_a_timeout_says_whether_the_opponent_or_the_server_is_silent(own_server: ServerProcess) -> None:
    black, white, game, theirs = pair(own_server.ws_url)
    with black, white:
        with pytest.raises(TimeoutError) as opponent:
            theirs.wait(timeout=0.5)
        assert str(opponent.value) == (
            f"after 0.5 s, {black.name} (black) has still not played in game {game.id} "
            "(the connection to the server is up)"
        )
        with pytest.raises(TimeoutError) as unfinished:
            theirs.result(timeout=0.2)
        assert f"game {game.id} is still going on: black to play (turn 1)" in str(unfinished.value)
        own_server.suspend()  # connected, but the server does not answer
        try:
            with pytest.raises(TimeoutError) as silent:
                game.move("5E", timeout=0.5)
        finally:
            own_server.send_signal(signal.SIGCONT)
        assert str(silent.value) == "no answer from the server in 0.5 s"
        played = theirs.wait(timeout=10)  # the move was sent: played once the server woke
        assert isinstance(played, Played) and played.point == "5E"
        own_server.kill()
        wait_until(lambda: not black.connected, 10, "the client to notice the server is gone")
        with pytest.raises(TimeoutError) as lost:
            game.wait(timeout=0.5)
        assert str(lost.value) == (
            f"no answer in 0.5 s: the connection to {own_server.ws_url} is lost; reconnecting"
        )


def test_a_connection_given_up_says_why(own_server: ServerProcess) -> None:
    with connect(own_server.ws_url, unique("brief"), reconnect_for=0.5) as player:
        assert player.failure is None and player.connected
        own_server.kill()
        wait_until(lambda: player.failure is not None, 15, "the client to give up")
        assert isinstance(player.failure, ConnectionFailedError) and not player.connected
        assert str(player.failure).startswith(f"cannot connect to {own_server.ws_url}: ")
        with pytest.raises(ConnectionFailedError):
            player.seek(9, timeout=1)


def test_a_closed_player_refuses_to_wait(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    white.close()
    black.close()
    black.close()  # twice is harmless
    assert game.wait(timeout=1) is None  # black's turn: known without the server
    with pytest.raises(ConnectionFailedError):
        theirs.wait(timeout=1)  # white would have to hear from the server
    with pytest.raises(ConnectionFailedError):
        game.move("5E", timeout=1)


def test_a_remote_game_draws_itself_like_a_local_one(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        game.move("5E")
        theirs.wait(timeout=10)
        theirs.move("4D")
        game.wait(timeout=10)
        picture = game._repr_svg_()
        local = Go(9)
        local.move("5E", "4D")
        assert picture == gokata.svg(local) == theirs._repr_svg_()
        assert picture.startswith("<svg") and "<desc>" in picture
