"""`gokata bot` tells its engine the time: the game's time control when the engine starts
(``time_settings`` in GTP's Canadian form, or ``kgs-time_settings byoyomi`` where the engine
lists it) and the bot's clock before each ``genmove`` (``time_left``). Against a real `gokata
serve`, with the stand-in engine recording every command; an engine that lists none of these is
told none, and one that refuses them plays on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.test_bot_bridge import BridgeProcess, bridge, bridges, play_until_over, standin  # noqa: F401 (bridges: a fixture)
from gokata.client import connect, parse_time
from support.server_process import ServerProcess, fresh_name

CASES = [
    # (the bot's --time, the stand-in's flags, time_settings told, time_left's pattern in main time)
    ("10m+5x30s", ["--time-commands"], "time_settings 600 27 1", r"time_left (black|white) (\d+) 0"),
    ("10m+5x30s", ["--kgs-time"], "kgs-time_settings byoyomi 600 27 5", r"time_left (black|white) (\d+) 0"),
    ("10m+25/5m", ["--time-commands"], "time_settings 600 290 25", r"time_left (black|white) (\d+) 0"),
    ("abs:20m", ["--time-commands"], "time_settings 1200 0 0", r"time_left (black|white) (\d+) 0"),
    ("5m+5s", ["--time-commands"], "time_settings 300 0 0", r"time_left (black|white) (\d+) 0"),
    ("", ["--time-commands"], "time_settings 0 54 1", r"time_left (black|white) (\d+) 1"),
]
LIMITS = {"10m+5x30s": 600, "10m+25/5m": 600, "abs:20m": 1200, "5m+5s": 310, "": 54}
"""The most seconds ``time_left`` may say (main time at most, less nothing; a move less the margin)."""


def commands(log: Path) -> dict[str, list[str]]:
    """The commands each engine process read, by process id, in order."""
    read: dict[str, list[str]] = {}
    for line in log.read_text().splitlines():
        pid, command = line.split(" ", 1)
        read.setdefault(pid, []).append(command)
    return read


@pytest.mark.parametrize(("control", "flags", "settings", "left"), CASES, ids=[f"{c or 'default'}{f[0]}" for c, f, _, _ in CASES])
def test_the_engine_is_told_the_time_control_and_its_clock_before_each_genmove(
    tmp_path: Path, bridges: list[BridgeProcess], control: str, flags: list[str], settings: str, left: str
) -> None:
    log = tmp_path / "engine.log"
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        options = ["--time", control] if control else []
        robot = bridge(bridges, server, tmp_path, standin(*flags, "--log", str(log)), *options)
        seek = robot.wait_seeking(server)
        if control:
            assert seek["time"] == parse_time(control)
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30, time=control or None)
            over = play_until_over(game, moves=4)
        assert over.reason == "passes" and "failure" not in robot.output()
    [(pid, read)] = [(pid, read) for pid, read in commands(log).items() if any(c.startswith("genmove") for c in read)]
    assert read.count(settings) == 1 and read.index(settings) < read.index(next(c for c in read if c.startswith("genmove")))
    genmoves = [i for i, c in enumerate(read) if c.startswith("genmove")]
    for at in genmoves:  # each genmove right after the bot's clock, its own colour's
        told = re.fullmatch(left, read[at - 1]) if read[at - 1].startswith("time_left") else None
        if told is None:  # the moves the engine lacks come between
            before = [c for c in read[:at] if c.startswith("time_left")]
            told = re.fullmatch(left, before[-1]) if before else None
        assert told is not None, (read[:at], left)
        assert told.group(1) == "white" == read[at].split()[1]
        assert 1 <= int(told.group(2)) <= LIMITS[control], told.group(0)
    assert sum(c.startswith("time_left") for c in read) == len(genmoves)
    assert not any(c.startswith("kgs-time_settings") for c in read) or flags == ["--kgs-time"]


def test_an_engine_that_lists_no_time_commands_is_told_none(tmp_path: Path, bridges: list[BridgeProcess]) -> None:
    log = tmp_path / "engine.log"
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, standin("--log", str(log)), "--time", "10m+5x30s")
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30, time="10m+5x30s")
            over = play_until_over(game, moves=4)
        assert over.reason == "passes" and "failure" not in robot.output()
    text = log.read_text()
    assert " genmove white" in text and "time_" not in text


def test_an_engine_that_refuses_the_time_commands_plays_on(tmp_path: Path, bridges: list[BridgeProcess]) -> None:
    log = tmp_path / "engine.log"
    with ServerProcess(tmp_path / "s.sqlite3", 60.0) as server:
        robot = bridge(bridges, server, tmp_path, standin("--refuse-time", "--log", str(log)), "--time", "10m+5x30s", "--unrated")
        assert robot.wait_seeking(server)["rated"] is False
        with connect(server.ws_url, fresh_name("Ann")) as person:
            game = person.seek(9, "black", opponent="computer", timeout=30, time="10m+5x30s", rated=False)
            over = play_until_over(game, moves=4)
        assert (over.reason, over.ratings) == ("passes", None)
        assert "failure" not in robot.output() and "refuses 'kgs-time_settings byoyomi 600 27 5'" in robot.output()
    read = log.read_text()
    assert "kgs-time_settings byoyomi 600 27 5" in read and " time_left white " in read
    assert read.count(" genmove white") == sum(1 for ply in range(len(game.moves)) if ply % 2 == 1)
