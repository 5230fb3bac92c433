"""`gokata bot`: a GTP engine as a player on a real `gokata serve`, in a real process.

Engines: real GNU Go (Debian's `gnugo`), and `standin_gtp.py`, a stand-in engine with faults on
demand (slow, refusing a size, crashing, answering nonsense). The person on the other side is the
Python client, seeking the computer. Tested: a game to two passes with one `genmove` a turn and
none after the end; GNU Go killed with `kill -9` in the middle of a `genmove`; the server killed
and restarted while the engine thinks; a stale turn (the bot's account moved from elsewhere while
its engine thought); a move sent twice, the copy answered with the game's `state`; a slow engine against a move time of three seconds; a refused size never
sought; three failures resign the game.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect
from websockets.sync.server import ServerConnection, serve

import gokata
from gokata.client import Over, RemoteGame, connect
from support.processes import TICKS_PER_SECOND, cpu_ticks
from support.server_process import ServerProcess, fresh_name, gokata_command, sign_in
from support.waiting import wait_until

GNUGO = "/usr/games/gnugo"
STANDIN = str(Path(__file__).resolve().parents[1] / "support" / "standin_gtp.py")
GAME_TIMEOUT = 120.0


class BridgeProcess:
    """``gokata bot`` in a session of its own (so its engines die with it), its standard
    error kept in a file."""

    def __init__(
        self, server: ServerProcess, name: str, engine: list[str], folder: Path, *options: str, proxy_url: str = ""
    ) -> None:
        self.name = name
        self.folder = folder
        self.log = folder / f"{name}.log"
        self._stderr = open(self.log, "w", encoding="utf-8")  # noqa: SIM115 (closed in stop)
        url = proxy_url or server.ws_url
        command = [*gokata_command(), "bot", url, "--name", name, *options, "--", *engine]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            env={**os.environ, "XDG_CONFIG_HOME": str(folder), "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )

    def wait_seeking(self, server: ServerProcess, timeout: float = 30.0) -> dict[str, object]:
        """The bridge's seek, once the server lists it."""

        def listed() -> dict[str, object] | None:
            assert self.process.poll() is None, f"the bridge exited: {self.output()}"
            seeks = server.get_json("/api/seeks")["seeks"]
            return next((dict(seek) for seek in seeks if seek["name"] == self.name), None)

        return wait_until(listed, timeout, f"the bridge {self.name} to seek")

    def token(self) -> str:
        tokens = json.loads((self.folder / "gokata" / "tokens.json").read_text())
        return str(next(iter(tokens.values()))[self.name.lower()])

    def engines(self) -> list[int]:
        """The process ids of the bridge's engines (its children, other than itself)."""
        children = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                children.append(int(entry.name))
        return children

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self._stderr.close()


@pytest.fixture
def bridges(tmp_path: Path) -> Iterator[list[BridgeProcess]]:
    started: list[BridgeProcess] = []
    yield started
    for bridge in started:
        bridge.stop()


def bridge(bridges: list[BridgeProcess], server: ServerProcess, folder: Path, engine: list[str], *options: str) -> BridgeProcess:
    started = BridgeProcess(server, fresh_name("Bot"), engine, folder, *options)
    bridges.append(started)
    started.wait_seeking(server)
    return started


def standin(*faults: str) -> list[str]:
    return [sys.executable, STANDIN, *faults]


def answers(log: Path) -> int:
    """The ``genmove`` answers the stand-in engine has written (it logs each as it sends it)."""
    if not log.exists():
        return 0
    return sum(1 for line in log.read_text().splitlines() if " answered genmove: " in line)


def play_until_over(game: RemoteGame, moves: int, then: str = "pass") -> Over:
    """Plays ``moves`` of gokata's quick moves, then passes (or resigns) on every turn, until
    the game is over; each turn at once (the person never runs short of time)."""
    deadline = time.monotonic() + GAME_TIMEOUT
    played = 0
    while not game.is_over:
        assert time.monotonic() < deadline, f"the game did not end: {game.moves}"
        if not game.my_turn:
            game.wait(timeout=5)
            continue
        point = gokata.genmove(game.local_copy(), playouts=20, seed=played, threads=1) if played < moves else None
        if point is None and then == "resign" and played >= moves:
            return game.resign()
        if point is None:
            game.pass_turn()
        else:
            game.move(point)
        played += 1
    return game.result()


def answered(game: RemoteGame, point: str | None) -> None:
    """Plays ``point`` (``None``: nothing, the turn was sent) and waits for the bot's answer."""
    if point is not None:
        game.move(point)
    deadline = time.monotonic() + 60
    while not game.my_turn and not game.is_over:
        assert time.monotonic() < deadline, "the bot did not answer"
        game.wait(timeout=5)


def thinking(engine: int, game: RemoteGame) -> None:
    """Waits until ``engine`` has spent 50 ms of processor time since now (a ``play`` costs
    none of it: the engine is in its ``genmove``), while the bot has not answered."""
    start = cpu_ticks(engine)

    def busy() -> bool:
        assert not game.my_turn, "the engine answered before it could be killed"
        return cpu_ticks(engine) - start >= TICKS_PER_SECOND // 20

    wait_until(busy, 10, "the engine to spend 50 ms in its genmove", every=0.005)


def free_point(game: RemoteGame) -> str:
    """A legal point among the 3-3 and 4-4 points."""
    return next(p for p in ("3C", "7G", "3G", "7C", "4D", "6F", "4F", "6D") if p in game.legal_moves())


def bot_turns(game: RemoteGame) -> int:
    """Turns the bot (the other colour) took."""
    mine = 0 if game.color == "black" else 1
    return sum(1 for ply in range(len(game.moves)) if ply % 2 != mine)


def test_a_game_to_two_passes_asks_one_genmove_a_turn_and_none_after_the_end(
    tmp_path: Path, bridges: list[BridgeProcess]
) -> None:
    log = tmp_path / "engine.log"
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, standin("--log", str(log)))
        assert robot.wait_seeking(server)["bot"] is True
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, opponent="computer", timeout=30)
            assert game.bots[game.color] is False and game.bots[game.color == "black" and "white" or "black"]
            over = play_until_over(game, moves=12)
            # Done with the game, the bridge seeks again: its runner, which sends the genmoves
            # (waiting for each answer), has ended, so no genmove can follow.
            robot.wait_seeking(server)
        assert (over.reason, over.records is not None) == ("passes", True)
        genmoves = [line for line in log.read_text().splitlines() if " genmove " in line]
        assert len(genmoves) == bot_turns(game), (genmoves, game.moves)
        assert "failure" not in robot.output()


@pytest.mark.slow
def test_gnugo_plays_through_the_bridge_to_two_passes(tmp_path: Path, bridges: list[BridgeProcess]) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, [GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules"])
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30)
            over = play_until_over(game, moves=25)
        assert over.reason == "passes", over
        stones = [point for ply, point in enumerate(game.moves) if ply % 2 == 1 and point is not None]
        assert len(stones) >= 10, f"GNU Go played {stones}"
        assert "failure" not in robot.output()


def test_gnugo_killed_in_the_middle_of_a_genmove_is_restarted_and_the_game_goes_on(
    tmp_path: Path, bridges: list[BridgeProcess]
) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, [GNUGO, "--mode", "gtp", "--level", "10"])
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30)
            answered(game, "5E")
            [engine] = robot.engines()
            game.move(free_point(game))
            thinking(engine, game)
            os.kill(engine, signal.SIGKILL)  # GNU Go is thinking about its answer
            answered(game, None)
            answered(game, free_point(game))
            assert not game.is_over, game.over
            assert robot.engines() not in ([], [engine]), "a new engine plays on"
            over = game.resign()
        assert over.winner == "white"
        assert "engine failure 1" in robot.output() and "engine failure 2" not in robot.output()
        assert "during 'genmove white'" in robot.output()


@pytest.mark.slow
def test_the_server_killed_and_restarted_in_the_middle_of_a_genmove(tmp_path: Path, bridges: list[BridgeProcess]) -> None:
    log = tmp_path / "engine.log"
    server = ServerProcess(tmp_path / "s.sqlite3", 60.0).start()
    try:
        robot = bridge(bridges, server, tmp_path, standin("--delay", "1.0", "--log", str(log)))
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30)
            answered(game, "5E")
            answered(game, free_point(game))
            game.move(free_point(game))  # the engine thinks for a second about its answer
            server.kill()
            server.restart()
            answered(game, None)  # the answer the bridge sends once it is back in
            assert game.move_number == 6 and game.moves[5] is not None
            over = play_until_over(game, moves=3)
        assert over.reason == "passes"
        assert "failure" not in robot.output()
        assert server.get_json(f"/api/games/{game.id}")["moves"] == game.moves
    finally:
        server.stop()
        server.kill()


@pytest.mark.slow
def test_a_stale_turn_makes_the_bridge_rebuild_its_engines_position(
    tmp_path: Path, bridges: list[BridgeProcess]
) -> None:
    log = tmp_path / "engine.log"
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, standin("--delay", "1.5", "--log", str(log)))
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30)
            game.move("5E")
            elsewhere = sign_in(server, robot.name, robot.token())  # the bot's account, elsewhere
            elsewhere.wire.request({"type": "move", "game": game.id, "ply": 1, "point": "3C"}, "played")
            elsewhere.wire.close()
            wait_until(lambda: answers(log) >= 1, 10, "the engine's answer for ply 1, too late")
            assert game.moves == ["5E", "3C"]
            over = play_until_over(game, moves=4)
        assert over.reason == "passes"
        pid = log.read_text().splitlines()[-1].split()[0]
        commands = [line.split(" ", 1)[1] for line in log.read_text().splitlines() if line.startswith(pid + " ")]
        assert commands.count("clear_board") >= 2, "the position was rebuilt from the server's moves"
        assert "play white C3" in commands, "with the move made elsewhere"
        assert "failure" not in robot.output()


class ResendingProxy:
    """A WebSocket proxy to the server that sends the bot's first move twice, as a network or
    a reconnecting client may: the server plays it once and answers the copy with the game's
    `state`. Every frame passed on is kept in ``seen``, as (who sent it, frame)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.resent = threading.Event()
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self._server = serve(self._handle, "127.0.0.1", 0)
        self.url = f"ws://127.0.0.1:{self._server.socket.getsockname()[1]}/ws"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _handle(self, client: ServerConnection) -> None:
        with ws_connect(self.target) as upstream:

            def downstream() -> None:
                try:
                    for text in upstream:
                        self.seen.append(("server", json.loads(text)))
                        client.send(text)
                except ConnectionClosed:
                    pass

            threading.Thread(target=downstream, daemon=True).start()
            try:
                for text in client:
                    frame = json.loads(text)
                    self.seen.append(("bot", frame))
                    upstream.send(text)
                    if frame.get("type") == "move" and not self.resent.is_set():
                        self.resent.set()
                        upstream.send(text)
            except ConnectionClosed:
                pass

    def close(self) -> None:
        self._server.shutdown()


def test_a_resent_move_gets_the_state_and_the_game_goes_on(tmp_path: Path, bridges: list[BridgeProcess]) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        proxy = ResendingProxy(server.ws_url)
        try:
            robot = BridgeProcess(server, fresh_name("Bot"), standin(), tmp_path, proxy_url=proxy.url)
            bridges.append(robot)
            robot.wait_seeking(server)
            with connect(server.ws_url, fresh_name("Ann")) as person:
                game = person.seek(9, "black", opponent="computer", timeout=30)
                answered(game, "5E")
                assert proxy.resent.is_set()
                over = play_until_over(game, moves=4)
            assert over.reason == "passes"
            moves = [f for who, f in proxy.seen if who == "bot" and f.get("type") == "move"]
            assert moves[0]["ply"] == 1, "the bot's first move (sent on twice)"
            states = [f for who, f in proxy.seen if who == "server" and f["type"] == "state"]
            assert [state["game"]["moves"][:2] for state in states] == [["5E", moves[0]["point"]]], "the copy's answer"
            assert game.moves[1] == moves[0]["point"] and len(game.moves) > 4
            assert "failure" not in robot.output()
        finally:
            proxy.close()


@pytest.mark.slow
def test_a_slow_engine_never_loses_on_time(tmp_path: Path, bridges: list[BridgeProcess]) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 3.0) as server:
        robot = bridge(bridges, server, tmp_path, standin("--delay", "10"))
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30)
            over = play_until_over(game, moves=5, then="resign")
        assert (over.reason, over.winner) == ("resign", "white"), "no game lost or won on time"
        assert len(game.moves) >= 10
        assert "gokata chooses" in robot.output()


def test_a_size_the_engine_refuses_is_never_sought(tmp_path: Path, bridges: list[BridgeProcess]) -> None:
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, standin("--refuse", "13"), "--sizes", "9,13,19")
        assert robot.wait_seeking(server)["size"] == [9, 19]
        with connect(server.ws_url, fresh_name("Ann")) as person:
            with pytest.raises(TimeoutError):
                person.seek(13, opponent="computer", timeout=1.5)
            game = person.seek(19, opponent="computer", timeout=30)
            assert game.size == {"height": 19, "width": 19}
            game.resign()
        assert "refuses 13x13" in robot.output()


@pytest.mark.parametrize("fault", ["--crash", "--nonsense"])
def test_three_engine_failures_resign_the_game(tmp_path: Path, bridges: list[BridgeProcess], fault: str) -> None:
    log = tmp_path / "engine.log"
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, standin(fault, "--log", str(log)))
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30)
            game.move("5E")
            over = game.result(timeout=60)
        assert (over.reason, over.winner) == ("resign", "black")
        genmoves = [line for line in log.read_text().splitlines() if " genmove " in line]
        assert len(genmoves) == 3 and len({line.split()[0] for line in genmoves}) == 3, genmoves
        assert "engine failure 3" in robot.output()
