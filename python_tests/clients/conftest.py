"""The fixtures of the clients' suites: the real ``gokata serve`` as a process (the servers'
tests' `ServerProcess`), shared by a module or for one test alone, on each store of
`databases`. Their helpers (unique names, pairing, waiting for turns) are in `support.clients`.
``websockets`` is imported unconditionally: it is in the ``test`` extra, and without it these
suites must fail, not be skipped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets  # noqa: F401  (required: a missing websockets fails these suites)

from support.databases import Databases
from support.server_process import ServerProcess

MOVE_TIME = 60.0
"""Seconds a move of the shared server (long: no test waits for it)."""
LIMITS = ("--registrations-per-hour", "1000")
"""Every test registers names of its own, all from 127.0.0.1: more than the default 20."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    """A server shared by a module's tests (each test uses names of its own)."""
    with ServerProcess(databases.new(tmp_path_factory.mktemp("serve"), "games"), MOVE_TIME, LIMITS) as process:
        yield process


@pytest.fixture()
def own_server(tmp_path: Path, databases: Databases) -> Iterator[ServerProcess]:
    """A server for one test alone; restarts keep its port, so clients can come back."""
    with ServerProcess(databases.new(tmp_path, "games"), MOVE_TIME, LIMITS) as process:
        yield process
