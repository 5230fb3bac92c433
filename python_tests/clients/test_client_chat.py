"""``gokata.client`` chat: ``chat(text)`` on a player's game or a watched one, ``messages`` (from
the game's state and each ``chat`` frame), ``on_chat``, and a watched game's news. A player's
message reaches both players and the watchers; a watcher's, while the game is on, only the
watchers. The server's refusals surface as the client's errors. The real server, both stores."""

from __future__ import annotations

import threading

import pytest

from gokata.client import BadRequestError, ChatMessage, RateLimitedError, connect
from support.clients import news_so_far, pair, settle, unique
from support.server_process import ServerProcess
from support.waiting import wait_until, wait_until_equal

WAIT = 10.0


def said(messages: list[ChatMessage]) -> list[tuple[str, str, str]]:
    return [(message.sender, message.text, message.channel) for message in messages]


def test_players_and_watchers_chat_each_on_their_channel(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white, connect(server.ws_url, unique("carol")) as carol, connect(server.ws_url, unique("dave")) as dave:
        watched = carol.watch(game.id, timeout=WAIT)
        also = dave.watch(game.id, timeout=WAIT)
        heard: list[ChatMessage] = []
        replied = threading.Event()

        def on_chat(message: ChatMessage) -> None:  # white answers from the callback
            heard.append(message)
            if message.sender == black.name and not replied.is_set():
                theirs.chat("thanks, you too")
                replied.set()

        theirs.on_chat = on_chat
        game.move("5E")
        game.chat("  good luck  ")  # trimmed by the server
        mine = game.messages[-1]  # the server's echo is in before chat() returns
        assert (mine.sender, mine.text, mine.channel, mine.ply, mine.game) == (black.name, "good luck", "players", 1, game.id)
        assert mine.at_ms > 0 and str(mine) == f"{black.name}: good luck"
        assert replied.wait(WAIT)
        both = [(black.name, "good luck", "players"), (white.name, "thanks, you too", "players")]
        wait_until_equal(lambda: said(game.messages), both, WAIT, "black to hear white's answer")
        assert said(heard[:2]) == both  # the callback hears white's own message too
        # A watcher speaks to the watchers only, while the game is on.
        watched.chat("nice opening")
        watchers = (carol.name, "nice opening", "watchers")
        for watching in (watched, also):
            wait_until_equal(lambda: said(watching.messages), [*both, watchers], WAIT, "the watchers to hear all")
        game.chat("last word")  # after the watcher's: the players never got it
        wait_until(lambda: len(theirs.messages) == 3, WAIT, "white to hear the last word")
        for player_game in (game, theirs):
            assert said(player_game.messages) == [*both, (black.name, "last word", "players")]
        wait_until(lambda: len(watched.messages) == 4, WAIT, "the watcher to hear the last word")
        news = [item for item in news_so_far(watched) if isinstance(item, ChatMessage)]
        assert said(news) == said(watched.messages)  # each message also a news item, in order
        # Someone who signs in again finds the players' messages in the game's state.
        with connect(server.ws_url, white.name, white.token) as again:
            assert said(again.game(game.id).messages) == said(theirs.messages)
        with connect(server.ws_url, unique("erin")) as erin:
            assert said(erin.watch(game.id, timeout=WAIT).messages) == said(watched.messages)


def test_what_the_server_refuses_is_raised(server: ServerProcess) -> None:
    black, white, game, theirs = pair(server.ws_url)
    with black, white:
        for text, why in [("   ", "empty"), ("x" * 501, "500"), ("two\nlines", "control")]:
            with pytest.raises(BadRequestError, match=why):
                game.chat(text)
        game.move("5E")
        settle(theirs, 1)
        for n in range(5):
            theirs.chat(f"message {n}")
        with pytest.raises(RateLimitedError):
            theirs.chat("one too many")  # 5 in 10 seconds a connection
        theirs.move("4D")  # the connection stays open
        assert len(theirs.messages) == 5 and theirs.move_number == 2
