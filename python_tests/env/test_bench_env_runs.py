"""The environment benchmark still runs (in its quick mode), every contestant included.

It measures nothing here: figures are printed, never asserted, and so are the table's labels
and targets. What can fail is the run, or a contestant that no longer runs (the benchmark then
stops with an error) or is missing (it prints "not installed"): the test extra and the bench
extra install them all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benches" / "bench_env.py"

pytestmark = pytest.mark.bench
"""Every test here runs the benchmark script."""


def test_environment_benchmark_runs_every_contestant() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCHMARK), "--quick", "--sizes", "9"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "not installed" not in out, out
