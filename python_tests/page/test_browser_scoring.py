"""Scoring by agreement on the page, in real headless Chromiums against a real ``gokata serve``
(the harness of ``support/browser_page.py``): two players seek with "Score by agreement"; after
two passes both pages and a spectator's show the scoring phase with the server's marks and
score; a player resumes play, both pass again; a click on a stone marks its chain, both pages
drawing it dead and showing the new score; each accepts, the other is told, and the game ends
with the score agreed.

The page's hooks used here, besides test_browser.py's: ``agreement`` (the seek form's "Score by
agreement"), ``scoring`` (the panel, with ``score-text``, ``score-dead``, ``score-accepted``),
``score-accept``, ``score-resume``; a point marked dead carries ``data-dead``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.browser_page import Page, contains, eventually, game_state, in_step, record, until, url_of
from support.databases import Databases
from support.server_process import Frame, ServerProcess, fresh_name

OPENING = ["3C", "7G", "3G", "7C", "5E"]
"""Black's and white's first turns: then white passes, black passes (a resumption, and white's
stone on G5, follow)."""


@pytest.fixture
def server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path, "server")) as process:
        yield process


def number(value: Any) -> str:
    """A number as JavaScript writes it: 6, 4.5."""
    return str(int(value)) if float(value).is_integer() else str(value)


def score_text(score: Frame) -> str:
    """The score of the scoring phase in the page's words."""
    white = score["white"] + score["komi"]
    margin = abs(score["black"] - white)
    lead = "even" if margin == 0 else f"{'black' if score['black'] > white else 'white'} leads by {number(margin)}"
    return f"Black {number(score['black'])}, white {number(score['white'])} + {number(score['komi'])} komi = {number(white)}: {lead}."


def marks(server: ServerProcess, game: str) -> Frame:
    state = game_state(server, game)
    assert state["status"] == "scoring", state["status"]
    assert isinstance(state["marks"], dict)
    return state["marks"]


def shows_marks(page: Page, expected: Frame) -> tuple[list[str], str]:
    return sorted(page.dead()), page.text("score-text")


def expected_marks(expected: Frame) -> tuple[list[str], str]:
    return sorted(expected["dead"]), score_text(expected["score"])


def test_two_players_mark_the_dead_stones_resume_and_agree(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    url = url_of(server)
    alice_name, bob_name = fresh_name("marker"), fresh_name("agreer")
    alice, bob, watcher = browsers(url), browsers(url), browsers(url)
    for page, name in ((alice, alice_name), (bob, bob_name)):
        page.open()
        page.sign_in(name)
        page.element("agreement").click()
    alice.seek(9, "black")
    contains(lambda: alice.text("status"), "scored by agreement…")
    bob.seek(9, "white")
    until(lambda: alice.stored("gokata.game") is not None and bob.stored("gokata.game") is not None)
    game = alice.stored("gokata.game")
    assert game is not None
    assert game_state(server, game)["scoring"] == "agreement"
    pages = {"black": alice, "white": bob}
    watcher.open(f"#game={game}")
    contains(lambda: alice.text("terms"), "scored by agreement.")

    for turn, point in enumerate(OPENING):
        pages["black" if turn % 2 == 0 else "white"].click(point)
        in_step(server, game, pages, turn + 1)
    bob.element("pass").click()
    in_step(server, game, pages, len(OPENING) + 1)
    assert alice.text("status") == (
        f"White ({bob_name}) passed: if you pass too, the dead stones are marked next. Your move (black)."
    )
    alice.element("pass").click()
    until(lambda: game_state(server, game)["status"] == "scoring", what="the scoring phase")
    proposed = marks(server, game)
    for page in (alice, bob, watcher):
        until(lambda: page.shown("scoring"), what="the scoring panel")
        eventually(lambda: shows_marks(page, proposed), expected_marks(proposed), what="the server's proposal")
    for page in (alice, bob):
        assert page.text("status") == "Both passed: mark the dead stones, then accept the score."
        assert page.shown("score-accept") and page.shown("score-resume") and page.enabled("score-accept")
        assert not page.shown("pass") and not page.shown("undo")
    assert not watcher.shown("score-accept") and not watcher.shown("score-resume")
    assert watcher.text("status") == f"Both passed: {alice_name} and {bob_name} are marking the dead stones."

    # White resumes: play goes on, white (who passed first) to move: a stone, then two passes.
    bob.element("score-resume").click()
    until(lambda: game_state(server, game)["status"] == "playing", what="play resumed")
    for page in (alice, bob, watcher):
        until(lambda: not page.shown("scoring"), what="the panel put away")
        eventually(lambda: page.text("notice"), "Play resumed: white to play.", what="the resumption told")
    turns = len(OPENING) + 2
    assert game_state(server, game)["to_move"] == "white"
    bob.click("5G")
    in_step(server, game, pages, turns + 1)
    alice.element("pass").click()
    in_step(server, game, pages, turns + 2)
    bob.element("pass").click()
    until(lambda: game_state(server, game)["status"] == "scoring", what="the scoring phase again")
    proposed = marks(server, game)
    for page in (alice, bob, watcher):
        eventually(lambda: shows_marks(page, proposed), expected_marks(proposed), what="the new proposal")

    # Black marks white's stone on G7: the chain flips, on both pages and the spectator's.
    was_dead = "7G" in proposed["dead"]
    alice.click("7G")
    until(lambda: ("7G" in marks(server, game)["dead"]) != was_dead, what="the mark stored")
    marked = marks(server, game)
    assert marked["accepted"] == {"black": False, "white": False}
    for page in (alice, bob, watcher):
        eventually(lambda: shows_marks(page, marked), expected_marks(marked), what="the mark and the new score")
    watcher.click("3C")  # a spectator's click marks nothing
    contains(lambda: watcher.text("error"), "Only the players mark the dead stones")

    # Each accepts; the first is told to the other; both: the game is over, by the score agreed.
    alice.element("score-accept").click()
    eventually(lambda: bob.text("score-accepted"), f"{alice_name} accepted. You have not accepted yet.")
    eventually(lambda: alice.text("score-accepted"), f"You accepted. {bob_name} has not accepted yet.")
    assert not alice.enabled("score-accept") and alice.text("score-accept") == "Accepted"
    bob.element("score-accept").click()
    until(lambda: game_state(server, game)["status"] == "over", what="the game scored")
    state = game_state(server, game)
    assert state["reason"] == "score"
    score = state["score"]
    white = score["white"] + score["komi"]
    assert score["black"] == marked["score"]["black"] and score["white"] == marked["score"]["white"]
    winner = state["winner"]
    expected = (
        f"{winner.title()} ({state[winner]}) wins on the score agreed. "
        f"Area score: black {number(score['black'])}, white {number(score['white'])} + {number(score['komi'])} komi = "
        f"{number(white)}; by {number(abs(score['black'] - white))} points. "
        f"Records: {record(server, alice_name)}; {record(server, bob_name)}."
    )
    for page in (alice, bob, watcher):
        eventually(lambda: page.text("result"), expected, what="the result")
        assert not page.shown("scoring") and not page.shown("score-accept")
        assert sorted(page.dead()) == sorted(marked["dead"]), "the stones taken off stay marked"
    for page in (alice, bob, watcher):
        page.assert_clean()
