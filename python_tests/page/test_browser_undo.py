"""Taking back a move on the page, in two real headless Chromiums against a real ``gokata serve``
(the harness of ``support/browser_page.py``): the player who just moved asks with "Undo"; the
opponent sees the request with Accept and Decline; a refusal is told to the one who asked; an
acceptance takes the stone off both boards and a spectator's, and the game goes on from there.

The page's hooks used here, besides test_browser.py's: ``undo``, ``undo-offer`` (with
``undo-question``, ``undo-accept``, ``undo-decline``) and ``notice``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.browser_page import Page, contains, eventually, expected_view, game_state, in_step, shows, until, url_of
from support.databases import Databases
from support.server_process import ServerProcess, fresh_name


@pytest.fixture
def server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path, "server")) as process:
        yield process


def test_a_move_taken_back_after_a_refusal_in_two_browsers(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """Black plays E5 and asks to take it back; white declines (black is told), then black asks
    again and white accepts: E5 leaves both boards and the spectator's, black is to move again,
    each page says what was taken back, and the game goes on."""
    url = url_of(server)
    alice_name, bob_name = fresh_name("undoer"), fresh_name("giver")
    alice, bob, watcher = browsers(url), browsers(url), browsers(url)
    for page, name in ((alice, alice_name), (bob, bob_name)):
        page.open()
        page.sign_in(name)
    alice.seek(9, "black")
    contains(lambda: alice.text("status"), "Waiting for an opponent")
    bob.seek(9, "white")
    until(lambda: alice.stored("gokata.game") is not None and bob.stored("gokata.game") is not None)
    game = alice.stored("gokata.game")
    assert game is not None
    pages = {"black": alice, "white": bob}
    in_step(server, game, pages, 0)
    assert alice.shown("undo") and not alice.enabled("undo"), "nothing of black's to take back yet"
    watcher.open(f"#game={game}")
    assert not watcher.shown("undo")

    alice.click("5E")
    state = in_step(server, game, pages, 1)
    eventually(lambda: shows(watcher, state), expected_view(state, None), what="the spectator's board")
    assert alice.enabled("undo") and not bob.enabled("undo")
    assert not alice.shown("undo-offer") and not bob.shown("undo-offer")

    # Asked, and refused.
    alice.element("undo").click()
    until(lambda: bob.shown("undo-offer"), what="the request on white's page")
    assert bob.text("undo-question") == f"{alice_name} asks to take back their last move (E5)."
    eventually(lambda: alice.text("notice"), f"You asked to take back your last move: waiting for {bob_name}.")
    assert not alice.enabled("undo") and not alice.shown("undo-offer")
    bob.element("undo-decline").click()
    eventually(lambda: alice.text("notice"), f"{bob_name} did not take back your move.", what="the refusal told")
    until(lambda: not bob.shown("undo-offer"), what="the request answered")
    assert game_state(server, game)["moves"] == ["5E"]

    # Asked again; white's page, loaded again meanwhile, still shows the request (the game's
    # state carries it); accepted: the stone is gone everywhere, and black is to move.
    alice.element("undo").click()
    until(lambda: bob.shown("undo-offer"), what="the second request")
    bob.driver.refresh()
    until(lambda: bob.shown("undo-offer"), what="the request after a reload")
    assert bob.text("undo-question") == f"{alice_name} asks to take back their last move (E5)."
    bob.element("undo-accept").click()
    state = in_step(server, game, pages, 0)
    assert state["moves"] == [] and state["to_move"] == "black"
    eventually(lambda: shows(watcher, state), expected_view(state, None), what="the spectator's board taken back")
    told = "Black's move E5 was taken back: black to play again."
    for page in (alice, bob, watcher):
        eventually(lambda: page.text("notice"), told, what="what was taken back")
        assert page.stones()["5E"] == "empty" and page.text("move-number") == "Move 0"
    assert not bob.shown("undo-offer") and alice.text("status") == "Your move (black)."

    # The game goes on from there: a new move, the notice of the undo put away.
    alice.click("3C")
    state = in_step(server, game, pages, 1)
    assert state["moves"] == ["3C"]
    eventually(lambda: bob.text("notice"), "Black plays C3.")
    eventually(lambda: shows(watcher, state), expected_view(state, None), what="the spectator after the undo")
    for page in (alice, bob, watcher):
        page.assert_clean()
