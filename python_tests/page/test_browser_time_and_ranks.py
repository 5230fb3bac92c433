"""Ratings, ranks, handicaps and time controls on the page, in a real headless Chromium against a
real ``gokata serve`` (the harness of ``support/browser_page.py``): two browsers choose the
"10 min + 5 × 30 s byo-yomi" preset and are paired, see each other's rank beside the names and
the clock in main time, running down; the result of a rated game shows both rating changes; a
custom byo-yomi of 1 s main time and two periods of 1 s, unrated with two handicap stones,
shows its periods running out and ends on time; the leaderboard lists the players with a
settled rank, and a player's page lists the finished games, 50 a page.

The page's hooks used here, besides test_browser.py's: the seek's ``rated``, ``handicap``,
``komi``, ``time`` (and for a custom one ``time-system``, ``t-main``, ``t-period``,
``t-periods``); ``my-rank``; ``black-rank``, ``white-rank``, ``black-clock``, ``white-clock``;
``ratings`` and ``terms`` below the result; ``directory`` (the leaderboard at ``#leaderboard``,
a player's page at ``#player=NAME``), with ``directory-title``, ``leaderboard-table``,
``player-summary``, ``player-games`` (each game's ``data-game``) and ``next-page``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from support.browser_page import (
    WAIT,
    Page,
    contains,
    eventually,
    expected_view,
    game_state,
    long_name,
    running_clock,
    shows,
    until,
    url_of,
)
from support.databases import Databases
from support.server_process import Frame, Player, ServerProcess, fresh_name, sign_in

NEW = "6k?"
"""A new player's rank: 6 kyu, uncertain."""
BYOYOMI = "10 min + 5 × 30 s byo-yomi"
BYOYOMI_TIME = {"system": "byoyomi", "main_ms": 600000, "period_ms": 30000, "periods": 5}
SHORT_TIME = {"system": "byoyomi", "main_ms": 1000, "period_ms": 1000, "periods": 2}
GAMES_PAGE = 50
"""Finished games on a page of a player's list."""

CLOCK_SPY = """
window.clockSeen = {black: [], white: []};
for (const color of ['black', 'white']) {
  const clock = document.getElementById(`${color}-clock`);
  const note = () => {
    const seen = window.clockSeen[color];
    const text = clock.textContent;
    if (text && seen[seen.length - 1] !== text) seen.push(text);
  };
  new MutationObserver(note).observe(clock, {childList: true, subtree: true, characterData: true});
}
"""
"""Notes each different text the page shows on each player's clock, in order."""

SPILLS = """
const main = document.querySelector('main');
const right = main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight);
const out = [];
if (document.documentElement.scrollWidth > innerWidth) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
for (const e of main.querySelectorAll('*')) {
  const r = e.getBoundingClientRect();
  if (r.width > 0 && r.right > right + 0.5) out.push(`${e.tagName.toLowerCase()}#${e.id} reaches ${r.right} px of ${right}`);
}
return out;
"""
"""What of the main area reaches past its right edge (a phone would scroll sideways)."""
PHONE = (390, 844, True)
IN_VIEW = ("board", "status", "black-name", "black-rank", "white-name", "white-rank", "black-clock", "white-clock", "pass", "resign")
"""What a player must see without scrolling while playing."""


@pytest.fixture
def server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path, "server")) as process:
        yield process


def choose(page: Page, **fields: str) -> None:
    """Sets the seek form's fields by id: a select by its option's words, an input by its text."""
    for id_, value in fields.items():
        element = page.element(id_.replace("_", "-"))
        if element.tag_name == "select":
            Select(element).select_by_visible_text(value)
        else:
            element.clear()
            element.send_keys(value)


def seek_items(page: Page) -> list[str]:
    value = page.driver.execute_script(
        "return Array.from(document.querySelectorAll('#lobby-seeks li'),"
        " (item) => item.textContent.replace(/\\s+/g, ' ').trim());"
    )
    assert isinstance(value, list)
    return [str(item) for item in value]


def rating_change(change: dict[str, Any]) -> str:
    """A rating change in the page's words: "1500 → 1662 (4k?)"."""
    return f"{round(change['before'])} → {round(change['after'])} ({change['rank']})"


def finished(server: ServerProcess, name: str, before: str = "") -> list[Frame]:
    query = f"?before={before}" if before else ""
    games = server.get_json(f"/api/players/{name}/games{query}")["games"]
    assert isinstance(games, list)
    return games


def spills(page: Page) -> list[str]:
    value = page.driver.execute_script(SPILLS)
    assert isinstance(value, list)
    return [str(problem) for problem in value]


def clock_seen(page: Page, color: str) -> list[str]:
    value = page.driver.execute_script("return window.clockSeen[arguments[0]];", color)
    assert isinstance(value, list)
    return [str(text) for text in value]


def test_two_browsers_play_a_rated_byoyomi_game_with_ranks_clocks_and_the_rating_change(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """Both choose the byo-yomi preset; the seek waits in the lobby with the rank and the terms;
    paired, both pages show the ranks beside the names, each clock in main time with its
    periods, the running one counting down, and the game's terms; a resignation ends the rated
    game and both pages show the rating changes; the winner's page lists the game."""
    url = url_of(server)
    alice_name, bob_name = long_name("alice"), long_name("bob")  # the widest names to lay out
    alice, bob = browsers(url), browsers(url)
    for page, name in ((alice, alice_name), (bob, bob_name)):
        page.open()
        page.sign_in(name)
        assert page.text("my-rank") == NEW

    choose(alice, color="Black", time=BYOYOMI)
    alice.element("seek").click()
    waiting = f"Waiting for an opponent: 9×9, black, rated, {BYOYOMI}…"
    eventually(lambda: alice.text("status"), waiting)
    # While she waits, alice reads the leaderboard: empty, as nobody has played yet.
    alice.driver.find_element(By.LINK_TEXT, "Leaderboard").click()
    contains(lambda: alice.text("directory-body"), "Nobody has a settled rank yet")
    assert alice.text("status") == waiting and not alice.shown("seek")
    eventually(
        lambda: seek_items(bob),
        [f"{alice_name} {NEW}, 9×9, black, wants a person, rated, {BYOYOMI} Play"],
        what="alice's seek in bob's lobby",
    )
    choose(bob, time=BYOYOMI)
    bob.element("seek").click()
    until(lambda: alice.stored("gokata.game") is not None and bob.stored("gokata.game") is not None)
    game = alice.stored("gokata.game")
    assert game is not None and bob.stored("gokata.game") == game
    until(lambda: alice.shown("board") and not alice.shown("directory"), what="alice taken to her game")
    state = game_state(server, game)
    assert (state["black"], state["white"], state["rated"], state["handicap"]) == (alice_name, bob_name, True, 0)
    assert state["time"] == BYOYOMI_TIME and state["ranks"] == {"black": NEW, "white": NEW}

    main_time = re.compile(r"^(10:00|9:[0-5]\d) \+ 5 × 0:30$")
    for page in (alice, bob):
        assert page.text("black-rank") == NEW and page.text("white-rank") == NEW
        assert page.text("terms") == f"Rated, even, komi 0.5, {BYOYOMI}."
        # Black's clock runs in main time, the periods beside it; white's waits, whole.
        until(lambda: page.text("black-clock").startswith("9:5"), what="black's main time running down")
        assert main_time.match(page.text("black-clock")), page.text("black-clock")
        assert page.text("white-clock") == "10:00 + 5 × 0:30"
        assert running_clock(page) == "black"

    alice.set_viewport(*PHONE)
    assert alice.out_of_view(IN_VIEW) == [] and spills(alice) == []
    alice.set_viewport(1280, 800, False)
    # A spectator, not signed in, on a laptop: the sign-in form beside the game does not push
    # the board out of the window.
    watcher = browsers(url)
    watcher.open(f"#game={game}")
    watcher.set_viewport(1366, 768, False)
    until(lambda: watcher.text("white-clock") == "10:00 + 5 × 0:30", what="the watcher's clocks")
    assert watcher.text("black-rank") == NEW and watcher.shown("signin")
    assert watcher.out_of_view(("board", "status", "black-name", "white-name", "black-clock", "white-clock")) == []
    alice.click("5E")
    for page in (alice, bob):
        until(lambda: running_clock(page) == "white", what="white's clock running after black's move")
        until(lambda: page.text("white-clock").startswith("9:5"), what="white's main time running down")
        assert main_time.match(page.text("black-clock")), "black's clock keeps what its turn left"

    bob.element("resign").click()
    bob.element("resign").click()  # "Really resign?"
    until(lambda: len(finished(server, alice_name)) == 1, what="the result stored")
    [listed] = finished(server, alice_name)
    assert (listed["id"], listed["winner"], listed["rated"]) == (game, "black", True)
    ratings = listed["ratings"]
    assert ratings["black"]["before"] == ratings["white"]["before"] == 1500
    assert ratings["black"]["after"] > 1500 > ratings["white"]["after"]
    expected = (
        f"Ratings: {alice_name} {rating_change(ratings['black'])}; {bob_name} {rating_change(ratings['white'])}."
    )
    assert expected.startswith(f"Ratings: {alice_name} 1500 → ")
    for page in (alice, bob, watcher):
        eventually(lambda: page.text("ratings"), expected, what="the rating changes")
        contains(lambda: page.text("result"), f"Black ({alice_name}) wins by resignation.")
        assert running_clock(page) is None
    watcher.assert_clean()
    eventually(lambda: alice.text("my-rank"), ratings["black"]["rank"], what="alice's new rank")

    # A reload shows the finished game with its rating changes (read from the API).
    bob.driver.refresh()
    eventually(lambda: bob.text("ratings"), expected, what="the rating changes after a reload")

    # The winner's name leads to her page, which lists the game; "View" shows it again.
    bob.element("black-name").click()
    until(lambda: bob.shown("directory") and not bob.shown("board"), what="alice's page")
    eventually(lambda: bob.text("directory-title"), f"{alice_name} {ratings['black']['rank']}")
    player = server.get_json(f"/api/players/{alice_name}")
    eventually(
        lambda: bob.text("player-summary"),
        f"Rating {round(player['rating'])} ± {round(player['deviation'])}, 1 rated game; 1 win, 0 losses.",
    )
    item = bob.driver.find_element(By.CSS_SELECTOR, f'#player-games [data-game="{game}"]')
    assert " ".join(item.text.split()) == (
        f"Won as black against {bob_name} {NEW}, 9×9, by resignation, 1 move; rated, {BYOYOMI}; "
        f"{rating_change(ratings['black'])}. View"
    )
    assert not bob.shown("next-page")
    item.find_element(By.LINK_TEXT, "View").click()
    until(lambda: bob.shown("board") and not bob.shown("directory"), what="the game shown again")
    state = game_state(server, game)
    eventually(lambda: shows(bob, state), expected_view(state, "white"), what="the finished game")
    eventually(lambda: bob.text("ratings"), expected, what="its rating changes")
    for page in (alice, bob):
        page.assert_clean()


def test_a_custom_byoyomi_handicap_game_shows_its_periods_and_ends_on_time(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """A custom byo-yomi of 1 s and two periods of 1 s, unrated, two handicap stones, komi 0:
    the page (black) is paired with a program's connection seeking the same; the handicap
    stones are on the board, white moves first, then black's clock shows its main time, each
    period as it starts, and the timeout; the result says so, and nobody's rating changed."""
    page = browsers(url_of(server))
    page.open()
    name = fresh_name("slow")
    page.sign_in(name)
    page.driver.execute_script(CLOCK_SPY)
    choose(page, color="Black", rated="Unrated", handicap="2 stones", komi="0", time="Custom…")
    assert page.shown("custom-time") and page.shown("t-periods") and not page.shown("t-stones")
    choose(page, time_system="Byo-yomi: main time, then periods", t_main="1s", t_period="0:01", t_periods="2")
    page.set_viewport(*PHONE)
    assert spills(page) == []
    page.element("seek").click()
    eventually(
        lambda: page.text("status"),
        "Waiting for an opponent: 9×9, black, unrated, 2 handicap stones, komi 0, 1 s + 2 × 1 s byo-yomi…",
    )
    quick: Player = sign_in(server, fresh_name("quick"))
    try:
        frame = {"type": "seek", "size": 9, "color": "white", "rated": False, "handicap": 2, "komi": 0, "time": SHORT_TIME}
        quick.wire.send(frame)
        start = quick.wire.expect("start")["game"]
        game = start["id"]
        assert (start["handicap"], start["komi"], start["to_move"], start["time"]) == (2, 0, "white", SHORT_TIME)
        quick.wire.send({"type": "move", "game": game, "ply": 0, "point": "5E"})
        assert quick.wire.expect("played")["to_move"] == "black"
        over = quick.wire.expect("over", timeout=3 + WAIT)
        assert (over["winner"], over["reason"], over["ratings"]) == ("white", "timeout", None)
    finally:
        quick.wire.close()

    state = game_state(server, game)
    assert sum(row.count("x") for row in state["board"]) == 2  # the handicap stones
    eventually(lambda: shows(page, state), expected_view(state, "black"), what="the board with its handicap stones")
    expected = f"White ({state['white']}) wins on time: black took too long."
    contains(lambda: page.text("result"), expected)
    assert page.text("ratings") == ""
    assert page.text("terms") == "Unrated, 2 handicap stones, komi 0, 1 s + 2 × 1 s byo-yomi."
    # Black's clock: whole while white moved, then main time, each period, and out of time.
    seen = clock_seen(page, "black")
    assert seen[0] == "0:01 + 2 × 0:01" and seen[-1] == "0:00", seen
    assert [text for text in seen if "×" in text and "+" not in text] == ["2 × 0:01", "1 × 0:01"], seen
    assert running_clock(page) is None
    page.assert_clean()


def test_the_leaderboard_and_a_players_pages_of_finished_games(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """Two players settle their ranks over 51 rated games; the leaderboard lists them by rating
    (and not the new player), each name leading to the player's page, whose games come 50 a page
    with a link to the next; a name nobody has is said so, as text."""
    first, second = sign_in(server, fresh_name("first")), sign_in(server, fresh_name("second"))
    newcomer = sign_in(server, fresh_name("new"))
    try:
        for n in range(GAMES_PAGE + 1):
            first.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
            second.wire.send({"type": "seek", "size": 9, "color": "white"})
            game = second.wire.expect("start")["game"]["id"]
            first.wire.expect("start")
            loser = second if n % 3 else first
            loser.wire.send({"type": "resign", "game": game})
            for player in (first, second):
                player.wire.expect("over")
    finally:
        for player in (first, second, newcomer):
            player.wire.close()
    board = server.get_json("/api/leaderboard")["players"]
    assert sorted(p["name"] for p in board) == sorted([first.name, second.name])  # not the newcomer
    leader = board[0]["name"]

    page = browsers(url_of(server))
    page.open()
    page.set_viewport(*PHONE)
    page.element("name").send_keys(fresh_name("reader"))
    page.element("signin").click()
    until(lambda: page.shown("seek"), what="signed in")
    page.driver.find_element(By.LINK_TEXT, "Leaderboard").click()
    until(lambda: page.shown("leaderboard-table"), what="the leaderboard")
    assert page.text("directory-title") == "Leaderboard" and not page.shown("lobby") and not page.shown("seek")
    rows = page.driver.execute_script(
        "return Array.from(document.querySelectorAll('#leaderboard-table tbody tr'),"
        " (row) => Array.from(row.cells, (cell) => cell.textContent.trim()));"
    )
    assert rows == [
        [str(i + 1), p["name"], p["rank"], str(round(p["rating"])), f"{p['wins']}–{p['losses']}"]
        for i, p in enumerate(board)
    ]
    assert all("?" not in p["rank"] for p in board)
    assert spills(page) == []

    page.driver.find_element(By.CSS_SELECTOR, "#leaderboard-table a.name").click()
    until(lambda: page.shown("player-games"), what="the leader's page")
    assert page.text("directory-title") == f"{leader} {board[0]['rank']}"
    newest = finished(server, leader)
    assert len(newest) == GAMES_PAGE
    listed = page.driver.execute_script(
        "return Array.from(document.querySelectorAll('#player-games li'), (item) => item.dataset.game);"
    )
    assert listed == [g["id"] for g in newest]
    assert spills(page) == []
    page.element("next-page").click()
    older = finished(server, leader, newest[-1]["id"])
    assert len(older) == 1
    eventually(
        lambda: page.driver.execute_script(
            "return Array.from(document.querySelectorAll('#player-games li'), (item) => item.dataset.game);"
        ),
        [older[0]["id"]],
        what="the next page",
    )
    assert not page.shown("next-page")
    page.driver.back()
    eventually(lambda: len(page.driver.find_elements(By.CSS_SELECTOR, "#player-games li")), GAMES_PAGE)
    page.element("directory-back").click()
    until(lambda: page.shown("lobby") and page.shown("seek") and not page.shown("directory"), what="the lobby")

    # Whatever the address says is shown as text.
    page.driver.get(url_of(server) + "#player=%3Cimg%20src%3Dx%3E")
    contains(lambda: page.text("directory-body"), 'No player is named "<img src=x>".')
    assert page.driver.find_elements(By.CSS_SELECTOR, "#directory img") == []
    page.assert_clean(allow="/api/players/")
