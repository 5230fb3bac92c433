"""Taking a seek from the lobby, in real headless Chromiums against a real ``gokata serve`` (the
harness of ``support/browser_page.py``): a new seek shows in another browser's lobby within
about a second; its "Play" starts the game on the seek's terms (its size, the other colour,
rated or not, komi, time, scoring); programs' seeks are listed by name and taken by asking for
the computer; the seek form asks for "Either" while only programs wait.

The page's hooks used here, besides test_browser.py's: each seek's ``li`` of ``lobby-seeks``
(``data-seek``: the seeker's name) and its ``button.take``; the seek form's ``agreement``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from support.bot_player import BotPlayer
from support.browser_page import Page, contains, eventually, game_state, until, url_of
from support.databases import Databases
from support.server_process import ServerProcess, fresh_name, sign_in

NEW = "6k?"
BYOYOMI = "10 min + 5 × 30 s byo-yomi"
BYOYOMI_TIME = {"system": "byoyomi", "main_ms": 600000, "period_ms": 30000, "periods": 5}
TERMS = "rated, 5 min a move"
PUSHED_WITHIN = 2.0
"""Seconds a new seek may take to show in another browser's lobby: the server pushes the lobby
at most once a second, and the pages poll every 20 ms."""


@pytest.fixture
def server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path, "server")) as process:
        yield process


def seek_items(page: Page) -> list[str]:
    value = page.driver.execute_script(
        "return Array.from(document.querySelectorAll('#lobby-seeks li'), (item) => {"
        "  const copy = item.cloneNode(true);"
        "  for (const badge of copy.querySelectorAll('.bot')) badge.replaceWith('[bot]');"
        "  for (const button of copy.querySelectorAll('button.take')) button.replaceWith('[Play]');"
        "  return copy.textContent.replace(/\\s+/g, ' ').trim(); });"
    )
    assert isinstance(value, list)
    return [str(item) for item in value]


def take(page: Page, name: str) -> None:
    page.driver.find_element(By.CSS_SELECTOR, f'#lobby-seeks li[data-seek="{name}"] button.take').click()


def opponent_asked(page: Page) -> str:
    return str(Select(page.element("opponent")).first_selected_option.get_attribute("value"))


def test_a_seek_shows_at_once_in_another_lobby_and_its_play_starts_the_game_on_its_terms(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """Alice seeks 13x13 as black, unrated, komi 6.5, byo-yomi, scored by agreement; bob's lobby
    shows it within about a second, with its terms; bob's "Play" (his own form at 9x9, rated)
    pairs them on alice's terms, bob white."""
    url = url_of(server)
    alice_name, bob_name = fresh_name("seeker"), fresh_name("taker")
    alice, bob = browsers(url), browsers(url)
    for page, name in ((alice, alice_name), (bob, bob_name)):
        page.open()
        page.sign_in(name)
    eventually(lambda: seek_items(bob), ["Nobody is waiting for an opponent."], what="bob's empty lobby")
    for id_, words in (("size", "13 × 13"), ("color", "Black"), ("rated", "Unrated"), ("time", BYOYOMI)):
        Select(alice.element(id_)).select_by_visible_text(words)
    alice.element("komi").clear()
    alice.element("komi").send_keys("6.5")
    alice.element("agreement").click()
    alice.element("seek").click()
    terms = f"unrated, komi 6.5, {BYOYOMI}, scored by agreement"
    eventually(lambda: alice.text("status"), f"Waiting for an opponent: 13×13, black, {terms}…", what="alice seeking")
    echoed = time.monotonic()
    eventually(
        lambda: seek_items(bob), [f"{alice_name} {NEW}, 13×13, black, wants a person, {terms} [Play]"],
        PUSHED_WITHIN, what="alice's seek pushed to bob's lobby",
    )
    assert time.monotonic() - echoed < PUSHED_WITHIN
    assert seek_items(alice) == [f"{alice_name} {NEW}, 13×13, black, wants a person, {terms} (your seek)"]

    assert Select(bob.element("size")).first_selected_option.text == "9 × 9"
    take(bob, alice_name)
    until(lambda: alice.stored("gokata.game") is not None and bob.stored("gokata.game") is not None, what="paired")
    game = alice.stored("gokata.game")
    assert game is not None and bob.stored("gokata.game") == game
    state = game_state(server, game)
    assert (state["size"], state["black"], state["white"]) == (13, alice_name, bob_name)
    assert (state["rated"], state["komi"], state["handicap"], state["time"], state["scoring"]) == (
        False, 6.5, 0, BYOYOMI_TIME, "agreement"
    )
    for page in (alice, bob):
        until(lambda: page.shown("board") and not page.shown("lobby"), what="the game shown")
        eventually(lambda: page.text("terms"), f"Unrated, even, komi 6.5, {BYOYOMI}, scored by agreement.")
    for page in (alice, bob):
        page.assert_clean()


def test_programs_seeks_are_listed_by_name_and_taken_by_asking_for_the_computer(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """With nobody waiting the form asks for a person; a program waiting, listed by its name
    with its badge, turns it to "Either", and a person waiting back to "Person"; "Play" on the
    program's seek starts a game with that program."""
    page = browsers(url_of(server))
    page.open()
    name = fresh_name("picker")
    page.sign_in(name)
    eventually(lambda: seek_items(page), ["Nobody is waiting for an opponent."])
    assert opponent_asked(page) == "human"
    robot = fresh_name("robot")
    with BotPlayer(server.ws_url, robot):
        robot_seek = f"{robot} {NEW} [bot], 9×9, any colour, wants a person, {TERMS} [Play]"
        eventually(lambda: seek_items(page), [robot_seek], what="the program's seek, by name")
        eventually(lambda: opponent_asked(page), "any", what="Either, while only a program waits")

        person = sign_in(server, fresh_name("person"))
        try:
            person.wire.request({"type": "seek", "size": 19, "color": "white"}, "seeking")
            person_seek = f"{person.name} {NEW}, 19×19, white, wants a person, {TERMS} [Play]"
            eventually(lambda: seek_items(page), [robot_seek, person_seek], what="both seeks")
            eventually(lambda: opponent_asked(page), "human", what="Person, while a person waits")
            person.wire.request({"type": "cancel"}, "cancelled")
            eventually(lambda: seek_items(page), [robot_seek], what="the person's seek withdrawn")
            eventually(lambda: opponent_asked(page), "any", what="Either again")
        finally:
            person.wire.close()

        take(page, robot)
        until(lambda: page.stored("gokata.game") is not None, what="the game with the program")
        game = page.stored("gokata.game")
        assert game is not None
        state = game_state(server, game)
        mine = "black" if state["black"] == name else "white"
        theirs = "white" if mine == "black" else "black"
        assert (state[theirs], state["bots"], state["size"]) == (robot, {mine: False, theirs: True}, 9)
        until(lambda: page.shown(f"{theirs}-bot"), what="the program marked beside the board")
        page.element("resign").click()
        page.element("resign").click()  # "Really resign?"
        contains(lambda: page.text("result"), "wins by resignation")
    page.assert_clean()
