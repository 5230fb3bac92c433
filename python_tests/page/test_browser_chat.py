"""The chat of a game on the page, in real headless Chromiums against a real ``gokata serve``
(the harness of ``support/browser_page.py``): a player's message reaches the opponent and a
spectator, markup in it shown as text; a spectator's goes to the spectators only while the game
is on, marked as theirs; once the game is over the players see it too, and may hide the
spectators' chat.

The page's hooks used here, besides test_browser.py's: ``chat-log`` (each message an ``li`` of
class ``players`` or ``watchers``, the sender in ``.from``, the words in ``.text``), ``chat-text``,
``chat-send``, ``chat-hide-watchers`` and ``chat-note``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from support.browser_page import Page, contains, eventually, until, url_of
from support.databases import Databases
from support.server_process import ServerProcess, fresh_name, sign_in

MARKUP = '<img src=x onerror="window.pwned = 1"><b>gg</b> & <script>window.pwned = 2</script>'
"""A message that would run and draw if it were written as HTML."""

SHOWN_LOG = """
return Array.from(document.querySelectorAll('#chat-log li'))
  .filter((li) => getComputedStyle(li).display !== 'none')
  .map((li) => [li.className, li.querySelector('.from').textContent, li.querySelector('.text').textContent]);
"""
"""The messages a page shows, in order: [channel, sender, words]."""


@pytest.fixture
def server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path, "server")) as process:
        yield process


def log(page: Page) -> list[list[str]]:
    value = page.driver.execute_script(SHOWN_LOG)
    assert isinstance(value, list)
    return [[str(part) for part in item] for item in value]


def say(page: Page, text: str) -> None:
    field = page.element("chat-text")
    field.clear()
    field.send_keys(text)
    page.element("chat-send").click()
    eventually(lambda: str(page.element("chat-text").get_property("value")), "", what="the message sent")


def test_players_and_spectators_chat_and_markup_is_shown_as_text(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """Alice (a page) plays bob (a raw connection); carol watches, signed in. Alice's message,
    full of markup, reaches bob and carol as the very text; carol's goes to the spectators only,
    marked; once bob resigns, alice's page (loaded again) shows carol's too, and hides it when
    she asks."""
    url = url_of(server)
    alice_name, carol_name = fresh_name("talker"), fresh_name("onlooker")
    bob = sign_in(server, fresh_name("listener"))
    alice, carol = browsers(url), browsers(url)
    try:
        alice.open()
        alice.sign_in(alice_name)
        alice.seek(9, "black")
        contains(lambda: alice.text("status"), "Waiting for an opponent")
        bob.wire.send({"type": "seek", "size": 9, "color": "white"})
        game = bob.wire.expect("start")["game"]["id"]
        contains(lambda: alice.text("status"), "Your move (black).")
        carol.open(f"#game={game}")
        carol.element("name").send_keys(carol_name)
        carol.element("signin").click()
        until(lambda: carol.text("player").startswith(carol_name), what="carol signed in")
        contains(lambda: carol.text("status"), "You are watching")
        assert carol.shown("chat-text") and carol.enabled("chat-send")

        say(alice, MARKUP)
        said = bob.wire.expect("chat")
        assert (said["from"], said["text"], said["channel"]) == (alice_name, MARKUP, "players")
        for page in (alice, carol):
            eventually(lambda: log(page), [["players", alice_name, MARKUP]], what="the message as text")
            assert page.driver.find_elements(By.CSS_SELECTOR, "#chat-log img, #chat-log b, #chat-log script") == []
            assert page.driver.execute_script("return window.pwned === undefined;") is True

        # A spectator speaks to the spectators: marked, and not sent to the players.
        say(carol, "nice opening")
        eventually(
            lambda: log(carol),
            [["players", alice_name, MARKUP], ["watchers", carol_name, "nice opening"]],
            what="the spectator's message, marked",
        )
        assert carol.driver.find_element(By.CSS_SELECTOR, "#chat-log li.watchers .channel").text == "spectator"
        contains(lambda: carol.text("chat-note"), "you speak to the other spectators")
        bob.wire.silent(0.5)
        alice.settled()
        assert log(alice) == [["players", alice_name, MARKUP]]

        bob.wire.send({"type": "resign", "game": game})
        assert bob.wire.expect("over")["winner"] == "black"
        contains(lambda: alice.text("result"), "wins by resignation")
        # Over: the game's state has every message, the spectators' among them.
        alice.driver.refresh()
        eventually(
            lambda: log(alice),
            [["players", alice_name, MARKUP], ["watchers", carol_name, "nice opening"]],
            what="the spectators' chat once the game is over",
        )
        alice.element("chat-hide-watchers").click()
        eventually(lambda: log(alice), [["players", alice_name, MARKUP]], what="the spectators' chat hidden")
        contains(lambda: alice.text("chat-note"), "Spectators' messages are hidden.")
        assert alice.stored("gokata.hideWatchers") == "on"
        alice.driver.refresh()
        eventually(lambda: log(alice), [["players", alice_name, MARKUP]], what="still hidden after a reload")
        alice.element("chat-hide-watchers").click()
        eventually(lambda: len(log(alice)), 2, what="shown again")
        for page in (alice, carol):
            page.assert_clean()
    finally:
        bob.wire.close()
