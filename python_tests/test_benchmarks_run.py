"""The Python benchmark still runs and still checks every corpus board (in its quick mode).

It measures nothing here: figures are printed, never asserted. What can fail is the replay of
the shared corpus through the public API and the pure-Python baseline, which it verifies.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("GOKATA_CORPUS", PROJECT.parent / "shared" / "corpus"))


@pytest.mark.skipif(
    not (CORPUS / "random-9x9.txt").exists() and not os.environ.get("CI"),
    reason="the shared corpus is not beside this checkout",
)
def test_python_benchmark_replays_the_corpus_correctly() -> None:
    result = subprocess.run(
        [sys.executable, str(PROJECT / "benches" / "bench_python.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "final boards of the corpus" in result.stdout
    for row in ("Go.move(coord)", "pure-Python board (baseline)", "legal_moves()", "playouts(game"):
        assert row in result.stdout
