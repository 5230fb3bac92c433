"""The page's tests: every one drives Chromium (marked ``browser``), and each gets its browsers
from `browsers`. The harness is `support.browser_page`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.browser_page import Page


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of this folder drives a browser."""
    folder = Path(__file__).parent
    for item in items:
        if folder in item.path.parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[Callable[[str], Page]]:
    """``browser(url)``: a new browser with a fresh profile; all are closed after the test."""
    pages: list[Page] = []

    def new(url: str) -> Page:
        page = Page(url, tmp_path / f"profile-{len(pages)}")
        pages.append(page)
        return page

    yield new
    for page in pages:
        page.driver.quit()
