"""A throwaway PostgreSQL server for the tests, from Debian's ``postgresql`` package.

`PostgresCluster` runs ``initdb`` and ``pg_ctl`` in a temporary folder, on a free loopback port,
with a socket folder of its own (about a second). PostgreSQL refuses to run as root, so as root
both run as the ``postgres`` user (``runuser``), in a folder that user owns. Each test asks for a
fresh database with `new_database`. Nothing here needs a PostgreSQL that is already running.

The cluster runs with ``fsync=off``: the tests kill server processes and restart PostgreSQL
(whose log survives both in the operating system's cache), never the machine, and they run
several times faster. The load benchmark measures with ``fsync`` on.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

START_TIMEOUT = 30.0


def postgres_bin() -> Optional[Path]:
    """The newest installed PostgreSQL's ``bin`` folder, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresCluster:
    """A PostgreSQL server in a temporary folder; `stop` removes it all."""

    def __init__(self) -> None:
        bin_dir = postgres_bin()
        if bin_dir is None:
            raise RuntimeError(
                "PostgreSQL is not installed: scripts/test installs Debian's postgresql package"
            )
        self.bin = bin_dir
        self.as_root = os.geteuid() == 0
        self.folder = Path(tempfile.mkdtemp(prefix="gokata-pg-"))
        self.data = self.folder / "data"
        self.sockets = self.folder / "sockets"
        self.log = self.folder / "postgres.log"
        self.sockets.mkdir()
        if self.as_root:
            os.chmod(self.folder, 0o755)
            shutil.chown(self.folder, "postgres", "postgres")
            shutil.chown(self.sockets, "postgres", "postgres")
        self.port = free_port()
        self._names = itertools.count(1)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        self.start()

    def _command(self, tool: str, *args: str) -> list[str]:
        command = [str(self.bin / tool), *args]
        return ["runuser", "-u", "postgres", "--", *command] if self.as_root else command

    def _run(self, tool: str, *args: str, timeout: float = START_TIMEOUT) -> str:
        done = subprocess.run(
            self._command(tool, *args), capture_output=True, text=True, timeout=timeout, cwd=self.folder
        )
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stdout} {done.stderr} {self.log_tail()}")
        return done.stdout

    def _options(self) -> str:
        return (
            f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200 -c shared_buffers=64MB"
        )

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "30", "-o", self._options(), "start")

    def restart(self, mode: str = "immediate") -> None:
        """``pg_ctl restart -m MODE``: with ``immediate``, every connection is cut at once and
        the server recovers from its log, as after a crash."""
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "30", "-m", mode,
            "-o", self._options(), "restart",
        )

    def stop_server(self) -> None:
        """``pg_ctl stop -m immediate``: every connection cut, the data kept for `start`."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "30", "-m", "immediate", "stop")

    def stop(self) -> None:
        """Stops the server and removes everything."""
        if self.data.exists():
            try:
                self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "30", "-m", "immediate", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Runs ``sql`` with psql; its output, unaligned, without headers or the last newline."""
        return self._run("psql", "-h", str(self.sockets), "-p", str(self.port), "-U", "postgres",
                         "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql).rstrip("\n")

    def new_database(self) -> str:
        """A new empty database's URL."""
        name = f"test_{next(self._names)}"
        self.psql(f"CREATE DATABASE {name}")
        return self.url(name)

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready = subprocess.run(
                self._command("pg_isready", "-h", "127.0.0.1", "-p", str(self.port)), capture_output=True
            )
            if ready.returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"PostgreSQL did not come back: {self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""
