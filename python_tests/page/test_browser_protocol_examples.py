"""The protocol's examples (``docs/protocol-examples.jsonl``, which the server's own tests keep
equal to what the server writes) read by the page in a real headless Chromium, served by a real
``gokata serve``: every server line, in order, goes through the page's own reading of frames
(the ``handlers`` of ``/js/handlers.js``, as its socket's ``onmessage`` calls them, the module
being the one the page itself loaded) without an exception, and what the page then shows is
checked against the line: the signed-in record and token, the game's board, the chat, the
error and the record once the game is over."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from support.browser_page import Page, url_of
from support.server_process import ServerProcess

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "protocol-examples.jsonl"
GAME = "k3v9q2x7m4pd"

READ_FRAME = """
const [frame, done] = arguments;
import("/js/handlers.js").then(({ handlers }) => {
  try {
    const handler = handlers[frame.type];
    if (handler) handler(frame);
    done(null);
  } catch (error) {
    done(String((error && error.stack) || error));
  }
}, (error) => done(`cannot import the page's handlers: ${error}`));
"""
"""Hands one frame to the page's own handler, as its socket's onmessage does; the exception's
stack if there is one."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path / "server.sqlite3")) as process:
        yield process


def server_frames() -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    return [line["frame"] for line in lines if line["from"] == "server"]


def last_chat(page: Page) -> list[str]:
    items = page.driver.find_elements(By.CSS_SELECTOR, "#chat-log li")
    if not items:
        return []
    last = items[-1]
    return [
        str(last.get_attribute("class")),
        last.find_element(By.CSS_SELECTOR, ".from").get_attribute("textContent") or "",
        last.find_element(By.CSS_SELECTOR, ".text").get_attribute("textContent") or "",
    ]


def test_the_page_reads_every_server_example(server: ServerProcess, browsers: Callable[[str], Page]) -> None:
    page = browsers(url_of(server))
    page.open()
    seen = set()
    for number, frame in enumerate(server_frames(), start=1):
        problem = page.driver.execute_async_script(READ_FRAME, frame)
        assert problem is None, f"server example {number} ({frame['type']}): {problem}"
        seen.add(frame["type"])
        kind, game = frame["type"], frame.get("game")
        if kind == "welcome":
            assert page.text("my-token") == frame["token"]
            assert page.text("player").startswith(f"{frame['name']}: {frame['wins']} wins, {frame['losses']} losses")
        elif kind in ("start", "state", "undone") and isinstance(game, dict) and game["id"] == GAME:
            assert page.board(game["size"]) == game["board"], f"server example {number}"
        elif kind == "chat" and frame["channel"] == "players":
            assert last_chat(page) == ["players", frame["from"], frame["text"]], f"server example {number}"
        elif kind == "over" and game == GAME:
            mine = frame["records"]["black"]
            assert page.text("player").startswith(f"{mine['name']}: {mine['wins']} wins, {mine['losses']} losses")
        elif kind == "error" and frame["code"] not in ("bad_token", "name_taken"):
            assert page.text("error") != ""
    assert {"welcome", "start", "played", "over", "state", "chat", "scoring", "lobby", "error"} <= seen
