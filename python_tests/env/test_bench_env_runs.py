"""The environment benchmark still runs (in its quick mode), every contestant included.

It measures nothing here: figures are printed, never asserted. What can fail is a contestant
that no longer runs or is missing: the test extra and the bench extra install them all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benches" / "bench_env.py"


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
    for row in (
        "gokata VecGo, 1 thread",
        "pgx (CPU jax, jitted loop)",
        "EnvPool Go9x9-v1",
        "PettingZoo go_v5 (one board)",
        "OpenSpiel go (one board)",
        "speed-up: all cores / one thread",
        "target 1,000,000 env steps/s",
    ):
        assert row in out, out
