"""Time controls as people write them and as the server sends them: the short notation of
``gokata connect --time`` and ``Player.seek(time=...)`` read into the protocol's ``time``
object (:func:`time_control`), and the settings and a player's clock told in words
(:func:`describe_time`, :func:`clock_text`). Needs nothing but the standard library, so that
the command line checks ``--time`` before anything is imported or connected.

The notation (durations are a number and a unit, ``s``, ``m``, ``h`` or ``d``, and may be
combined, ``1h30m``; case does not matter):

============== ============================================ =======================================
notation       time control                                 the protocol's ``time``
============== ============================================ =======================================
``5m``         5 minutes a move                             ``per_move``, ``move_ms``
``1d``         a day a move (correspondence)                ``per_move``
``abs:20m``    20 minutes for the whole game                ``absolute``, ``total_ms``
``5m+5s``      Fischer: 5 minutes, 5 seconds added a move   ``fischer``; ``max_ms`` twice the
                                                            initial time (at most 7 days)
``10m+5x30s``  byo-yomi: 10 minutes, then 5 periods of 30 s ``byoyomi``, ``periods`` 5
``10m+25/5m``  Canadian: 10 minutes, then 25 moves in 5 min ``canadian``, ``stones`` 25
============== ============================================ =======================================

Every duration is 1 second to 7 days, ``periods`` 1 to 30 and ``stones`` 1 to 100, as the
server takes them; anything else is a ``ValueError`` naming the bad value."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Optional, TypedDict, Union

TimeControl = dict[str, Any]
"""The protocol's ``time`` object: ``{"system": "byoyomi", "main_ms": 600000, ...}``."""

UNITS = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
DURATION_MS = (1_000, 604_800_000)
"""Every duration the server takes: a second to seven days."""
PERIODS = (1, 30)
STONES = (1, 100)
FISCHER_MAX = 2
"""A Fischer clock written ``5m+5s`` never grows past this many times its initial time (as
OGS's default does not let it run away); ``Player.seek`` takes any ``max_ms`` in a dict."""

SYSTEMS = ("per_move", "absolute", "fischer", "byoyomi", "canadian")

NOTATION = "5m (a move), abs:20m (in all), 5m+5s (Fischer), 10m+5x30s (byo-yomi), 10m+25/5m (Canadian)"
"""The forms, for messages."""


class _ClockMain(TypedDict):
    main_ms: int


class Clock(_ClockMain, total=False):
    """What a player has left (the protocol's CLOCK): ``main_ms``; under byo-yomi ``periods``
    (left) and ``period_ms`` (one period's length); under Canadian time ``period_ms`` (left in
    the period under way) and ``stones`` (turns still to play in it)."""

    periods: int
    period_ms: int
    stones: int


def time_control(value: Union[str, Mapping[str, Any]]) -> TimeControl:
    """The protocol's ``time`` object for ``value``: the notation above, or such an object
    (copied; the server checks its fields). ``ValueError`` naming what is wrong."""
    if isinstance(value, str):
        return parse_time(value)
    if isinstance(value, Mapping):
        system = value.get("system")
        if system not in SYSTEMS:
            raise ValueError(f"time control {dict(value)!r}: 'system' must be one of {', '.join(SYSTEMS)}")
        return dict(value)
    raise ValueError(f"a time control is a string such as '10m+5x30s' or a dict, not {value!r}")


def parse_time(text: str) -> TimeControl:
    """Reads the notation: ``5m``, ``abs:20m``, ``5m+5s``, ``10m+5x30s``, ``10m+25/5m``."""
    whole = text
    spec = text.strip().lower().replace(" ", "")
    if not spec:
        raise ValueError(f"time control {whole!r} is empty: try {NOTATION}")

    def duration(part: str, what: str) -> int:
        return _duration(part, what, whole)

    if spec.startswith("abs:"):
        return {"system": "absolute", "total_ms": duration(spec[4:], "the total time")}
    if "+" not in spec:
        return {"system": "per_move", "move_ms": duration(spec, "the time a move")}
    main, _, rest = spec.partition("+")
    if "+" in rest:
        raise ValueError(f"time control {whole!r} has more than one '+': try {NOTATION}")
    if "x" in rest:
        count, _, period = rest.partition("x")
        return {
            "system": "byoyomi",
            "main_ms": duration(main, "the main time"),
            "period_ms": duration(period, "a period"),
            "periods": _count(count, "periods", PERIODS, whole),
        }
    if "/" in rest:
        count, _, period = rest.partition("/")
        return {
            "system": "canadian",
            "main_ms": duration(main, "the main time"),
            "period_ms": duration(period, "a period"),
            "stones": _count(count, "stones", STONES, whole),
        }
    initial = duration(main, "the initial time")
    return {
        "system": "fischer",
        "initial_ms": initial,
        "increment_ms": duration(rest, "the increment"),
        "max_ms": min(initial * FISCHER_MAX, DURATION_MS[1]),
    }


def _duration(part: str, what: str, whole: str) -> int:
    """Milliseconds of ``1h30m``, ``30s``, ``1.5m``."""
    if not part:
        raise ValueError(f"time control {whole!r}: {what} is missing: try {NOTATION}")
    if not re.fullmatch(r"(?:[0-9]+(?:\.[0-9]+)?[smhd])+", part):
        hint = " (a unit is needed: s, m, h or d)" if re.fullmatch(r"[0-9.]+", part) else ""
        raise ValueError(
            f"time control {whole!r}: {what}, {part!r}, is not a duration{hint}: write a number "
            f"and s, m, h or d, such as 30s, 5m, 1h30m or 1d"
        )
    ms = sum(float(n) * UNITS[unit] for n, unit in re.findall(r"([0-9.]+)([smhd])", part))
    if ms != int(ms):
        raise ValueError(f"time control {whole!r}: {what}, {part!r}, is not a whole number of milliseconds")
    low, high = DURATION_MS
    if not low <= ms <= high:
        raise ValueError(f"time control {whole!r}: {what}, {part!r}, must be 1s to 7d")
    return int(ms)


def _count(part: str, what: str, bounds: tuple[int, int], whole: str) -> int:
    low, high = bounds
    if not part.isdigit() or not low <= int(part) <= high:
        raise ValueError(f"time control {whole!r}: {what}, {part!r}, must be a whole number from {low} to {high}")
    return int(part)


# In words


def duration_text(ms: Optional[int]) -> str:
    """``4:59``, ``1:05:00`` (from an hour), rounded up to the second; ``""`` for ``None``."""
    if ms is None:
        return ""
    seconds = (max(ms, 0) + 999) // 1000
    hours, rest = divmod(seconds, 3600)
    if hours:
        return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{rest // 60}:{rest % 60:02d}"


def describe_time(time: Optional[Mapping[str, Any]]) -> str:
    """The settings in words: ``5:00 a move``, ``20:00 in all``, ``Fischer 5:00 + 0:05 a move
    (at most 10:00)``, ``byo-yomi 10:00 + 5 x 0:30``, ``Canadian 10:00 + 25 stones / 5:00``."""
    if not time:
        return "the server's move time"
    system = time.get("system")
    d = duration_text
    if system == "per_move":
        return f"{d(time.get('move_ms'))} a move"
    if system == "absolute":
        return f"{d(time.get('total_ms'))} in all"
    if system == "fischer":
        most = d(time.get("max_ms"))
        return f"Fischer {d(time.get('initial_ms'))} + {d(time.get('increment_ms'))} a move (at most {most})"
    if system == "byoyomi":
        return f"byo-yomi {d(time.get('main_ms'))} + {time.get('periods')} x {d(time.get('period_ms'))}"
    if system == "canadian":
        return f"Canadian {d(time.get('main_ms'))} + {time.get('stones')} stones / {d(time.get('period_ms'))}"
    return str(system)


def clock_text(time: Optional[Mapping[str, Any]], clock: Optional[Mapping[str, Any]], remaining_ms: Optional[int] = None) -> str:
    """A player's clock in its system's form: ``4:59``; under byo-yomi ``9:45 + 5 x 0:30`` in
    main time and ``3 x 0:30`` after it; under Canadian time ``9:45 + 25 stones / 5:00``, then
    ``12 stones / 4:10``. ``clock`` is the player's CLOCK; ``remaining_ms``, for the player to
    move (whose ``clock`` is as its turn began), the time until it loses, counted down."""
    system = (time or {}).get("system")
    d = duration_text
    if clock is None or time is None:
        return d(remaining_ms)
    main = int(clock.get("main_ms", 0))
    if system in ("per_move", "absolute", "fischer"):
        return d(main if remaining_ms is None else remaining_ms)
    if system == "byoyomi":
        periods, period = int(clock.get("periods", 0)), int(time.get("period_ms", clock.get("period_ms", 0)))
        if remaining_ms is not None:
            main = remaining_ms - periods * period
            if main <= 0 and period > 0:  # counting down a period
                left = max(math.ceil(remaining_ms / period), 1)
                return f"{d(remaining_ms - (left - 1) * period)} of {left} x {d(period)}"
        if main > 0:
            return f"{d(main)} + {periods} x {d(period)}"
        return f"{periods} x {d(period)}"
    if system == "canadian":
        stones, period_left = int(clock.get("stones", 0)), int(clock.get("period_ms", 0))
        if remaining_ms is not None:
            main = remaining_ms - period_left
            if main <= 0:
                period_left = remaining_ms
                main = 0
        if main > 0:
            return f"{d(main)} + {stones} stones / {d(period_left)}"
        return f"{stones} stones / {d(period_left)}"
    return d(remaining_ms if remaining_ms is not None else main)
