"""What the server's frames should say of players, their ratings and their seeks, from the
reference Glicko-2 of `support.glicko2`: a player's record (``records`` of `over`,
``/api/players/NAME``), the fields of ``welcome``, ``seeking``, and a `Ledger` that follows
players' wins, losses and ratings through the games a test plays.

Ratings are floats in JSON: records are compared with `matches` (``pytest.approx`` within 1e-6
on the numbers, exact on the rest). The protocol lets a server add fields, and clients ignore
those they do not know: `matches` and `shows` check the fields expected, each present, and no
others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import pytest

from support import glicko2
from support.glicko2 import Rating

TOLERANCE = 1e-6
"""How far a rating, deviation or volatility of the server's may be from the reference's."""


def standing(
    name: str, wins: int = 0, losses: int = 0, rating: Rating = glicko2.NEW, rated_games: int = 0, bot: bool = False
) -> dict[str, Any]:
    """A player's record as ``over``'s ``records`` and ``/api/players/NAME`` show it."""
    return {
        "name": name,
        "wins": wins,
        "losses": losses,
        "bot": bot,
        "rating": rating.rating,
        "deviation": rating.deviation,
        "volatility": rating.volatility,
        "rank": glicko2.label(rating),
        "rated_games": rated_games,
    }


def matches(actual: Any, expected: dict[str, Any]) -> bool:
    """``actual`` has each of ``expected``'s fields, its numbers within `TOLERANCE`, the rest
    equal (other fields are not looked at: a server may add some)."""
    if not isinstance(actual, dict) or not set(expected) <= set(actual):
        return False
    return {key: actual[key] for key in expected} == pytest.approx(expected, abs=TOLERANCE)


def shows(frame: Any, expected: dict[str, Any]) -> bool:
    """``frame`` has each field of ``expected``, equal (a server may add fields)."""
    return isinstance(frame, dict) and set(expected) <= set(frame) and {key: frame[key] for key in expected} == expected


def assert_shows(frame: Any, expected: dict[str, Any]) -> None:
    assert shows(frame, expected), f"\n  got      {frame!r}\n  expected {expected!r}"


def assert_matches(actual: Any, expected: dict[str, Any]) -> None:
    assert matches(actual, expected), f"\n  got      {actual!r}\n  expected {expected!r}"


def rating_of(record: dict[str, Any]) -> Rating:
    """The rating a record (or `/api/players/NAME`) shows."""
    return Rating(record["rating"], record["deviation"], record["volatility"])


def welcome_fields(wins: int = 0, losses: int = 0, rating: Rating = glicko2.NEW, bot: bool = False) -> dict[str, Any]:
    """The fields of ``welcome`` besides ``type``, ``name``, ``token`` and ``games``."""
    return {
        "wins": wins,
        "losses": losses,
        "bot": bot,
        "rating": rating.rating,
        "deviation": rating.deviation,
        "rank": glicko2.label(rating),
    }


def assert_welcome(welcome: dict[str, Any], name: str, **fields: Any) -> None:
    """``welcome`` is for ``name`` with the record of `welcome_fields` (``fields``)."""
    assert welcome["type"] == "welcome" and welcome["name"] == name, welcome
    assert_matches(welcome, welcome_fields(**fields))


def per_move(move_ms: int) -> dict[str, Any]:
    """The default time control of a server started with ``--move-time``."""
    return {"system": "per_move", "move_ms": move_ms}


def seeking(
    size: int | list[int],
    color: str = "any",
    opponent: str = "human",
    move_ms: int = 300_000,
    rated: bool = True,
    handicap: int | str = 0,
    komi: float = 0.5,
    time: Optional[dict[str, Any]] = None,
) -> dict[str, Any]:
    """The ``seeking`` frame answering a seek of these terms (the server's default time control,
    per move, when ``time`` is None)."""
    return {
        "type": "seeking",
        "size": size,
        "color": color,
        "opponent": opponent,
        "rated": rated,
        "handicap": handicap,
        "komi": komi,
        "time": time if time is not None else per_move(move_ms),
    }


@dataclass
class Record:
    wins: int = 0
    losses: int = 0
    rating: Rating = glicko2.NEW
    rated_games: int = 0
    bot: bool = False


@dataclass
class Ledger:
    """Players' records as the reference has them, game after game."""

    players: dict[str, Record] = field(default_factory=dict)

    def of(self, name: str) -> Record:
        return self.players.setdefault(name, Record())

    def set_rating(self, name: str, rating: Rating) -> None:
        self.of(name).rating = rating

    def finish(
        self, black: str, white: str, winner: str, rated: bool = True, handicap: int = 0, size: int = 9
    ) -> Optional[dict[str, Any]]:
        """Counts a game's result; ``over``'s ``ratings`` as they should be (None if unrated)."""
        b, w = self.of(black), self.of(white)
        if winner == "black":
            b.wins, w.losses = b.wins + 1, w.losses + 1
        else:
            w.wins, b.losses = w.wins + 1, b.losses + 1
        if not rated:
            return None
        before = (b.rating, w.rating)
        b.rating, w.rating = glicko2.after_rated_game(before[0], before[1], winner == "black", handicap, size)
        b.rated_games += 1
        w.rated_games += 1
        return {
            "black": {"before": before[0].rating, "after": b.rating.rating, "rank": glicko2.label(b.rating)},
            "white": {"before": before[1].rating, "after": w.rating.rating, "rank": glicko2.label(w.rating)},
        }

    def standing(self, name: str) -> dict[str, Any]:
        record = self.of(name)
        return standing(name, record.wins, record.losses, record.rating, record.rated_games, record.bot)

    def check_over(self, over: dict[str, Any], black: str, white: str, ratings: Optional[dict[str, Any]]) -> None:
        """``over``'s ``records`` and ``ratings`` are the ledger's (after `finish`)."""
        assert set(over["records"]) == {"black", "white"}, over
        assert_matches(over["records"]["black"], self.standing(black))
        assert_matches(over["records"]["white"], self.standing(white))
        if ratings is None:
            assert over["ratings"] is None, over
            return
        assert set(over["ratings"]) == {"black", "white"}, over
        for color in ("black", "white"):
            assert_matches(over["ratings"][color], ratings[color])
