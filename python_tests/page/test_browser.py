"""The page at ``GET /`` of ``gokata serve``, driven in a real headless Chromium with selenium.

Every browser is Debian's ``chromium`` through ``chromedriver`` at fixed paths (nothing is
downloaded at run time), with its own profile directory, so each player has their own
localStorage. The server is the real ``gokata serve`` process on a free loopback port and a
temporary database (`server_process.ServerProcess`). The pages are checked against the server's
own account of the game (``GET /api/games/ID``, ``GET /api/players/NAME``), never against what
the page believes.

The page's testable hooks: every intersection carries ``data-point`` (kata form, ``"5E"``) and
``data-stone`` (``black``, ``white``, ``empty``); the last move also ``data-last``; the controls
have the ids ``name``, ``token``, ``signin``, ``size``, ``color``, ``seek``, ``cancel``,
``pass``, ``resign``, ``status``, ``result``, ``error`` and ``player``; beside the board,
``black-name``, ``black-bot``, ``black-captures``, ``black-passed``, ``black-gone`` (and
white's), ``black-clock`` and ``white-clock`` (the running one of class ``running``) and
``move-number``; the player's own token is ``my-token``. The lobby
(test_browser_lobby.py) is ``lobby``, with ``lobby-seeks``, ``lobby-games`` (an item's
``data-game``) and ``opponent``; ``to-lobby`` puts a finished or watched game away for it.

The harness (`Page`, the server's account in the page's words) is ``support/browser_page.py``.
A missing Chromium, chromedriver or server fails these tests; it never skips them. When the
environment variable ``GOKATA_SCREENSHOT_DIR`` is set, the screenshots of the finished game are
copied there.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from support.browser_page import (
    VIEWPORTS,
    WAIT,
    Page,
    contains,
    eventually,
    expected_view,
    game_state,
    in_step,
    keep_screenshots,
    long_name,
    marked,
    player,
    record,
    running_clock,
    seats,
    shows,
    until,
    url_of,
    wait_turns,
    without_clock,
)
from support.databases import Databases
from support.server_process import ServerProcess, Wire, fresh_name, play, sign_in, start_game

SHORT_MOVE_TIME = 3.0
"""The move time of the timeout test, in seconds."""
TERMS = "rated, 5 min a move"
"""A seek's terms in words, as the page seeks them unless told otherwise: rated, even, the
server's time a move (5 minutes here)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("browser"), "server")) as process:
        yield process



# -- the tests -----------------------------------------------------------------------------

# Black builds a ko shape around 5E, white walks into it, black captures at 5F; after white's
# occupied and ko clicks are refused, white plays elsewhere, black connects, both pass.
OPENING = ["4E", "4F", "6E", "6F", "5D", "5G", "3C", "5E", "5F"]
ENDING = ["3G", "5E", None, None]


def test_two_browsers_play_a_game_to_two_passes(
    server: ServerProcess, browsers: Callable[[str], Page], tmp_path: Path
) -> None:
    """Sign in, seek, play with captures, illegal clicks, a reload, two passes and the result."""
    url = url_of(server)
    alice_name, bob_name = "alice", "bob"  # the only players so named on this server
    alice, bob = browsers(url), browsers(url)
    for page, name in ((alice, alice_name), (bob, bob_name)):
        page.open()
        assert page.text("player") == "Not signed in" and page.shown("name")
        page.sign_in(name)

    alice.seek(9, "black")
    eventually(lambda: alice.text("status"), f"Waiting for an opponent: 9×9, black, {TERMS}…", what="alice seeking")
    assert alice.shown("cancel") and not alice.shown("seek")
    bob.seek(9, "any")
    until(lambda: alice.stored("gokata.game") is not None and bob.stored("gokata.game") is not None)
    game = alice.stored("gokata.game")
    assert game is not None and bob.stored("gokata.game") == game
    state = game_state(server, game)
    assert (state["black"], state["white"], state["size"]) == (alice_name, bob_name, 9)
    pages = {"black": alice, "white": bob}
    for page in pages.values():
        assert page.text("game-title") == f"{alice_name} (black) against {bob_name} (white), 9×9"
        assert not page.shown("seek") and not page.shown("cancel")  # no seeking while playing
        assert page.text("result") == "" and page.text("error") == ""
    assert running_clock(alice) == "black" and alice.text("white-clock") == "5:00"
    in_step(server, game, pages, 0)
    assert alice.enabled("pass") and not bob.enabled("pass")

    turns = 0
    for point in OPENING:
        mover = pages["black" if turns % 2 == 0 else "white"]
        mover.click(point)
        turns += 1
        state = in_step(server, game, pages, turns)
        if point == "5G":
            # A reload mid-game: the same player, the same game, and play goes on from it.
            alice.driver.refresh()
            eventually(lambda: shows(alice, state), expected_view(state, "black"), what="after reload")
            assert alice.text("player") == f"{alice_name}: 0 wins, 0 losses"
            assert alice.enabled("pass") and alice.enabled("resign")

    # 5F captured the white stone on 5E: it left both boards at once, and is counted.
    assert state["board"][4][4] == "."
    for page in pages.values():
        assert page.stones()["5E"] == "empty" and page.stones()["5F"] == "black"
        assert seats(page) == ("1 capture", "0 captures", [], f"Move {len(OPENING)}")

    # Illegal clicks by white: an occupied point, then the ko retake. Each is explained in words
    # on white's page, and nothing changes, on either page or on the server.
    for point, shown, reason in (("4E", "E4", ": the point is occupied"), ("5E", "E5", ": ko (")):
        bob.click(point)
        contains(lambda: bob.text("error"), f"illegal move {shown} for white{reason}")
        assert without_clock(game_state(server, game)) == without_clock(state)
        for color, page in pages.items():
            assert shows(page, state) == expected_view(state, color)
        assert alice.text("error") == ""
        assert bob.enabled("pass")

    for turn in ENDING:
        mover = pages["black" if turns % 2 == 0 else "white"]
        if turn is None:
            mover.element("pass").click()
        else:
            mover.click(turn)
        turns += 1
        state = in_step(server, game, pages, turns)
        if turns == len(OPENING) + 1:
            assert bob.text("error") == ""  # a played turn clears the old error
        if turns == len(OPENING) + 3:
            # White passed: black is warned, beside the board and in words (checked by in_step).
            assert alice.text("status") == (
                f"White ({bob_name}) passed: if you pass too, the game ends. Your move (black)."
            )
            assert alice.shown("white-passed") and not alice.shown("black-passed")

    # The end: two passes, area score with komi, the winner, the records as the server has them.
    assert state["status"] == "over" and state["reason"] == "passes"
    assert state["score"] == {"black": 6, "white": 4, "komi": 0.5}
    assert state["winner"] == "black"
    records = f"Records: {record(server, alice_name)}; {record(server, bob_name)}."
    assert records == f"Records: {alice_name}: 1 win, 0 losses; {bob_name}: 0 wins, 1 loss."
    expected = (
        f"Black ({alice_name}) wins after two passes. "
        "Area score: black 6, white 4 + 0.5 komi = 4.5; by 1.5 points. " + records
    )
    shots = []
    for color, page in pages.items():
        eventually(lambda: page.text("result"), expected, what=f"the result on the {color} page")
        assert page.shown("result") and page.shown("seek")  # seek again
        assert not page.enabled("pass") and not page.enabled("resign")
        assert running_clock(page) is None
        shot = tmp_path / f"finished-9x9-{color}.png"
        page.set_viewport(*VIEWPORTS["1280x800"])  # a laptop's, for the README
        page.screenshot(shot)
        shots.append(shot)
    assert alice.text("player") == record(server, alice_name)
    assert bob.text("player") == record(server, bob_name)
    keep_screenshots(shots)

    # The game downloads as the server's SGF record.
    downloads = tmp_path / "downloads"
    bob.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    bob.element("sgf").click()
    sgf = downloads / f"gokata-{game}.sgf"
    until(lambda: sgf.is_file() and sgf.stat().st_size > 0, what="the SGF downloaded")
    status, text = server.get(f"/api/games/{game}.sgf")
    assert status == 200 and sgf.read_text(encoding="utf-8") == text
    assert "RE[B+1.5]" in text and f"PB[{alice_name}]" in text

    # A reload keeps the finished game and its result on show, until the player seeks again.
    alice.driver.refresh()
    eventually(lambda: alice.text("result"), expected, what="the result after a reload")
    assert shows(alice, state) == expected_view(state, "black")
    assert alice.shown("board") and alice.shown("seek")
    alice.seek(9, "any")
    eventually(lambda: alice.text("status"), f"Waiting for an opponent: 9×9, any colour, {TERMS}…")
    assert alice.text("result") == "" and not alice.shown("board")
    alice.element("cancel").click()
    eventually(lambda: alice.text("status"), f"Signed in as {alice_name}. Choose a board and seek a game.")
    alice.driver.refresh()
    eventually(lambda: alice.text("player"), record(server, alice_name), what="signed in after the reload")
    alice.settled()  # all the server said after the sign-in has been shown
    assert alice.text("result") == "" and not alice.shown("board")
    for page in pages.values():
        page.assert_clean()


def test_a_timeout_shows_the_result_in_both_pages(
    tmp_path: Path, databases: Databases, browsers: Callable[[str], Page]
) -> None:
    """With a short move time, black lets the clock run out: both pages say so."""
    with ServerProcess(databases.new(tmp_path, "timeout"), SHORT_MOVE_TIME) as quick:
        url = url_of(quick)
        black_name, white_name = fresh_name("slow"), fresh_name("quick")
        black, white = browsers(url), browsers(url)
        for page, name in ((black, black_name), (white, white_name)):
            page.open()
            page.sign_in(name)
        black.seek(9, "black")
        eventually(lambda: black.text("status"), "Waiting for an opponent: 9×9, black, rated, 3 s a move…")
        white.seek(9, "white")
        for page in (black, white):
            until(lambda: page.text("black-clock").startswith("0:0"), what="the clock counting down")
        game = black.stored("gokata.game")
        assert game is not None
        records = f"Records: {black_name}: 0 wins, 1 loss; {white_name}: 1 win, 0 losses."
        expected = f"White ({white_name}) wins on time: black took too long. {records}"
        for page in (black, white):
            eventually(lambda: page.text("result"), expected, SHORT_MOVE_TIME + WAIT, "the timeout")
        state = game_state(quick, game)
        assert (state["status"], state["reason"], state["winner"], state["score"]) == (
            "over", "timeout", "white", None
        )
        assert f"Records: {record(quick, black_name)}; {record(quick, white_name)}." == records
        for page in (black, white):
            assert page.text("status") == "The game is over. Seek another one?"
            assert not page.enabled("pass") and page.shown("seek")
            page.assert_clean()


def test_a_game_that_ended_while_the_page_was_away_shows_its_result(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """The page leaves mid-game, the opponent resigns; back on the page, the game is shown
    finished, with its result and the records, until the player seeks again."""
    page = browsers(url_of(server))
    page.open()
    name = fresh_name("away")
    page.sign_in(name)
    opponent = sign_in(server, fresh_name("stays"))
    try:
        page.seek(9, "black")
        contains(lambda: page.text("status"), "Waiting for an opponent")
        opponent.wire.send({"type": "seek", "size": 9, "color": "white"})
        game = opponent.wire.expect("start")["game"]["id"]
        contains(lambda: page.text("status"), "Your move (black).")
        page.click("5E")
        assert opponent.wire.expect("played")["point"] == "5E"

        page.driver.get("about:blank")
        opponent.wire.send({"type": "resign", "game": game})
        assert opponent.wire.expect("over")["winner"] == "black"
        page.open()
        state = game_state(server, game)
        expected = (
            f"Black ({name}) wins by resignation. "
            f"Records: {record(server, name)}; {record(server, opponent.name)}."
        )
        eventually(lambda: page.text("result"), expected, what="the result of the game that ended meanwhile")
        assert shows(page, state) == expected_view(state, "black")
        assert page.text("player") == record(server, name) == f"{name}: 1 win, 0 losses"

        page.seek(13, "any")
        eventually(lambda: page.text("status"), f"Waiting for an opponent: 13×13, any colour, {TERMS}…")
        assert page.text("result") == "" and not page.shown("board")
        page.assert_clean()
    finally:
        opponent.wire.close()


def test_a_third_player_can_watch_but_not_act(server: ServerProcess, browsers: Callable[[str], Page]) -> None:
    """``#game=ID`` shows someone else's game; the watcher's clicks are refused by the server."""
    black, white, state = start_game(server, "watched")
    game = state["id"]
    try:
        play(black, white, game, 0, "5E")
        carol_name = fresh_name("carol")
        carol = browsers(url_of(server))
        carol.open(f"#game={game}")
        field = carol.element("name")
        field.send_keys(carol_name)
        carol.element("signin").click()
        eventually(lambda: carol.text("player"), f"{carol_name}: 0 wins, 0 losses")
        state = game_state(server, game)
        eventually(lambda: shows(carol, state), expected_view(state, None), what="the watched game")
        assert not carol.enabled("pass") and not carol.enabled("resign")

        # A click on an empty point goes to the server, which refuses it: nothing changes.
        carol.click("3C")
        eventually(lambda: carol.text("error"), f"{carol_name} does not play in game {game}")
        assert without_clock(game_state(server, game)) == without_clock(state)
        assert shows(carol, state) == expected_view(state, None)

        # The watcher follows the game (the server pushes its turns), to its end.
        play(white, black, game, 1, "4D")
        state = game_state(server, game)
        eventually(lambda: shows(carol, state), expected_view(state, None), what="the next turn")
        black.wire.send({"type": "resign", "game": game})
        assert black.wire.expect("over")["reason"] == "resign"
        # The state carries no records: the page asks the API for them.
        eventually(
            lambda: carol.text("result"),
            f"White ({white.name}) wins by resignation. "
            f"Records: {record(server, black.name)}; {record(server, white.name)}.",
            what="the watched game's result and records",
        )
        carol.assert_clean()
    finally:
        black.wire.close()
        white.wire.close()


def test_anyone_can_watch_a_game_without_a_name(server: ServerProcess, browsers: Callable[[str], Page]) -> None:
    """``#game=ID`` shows the game to a page that never signs in, and follows it (past the
    10 s within which a WebSocket must sign in) to its end; a bad id is named as such."""
    black, white, state = start_game(server, "shown")
    game = state["id"]
    try:
        viewer = browsers(url_of(server))
        viewer.open("#game=nosuchgame1")
        contains(lambda: viewer.text("error"), 'No game has the id "nosuchgame1".')
        assert viewer.text("status") == "Sign in to play." and not viewer.shown("board")

        viewer.driver.execute_script("location.hash = arguments[0];", f"game={game}")
        play(black, white, game, 0, "5E")
        state = game_state(server, game)
        eventually(lambda: shows(viewer, state), expected_view(state, None), what="the watched game")
        assert viewer.text("error") == "" and viewer.text("player") == "Not signed in"
        assert viewer.shown("signin") and not viewer.enabled("pass") and not viewer.enabled("resign")
        for label, (width, height, phone) in VIEWPORTS.items():
            viewer.set_viewport(width, height, phone)
            assert viewer.out_of_view(("board", "status", "black-name", "white-name", "black-clock", "white-clock")) == [], label

        # A click is explained, and goes nowhere.
        viewer.click("3C")
        eventually(
            lambda: viewer.text("error"), f"Only {black.name} and {white.name} play in this game: you are watching it."
        )
        assert without_clock(game_state(server, game)) == without_clock(state)

        # Later than a WebSocket may stay unsigned (10 s), a pass and a move still show. The
        # server closing a connection opened after the viewer's, which never signs in either,
        # says that the viewer's time to sign in has run out too.
        unsigned = Wire(server.ws_url)
        closed = unsigned.closed(30)
        assert closed.rcvd is not None and closed.rcvd.code == 1008, closed
        play(white, black, game, 1, None)
        state = game_state(server, game)
        eventually(lambda: shows(viewer, state), expected_view(state, None), what="the pass")
        assert viewer.text("status").startswith(f"White ({white.name}) passed. You are watching")
        play(black, white, game, 2, "4D")
        state = game_state(server, game)
        eventually(lambda: shows(viewer, state), expected_view(state, None), what="the next move")

        white.wire.send({"type": "resign", "game": game})
        assert white.wire.expect("over")["winner"] == "black"
        eventually(
            lambda: viewer.text("result"),
            f"Black ({black.name}) wins by resignation. "
            f"Records: {record(server, black.name)}; {record(server, white.name)}.",
            what="the result",
        )
        assert viewer.text("status") == "The game is over. Sign in to play."
        viewer.assert_clean(allow="/api/games/nosuchgame1")
    finally:
        black.wire.close()
        white.wire.close()


def test_a_name_from_the_terminal_plays_on_the_page_with_its_token(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """A player registered elsewhere (the terminal's token, from its welcome) signs in on the
    page with name and token, and finds its game there to play on."""
    black, white, state = start_game(server, "term")
    game = state["id"]
    try:
        page = browsers(url_of(server))
        page.open()
        page.element("name").send_keys(black.name)
        page.element("token").send_keys(black.token)
        page.element("signin").click()
        eventually(lambda: page.text("player"), record(server, black.name), what="signed in with the token")
        eventually(lambda: shows(page, state), expected_view(state, "black"), what="the game of the terminal's player")
        assert page.stored("gokata.game") == game
        page.click("5E")
        assert white.wire.expect("played")["point"] == "5E"
        assert page.element("token").get_property("value") == "" and page.text("error") == ""
        page.assert_clean()
    finally:
        black.wire.close()
        white.wire.close()


def test_a_player_copies_the_token_to_another_browser(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """"Your token" shows the signed-in player's token and copies it; another browser signs
    in with it as the same player."""
    first = browsers(url_of(server))
    first.open()
    name = fresh_name("twodevices")
    first.sign_in(name)
    assert not first.shown("my-token")
    first.element("token-box").find_element(By.TAG_NAME, "summary").click()
    until(lambda: first.shown("my-token"), what="the token shown")
    assert first.out_of_view(("my-token", "copy-token")) == []
    token = first.text("my-token")
    assert len(token) == 64 and set(token) <= set("0123456789abcdef"), token
    first.driver.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": first.origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    first.element("copy-token").click()
    eventually(lambda: first.text("token-note"), "Copied.")
    copied = first.driver.execute_async_script("navigator.clipboard.readText().then(arguments[0]);")
    assert copied == token

    second = browsers(url_of(server))
    second.open()
    second.element("name").send_keys(name.upper())  # names are one regardless of case
    second.element("token").send_keys(token)
    second.element("signin").click()
    eventually(lambda: second.text("player"), f"{name}: 0 wins, 0 losses", what="the same player")
    assert second.text("my-token") == token
    for page in (first, second):
        page.assert_clean()


def test_on_a_touch_screen_a_tap_shows_the_stone_and_a_second_tap_plays_it(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """On a phone (Chromium's touch emulation, touch input): a tap shows a ghost stone
    and sends nothing, a tap elsewhere moves it, a second tap on it plays; with the option off
    a tap plays at once; a mouse click always plays at once."""
    page = browsers(url_of(server))
    page.open()
    page.sign_in(fresh_name("thumbs"))
    page.set_viewport(390, 844, True)
    assert page.element("confirm").is_selected()  # on by default
    opponent = sign_in(server, fresh_name("clicks"))
    try:
        page.seek(19, "black")
        contains(lambda: page.text("status"), "Waiting for an opponent")
        opponent.wire.send({"type": "seek", "size": 19, "color": "white"})
        game = opponent.wire.expect("start")["game"]["id"]
        contains(lambda: page.text("status"), "Your move (black).")

        page.tap("10K")
        eventually(page.ghosts, ["10K"], what="the ghost stone")
        assert page.text("notice") == "Play K10? Tap it again to play."  # points read letter first
        assert page.text("status") == "Your move (black)."
        page.tap("4D")
        eventually(page.ghosts, ["4D"], what="the ghost moved")
        assert page.text("notice") == "Play D4? Tap it again to play."
        opponent.wire.silent(0.5)  # nothing was sent
        assert game_state(server, game)["moves"] == [] and page.stones()["4D"] == "empty"
        page.tap("4D")
        assert opponent.wire.expect("played")["point"] == "4D"
        state = wait_turns(server, game, 1)
        eventually(lambda: shows(page, state), expected_view(state, "black"), what="the tapped move")
        assert page.ghosts() == []

        # The option off: one tap plays.
        opponent.wire.send({"type": "move", "game": game, "ply": 1, "point": "16Q"})
        assert opponent.wire.expect("played")["point"] == "16Q"
        page.element("confirm").click()
        assert page.stored("gokata.confirm") == "off"
        contains(lambda: page.text("status"), "Your move (black).")
        page.tap("16D")
        assert opponent.wire.expect("played")["point"] == "16D"

        # A mouse click plays at once, whatever the option.
        page.element("confirm").click()
        assert page.stored("gokata.confirm") == "on"
        opponent.wire.send({"type": "move", "game": game, "ply": 3, "point": "4Q"})
        assert opponent.wire.expect("played")["point"] == "4Q"
        contains(lambda: page.text("status"), "Your move (black).")
        page.click("10J")
        assert opponent.wire.expect("played")["point"] == "10J"
        assert page.ghosts() == []
        page.assert_clean()
    finally:
        opponent.wire.close()


BEEP_SPY = """
window.beeps = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.beeps.push(document.visibilityState);
  return start.apply(this, args);
};
"""
"""Records the visibility of the page at each tone it starts (the page's only sound)."""


def tab_titles(page: Page) -> dict[str, str]:
    """The title of every tab of the browser, by address, read without switching to it."""
    targets = page.driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    return {str(target["url"]): str(target["title"]) for target in targets if target["type"] == "page"}


def test_a_hidden_tab_says_whose_turn_in_its_title_and_may_sound(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """While the page's tab is in the background, the turn coming to the player puts "Your
    move" in the tab's title, and plays a tone if the player turned the sound on (it is off
    by default); back in front, the title is the page's again."""
    page = browsers(url_of(server))
    page.open()
    page.sign_in(fresh_name("elsewhere"))
    page_url = str(page.driver.current_url)
    assert not page.element("sound").is_selected()
    page.driver.execute_script(BEEP_SPY)
    page.element("sound").click()  # on: a tone to hear what it sounds like
    assert page.stored("gokata.sound") == "on"
    opponent = sign_in(server, fresh_name("front"))
    try:
        page.seek(9, "white")
        contains(lambda: page.text("status"), "Waiting for an opponent")
        opponent.wire.send({"type": "seek", "size": 9, "color": "black"})
        game = opponent.wire.expect("start")["game"]["id"]
        contains(lambda: page.text("status"), "Waiting for")
        assert page.driver.title == "gokata: play Go"

        own_tab = page.driver.current_window_handle
        ply = 0
        for sound in (True, False):
            if not sound:
                page.element("sound").click()
                assert page.stored("gokata.sound") == "off"
            page.driver.switch_to.new_window("tab")
            opponent.wire.send({"type": "move", "game": game, "ply": ply, "point": f"{ply + 1}A"})
            assert opponent.wire.expect("played")["ply"] == ply
            eventually(lambda: tab_titles(page).get(page_url, ""), "Your move (white) · gokata: play Go")
            page.driver.close()
            page.driver.switch_to.window(own_tab)
            eventually(lambda: page.driver.title, "gokata: play Go", what="the title back in front")
            expected = ["visible", "hidden"]
            assert page.driver.execute_script("return window.beeps;") == expected, f"sound {sound}"
            page.click(f"{ply + 1}J")
            assert opponent.wire.expect("played")["ply"] == ply + 1
            ply += 2
        page.assert_clean()
    finally:
        opponent.wire.close()


def test_seek_then_cancel(server: ServerProcess, browsers: Callable[[str], Page]) -> None:
    page = browsers(url_of(server))
    page.open()
    name = fresh_name("seeker")
    page.sign_in(name)
    page.seek(19, "white")
    eventually(lambda: page.text("status"), f"Waiting for an opponent: 19×19, white, {TERMS}…")
    assert page.shown("cancel") and not page.shown("seek")
    page.element("cancel").click()
    eventually(lambda: page.text("status"), f"Signed in as {name}. Choose a board and seek a game.")
    assert not page.shown("cancel") and page.shown("seek")
    # The seek is really gone: a matching seek from someone else waits instead of pairing.
    other = sign_in(server, fresh_name("other"))
    try:
        other.wire.request({"type": "seek", "size": 19, "color": "black"}, "seeking")
        other.wire.silent(0.3)
        other.wire.request({"type": "cancel"}, "cancelled")
    finally:
        other.wire.close()
    page.assert_clean()


def test_a_taken_name_is_refused(server: ServerProcess, browsers: Callable[[str], Page]) -> None:
    """A fresh browser cannot sign in with a registered name without its token, nor with a
    wrong one; with the right one it can."""
    owner = sign_in(server, fresh_name("owner"))
    owner.wire.close()
    page = browsers(url_of(server))
    page.open()
    page.element("name").send_keys(owner.name.upper())  # names are unique regardless of case
    page.element("signin").click()
    until(lambda: page.text("error") != "", what="the name_taken error")
    assert owner.name.lower() in page.text("error").lower() and "token" in page.text("error")
    assert page.text("player") == "Not signed in" and page.shown("signin") and not page.shown("seek")
    assert page.stored("gokata.current") is None

    # The page asks for the token; one of the wrong form is refused before anything is sent,
    # a wrong one by the server, and the owner's signs in.
    for token, error in (
        ("123abc", "That is not a token: a token is 64 hexadecimal digits (0-9, a-f), not 6 characters."),
        ("0" * 64, f'wrong token for "{owner.name}"'),
        (owner.token.upper(), ""),
    ):
        field = page.element("token")
        field.clear()
        field.send_keys(token)
        page.element("signin").click()
        if error:
            contains(lambda: page.text("error"), error)
            assert page.text("player") == "Not signed in" and page.stored("gokata.current") is None
    eventually(lambda: page.text("player"), record(server, owner.name), what="signed in with the token")
    assert page.text("error") == "" and page.stored("gokata.current") == owner.name
    page.assert_clean()


def test_the_page_is_served_with_a_content_security_policy(server: ServerProcess) -> None:
    for path, kind in (("/", "text/html"), ("/js/main.js", "text/javascript"), ("/style.css", "text/css")):
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(server.http_url + path) as answer:
            assert answer.status == 200
            assert answer.headers["Content-Type"].startswith(kind)
            policy = answer.headers["Content-Security-Policy"]
            assert policy is not None and "default-src 'self'" in policy, policy


def test_the_pages_survive_a_server_crash_and_resend_a_click_made_meanwhile(
    browsers: Callable[[str], Page], tmp_path: Path, databases: Databases
) -> None:
    """``kill -9`` mid-game: both pages reconnect by themselves, and a turn clicked while the
    server was down is sent when it is back, once."""
    with ServerProcess(databases.new(tmp_path, "server")) as server:
        alice, bob = browsers(url_of(server)), browsers(url_of(server))
        for page, name in ((alice, "alice"), (bob, "bob")):
            page.open()
            page.sign_in(name)
        alice.seek(9, "black")
        contains(lambda: alice.text("status"), "Waiting for an opponent")
        bob.seek(9, "any")
        contains(lambda: alice.text("status"), "Your move (black).")
        pages = {"black": alice, "white": bob}
        game = alice.driver.execute_script("return localStorage.getItem('gokata.game');")
        assert isinstance(game, str) and game, "the page remembers the game it plays"
        alice.click("5E")
        in_step(server, game, pages, 1)

        server.kill()
        contains(lambda: bob.text("status"), "reconnecting")
        bob.click("4D")  # the server is down: the page keeps the turn
        contains(lambda: bob.text("status"), "Not connected: the turn is sent when the connection is back.")
        server.restart()  # same port, same database
        # The pages retry with back-off (at most 8 s apart): give them time to come back. The
        # first back may see the other come back after it.
        state = in_step(server, game, pages, 2, timeout=30, comebacks=True)
        assert state["moves"] == ["5E", "4D"], "the click was played once"
        alice.click("3C")
        state = in_step(server, game, pages, 3)
        assert state["moves"] == ["5E", "4D", "3C"]
        for page in (alice, bob):
            page.assert_clean_but_reconnects()


def gone(page: Page) -> list[str]:
    """The colours the page marks as having left the server."""
    return [color for color in ("black", "white") if page.shown(f"{color}-gone")]


def test_the_opponent_leaving_and_coming_back_is_shown(server: ServerProcess, browsers: Callable[[str], Page]) -> None:
    """A player's page goes away: the opponent's page marks the player as gone, beside the
    name and in the status line, as does a spectator's; the player is back: told, until the
    next turn. A page loaded while the opponent is away shows it from the game's state."""
    url = url_of(server)
    alice_name, bob_name = fresh_name("here"), fresh_name("there")
    alice, bob, watcher = browsers(url), browsers(url), browsers(url)
    for page, name in ((alice, alice_name), (bob, bob_name)):
        page.open()
        page.sign_in(name)
    alice.seek(9, "black")
    contains(lambda: alice.text("status"), "Waiting for an opponent")
    bob.seek(9, "white")
    contains(lambda: alice.text("status"), "Your move (black).")
    game = alice.stored("gokata.game")
    assert game is not None
    watcher.open(f"#game={game}")
    watching = f"You are watching: {alice_name} (black) against {bob_name} (white)"
    contains(lambda: watcher.text("status"), watching)
    assert [gone(page) for page in (alice, bob, watcher)] == [[], [], []]
    assert game_state(server, game)["connected"] == {"black": True, "white": True}

    # Bob's tab goes to another address (the page may be kept, frozen, to come back to).
    bob.driver.get("about:blank")
    for page in (alice, watcher):
        eventually(lambda: gone(page), ["white"], what="bob marked as gone")
    assert game_state(server, game)["connected"] == {"black": True, "white": False}
    assert alice.text("white-gone") == "left"
    assert alice.text("status") == f"{bob_name} left the game; the clock runs on. Your move (black)."
    assert watcher.text("status").startswith(f"{bob_name} left the game; the clock runs on. {watching}")
    alice.click("5E")  # play goes on, and bob's clock runs
    eventually(
        lambda: alice.text("status"),
        f"{bob_name} left the game; the clock runs on. Waiting for {bob_name} (white) to move.",
        what="alice's move played",
    )
    assert running_clock(alice) == "white"

    bob.driver.back()
    eventually(
        lambda: alice.text("status"), f"{bob_name} is back. Waiting for {bob_name} (white) to move.", what="bob back"
    )
    assert gone(alice) == []
    eventually(lambda: bob.text("status"), "Your move (white).", what="bob's page after coming back")
    assert bob.stones()["5E"] == "black" and gone(bob) == []
    until(lambda: not gone(watcher), what="bob back for the spectator")
    contains(lambda: watcher.text("status"), f"{bob_name} is back. {watching}")

    # Alice leaves; bob's page, loaded again meanwhile, shows her gone from the game's state.
    alice.driver.get("about:blank")
    eventually(lambda: gone(bob), ["black"], what="alice marked as gone")
    assert game_state(server, game)["connected"] == {"black": False, "white": True}
    bob.driver.refresh()
    eventually(
        lambda: bob.text("status"),
        f"{alice_name} left the game; the clock runs on. Your move (white).",
        what="alice gone, on the page loaded again",
    )
    assert gone(bob) == ["black"]
    alice.open()
    eventually(lambda: bob.text("status"), f"{alice_name} is back. Your move (white).", what="alice back")
    assert gone(bob) == []
    eventually(lambda: alice.text("status"), f"Waiting for {bob_name} (white) to move.", what="alice's page again")
    assert gone(alice) == []
    until(lambda: not gone(watcher), what="both back for the spectator")
    assert game_state(server, game)["connected"] == {"black": True, "white": True}
    # The next turn puts the notices away.
    bob.click("4D")
    eventually(lambda: bob.text("status"), f"Waiting for {alice_name} (black) to move.", what="bob's move played")
    until(lambda: watcher.text("status").startswith(watching), what="the spectator's notice put away")
    for page in (alice, bob, watcher):
        page.assert_clean()


IN_VIEW = (
    "board", "status", "black-name", "white-name", "white-passed", "white-gone", "black-clock", "white-clock", "pass", "resign"
)
"""What a player must see without scrolling while playing: the board, whose turn it is, both
names, the opponent's pass and absence, both clocks, Pass and Resign."""


def test_the_game_fits_the_window_on_laptops_and_phones(
    server: ServerProcess, browsers: Callable[[str], Page]
) -> None:
    """At 1280x800, 1366x768 and 390x844, on every board size, everything a player needs
    while playing is in the window, the page does not scroll, and the board is large."""
    page = browsers(url_of(server))
    page.open()
    page.sign_in(long_name("fits"))
    opponent = sign_in(server, long_name("fitsopp"))
    try:
        for size in (9, 13, 19):
            page.seek(size, "black")
            contains(lambda: page.text("status"), "Waiting for an opponent")
            opponent.wire.send({"type": "seek", "size": size, "color": "white"})
            game = opponent.wire.expect("start")["game"]["id"]
            contains(lambda: page.text("status"), "Your move (black).")
            page.click(f"{size}A")
            assert opponent.wire.expect("played")["point"] == f"{size}A"
            # A pass, then the opponent leaves: the longest status line, and two marks beside the board.
            opponent.wire.send({"type": "pass", "game": game, "ply": 1})
            assert opponent.wire.expect("played")["point"] is None
            opponent.wire.close()
            eventually(
                lambda: page.text("status"),
                f"{opponent.name} left the game; the clock runs on. "
                f"White ({opponent.name}) passed: if you pass too, the game ends. Your move (black).",
            )
            for label, (width, height, phone) in VIEWPORTS.items():
                page.set_viewport(width, height, phone)
                until(lambda: page.text("black-clock") != "", what="the clock")
                assert page.out_of_view(IN_VIEW) == [], f"{size}x{size} at {label}"
                board = page.rect("board")
                assert board["width"] == pytest.approx(board["height"], abs=1)
                # Large: as wide as a phone allows, most of a laptop's height.
                least = 0.9 * width if phone else 0.75 * height
                assert board["width"] >= least, f"a board of {board['width']} px at {label}"
            opponent = sign_in(server, opponent.name, opponent.token)
            opponent.wire.send({"type": "resign", "game": game})
            assert opponent.wire.expect("over")["reason"] == "resign"
            contains(lambda: page.text("result"), "wins by resignation")
        page.assert_clean()
    finally:
        opponent.wire.close()
