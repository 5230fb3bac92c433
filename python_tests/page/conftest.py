"""The page's tests: each gets its browsers from `browsers`. The harness is
`support.browser_page`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.browser_page import Page


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
