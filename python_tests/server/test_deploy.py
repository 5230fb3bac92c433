"""docs/deploy.md as written: nginx with the page's own configuration in front of three
`gokata serve --behind-proxy` processes on one PostgreSQL database.

The nginx block is read from docs/deploy.md (only its ports are changed), so the page and the
test cannot drift apart. Through the proxy: the page and health answer, games are played to
the end while one server is killed with `kill -9` (its players come back through the proxy to
the others), and the limits per client count the address nginx forwards, not nginx's own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

import pytest

from support.game_driver import GameDriver, Seat, check_stored, drive_until, join_drivers, paired, scripted_game
from support.postgres_cluster import PostgresCluster, free_port
from support.server_process import ServerProcess, Wire, fresh_name, http_get, loopback_source, sign_in

DEPLOY_PAGE = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
DOCUMENTED_PORTS = ("8081", "8082", "8083")


def nginx_block() -> str:
    blocks = re.findall(r"```nginx\n(.*?)```", DEPLOY_PAGE.read_text(), re.S)
    assert len(blocks) == 1, "docs/deploy.md has one nginx configuration"
    block: str = blocks[0]
    return block


class Nginx:
    """nginx in the foreground on a free loopback port, with the documented block."""

    def __init__(self, upstream_ports: list[int]) -> None:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(binary, os.X_OK):
            raise RuntimeError("nginx is not installed: scripts/test installs Debian's nginx")
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="gokata-nginx-"))
        os.chmod(self.folder, 0o777)
        block = nginx_block().replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        for documented, port in zip(DOCUMENTED_PORTS, upstream_ports):
            assert f"127.0.0.1:{documented}" in block
            block = block.replace(f"127.0.0.1:{documented}", f"127.0.0.1:{port}")
        temp = " ".join(
            f"{kind}_temp_path {self.folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (self.folder / "nginx.conf").write_text(
            f"worker_processes 1; daemon off; pid {self.folder / 'nginx.pid'};\n"
            f"error_log {self.folder / 'error.log'} warn;\n"
            "events { worker_connections 1024; }\n"
            f"http {{ access_log off; {temp}\n{block}\n}}\n"
        )
        self.process = subprocess.Popen(
            [binary, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.http_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        deadline = time.monotonic() + 10
        while not self.healthy():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"nginx did not start: {self.errors()}")
            time.sleep(0.1)

    def healthy(self) -> bool:
        try:
            return http_get(self.http_url + "/health", timeout=1)[0] == 200
        except OSError:
            return False

    def running(self) -> bool:
        return self.process.poll() is None

    def connect(self, source: Optional[str] = None) -> Wire:
        return Wire(self.ws_url, source=source)

    def errors(self) -> str:
        try:
            return (self.folder / "error.log").read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def proxied_site(postgres: PostgresCluster) -> Iterator[tuple[Nginx, list[ServerProcess]]]:
    url = postgres.new_database()
    servers = [ServerProcess(url, extra_args=("--behind-proxy",), port=free_port()) for _ in DOCUMENTED_PORTS]
    nginx: Optional[Nginx] = None
    try:
        for server in servers:
            server.start()
        nginx = Nginx([server.port for server in servers])
        yield nginx, servers
    finally:
        if nginx is not None:
            nginx.stop()
        for server in servers:
            server.kill()


def test_games_go_on_through_the_proxy_when_a_server_is_killed(proxied_site: tuple[Nginx, list[ServerProcess]]) -> None:
    nginx, servers = proxied_site
    status, page = http_get(nginx.http_url + "/")
    assert status == 200 and "<html" in page.lower()
    drivers = []
    for number in range(9):
        black = sign_in(nginx, fresh_name("Pb"))
        white = sign_in(nginx, fresh_name("Pw"))
        game = paired(black, white)
        drivers.append(GameDriver(game, scripted_game(300 + number, 30), Seat([nginx], 0, black), Seat([nginx], 0, white)))
    threads = drive_until(drivers, 8)
    servers[0].kill()
    join_drivers(drivers, threads)
    assert sum(seat.reconnects for driver in drivers for seat in driver.seats) > 0, (
        "round robin put some of the 18 players on the killed server"
    )
    check_stored(servers[1], drivers)


def test_limits_count_the_forwarded_client_not_the_proxy(proxied_site: tuple[Nginx, list[ServerProcess]]) -> None:
    nginx, _ = proxied_site
    eager, other = loopback_source(), loopback_source()
    statuses = [http_get(f"{nginx.http_url}/api/players/nobody", source=eager)[0] for _ in range(150)]
    assert 429 in statuses, "one client over the limit is refused, though nginx spreads it over three servers"
    status, body = http_get(f"{nginx.http_url}/api/players/nobody", source=other)
    assert status == 404, (status, body)
    wire = Wire(nginx.ws_url, source=eager)
    wire.request({"type": "hello", "name": fresh_name("Pok")}, "welcome")
