"""The harness of the page's tests (``page/``): Debian's Chromium driven by selenium, the page's
testable hooks read and acted on (`Page`), and the server's own account of a game in the page's
words, to check what the pages show against (`game_state`, `expected_view`, `in_step`). The
fixture giving each test its browsers is ``page/conftest.py``'s `browsers`.

Every browser is Debian's ``chromium`` through ``chromedriver`` at fixed paths (nothing is
downloaded at run time), with its own profile directory, so each player has their own
localStorage. A missing Chromium or chromedriver fails the tests; it never skips them.
"""

from __future__ import annotations

import base64
import os
import re
import itertools
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional, TypeVar, cast

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select

from support.server_process import Frame, ServerProcess, fresh_name
from support.waiting import WaitTimeout, wait_until, wait_until_equal

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WINDOW = (600, 900)
"""A phone-sized window, in CSS pixels."""
WAIT = 8.0
"""Seconds any expected change may take to show."""
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
STONES = {"black": "x", "white": "o", "empty": "."}

T = TypeVar("T")

SOCKET_SPY = """
(() => {
  const Native = window.WebSocket;
  window.gokataTestPongs = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.gokataTestSocket = this;
      this.addEventListener("message", (event) => {
        try {
          const frame = JSON.parse(event.data);
          if (frame.type === "pong") window.gokataTestPongs.push(frame.t);
        } catch (error) {
          // not JSON: the page's own handler deals with it
        }
      });
    }
  };
})();
"""
"""Run before the page's own script in every document a `Page` loads: the page's WebSocket is
kept as ``window.gokataTestSocket``, and the ``t`` of every ``pong`` it receives in
``window.gokataTestPongs`` (for `Page.settled`). The page itself is unchanged."""


def eventually(observe: Callable[[], T], expected: T, timeout: float = WAIT, what: str = "the page") -> None:
    """Polls ``observe()`` until it equals ``expected``; after ``timeout`` seconds fails naming
    ``what``, with the last value seen."""
    wait_until_equal(observe, expected, timeout, what)


def until(condition: Callable[[], bool], timeout: float = WAIT, what: str = "the page") -> None:
    """Polls ``condition()`` until it is true; fails after ``timeout`` seconds naming ``what``."""
    wait_until_equal(condition, True, timeout, what)


def contains(observe: Callable[[], str], words: str, timeout: float = WAIT) -> None:
    """Polls ``observe()`` until the text contains ``words``; fails with the last text seen."""
    seen = [""]

    def found() -> bool:
        seen[0] = observe()
        return words in seen[0]

    try:
        wait_until(found, timeout, f"{words!r} in the text")
    except WaitTimeout as late:
        raise WaitTimeout(f"{late}; the text: {seen[0]!r}") from None


# -- the browser ---------------------------------------------------------------------------


class Page:
    """One browser (its own profile) showing the page of one server."""

    def __init__(self, url: str, profile: Path) -> None:
        assert CHROMIUM.is_file(), f"{CHROMIUM} is missing: apt-get install chromium chromium-driver"
        assert CHROMEDRIVER.is_file(), f"{CHROMEDRIVER} is missing: apt-get install chromium-driver"
        self.url = url
        self.origin = url.rstrip("/")
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for argument in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
        ):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        self.driver.set_page_load_timeout(WAIT)
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SOCKET_SPY})
        self._barriers = itertools.count()

    # -- reading -------------------------------------------------------------------------

    def element(self, id_: str) -> WebElement:
        return self.driver.find_element(By.ID, id_)

    def text(self, id_: str) -> str:
        """The element's text content (also when hidden), trimmed."""
        value = self.driver.execute_script("return document.getElementById(arguments[0]).textContent", id_)
        return str(value).strip()

    def shown(self, id_: str) -> bool:
        """Whether the element is there and displayed."""
        found = self.driver.find_elements(By.ID, id_)
        return bool(found) and found[0].is_displayed()

    def enabled(self, id_: str) -> bool:
        return self.element(id_).is_enabled()

    def stones(self) -> dict[str, str]:
        """``data-stone`` of every ``data-point``, in one round trip."""
        value = self.driver.execute_script(
            "const out = {};"
            "for (const g of document.querySelectorAll('[data-point]')) out[g.dataset.point] = g.dataset.stone;"
            "return out;"
        )
        assert isinstance(value, dict)
        return {str(k): str(v) for k, v in value.items()}

    def board(self, size: int) -> list[str]:
        """The board as the page shows it, in the server's STATE form: rows top first, ``.xo``."""
        stones = self.stones()
        if len(stones) != size * size:  # no board yet (or another size): shown as such
            return [f"{len(stones)} intersections"]
        return [
            "".join(STONES[stones[f"{size - row}{LETTERS[col]}"]] for col in range(size)) for row in range(size)
        ]

    def last(self) -> list[str]:
        """The points carrying ``data-last``."""
        value = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('[data-last]'), g => g.dataset.point);"
        )
        assert isinstance(value, list)
        return [str(point) for point in value]

    def stored(self, key: str) -> Optional[str]:
        value = self.driver.execute_script("return localStorage.getItem(arguments[0]);", key)
        return None if value is None else str(value)

    # -- acting --------------------------------------------------------------------------

    def open(self, fragment: str = "") -> None:
        self.driver.get(self.url + fragment)
        until(lambda: self.text("status") != "", what="the page did not start")

    def sign_in(self, name: str) -> None:
        """Signs in with a name nobody has yet; waits for the record to show."""
        assert self.shown("name") and self.shown("signin")
        field = self.element("name")
        field.clear()
        field.send_keys(name)
        self.element("signin").click()
        eventually(lambda: self.text("player"), f"{name}: 0 wins, 0 losses", what=f"{name} signed in")
        assert self.text("status") == f"Signed in as {name}. Choose a board and seek a game."
        assert not self.shown("signin") and self.shown("seek") and not self.shown("cancel")

    def seek(self, size: int, color: str, opponent: str = "human") -> None:
        Select(self.element("size")).select_by_value(str(size))
        Select(self.element("color")).select_by_value(color)
        Select(self.element("opponent")).select_by_value(opponent)
        self.element("seek").click()

    def click(self, point: str) -> None:
        self.driver.find_element(By.CSS_SELECTOR, f'[data-point="{point}"]').click()

    def tap(self, point: str) -> None:
        """A finger's tap on the middle of the point: touch input through the DevTools protocol,
        which Chromium turns into touch and pointer events and a click, as on a phone."""
        middle = self.driver.execute_script(
            "const r = document.querySelector(`[data-point=\"${arguments[0]}\"] .hover`).getBoundingClientRect();"
            "return {x: r.left + r.width / 2, y: r.top + r.height / 2};",
            point,
        )
        for kind, points in (("touchStart", [middle]), ("touchEnd", [])):
            self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def ghosts(self) -> list[str]:
        """The points carrying ``data-ghost``: a stone shown, not yet played."""
        value = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('[data-ghost]'), g => g.dataset.point);"
        )
        assert isinstance(value, list)
        return [str(point) for point in value]

    def settled(self, timeout: float = WAIT) -> None:
        """Waits until the page has handled every frame the server sent it in answer to what the
        page sent so far: a ``ping`` sent now on the page's own connection is answered after
        them, in order, and the page handles frames one at a time in order. For checks that
        something the server would have said (after a sign-in, say) did not come."""
        mark = f"settled-{next(self._barriers)}"
        sent = self.driver.execute_script(
            "const s = window.gokataTestSocket;"
            "if (!s || s.readyState !== WebSocket.OPEN) return false;"
            "s.send(JSON.stringify({type: 'ping', t: arguments[0]}));"
            "return true;",
            mark,
        )
        assert sent is True, "the page has no open connection to the server"
        until(
            lambda: mark in (self.driver.execute_script("return window.gokataTestPongs;") or []),
            timeout,
            "the server's answer to a ping from the page",
        )

    def set_viewport(self, width: int, height: int, phone: bool) -> None:
        """Chromium's device emulation: exactly this many CSS pixels; a phone is also a touch
        screen with the mobile viewport."""
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 3 if phone else 1, "mobile": phone},
        )
        self.driver.execute_cdp_cmd(
            "Emulation.setTouchEmulationEnabled", {"enabled": phone, "maxTouchPoints": 5 if phone else 1}
        )
        eventually(lambda: self.driver.execute_script("return [innerWidth, innerHeight]"), [width, height])

    def out_of_view(self, ids: tuple[str, ...], scroll: bool = False) -> list[str]:
        """What keeps these elements from being seen whole: an element outside the window, cut
        short (an ellipsis) or spilling out of its box, or covered or clipped at its centre or a
        corner; a document taller or wider than the window. With ``scroll``, each element is
        first scrolled into view (within the scrolling part of the page), as a player would."""
        value = self.driver.execute_script(
            """
            const [ids, scroll] = arguments;
            const problems = [];
            const root = document.documentElement;
            if (root.scrollHeight > innerHeight) problems.push(`the page is ${root.scrollHeight} px tall`);
            if (root.scrollWidth > innerWidth) problems.push(`the page is ${root.scrollWidth} px wide`);
            for (const id of ids) {
              const element = document.getElementById(id);
              if (!element) { problems.push(`${id} is missing`); continue; }
              if (scroll) element.scrollIntoView({block: "nearest", inline: "nearest"});
              const r = element.getBoundingClientRect();
              if (r.width < 1 || r.height < 1) { problems.push(`${id} is not shown`); continue; }
              if (element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1) {
                problems.push(`${id} is cut short, or spills over`);
              }
              const slack = 0.5; // sub-pixel placement
              if (r.left < -slack || r.top < -slack || r.right > innerWidth + slack || r.bottom > innerHeight + slack) {
                problems.push(`${id} at ${r.left},${r.top} to ${r.right},${r.bottom}`);
                continue;
              }
              const inset = Math.min(4, r.width / 4, r.height / 4);
              const spots = [[(r.left + r.right) / 2, (r.top + r.bottom) / 2],
                [r.left + inset, r.top + inset], [r.right - inset, r.top + inset],
                [r.left + inset, r.bottom - inset], [r.right - inset, r.bottom - inset]];
              for (const [x, y] of spots) {
                const hit = document.elementFromPoint(x, y);
                if (!hit || !element.contains(hit)) {
                  const what = hit ? `${hit.tagName.toLowerCase()}#${hit.id}` : "nothing";
                  problems.push(`${id} is covered at ${x},${y} by ${what}`);
                }
              }
            }
            return problems;
            """,
            list(ids),
            scroll,
        )
        assert isinstance(value, list)
        return [str(problem) for problem in value]

    def box(self, id_: str) -> dict[str, float]:
        """The element's place in the window, in CSS pixels: left, top, right, bottom."""
        value = self.driver.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};",
            id_,
        )
        assert isinstance(value, dict)
        return {str(k): float(v) for k, v in value.items()}

    def dead(self) -> list[str]:
        """The points the page marks dead (``data-dead``), in the server's order."""
        value = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('[data-dead]'), g => g.dataset.point);"
        )
        assert isinstance(value, list)
        return [str(point) for point in value]

    def rect(self, id_: str) -> dict[str, float]:
        value = self.driver.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return {width: r.width, height: r.height};",
            id_,
        )
        assert isinstance(value, dict)
        return {str(k): float(v) for k, v in value.items()}

    def screenshot(self, path: Path) -> None:
        """The window (the page is made to fit it), with the pointer off the board."""
        ActionChains(self.driver).move_to_element(self.driver.find_element(By.TAG_NAME, "h1")).perform()
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(shot["data"]))

    # -- hygiene -------------------------------------------------------------------------

    def assert_clean_but_reconnects(self) -> None:
        """As `assert_clean`, but for the failed connection attempts while the server was down."""
        self.assert_clean(allow="/ws")

    def assert_clean(self, allow: str = "") -> None:
        """Nothing was fetched from another host, and the console has no error (but for
        messages naming ``allow``)."""
        names = self.driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name);"
        )
        assert isinstance(names, list)
        assert f"{self.origin}/js/main.js" in names and f"{self.origin}/style.css" in names, names
        foreign = [name for name in names if not str(name).startswith(self.origin + "/")]
        assert not foreign, f"requests to other hosts: {foreign}"
        assert str(self.driver.current_url).startswith(self.origin + "/")
        get_log = cast(Callable[[str], list[dict[str, Any]]], self.driver.get_log)  # untyped in selenium
        logs = get_log("browser")
        severe = [
            entry
            for entry in logs
            if entry.get("level") == "SEVERE" and not (allow and allow in str(entry.get("message")))
        ]
        assert not severe, f"console errors: {severe}"


def url_of(server: ServerProcess) -> str:
    return server.http_url + "/"


# -- the server's account ------------------------------------------------------------------


def game_state(server: ServerProcess, game: str) -> Frame:
    status, state = server.get(f"/api/games/{game}")
    assert status == 200 and isinstance(state, dict), (status, state)
    return state


def record(server: ServerProcess, name: str) -> str:
    """The player's record from the HTTP API, in the page's words (a program's name marked)."""
    status, body = server.get(f"/api/players/{name}")
    assert status == 200 and isinstance(body, dict), (status, body)
    wins, losses = body["wins"], body["losses"]
    named = marked(body["name"], body["bot"])
    return f"{named}: {wins} win{'' if wins == 1 else 's'}, {losses} loss{'' if losses == 1 else 'es'}"


def marked(name: str, bot: bool) -> str:
    """A name as the page writes it: a program's is marked."""
    return f"{name} [bot]" if bot else name


def player(state: Frame, color: str) -> str:
    """The name of the game's player of ``color``, as the page writes it."""
    return marked(state[color], state["bots"][color])


def without_clock(state: Frame) -> Frame:
    """The STATE but the time left, which runs on."""
    return {key: value for key, value in state.items() if key != "remaining_ms"}


def mover(state: Frame, ply: int) -> str:
    """The colour of turn ``ply``: black moves first, white in a handicap game."""
    first, second = ("white", "black") if state.get("handicap", 0) >= 2 else ("black", "white")
    return first if ply % 2 == 0 else second


def passer(state: Frame) -> Optional[str]:
    """The colour that passed on the last turn of a game still played, if any."""
    moves = state["moves"]
    if state["status"] != "playing" or not moves or moves[-1] is not None:
        return None
    return mover(state, len(moves) - 1)


def status_for(state: Frame, color: Optional[str]) -> str:
    """What ``#status`` says to the player of ``color`` (None: a spectator) while it is played:
    a pass on the last turn, then whose turn it is."""
    mover = state["to_move"]
    passed = passer(state)
    if passed is None:
        said = ""
    elif passed == color:
        said = "You passed. "
    elif color is None:
        said = f"{passed.title()} ({player(state, passed)}) passed. "
    else:
        ends = "the dead stones are marked next" if state.get("scoring") == "agreement" else "the game ends"
        said = f"{passed.title()} ({player(state, passed)}) passed: if you pass too, {ends}. "
    if color is None:
        return said + (
            f"You are watching: {player(state, 'black')} (black) against {player(state, 'white')} (white); "
            f"{mover} to move."
        )
    if color == mover:
        return said + f"Your move ({color})."
    return said + f"Waiting for {player(state, mover)} ({mover}) to move."


Seats = tuple[str, str, list[str], str]
"""Beside the board: black's captures, white's, the colours marked as having passed, the move
number."""


def seats(page: Page) -> Seats:
    passed = [color for color in ("black", "white") if page.shown(f"{color}-passed")]
    return page.text("black-captures"), page.text("white-captures"), passed, page.text("move-number")


def expected_seats(state: Frame) -> Seats:
    """The captures counted from the server's STATE: the stones a colour's opponent played (black's
    handicap stones too) that are no longer on the board."""
    handicap = state.get("handicap", 0)
    played = {"black": handicap if handicap >= 2 else 0, "white": 0}
    for ply, point in enumerate(state["moves"]):
        if point is not None:
            played[mover(state, ply)] += 1
    on_board = {color: sum(row.count(STONES[color]) for row in state["board"]) for color in ("black", "white")}
    taken = {"black": played["white"] - on_board["white"], "white": played["black"] - on_board["black"]}
    words = [f"{taken[color]} capture{'' if taken[color] == 1 else 's'}" for color in ("black", "white")]
    passed = passer(state)
    return words[0], words[1], [] if passed is None else [passed], f"Move {len(state['moves'])}"


def running_clock(page: Page) -> Optional[str]:
    """The colour whose clock the page shows running (marked ``running``), if any."""
    running = page.driver.execute_script(  # both read at once, between two ticks of the clocks
        "return ['black', 'white'].filter((c) => document.getElementById(`${c}-clock`).classList.contains('running'));"
    )
    assert isinstance(running, list) and len(running) <= 1, running
    return running[0] if running else None


def shows(page: Page, state: Frame, comebacks: bool = False) -> tuple[list[str], list[str], str, Seats]:
    """What the page shows of a game: board, last move, status, and beside the board; if
    ``comebacks``, the status without the players' returns it tells of (a page that reconnected
    before the other is told of the other's return, until the next turn)."""
    status = page.text("status")
    if comebacks:
        status = re.sub(r"^(\S+ is back\. )+", "", status)
    return page.board(state["size"]), page.last(), status, seats(page)


def expected_view(state: Frame, color: Optional[str]) -> tuple[list[str], list[str], str, Seats]:
    """What a page must show of the server's STATE: its board, its last move, whose turn, the
    captures, a pass and the move number."""
    moves = state["moves"]
    last = [moves[-1]] if moves and moves[-1] is not None else []
    status = status_for(state, color) if state["status"] == "playing" else "The game is over. Seek another one?"
    return list(state["board"]), last, status, expected_seats(state)


def wait_turns(server: ServerProcess, game: str, turns: int, timeout: float = WAIT) -> Frame:
    """The server's STATE once ``turns`` turns are stored."""
    eventually(lambda: len(game_state(server, game)["moves"]), turns, timeout, "turns stored by the server")
    return game_state(server, game)


def in_step(
    server: ServerProcess, game: str, pages: dict[str, Page], turns: int, timeout: float = WAIT, comebacks: bool = False
) -> Frame:
    """Both pages show the server's board after ``turns`` turns, its last move and whose turn
    (but for returns told of, if ``comebacks``)."""
    state = wait_turns(server, game, turns, timeout)
    for color, page in pages.items():
        eventually(
            lambda: shows(page, state, comebacks),
            expected_view(state, color),
            timeout,
            what=f"the {color} page after {turns} turns",
        )
    return state


def keep_screenshots(paths: list[Path]) -> None:
    target = os.environ.get("GOKATA_SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        for path in paths:
            shutil.copy(path, Path(target) / path.name)


VIEWPORTS = {"1280x800": (1280, 800, False), "1366x768": (1366, 768, False), "390x844 phone": (390, 844, True)}


def long_name(prefix: str) -> str:
    """A fresh name of the longest kind, 20 characters: the widest the page must lay out."""
    name = fresh_name(prefix)
    return name + "x" * (20 - len(name))
