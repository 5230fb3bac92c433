"""`gokata.widget.Board` in a real JupyterLab, in Debian's headless Chromium: the test writes a
notebook, starts a Jupyter server on 127.0.0.1 (a token, a temporary root), runs every cell
through the UI (Run > Run All Cells), then plays on the boards with clicks, buttons and keys.

What the kernel sees is read from files the notebook keeps: every change of a board writes its
`Go` (``board.game``: rows, move number, side to move) to ``NAME.json``, and the test checks it
against a `gokata.Go` of its own that it plays the same moves on. The server is shut down at the
end, also on failure (`notebook_page`).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Optional, cast

import nbformat
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement

import gokata
from gokata import Go
from support.jupyter_harness import JupyterLab, Timeout, chromium, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT = 20.0
"""Seconds a change may take to show: a round trip through the kernel on a busy machine."""
RUN_ALL = "//li[contains(@class, 'lm-Menu-item')][.//div[text()='Run All Cells']]"
"""The Run menu's Run All Cells."""
STONES = {"black": "x", "white": "o", "empty": "."}
SETUP = ["4B", "4C", "3A", "3D", "2B", "2C", "9J", "3B"]
"""Python's moves on the first board: white's 3B can be taken by black 3C, then it is a ko."""

CELLS = [
    """
    import json, os, pathlib
    import gokata
    from gokata.widget import Board
    pathlib.Path("kernel.pid").write_text(str(os.getpid()))

    def keep(name, board):
        \"\"\"Writes board.game to NAME.json whenever the board changes.\"\"\"
        path, scratch = pathlib.Path(f"{name}.json"), pathlib.Path(f".{name}.json")
        def write(_change=None):
            game = board.game
            scratch.write_text(json.dumps({
                "rows": ["".join(row) for row in game.board],
                "move_number": game.move_number,
                "turn": game.turn,
            }))
            scratch.replace(path)
        board.observe(write, names=["history_length", "rows"])
        write()
    """,
    f"""
    board = Board(size=9)
    for point in {SETUP!r}:
        board.move(point)
    keep("board", board)
    board
    """,
    """
    bot = Board(size=9, width=360)
    bot.on_move(lambda b, move: b.move(gokata.genmove(b.game, playouts=300, seed=7, threads=1)))
    keep("bot", bot)
    bot
    """,
    """
    shown = Board(gokata.Go(9), coordinates=False)
    shown.move("5E")
    shown.show(heatmap={"3C": 0.8, (0, 0): 0.25}, marks={"5E": "triangle", "7G": "circle"}, labels={"C7": "A"})
    shown
    """,
    """
    study = Board(size=5)
    candidates = study.analyze(playouts=300, seed=1, threads=1)
    study
    """,
]


class Notebook:
    """The notebook open in JupyterLab, its cells run: reads and acts on its boards."""

    def __init__(self, driver: webdriver.Chrome, root: Path) -> None:
        self.driver = driver
        self.root = root

    def ran(self, boards: int) -> bool:
        """Whether the notebook shows ``boards`` boards; accepts the kernel JupyterLab offers
        if it asks which one to run the cells on."""
        for accept in self.driver.find_elements(By.CSS_SELECTOR, ".jp-Dialog .jp-Dialog-button.jp-mod-accept"):
            accept.click()
        return len(self.boards()) == boards

    def console_errors(self) -> list[str]:
        """The errors logged in the browser's console since the last call."""
        get_log = cast(Callable[[str], list[dict[str, Any]]], self.driver.get_log)  # untyped in selenium
        return [str(entry["message"]) for entry in get_log("browser") if entry["level"] == "SEVERE"]

    def boards(self) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, ".gokata-board")

    def board(self, number: int) -> WebElement:
        return self.boards()[number]

    def point(self, number: int, point: str) -> WebElement:
        return self.board(number).find_element(By.CSS_SELECTOR, f'[data-point="{point}"]')

    def click(self, number: int, point: str) -> None:
        self.point(number, point).click()

    def button(self, number: int, label: str) -> WebElement:
        return self.board(number).find_element(By.CSS_SELECTOR, f'button[aria-label="{label}"]')

    def press(self, number: int, label: str) -> None:
        self.button(number, label).click()

    def rows(self, number: int) -> list[str]:
        """The board as the page shows it: rows top first of '.', 'x', 'o'."""
        value = self.driver.execute_script(
            "const points = arguments[0].querySelectorAll('[data-point]');"
            "const rows = [];"
            "for (const g of points) {"
            "  const r = Number(g.dataset.row), c = Number(g.dataset.col);"
            "  (rows[r] = rows[r] || [])[c] = g.dataset.stone; }"
            "return rows;",
            self.board(number),
        )
        assert isinstance(value, list)
        return ["".join(STONES[str(stone)] for stone in row) for row in value]

    def text(self, number: int, part: str) -> str:
        value = self.driver.execute_script(
            "return arguments[0].querySelector(arguments[1]).textContent;", self.board(number), f".gokata-{part}"
        )
        return str(value).strip()

    def attribute(self, number: int, point: str, name: str) -> Optional[str]:
        value = self.point(number, point).get_attribute(name)
        return None if value is None else str(value)

    def kernel(self, name: str) -> dict[str, Any]:
        """What the kernel last wrote of ``board.game``."""
        path = self.root / f"{name}.json"
        if not path.exists():
            return {}
        loaded = json.loads(path.read_text())
        assert isinstance(loaded, dict)
        return loaded

    def shows(self, number: int, name: str, game: Go, what: str) -> None:
        """Waits until the kernel's game and the page's board are both ``game``'s position."""
        expected = {"rows": ["".join(row) for row in game.board], "move_number": game.move_number, "turn": game.turn}
        try:
            wait_for(lambda: self.kernel(name) == expected, WAIT, f"the kernel's game after {what}")
            wait_for(lambda: self.rows(number) == expected["rows"], WAIT, f"the page's board after {what}")
        except Timeout as late:
            raise Timeout(
                f"{late}\n  expected {expected}\n  kernel {self.kernel(name)}\n  page {self.rows(number)}\n"
                f"  message {self.text(number, 'message')!r}"
            ) from None

    def says(self, number: int, words: str) -> str:
        """Waits for the board's message line to contain ``words``; returns it."""
        seen = [""]

        def found() -> bool:
            seen[0] = self.text(number, "message")
            return words in seen[0]

        try:
            wait_for(found, WAIT, f"{words!r} in the message line")
        except Timeout as late:
            raise Timeout(f"{late}; the message: {seen[0]!r}") from None
        return seen[0]


def write_notebook(path: Path) -> None:
    """`CELLS` as a notebook (nbformat 4, validated), on the ipykernel's Python 3."""
    notebook = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook.cells = [
        nbformat.v4.new_code_cell(textwrap.dedent(cell).strip()) for cell in CELLS  # type: ignore[no-untyped-call]
    ]
    nbformat.write(notebook, str(path))  # type: ignore[no-untyped-call]


@pytest.fixture(scope="module")
def notebook_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Notebook]:
    """The notebook open in a JupyterLab of its own, every cell run through the UI; the server
    and the browser are stopped after the module's tests, whatever happened."""
    home = tmp_path_factory.mktemp("jupyter")
    root = home / "root"
    root.mkdir()
    write_notebook(root / "boards.ipynb")
    lab = JupyterLab(root, home)
    driver: Optional[webdriver.Chrome] = None
    try:
        driver = chromium(home / "profile")
        driver.get(lab.url("boards.ipynb"))
        wait_for(lambda: lab.kernel_ready("boards.ipynb"), 60, "the notebook's kernel to be ready")
        wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook-ExecutionIndicator[data-status='idle']"),
            WAIT,
            "the notebook to show its kernel idle",
        )
        driver.find_element(By.XPATH, "//div[contains(@class, 'lm-MenuBar-itemLabel') and text()='Run']").click()
        wait_for(lambda: driver.find_elements(By.XPATH, RUN_ALL), WAIT, "the Run menu")[0].click()
        page = Notebook(driver, root)
        try:
            wait_for(lambda: page.ran(4), 60, "the four boards to show")
            wait_for(lambda: all(page.rows(n) for n in range(4)), WAIT, "the boards to be drawn")
            assert page.console_errors() == []
        except Timeout as late:
            driver.save_screenshot(str(home / "run-all.png"))
            raise Timeout(f"{late}\nthe server's log:\n{lab.log()}") from None
        yield page
    finally:
        if driver is not None:
            driver.quit()
        lab.stop()


def test_clicks_keys_and_buttons_play_and_the_kernel_sees_every_move(notebook_page: Notebook) -> None:
    page = notebook_page
    game = Go(9)
    game.move(*SETUP)
    page.shows(0, "board", game, "Python's moves")
    assert page.text(0, "move") == "Move 8"
    assert page.text(0, "turn") == "Black to move"
    assert page.text(0, "last") == "Last: white B3"
    assert page.attribute(0, "B3", "data-last") == ""
    assert page.attribute(0, "B3", "aria-label") == "B3, white stone, last move"
    assert page.attribute(0, "E5", "aria-label") == "E5, empty"
    assert page.attribute(0, "B4", "aria-label") == "B4, black stone"

    # Black takes the white stone at B3.
    page.click(0, "C3")
    game.move("C3")
    page.shows(0, "board", game, "black C3")
    assert page.text(0, "captures") == "Captures: black 1, white 0"
    assert page.attribute(0, "C3", "data-last") == ""

    # White may not retake at once: the page says why, and nothing changes.
    page.click(0, "B3")
    assert "ko" in page.says(0, "B3 is illegal for white: ko")
    page.click(0, "C3")
    page.says(0, "C3 is illegal for white: occupied")
    page.shows(0, "board", game, "two illegal clicks")

    page.click(0, "G7")
    game.move("G7")
    page.shows(0, "board", game, "white G7")
    assert page.text(0, "message") == ""

    # The keyboard: arrows move a cursor over the points, Enter and Space play.
    page.driver.execute_script("arguments[0].focus();", page.point(0, "E5"))
    active = page.driver.switch_to.active_element
    assert active.get_attribute("data-point") == "E5"
    active.send_keys(Keys.ARROW_RIGHT)
    active = page.driver.switch_to.active_element
    active.send_keys(Keys.ARROW_UP)
    active = page.driver.switch_to.active_element
    assert active.get_attribute("data-point") == "F6"
    assert active.get_attribute("tabindex") == "0"
    assert page.attribute(0, "E5", "tabindex") == "-1"
    active.send_keys(Keys.ENTER)
    game.move("F6")
    page.shows(0, "board", game, "Enter on F6")
    page.driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    page.driver.switch_to.active_element.send_keys(Keys.SPACE)
    game.move("F5")
    page.shows(0, "board", game, "Space on F5")

    # Pass and Undo, then looking through the game.
    total = game.move_number
    for label in ("Pass", "Undo", "First", "Previous", "Next", "Last"):
        assert page.button(0, label).tag_name == "button"

    page.press(0, "Pass")
    game.pass_turn()
    page.shows(0, "board", game, "Pass")
    wait_for(lambda: page.text(0, "last") == "Last: black passed", WAIT, "the pass in the status line")
    page.press(0, "Undo")
    game.rollback(1)
    page.shows(0, "board", game, "Undo")

    page.press(0, "First")
    wait_for(lambda: page.rows(0) == ["." * 9] * 9, WAIT, "the empty board of the start")
    assert page.text(0, "move") == f"Move 0 of {total}"
    page.press(0, "Next")
    wait_for(lambda: page.text(0, "move") == f"Move 1 of {total}", WAIT, "move 1")
    assert page.attribute(0, "B4", "data-stone") == "black"
    assert page.attribute(0, "C4", "data-stone") == "empty"
    page.press(0, "Next")
    wait_for(lambda: page.text(0, "move") == f"Move 2 of {total}", WAIT, "move 2")
    page.press(0, "Previous")
    wait_for(lambda: page.text(0, "move") == f"Move 1 of {total}", WAIT, "move 1 again")

    # Looking back changes nothing, and a click does not play.
    page.click(0, "E5")
    page.says(0, "press Last to play")
    assert page.kernel("board")["move_number"] == total
    assert not page.button(0, "Pass").is_enabled() and not page.button(0, "Undo").is_enabled()

    page.press(0, "Last")
    page.shows(0, "board", game, "Last")
    assert page.text(0, "move") == f"Move {total}"
    assert page.button(0, "Pass").is_enabled() and not page.button(0, "Last").is_enabled()
    assert page.console_errors() == []


def test_on_move_answers_a_click_with_the_computers_move(notebook_page: Notebook) -> None:
    page = notebook_page
    page.click(1, "E5")
    game = Go(9)
    game.move("E5")
    answer = gokata.genmove(game, playouts=300, seed=7, threads=1)  # as the notebook's callback
    assert answer is not None
    game.move(answer)
    page.shows(1, "bot", game, f"E5 and the computer's answer {answer}")
    assert page.text(1, "last") == f"Last: white {answer[1:]}{answer[0]}"
    picture = page.board(1).find_element(By.TAG_NAME, "svg")
    width = page.driver.execute_script("return arguments[0].getBoundingClientRect().width;", picture)
    assert abs(float(width) - 360) < 1
    assert page.console_errors() == []


def test_overlays_show(notebook_page: Notebook) -> None:
    page = notebook_page
    assert page.attribute(2, "C3", "data-heat") == "0.8"
    assert page.attribute(2, "A9", "data-heat") == "0.25"
    assert page.attribute(2, "E5", "data-mark") == "triangle"
    assert page.attribute(2, "G7", "data-mark") == "circle"
    assert page.attribute(2, "C7", "data-label") == "A"
    assert page.attribute(2, "C7", "aria-label") == "C7, empty, label A"
    shapes = page.driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll('.gokata-mark'), m => m.tagName);", page.board(2)
    )
    assert sorted(shapes) == ["circle", "polygon"]
    heat = page.point(2, "C3").find_element(By.CSS_SELECTOR, ".gokata-heat")
    assert heat.get_attribute("fill-opacity") == "0.600"
    assert page.board(2).find_elements(By.CSS_SELECTOR, ".gokata-coordinates") == []

    # The analysis of an empty 5x5: win rates as labels, visits as the heatmap.
    labels = page.driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll('[data-label]'), g => g.dataset.label);", page.board(3)
    )
    assert len(labels) == 10 and all(label.endswith("%") for label in labels)
    heats = page.driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll('[data-heat]'), g => Number(g.dataset.heat));", page.board(3)
    )
    assert max(heats) == 1.0
    assert page.text(3, "message").startswith("Best for black: ")
    assert page.console_errors() == []
