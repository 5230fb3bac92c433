"""Time controls without a server: the short notation of ``gokata connect --time`` and
``Player.seek(time=...)`` read into the protocol's ``time`` object, its mistakes named (and, on
the command line, a usage error, status 2, before anything is connected), the settings and each
system's clock in words, as the terminal client shows them, and the GTP commands that tell an
engine the time (``gokata bot``)."""

from __future__ import annotations

from typing import Any

import pytest

from gokata._bridge import time_left, time_settings
from gokata.cli import main
from gokata.client import clock_text, describe_time, parse_time
from gokata._time_control import time_control

NOTATIONS: list[tuple[str, dict[str, Any]]] = [
    ("5m", {"system": "per_move", "move_ms": 300_000}),
    ("1d", {"system": "per_move", "move_ms": 86_400_000}),
    ("90s", {"system": "per_move", "move_ms": 90_000}),
    ("1h30m", {"system": "per_move", "move_ms": 5_400_000}),
    ("1.5m", {"system": "per_move", "move_ms": 90_000}),
    ("abs:20m", {"system": "absolute", "total_ms": 1_200_000}),
    ("ABS:1H", {"system": "absolute", "total_ms": 3_600_000}),
    ("5m+5s", {"system": "fischer", "initial_ms": 300_000, "increment_ms": 5_000, "max_ms": 600_000}),
    ("5d+1h", {"system": "fischer", "initial_ms": 432_000_000, "increment_ms": 3_600_000, "max_ms": 604_800_000}),
    ("10m+5x30s", {"system": "byoyomi", "main_ms": 600_000, "period_ms": 30_000, "periods": 5}),
    (" 1s + 2x1s ", {"system": "byoyomi", "main_ms": 1_000, "period_ms": 1_000, "periods": 2}),
    ("10m+25/5m", {"system": "canadian", "main_ms": 600_000, "period_ms": 300_000, "stones": 25}),
    ("7d+100/7d", {"system": "canadian", "main_ms": 604_800_000, "period_ms": 604_800_000, "stones": 100}),
]


@pytest.mark.parametrize(("text", "control"), NOTATIONS, ids=[text.strip() for text, _ in NOTATIONS])
def test_the_notation_reads_into_the_protocols_time(text: str, control: dict[str, Any]) -> None:
    assert parse_time(text) == control
    assert time_control(text) == control
    assert time_control(control) == control and time_control(control) is not control


BAD: list[tuple[str, str]] = [
    ("", "is empty"),
    ("5", "'5', is not a duration (a unit is needed"),
    ("5 minutes", "'5minutes', is not a duration"),
    ("0s", "'0s', must be 1s to 7d"),
    ("8d", "'8d', must be 1s to 7d"),
    ("0.0001s", "not a whole number of milliseconds"),
    ("abs:", "the total time is missing"),
    ("10m+5x", "a period is missing"),
    ("10m+x30s", "periods, '', must be a whole number from 1 to 30"),
    ("10m+31x30s", "periods, '31', must be a whole number from 1 to 30"),
    ("10m+0/5m", "stones, '0', must be a whole number from 1 to 100"),
    ("10m+101/5m", "stones, '101', must be a whole number from 1 to 100"),
    ("10m+25/5", "a period, '5', is not a duration (a unit is needed"),
    ("+5s", "the initial time is missing"),
    ("5m+5s+1s", "more than one '+'"),
    ("5m+", "the increment is missing"),
]


@pytest.mark.parametrize(("text", "complaint"), BAD, ids=[text or "empty" for text, _ in BAD])
def test_a_bad_notation_is_named(text: str, complaint: str) -> None:
    with pytest.raises(ValueError) as bad:
        parse_time(text)
    assert complaint in str(bad.value)
    assert repr(text) in str(bad.value), "the whole notation is named too"


def test_a_time_control_is_a_notation_or_a_dict() -> None:
    with pytest.raises(ValueError, match="'system' must be one of per_move"):
        time_control({"system": "hourglass"})
    with pytest.raises(ValueError, match="a string such as '10m\\+5x30s' or a dict, not 300"):
        time_control(300)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "complaint"),
    [
        (["--time", "10m+5x"], "argument --time: time control '10m+5x': a period is missing"),
        (["--time", "5"], "argument --time: time control '5': the time a move, '5', is not a duration"),
        (["--time", "10m+40x30s"], "argument --time: time control '10m+40x30s': periods, '40', must be"),
        (["--komi", "6.3"], "argument --komi: komi is a multiple of 0.5 from -150 to 150, not 6.3"),
        (["--handicap", "1"], "argument --handicap: the handicap is auto, 0, or 2 to 9 stones, not '1'"),
        (["--handicap", "3"], "--handicap 3 is for unrated games: add --unrated"),
        (["--komi", "6.5"], "--komi 6.5 is for unrated games: add --unrated"),
        (["--unrated", "--handicap", "auto"], "--handicap auto gives stones from the ranks, in rated games only"),
        (["--unrated", "--handicap", "6"], "--handicap 6: at most 5 stones on 9x9"),
    ],
)
def test_bad_terms_on_the_command_line_are_usage_errors(
    capsys: pytest.CaptureFixture[str], option: list[str], complaint: str
) -> None:
    """Said before anything is connected: the address is one nothing listens on."""
    assert main(["connect", "ws://127.0.0.1:9/ws", "--name", "ann", *option]) == 2
    captured = capsys.readouterr()
    assert complaint in captured.err and captured.out == ""
    assert "cannot connect" not in captured.err


def test_bad_time_for_the_bot_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "ws://127.0.0.1:9/ws", "--name", "robo", "--time", "abs:0m", "--", "gnugo"]) == 2
    assert "argument --time: time control 'abs:0m': the total time, '0m', must be 1s to 7d" in capsys.readouterr().err


def test_the_settings_in_words() -> None:
    assert describe_time(parse_time("5m")) == "5:00 a move"
    assert describe_time(parse_time("1d")) == "24:00:00 a move"
    assert describe_time(parse_time("abs:20m")) == "20:00 in all"
    assert describe_time(parse_time("5m+5s")) == "Fischer 5:00 + 0:05 a move (at most 10:00)"
    assert describe_time(parse_time("10m+5x30s")) == "byo-yomi 10:00 + 5 x 0:30"
    assert describe_time(parse_time("10m+25/5m")) == "Canadian 10:00 + 25 stones / 5:00"
    assert describe_time(None) == "the server's move time"


def test_each_clock_in_its_systems_form() -> None:
    per_move, fischer = parse_time("5m"), parse_time("5m+5s")
    assert clock_text(per_move, {"main_ms": 300_000}) == "5:00"
    assert clock_text(per_move, {"main_ms": 300_000}, 61_001) == "1:02"  # rounded up, counting down
    assert clock_text(fischer, {"main_ms": 305_000}) == "5:05"
    byoyomi = parse_time("10m+5x30s")
    start = {"main_ms": 600_000, "periods": 5, "period_ms": 30_000}
    assert clock_text(byoyomi, start) == "10:00 + 5 x 0:30"
    assert clock_text(byoyomi, start, 600_000 + 150_000 - 15_000) == "9:45 + 5 x 0:30"
    overtime = {"main_ms": 0, "periods": 3, "period_ms": 30_000}
    assert clock_text(byoyomi, overtime) == "3 x 0:30"
    assert clock_text(byoyomi, overtime, 90_000) == "0:30 of 3 x 0:30"
    assert clock_text(byoyomi, overtime, 81_000) == "0:21 of 3 x 0:30"
    assert clock_text(byoyomi, overtime, 59_000) == "0:29 of 2 x 0:30", "a period used up: two left"
    assert clock_text(byoyomi, start, 140_000) == "0:20 of 5 x 0:30", "main time ran out in this turn"
    canadian = parse_time("10m+25/5m")
    assert clock_text(canadian, {"main_ms": 600_000, "period_ms": 300_000, "stones": 25}) == "10:00 + 25 stones / 5:00"
    assert clock_text(canadian, {"main_ms": 0, "period_ms": 250_000, "stones": 12}) == "12 stones / 4:10"
    assert clock_text(canadian, {"main_ms": 0, "period_ms": 250_000, "stones": 12}, 249_000) == "12 stones / 4:09"
    assert clock_text(canadian, {"main_ms": 1_000, "period_ms": 300_000, "stones": 25}, 299_000) == "25 stones / 4:59"
    assert clock_text(None, None, 4_000) == "0:04" and clock_text(None, None) == ""


def test_the_gtp_time_commands() -> None:
    """What ``gokata bot`` tells an engine: ``time_settings`` in GTP's Canadian form (periods
    and times a move less the bot's margin), ``kgs-time_settings byoyomi`` where known, and
    ``time_left`` from the bot's clock."""
    assert time_settings(None, 60.0, kgs=False) == "time_settings 0 54 1"
    assert time_settings(parse_time("5m"), 300.0, kgs=True) == "time_settings 0 290 1"
    assert time_settings(parse_time("abs:20m"), 0, kgs=False) == "time_settings 1200 0 0"
    assert time_settings(parse_time("5m+5s"), 0, kgs=False) == "time_settings 300 0 0"
    assert time_settings(parse_time("10m+5x30s"), 0, kgs=False) == "time_settings 600 27 1"
    assert time_settings(parse_time("10m+5x30s"), 0, kgs=True) == "kgs-time_settings byoyomi 600 27 5"
    assert time_settings(parse_time("10m+25/5m"), 0, kgs=True) == "time_settings 600 290 25"
    byoyomi = parse_time("10m+5x30s")
    start = {"main_ms": 600_000, "periods": 5, "period_ms": 30_000}
    assert time_left("black", byoyomi, start, 700_000, kgs=True) == "time_left black 550 0"
    overtime = {"main_ms": 0, "periods": 5, "period_ms": 30_000}
    assert time_left("black", byoyomi, overtime, 140_000, kgs=True) == "time_left black 17 5"
    assert time_left("black", byoyomi, overtime, 140_000, kgs=False) == "time_left black 17 1"
    canadian = parse_time("10m+25/5m")
    assert time_left("white", canadian, {"main_ms": 600_000, "period_ms": 300_000, "stones": 25}, 800_000, False) == (
        "time_left white 500 0"
    )
    assert time_left("white", canadian, {"main_ms": 0, "period_ms": 250_000, "stones": 12}, 240_000, False) == (
        "time_left white 230 12"
    )
    assert time_left("white", parse_time("5m"), {"main_ms": 300_000}, 280_000, False) == "time_left white 270 1"
    assert time_left("white", parse_time("abs:20m"), {"main_ms": 300_000}, 280_000, False) == "time_left white 270 0"
    assert time_left("white", parse_time("5m+5s"), {"main_ms": 3_000}, 1_500, False) == "time_left white 1 0"
