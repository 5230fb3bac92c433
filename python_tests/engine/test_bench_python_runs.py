"""The Python benchmark still runs and still checks every corpus board (in its quick mode),
OpenSpiel's replays included.

It measures nothing here: figures are printed, never asserted, and so are the table's labels
(which the benchmark may rename as it likes). What can fail is the run itself, and the replay of
the corpus (``GOKATA_CORPUS``, else the repository's ``src/testkit/data/corpus``) through the public
API and the pure-Python baseline, which it verifies. A missing corpus fails the benchmark.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

PROJECT = Path(__file__).resolve().parents[2]
BENCHMARK = PROJECT / "benches" / "bench_python.py"

pytestmark = pytest.mark.bench
"""Every test here runs the benchmark script."""


def run_quick_benchmark(corpus: Optional[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if corpus is not None:
        env["GOKATA_CORPUS"] = corpus
    return subprocess.run(
        [sys.executable, str(BENCHMARK), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_python_benchmark_replays_the_corpus_correctly() -> None:
    result = run_quick_benchmark(None)
    assert result.returncode == 0, result.stderr
    assert "final boards of the corpus" in result.stdout
    replayed = re.search(r"reproduced all (\d+) final boards", result.stdout)
    assert replayed is not None and int(replayed.group(1)) > 0, result.stdout


def test_python_benchmark_fails_loudly_without_its_corpus(tmp_path: Path) -> None:
    missing = tmp_path / "no-corpus-here"
    result = run_quick_benchmark(str(missing))
    assert result.returncode != 0
    assert "BENCHMARK FAILED" in result.stderr and str(missing) in result.stderr
