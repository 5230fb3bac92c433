"""``gokata.client`` watching, against the real server run as a process: a player follows
someone else's game to its end (`Player.watch`), and the lobby (`Player.watch_lobby`); a watch
goes on across a server restart, with no turn missed or repeated."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from gokata.client import (
    Lobby,
    LobbyWatch,
    News,
    Over,
    Played,
    UnknownGameError,
    WatchedGame,
    connect,
)
from support.clients import pair, settle, unique
from support.server_process import ServerProcess, sign_in


def test_a_player_watches_another_game_to_its_end(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    try:
        game.move("5E")
        with connect(server.ws_url, unique("carol")) as carol:
            watched = carol.watch(game.id, timeout=10)
            assert isinstance(watched, WatchedGame)
            assert carol.watch(game.id) is watched, "watched once"
            shown = (watched.moves, watched.turn, watched.black, watched.white)
            assert shown == (["5E"], "white", black.name, white.name)
            assert watched.connected == {"black": True, "white": True}
            assert watched.watching and watched.over is None
            # The terms and clocks, as the players' own games have them.
            terms = (watched.rated, watched.handicap, watched.komi, watched.time, watched.ranks)
            assert terms == (game.rated, game.handicap, game.komi, game.time, game.ranks)
            assert terms == (True, 0, 0.5, {"system": "per_move", "move_ms": 60_000}, {"black": "6k?", "white": "6k?"})
            assert watched.clocks == game.clocks == {"black": {"main_ms": 60_000}, "white": {"main_ms": 60_000}}
            with pytest.raises(UnknownGameError):
                carol.watch("nosuchgame12", timeout=10)

            def play_on() -> None:
                for point in ("4D", "3C", None):
                    mover = theirs if game.move_number % 2 else game
                    if point is None:
                        mover.pass_turn()
                    else:
                        mover.move(point)
                    for view in (game, theirs):
                        settle(view, mover.move_number)
                theirs.resign()

            with ThreadPoolExecutor(1) as pool:
                playing = pool.submit(play_on)
                news = list(watched.news(timeout=10))
                playing.result(10)
            turns = [item for item in news if isinstance(item, Played)]
            assert [(t.ply, t.point) for t in turns] == [(1, "4D"), (2, "3C"), (3, None)]
            assert all(t.remaining_ms is not None and t.clocks is not None for t in turns)
            assert isinstance(news[-1], Over) and news[-1] == game.result(10)
            assert watched.ratings == game.ratings and watched.ratings is not None
            assert watched.clocks == game.clocks
            assert (news[-1].winner, news[-1].reason) == ("black", "resign")
            assert watched.moves == game.moves and watched.board == game.board
            assert not watched.watching
            # A finished game: its end, and nothing more.
            again = carol.watch(game.id, timeout=10)
            assert again is not watched
            assert [type(item) for item in again] == [Over]
            assert again.over is not None and again.over.reason == "resign"
    finally:
        black.close()
        white.close()


def test_a_player_follows_the_lobby(own_server: ServerProcess) -> None:
    with connect(own_server.ws_url, unique("dave")) as dave:
        lobby = dave.watch_lobby(timeout=10)
        assert isinstance(lobby, LobbyWatch) and dave.watch_lobby() is lobby
        assert lobby.latest == Lobby((), (), 0)
        seeker = sign_in(own_server, unique("erin"))
        try:
            updates = lobby.updates(timeout=5)
            assert next(updates) == Lobby((), (), 0)
            byoyomi = {"system": "byoyomi", "main_ms": 600_000, "period_ms": 30_000, "periods": 5}
            seeking = {"type": "seek", "size": [13, 19], "color": "white", "rated": False, "komi": 6.5, "time": byoyomi}
            seeker.wire.request(seeking, "seeking")
            now = next(updates)
            seek = {
                "name": seeker.name,
                "size": [13, 19],
                "color": "white",
                "opponent": "human",
                "bot": False,
                "rank": "6k?",
                "rated": False,
                "handicap": 0,
                "komi": 6.5,
                "time": byoyomi,
            }
            assert now == lobby.latest and now.games == () and len(now.seeks) == 1
            assert {key: now.seeks[0].get(key) for key in seek} == seek, "(a server may add fields)"
            lobby.close()
            assert list(updates) == [], "closed: nothing more"
            seeker.wire.request({"type": "cancel"}, "cancelled")
        finally:
            seeker.wire.close()


def test_a_watch_goes_on_across_a_server_restart_with_no_turn_missed(own_server: ServerProcess) -> None:
    black, white, game, theirs = pair(own_server.ws_url)
    carol = connect(own_server.ws_url, unique("carol"))
    try:
        watched = carol.watch(game.id, timeout=10)
        news: list[News] = []
        done = threading.Event()

        def read() -> None:
            for item in watched.news(timeout=60):
                news.append(item)
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        game.move("5E")
        settle(theirs, 1)
        own_server.stop()
        own_server.restart()
        theirs.move("4D", timeout=30)  # after its client signed in again; carol's may not have yet
        settle(game, 2, timeout=30)
        game.move("3C", timeout=30)
        theirs.resign(timeout=30)
        assert done.wait(30), news
        turns = [item for item in news if isinstance(item, Played)]
        assert [(t.ply, t.point) for t in turns] == [(0, "5E"), (1, "4D"), (2, "3C")]
        assert isinstance(news[-1], Over) and news[-1].reason == "resign"
        assert watched.moves == ["5E", "4D", "3C"]
    finally:
        for player in (black, white, carol):
            player.close()
