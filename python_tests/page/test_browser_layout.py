"""The page as a player sees it on a laptop (1280x800) and on a phone (390x844, a touch screen),
in a real headless Chromium against a real ``gokata serve`` (the harness of
``support/browser_page.py``): two taps on one point play it and the board stands still between
them; the coordinates lie outside the grid, so that no stone hides them; nothing a player needs
is cut off, behind the footer or out of the window (the parts below the buttons scroll into
view); a disabled Pass looks it; a spectator has no Pass, Resign or Undo; the sign-in form keeps
"Token" with its box, and a seat its captures on the name's line.

The page's hooks used here, besides test_browser.py's: ``notice`` (the line under the board:
the stone a first tap shows, the last turn, news), ``undo``, ``chat-text``, ``sgf``, ``terms``,
``sound``, ``confirm``; the board's coordinates are the ``text`` elements of ``#board .coords``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.browser_page import (
    VIEWPORTS,
    Page,
    contains,
    eventually,
    game_state,
    keep_screenshots,
    long_name,
    until,
    url_of,
    wait_turns,
)
from support.databases import Databases
from support.server_process import Player, ServerProcess, fresh_name, sign_in

LAYOUTS = {"1280x800": VIEWPORTS["1280x800"], "390x844 phone": VIEWPORTS["390x844 phone"]}
PLAYING = ("board", "status", "black-name", "black-captures", "white-name", "white-captures", "black-clock",
           "white-clock", "notice", "pass", "undo", "resign")
"""What a player must see at every turn without scrolling anything."""
BELOW = ("terms", "sgf", "chat-text", "chat-send", "chat-hide-watchers", "sound", "confirm")
"""What lies below (or beside) the buttons, reached by scrolling that part of the page."""

BOARD_BOX = "const r = document.getElementById('board').getBoundingClientRect(); return [r.left, r.top, r.width, r.height];"

LABELS_CLEAR = """
const board = document.getElementById('board');
const labels = Array.from(board.querySelectorAll('.coords text'), (t) => t.getBBox());
const overlaps = [];
for (const g of board.querySelectorAll('.pt')) {
  const c = g.querySelector('.stone');
  const [cx, cy, r] = ['cx', 'cy', 'r'].map((a) => Number(c.getAttribute(a)));
  for (const b of labels) {
    if (b.x < cx + r && b.x + b.width > cx - r && b.y < cy + r && b.y + b.height > cy - r) overlaps.push(g.dataset.point);
  }
}
return {labels: labels.length, overlaps};
"""
"""Every coordinate label's box, checked against the room of every point's stone (played or
not): the points whose stone would overlap a label."""

COLOURS = """
const lum = (css) => {
  const [r, g, b] = css.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const look = (id) => {
  const s = getComputedStyle(document.getElementById(id));
  return {background: lum(s.backgroundColor), border: lum(s.borderTopColor), text: lum(s.color)};
};
return [look(arguments[0]), look(arguments[1])];
"""
"""The relative luminance of two buttons' background, border and text."""


@pytest.fixture
def server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path, "server")) as process:
        yield process


def touch(page: Page) -> None:
    """A touch screen, whatever the window's size (a laptop's too)."""
    page.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})


def a_game(server: ServerProcess, page: Page, size: int) -> tuple[Player, str]:
    """The page, signed in, seeks black; a new player's raw connection takes white."""
    opponent = sign_in(server, long_name("phoneopp"))
    page.seek(size, "black")
    contains(lambda: page.text("status"), "Waiting for an opponent")
    opponent.wire.send({"type": "seek", "size": size, "color": "white"})
    game = opponent.wire.expect("start")["game"]["id"]
    contains(lambda: page.text("status"), "Your move (black).")
    return opponent, str(game)


def two_taps(server: ServerProcess, page: Page, opponent: Player, game: str, point: str, shown: str, ply: int) -> None:
    """The first tap shows the stone and sends nothing, the board standing still; the second on
    the same spot plays it."""
    before = page.driver.execute_script(BOARD_BOX)
    status = page.text("status")
    page.tap(point)
    eventually(page.ghosts, [point], what="the stone the first tap shows")
    assert page.text("notice") == f"Play {shown}? Tap it again to play."
    assert page.text("status") == status
    assert page.driver.execute_script(BOARD_BOX) == before, "the board moved between the two taps"
    opponent.wire.silent(0.4)  # nothing was sent
    page.tap(point)
    assert opponent.wire.expect("played")["point"] == point
    assert wait_turns(server, game, ply + 1)["moves"][ply] == point
    eventually(lambda: page.stones()[point], "black", what="the stone played")
    assert page.ghosts() == []


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_two_taps_play_a_point_and_everything_a_player_needs_is_in_view(
    server: ServerProcess, browsers: Callable[[str], Page], tmp_path: Path, layout: str
) -> None:
    """On a touch screen of either size, on a 19x19 board with the widest names: two taps on
    one point play it (an edge point too), the board standing still between them; the
    coordinates never lie under a stone; the status, the clocks, the board, the line under it
    and the buttons are in the window, and what lies below is reached by scrolling, never behind
    the footer; the opponent's move is told letter first."""
    width, height, phone = LAYOUTS[layout]
    page = browsers(url_of(server))
    page.open()
    page.set_viewport(width, height, phone)
    touch(page)
    page.sign_in(long_name("thumbs"))
    opponent, game = a_game(server, page, 19)
    try:
        assert page.driver.execute_script(LABELS_CLEAR) == {"labels": 4 * 19, "overlaps": []}
        two_taps(server, page, opponent, game, "4D", "D4", 0)
        opponent.wire.send({"type": "move", "game": game, "ply": 1, "point": "2B"})
        assert opponent.wire.expect("played")["point"] == "2B"
        eventually(lambda: page.text("notice"), "White plays B2.", what="the opponent's move, letter first")
        two_taps(server, page, opponent, game, "1A", "A1", 2)  # the corner: its labels stay clear of the stone

        assert page.out_of_view(PLAYING) == [], layout
        # The captures stay on the name's line, however long the name.
        for color in ("black", "white"):
            name, taken = page.box(f"{color}-name"), page.box(f"{color}-captures")
            assert taken["top"] < name["top"] + 0.8 * (name["bottom"] - name["top"]), (color, name, taken)
            assert taken["left"] >= name["right"] - 1, (color, name, taken)
        assert page.out_of_view(BELOW, scroll=True) == [], layout
        assert page.out_of_view(PLAYING) == [], f"{layout}, after scrolling what lies below"
        shot = tmp_path / f"playing-19x19-{layout.split()[0]}.png"
        page.screenshot(shot)
        keep_screenshots([shot])

        # White to move: black's Pass is disabled, and looks it, paler than the enabled Resign.
        opponent.wire.send({"type": "move", "game": game, "ply": 3, "point": "16Q"})
        assert opponent.wire.expect("played")["point"] == "16Q"
        page.click("16D")
        assert opponent.wire.expect("played")["point"] == "16D"
        until(lambda: not page.enabled("pass") and page.enabled("resign"), what="white to move")
        disabled, enabled = page.driver.execute_script(COLOURS, "pass", "resign")
        for part in ("background", "border", "text"):
            assert disabled[part] >= enabled[part] - 1e-9, (part, disabled, enabled)
        assert page.enabled("undo"), "black may ask to take back its move"
        page.assert_clean()
    finally:
        opponent.wire.close()


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_spectator_has_no_players_controls_and_the_forms_keep_their_labels(
    server: ServerProcess, browsers: Callable[[str], Page], layout: str
) -> None:
    """The sign-in form keeps each label on its box's line; a spectator sees the game, the chat
    and the sign-in form, but no Pass, Resign or Undo and no "Click a point to play"; signed in,
    the lobby's options are not behind the footer."""
    width, height, phone = LAYOUTS[layout]
    black = sign_in(server, long_name("seenb"))
    white = sign_in(server, long_name("seenw"))
    try:
        black.wire.request({"type": "seek", "size": 13, "color": "black"}, "seeking")
        white.wire.send({"type": "seek", "size": 13, "color": "white"})
        game = white.wire.expect("start")["game"]["id"]
        black.wire.expect("start")
        black.wire.send({"type": "move", "game": game, "ply": 0, "point": "13A"})
        black.wire.expect("played")

        page = browsers(url_of(server))
        page.open()
        page.set_viewport(width, height, phone)
        for field in ("name", "token"):
            label = page.driver.execute_script(
                f"const r = document.querySelector('label[for={field}]').getBoundingClientRect();"
                "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};"
            )
            box = page.box(field)
            middle = (label["top"] + label["bottom"]) / 2
            assert box["top"] <= middle <= box["bottom"] and label["right"] <= box["left"], (field, label, box)
        assert page.out_of_view(("name", "token", "signin"), scroll=True) == [], layout

        page.driver.execute_script("location.hash = arguments[0];", f"game={game}")
        state = game_state(server, game)
        # Until the watched game's board is drawn, its points are not there yet.
        eventually(lambda: page.stones().get("13A", ""), "black", what="the watched game")
        assert state["moves"] == ["13A"]
        eventually(lambda: page.text("notice"), "Black plays A13.", what="the last move, letter first")
        for control in ("pass", "resign", "undo", "play-help", "score-accept"):
            assert not page.shown(control), f"a spectator sees {control}"
        assert page.out_of_view(("board", "status", "black-name", "white-name", "black-clock", "white-clock", "notice")) == []
        assert page.out_of_view(("chat-text", "signin", "terms"), scroll=True) == [], layout

        page.element("name").send_keys(fresh_name("seer"))
        page.element("signin").click()
        until(lambda: page.text("player").endswith("0 wins, 0 losses"), what="signed in")
        page.element("to-lobby").click()
        until(lambda: page.shown("lobby"), what="the lobby")
        assert page.out_of_view(("seek", "opponent", "agreement", "sound", "confirm"), scroll=True) == [], layout
        page.assert_clean()
    finally:
        black.wire.close()
        white.wire.close()
