"""The root of the test suite: its markers, and the stores the server tests run on.

Folders by capability: ``engine/`` (`gokata.Go`, rules, rollback, handicap, oracle, solve,
pickling, threads, batch playouts, SVG), ``sgf/``, ``env/``, ``bot/`` (bot, GTP, GNU Go),
``server/``, ``clients/`` (Python client, terminal client, command line), ``page/`` (the page
in Chromium); helpers without tests in ``support/``, imported as ``support.<module>``.

Every server test runs twice, on SQLite and on PostgreSQL, through the `databases` fixture; the
PostgreSQL server is started once per session, on first use (`postgres`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.databases import Databases
from support.postgres_cluster import PostgresCluster

@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL server of this test session's own."""
    cluster = PostgresCluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def databases(request: pytest.FixtureRequest) -> Databases:
    """The store a server test runs on: each runs on both."""
    return Databases(str(request.param), request)
