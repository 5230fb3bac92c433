"""The root of the test suite: its markers, and the stores the server tests run on.

Folders by capability: ``engine/`` (`gokata.Go`, rules, rollback, handicap, oracle, solve,
pickling, threads, batch playouts, SVG), ``sgf/``, ``env/``, ``bot/`` (bot, GTP, GNU Go),
``server/``, ``clients/`` (Python client, terminal client, command line), ``page/`` (the page
in Chromium), ``widget/`` (the Jupyter board, in a real JupyterLab too), ``docs/`` (the
README's examples); helpers without tests in ``support/``, imported as ``support.<module>``.

Markers, for a quick tier (``pytest -m "not slow and not browser and not bench"``):

* ``browser``: drives Chromium with selenium (every test of ``page/``, the JupyterLab test);
* ``bench``: runs a benchmark script of ``benches/``;
* ``slow``: several seconds or more each: PostgreSQL (every test that needs it is marked by
  `pytest_collection_modifyitems` here), GNU Go matches, long games.

Every server test runs twice, on SQLite and on PostgreSQL, through the `databases` fixture; the
PostgreSQL server is started once per session, on first use (`postgres`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.databases import Databases
from support.postgres_cluster import PostgresCluster

MARKERS = {
    "slow": "takes several seconds or more (PostgreSQL, GNU Go matches, long games); deselect with -m 'not slow'",
    "browser": "drives a headless Chromium with selenium; deselect with -m 'not browser'",
    "bench": "runs a benchmark script of benches/; deselect with -m 'not bench'",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs PostgreSQL is slow: the session's PostgreSQL server takes seconds to
    start, and each test makes databases of its own. That is every test asking for `postgres`,
    and every test on the ``postgres`` store of `databases`; their SQLite twins stay quick."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and callspec.params.get("databases") == "postgres"
        if on_postgres or "postgres" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


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
