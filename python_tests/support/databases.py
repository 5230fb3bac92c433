"""The stores a server test runs on: SQLite files, or databases on this session's PostgreSQL
server. The `databases` fixture of the root ``conftest.py`` gives one `Databases` of each kind
to every module that asks, so each server test runs on both."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.postgres_cluster import PostgresCluster


class Databases:
    """New, empty databases of one kind: SQLite files, or PostgreSQL databases."""

    def __init__(self, kind: str, request: pytest.FixtureRequest) -> None:
        self.kind = kind
        self._request = request

    @property
    def cluster(self) -> PostgresCluster:
        cluster: PostgresCluster = self._request.getfixturevalue("postgres")
        return cluster

    def new(self, folder: Path, name: str = "server") -> str:
        """A new database's address: a file in ``folder``, or a PostgreSQL URL."""
        if self.kind == "sqlite":
            return str(folder / f"{name}.sqlite3")
        return self.cluster.new_database()
