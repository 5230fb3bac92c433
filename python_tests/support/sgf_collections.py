"""Where the real SGF collections of the SGF tests are installed (``scripts/sgf-collections``
installs them and prints these variables), and their files. A missing collection fails the
test that asks for it: it does not skip.

- ``GOKATA_GOBAN_GAMES`` (default ``/usr/share/goban``): Debian's goban-original-games;
- ``GOKATA_GNUGO_SGF`` (default ``~/.cache/gokata/gnugo-sgf``): the SGF files of GNU Go's
  source package.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOBAN = Path(os.environ.get("GOKATA_GOBAN_GAMES", "/usr/share/goban"))
GNUGO = Path(
    os.environ.get(
        "GOKATA_GNUGO_SGF",
        str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gokata" / "gnugo-sgf"),
    )
)


def files_of(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    if not folder.is_dir():
        pytest.fail(f"{folder} is missing: run scripts/sgf-collections (it installs the collections)")
    found = sorted(p for pattern in patterns for p in folder.rglob(pattern) if p.is_file())
    if not found:
        pytest.fail(f"no SGF files under {folder}: run scripts/sgf-collections")
    return found
