"""GTP engines from Python, in the manner of python-chess's ``chess.engine``: any program that
speaks the Go Text Protocol (GNU Go, KataGo, Leela Zero, ``gokata gtp``...) in a child process.

>>> from gokata import Go
>>> from gokata.engine import GtpEngine
>>> game = Go(9)
>>> game.komi = 7.5
>>> with GtpEngine(["gnugo", "--mode", "gtp", "--level", "1"]) as engine:  # doctest: +SKIP
...     game.move(engine.play(game))
...     print(engine.name, engine.version, game.move_number)
GNU Go 3.8 1

Points are in the kata form, like the rest of gokata (``"7C"``: row 7, column C); ``None`` is
a pass; ``play`` may also return ``"resign"``. Each call sends the engine only what changed
since the last one: the turns it lacks, ``undo`` for turns taken back (when it knows it), or
the whole game again (``boardsize``, ``clear_board``, ``komi``, the handicap or setup stones,
every turn). The same API for asyncio: ``async with popen_gtp([...]) as engine:`` and ``await``
each method. ``match`` (``gokata match``) plays two engines against each other.

Faults are exceptions: ``EngineError`` (the engine answered ``?``; the base of the others),
``EngineProtocolError`` (an answer that is not GTP, or not a move), ``EngineTimeout`` (the
``timeout`` passed: the engine was killed) and ``EngineTerminated`` (it died: its exit status
and the last lines of its standard error). After a timeout or a death the next call starts the
engine again. No engine process outlives its ``with`` block, or Python (on Linux not even
``kill -9``).
"""

from gokata.engine._async import AsyncGtpEngine, popen_gtp
from gokata.engine._gtp import (
    Candidate,
    EngineError,
    EngineProtocolError,
    EngineTerminated,
    EngineTimeout,
    Score,
    kata_point,
    vertex,
)
from gokata.engine._match import GameRecord, MatchResult, amatch, match, wilson_interval
from gokata.engine._sync import GtpEngine

__all__ = [
    "AsyncGtpEngine",
    "Candidate",
    "EngineError",
    "EngineProtocolError",
    "EngineTerminated",
    "EngineTimeout",
    "GameRecord",
    "GtpEngine",
    "MatchResult",
    "Score",
    "amatch",
    "kata_point",
    "match",
    "popen_gtp",
    "vertex",
    "wilson_interval",
]
