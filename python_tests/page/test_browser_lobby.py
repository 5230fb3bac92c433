"""The page and programs as players, in a real headless Chromium against a real ``gokata
serve`` (the harness of ``support/browser_page.py``): a person chooses the computer and plays it
to the end; bots are marked wherever a name is shown; the lobby lists the seeks waiting and the games
being played, kept current without a reload (pushed by the server), followed only while it is
on show, and leads to each game to watch.

The computer is a real program on the server: `bot_player.BotPlayer`, a thread signed in
through ``gokata.client`` as a bot. Each test has a server of its own, so that the lobby lists
exactly what the test made."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Optional

import pytest
from selenium.webdriver.common.by import By

import gokata
from support.bot_player import BotPlayer
from support.browser_page import (
    VIEWPORTS,
    Page,
    eventually,
    expected_view,
    game_state,
    long_name,
    player,
    record,
    shows,
    until,
    url_of,
)
from support.databases import Databases
from support.server_process import Frame, ServerProcess, fresh_name, sign_in

NO_SEEKS = "Nobody is waiting for an opponent."
TERMS = "rated, 5 min a move"
"""The terms of a seek that names none, in words: rated, even, the server's time a move."""
NEW = "6k?"
"""A new player's rank: 6 kyu, uncertain."""
NO_GAMES = "No game is being played."
LOBBY_EVERY = 1.0
"""Seconds between two lobbies the server pushes to a page that follows it, at the least."""
BOT_TITLE = "A program, not a person"
PLAYING_IN_VIEW = ("board", "status", "black-name", "white-name", "white-bot", "black-clock", "white-clock", "pass", "resign")
"""What a player of a bot must see without scrolling (test_browser.IN_VIEW, but for the marks
of a pass and an absence, which a fresh game has not)."""

LOBBY = """
const listed = (id) => Array.from(document.querySelectorAll(`#${id} li`), (item) => {
  const copy = item.cloneNode(true);
  for (const badge of copy.querySelectorAll('.bot')) {
    badge.replaceWith(badge.title === arguments[0] ? '[bot]' : '[badge of another title]');
  }
  for (const button of copy.querySelectorAll('button.take')) button.replaceWith('[Play]');
  return copy.textContent.replace(/\\s+/g, ' ').trim();
});
return [listed('lobby-seeks'), listed('lobby-games')];
"""
"""The lobby's two lists, each item's words, a bot badge (with its title) written ``[bot]``, the
button that takes a seek ``[Play]``."""

FOLLOW_SPY = """
window.lobbySent = [];
const sendBefore = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  try {
    const type = JSON.parse(data).type;
    if (type === 'watch_lobby' || type === 'unwatch_lobby') window.lobbySent.push(type);
  } catch (error) {
    // not JSON: not the page's
  }
  return sendBefore.call(this, data);
};
"""
"""Notes, in order, each time the page asks the server to follow the lobby (``watch_lobby``:
the lists, then again as they change) or to stop (``unwatch_lobby``)."""


@pytest.fixture
def server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path, "server")) as process:
        yield process


def lobby(page: Page) -> tuple[list[str], list[str]]:
    value = page.driver.execute_script(LOBBY, BOT_TITLE)
    assert isinstance(value, list) and len(value) == 2
    seeks, games = value
    return [str(item) for item in seeks], [str(item) for item in games]


def lobby_sent(page: Page) -> list[str]:
    value = page.driver.execute_script("return window.lobbySent;")
    assert isinstance(value, list)
    return [str(item) for item in value]


def listed_game(state: Frame) -> str:
    """A game in the lobby's words: each name with its rank (then a program's badge)."""
    size = state["size"]

    def seat(color: str) -> str:
        bot = " [bot]" if state["bots"][color] else ""
        return f"{state[color]} {state['ranks'][color]}{bot}"

    return f"{seat('black')} against {seat('white')}, {size}×{size}, move {len(state['moves'])} Watch"


def a_legal_point(state: Frame) -> str:
    """A point the player to move may play, chosen from the moves so far."""
    go = gokata.Go(state["size"])
    go.play_many(state["moves"])
    legal = go.legal_moves()
    assert legal, "no legal point left"
    return legal[len(legal) // 3]


def answered(server: ServerProcess, game: str, turns: int) -> Frame:
    """The server's STATE once the computer has answered the person's turn number ``turns``:
    black to move again, or the game over."""

    def ready() -> bool:
        state = game_state(server, game)
        return state["status"] == "over" or (len(state["moves"]) > turns and state["to_move"] == "black")

    until(ready, what="the computer's answer")
    return game_state(server, game)


def agree(state: Frame, pages: dict[Optional[str], Page]) -> None:
    """Each page (by the colour its player plays; None: a spectator) shows the server's STATE."""
    for color, page in pages.items():
        eventually(lambda: shows(page, state), expected_view(state, color), what=f"the page of {color}")


def result_text(server: ServerProcess, state: Frame) -> str:
    """The result of a game ended by two passes, in the page's words."""
    winner, score = state["winner"], state["score"]
    white = score["white"] + score["komi"]
    margin = abs(score["black"] - white)
    return (
        f"{winner.title()} ({player(state, winner)}) wins after two passes. "
        f"Area score: black {score['black']}, white {score['white']} + {score['komi']} komi = {white}; "
        f"by {margin} points. Records: {record(server, state['black'])}; {record(server, state['white'])}."
    )


def test_a_person_plays_the_computer_while_another_window_watches_from_the_lobby(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """A person seeks the computer; a second window sees the seek in the lobby, then the game
    instead once the program took it; it opens the game there and watches the turns arrive;
    the person passes, the program passes, both windows show the result. The program is
    marked as one beside the board, in the title, the status, the records and the lobby."""
    url = url_of(server)
    person, robot = long_name("person"), long_name("robot")
    alice, watcher = browsers(url), browsers(url)
    watcher.open()
    eventually(lambda: lobby(watcher), ([NO_SEEKS], [NO_GAMES]), what="the empty lobby")
    alice.open()
    alice.sign_in(person)
    assert alice.shown("lobby")

    alice.seek(9, "black", "computer")
    eventually(lambda: alice.text("status"), f"Waiting for the computer: 9×9, black, {TERMS}…")
    eventually(lambda: lobby(watcher)[0], [f"{person} {NEW}, 9×9, black, wants the computer, {TERMS}"], what="the seek listed")

    with BotPlayer(server.ws_url, robot):
        until(lambda: alice.stored("gokata.game") is not None, what="the game with the computer")
        game = alice.stored("gokata.game")
        assert game is not None
        state = game_state(server, game)
        assert (state["black"], state["white"], state["bots"]) == (person, robot, {"black": False, "white": True})
        assert alice.text("game-title") == f"{person} (black) against {robot} [bot] (white), 9×9"
        assert alice.shown("white-bot") and not alice.shown("black-bot")
        assert alice.element("white-bot").get_attribute("title") == BOT_TITLE
        assert not alice.shown("lobby"), "a game played has the window to itself"
        for label, (width, height, phone) in VIEWPORTS.items():
            alice.set_viewport(width, height, phone)
            assert alice.out_of_view(PLAYING_IN_VIEW) == [], label
        alice.set_viewport(*VIEWPORTS["1280x800"])

        # The seek paired is gone from the lobby; the game is there, with a link to watch it.
        eventually(lambda: lobby(watcher), ([NO_SEEKS], [listed_game(state)]), what="the game listed")
        watcher.driver.find_element(By.CSS_SELECTOR, f'#lobby-games [data-game="{game}"] a.watch').click()
        pages: dict[Optional[str], Page] = {"black": alice, None: watcher}
        agree(state, pages)
        assert watcher.shown("white-bot") and not watcher.shown("lobby")
        assert watcher.shown("to-lobby") and not alice.shown("to-lobby")

        turns = 0
        while state["status"] == "playing" and turns < 6:
            alice.click(a_legal_point(state))
            state = answered(server, game, turns + 1)
            turns = len(state["moves"])
            agree(state, pages)  # the spectator watches each turn arrive
        assert turns >= 4 and state["status"] == "playing", state["moves"]

        alice.element("pass").click()
        until(lambda: game_state(server, game)["status"] == "over", what="the computer's pass ending the game")
    state = game_state(server, game)
    assert (state["reason"], state["moves"][-2:]) == ("passes", [None, None])
    expected = result_text(server, state)
    assert f"{robot} [bot]: " in expected
    for page in (alice, watcher):
        eventually(lambda: page.text("result"), expected, what="the result")
        assert not page.shown("lobby") and page.shown("to-lobby")
        page.element("to-lobby").click()  # the finished game put away
        until(lambda: page.shown("lobby") and not page.shown("board"), what="back to the lobby")
        eventually(lambda: lobby(page)[1], [NO_GAMES], what="the game gone from the lobby")
    assert watcher.driver.execute_script("return location.hash;") == ""
    assert alice.text("status") == f"Signed in as {person}. Choose a board and seek a game."
    alice.driver.refresh()
    until(lambda: alice.text("player") == record(server, person), what="signed in again")
    alice.settled()  # all the server said after the sign-in has been shown
    assert alice.shown("lobby") and not alice.shown("board"), "the game stays put away"
    for page in (alice, watcher):
        page.assert_clean()


def test_the_lobby_marks_bots_and_is_followed_only_while_it_is_on_show(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """Every seek waiting is listed, oldest first, in words (rank, sizes, colour, whom it wants, terms), a
    program's marked; a seek withdrawn leaves the list. The lists are followed (pushed by the
    server) while the lobby is on show, and not while the tab is hidden or a game of the
    player's is on."""
    page = browsers(url_of(server))
    page.open()
    name = fresh_name("carol")
    page.sign_in(name)
    page.driver.execute_script(FOLLOW_SPY)
    eventually(lambda: lobby(page), ([NO_SEEKS], [NO_GAMES]))

    robot = fresh_name("robot")
    with BotPlayer(server.ws_url, robot):
        robot_seek = f"{robot} {NEW} [bot], 9×9, any colour, wants a person, {TERMS} [Play]"
        eventually(lambda: lobby(page)[0], [robot_seek], what="the bot's seek")
        other = sign_in(server, fresh_name("dave"))
        try:
            frame = {"type": "seek", "size": [13, 19], "color": "white", "opponent": "any"}
            other.wire.request(frame, "seeking")
            other_seek = f"{other.name} {NEW}, 13×13 or 19×19, white, wants anyone, {TERMS} [Play]"
            eventually(lambda: lobby(page)[0], [robot_seek, other_seek], what="both seeks, oldest first")
            other.wire.request({"type": "cancel"}, "cancelled")
            eventually(lambda: lobby(page)[0], [robot_seek], what="the seek withdrawn")
        finally:
            other.wire.close()

        # A hidden tab stops following the lobby; in front again, it follows it at once.
        own_tab = page.driver.current_window_handle
        before = len(lobby_sent(page))
        page.driver.switch_to.new_window("tab")
        time.sleep(LOBBY_EVERY + 1.5)  # the sleep is the test: the hidden page does not follow the lobby again
        page.driver.close()
        page.driver.switch_to.window(own_tab)
        until(
            lambda: lobby_sent(page)[before:] == ["unwatch_lobby", "watch_lobby"],
            what="the lobby left while the tab was hidden, and followed again in front",
        )

        # A game of the player's own hides the lobby, which is not followed meanwhile.
        page.seek(9, "any", "computer")
        until(lambda: page.stored("gokata.game") is not None, what="the game with the computer")
        assert not page.shown("lobby")
        until(lambda: lobby_sent(page)[-1:] == ["unwatch_lobby"], what="the lobby left for the game")
        before = len(lobby_sent(page))
        time.sleep(LOBBY_EVERY + 1.5)  # the sleep is the test: the page does not follow the lobby during the game
        assert len(lobby_sent(page)) == before, "the lobby was followed during the game"
        page.element("resign").click()
        page.element("resign").click()  # "Really resign?"
        until(lambda: "wins by resignation" in page.text("result"), what="the resignation")
        assert f"{robot} [bot]: 1 win, 0 losses" in page.text("result")
        page.element("to-lobby").click()
        assert page.shown("lobby")
        until(lambda: lobby_sent(page)[before:] == ["watch_lobby"], what="the lobby followed after the game")
        eventually(lambda: lobby(page), ([NO_SEEKS], [NO_GAMES]), what="the lobby after the game")
    page.assert_clean()


def test_a_lone_player_plays_the_computer_of_gokata_serve_bot(
    tmp_path: Path, databases: Databases, browsers: Callable[[str], Page]
) -> None:
    """On a fresh ``gokata serve --bot``, the lobby shows the server's own computer waiting,
    marked as a bot; a person who chooses Computer plays it at once, sees its answers, and
    the end of the game (a resignation: the computer's passing is its own affair)."""
    with ServerProcess(databases.new(tmp_path, "server"), 300.0, ("--bot",)) as built_in:
        page = browsers(url_of(built_in))
        page.open()
        computer_seek = f"gokata-bot {NEW} [bot], 9×9, 13×13 or 19×19, any colour, wants a person, {TERMS}"
        eventually(lambda: lobby(page), ([computer_seek], [NO_GAMES]), what="the computer waiting")
        name = fresh_name("lone")
        page.sign_in(name)
        page.seek(9, "black", "computer")
        until(lambda: page.stored("gokata.game") is not None, what="the game with the computer")
        game = page.stored("gokata.game")
        assert game is not None
        state = game_state(built_in, game)
        assert (state["white"], state["bots"]) == ("gokata-bot", {"black": False, "white": True})
        assert page.shown("white-bot") and not page.shown("black-bot")
        for turns in (1, 3):
            page.click(a_legal_point(state))
            state = answered(built_in, game, turns)
            agree(state, {"black": page})
        page.element("resign").click()
        page.element("resign").click()  # "Really resign?"
        # The records the page shows are those stored with the result: read them once stored.
        until(lambda: record(built_in, name).endswith(": 0 wins, 1 loss"), what="the resignation stored")
        eventually(
            lambda: page.text("result"),
            f"White (gokata-bot [bot]) wins by resignation. "
            f"Records: {record(built_in, name)}; {record(built_in, 'gokata-bot')}.",
            what="the result",
        )
        assert "gokata-bot [bot]: 1 win, 0 losses" in page.text("result")
        page.assert_clean()
