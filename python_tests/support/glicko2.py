"""A reference Glicko-2, written from Glickman's "Example of the Glicko-2 system" (its steps 1 to
8, the volatility by the Illinois algorithm of step 5), with the choices the server makes after
OGS: a new player is 1500/350/0.06, tau is 0.5, one game is one rating period, and after each
update the deviation is kept within 30..500, the volatility within 0.01..0.15 and the rating
within 100..6000. Ranks and handicaps as OGS shows and gives them.

Independent of the server's Rust on purpose: the tests compare the two. Nothing here talks to a
server.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Step 2: the Glicko-2 scale (400 / ln 10) between a rating and its mu."""
CENTRE = 1500.0
TAU = 0.5
EPSILON = 0.000001
"""Step 5: the convergence tolerance."""

DEVIATION_BOUNDS = (30.0, 500.0)
VOLATILITY_BOUNDS = (0.01, 0.15)
RATING_BOUNDS = (100.0, 6000.0)

RANK_SCALE = 23.15
RANK_BASE = 525.0
UNCERTAIN = 160.0
"""From this deviation up, a rank label ends in ``?``."""


@dataclass(frozen=True)
class Rating:
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


NEW = Rating()


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, v: float, delta: float, sigma: float, tau: float) -> float:
    """Step 5: the new volatility sigma'."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Rating, games: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The paper's steps 2 to 8: ``player`` after one rating period of ``games`` (opponent,
    score 1/0.5/0), without bounds."""
    mu = (player.rating - CENTRE) / SCALE
    phi = player.deviation / SCALE
    if not games:
        return Rating(player.rating, math.sqrt(phi**2 + player.volatility**2) * SCALE, player.volatility)
    opponents = [((o.rating - CENTRE) / SCALE, o.deviation / SCALE, score) for o, score in games]
    # Step 3: the estimated variance v; step 4: the improvement delta.
    v = 1.0 / sum(_g(phi_j) ** 2 * _expected(mu, mu_j, phi_j) * (1 - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, _ in opponents)
    total = sum(_g(phi_j) * (s - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, s in opponents)
    delta = v * total
    sigma = _volatility(phi, v, delta, player.volatility, tau)
    # Steps 6 to 8.
    phi_star = math.sqrt(phi**2 + sigma**2)
    phi_new = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    mu_new = mu + phi_new**2 * total
    return Rating(SCALE * mu_new + CENTRE, SCALE * phi_new, sigma)


def _within(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


def after_game(player: Rating, opponent: Rating, score: float) -> Rating:
    """One game as its own rating period, tau 0.5, the result kept within OGS's bounds."""
    new = rate(player, [(opponent, score)], TAU)
    return Rating(
        _within(new.rating, RATING_BOUNDS),
        _within(new.deviation, DEVIATION_BOUNDS),
        _within(new.volatility, VOLATILITY_BOUNDS),
    )


def rank_of(rating: float) -> float:
    return RANK_SCALE * math.log(rating / RANK_BASE)


def rating_of(rank: float) -> float:
    return RANK_BASE * math.exp(rank / RANK_SCALE)


def rank_label(rank: float) -> str:
    """Below 30 ``ceil(30 - rank)`` kyu, from 30 ``floor(rank - 29)`` dan, within 25k..9d."""
    if rank < 30:
        return f"{min(max(math.ceil(30 - rank), 1), 25)}k"
    return f"{min(max(math.floor(rank - 29), 1), 9)}d"


def label(player: Rating) -> str:
    """The label as the server shows it: ``?`` while the deviation is 160 or more."""
    return rank_label(rank_of(player.rating)) + ("?" if player.deviation >= UNCERTAIN else "")


def stone_worth(size: int) -> float:
    """Ranks a handicap stone is worth: 1 on 19x19, 3 on 13x13, 6 on 9x9."""
    return {9: 6.0, 13: 3.0, 19: 1.0}[size]


def handicap_stones(rank_difference: float, size: int) -> int:
    """``floor(difference / worth)``, at most 9 (5 on 9x9); 0 or 1 is an even game."""
    stones = min(math.floor(abs(rank_difference) / stone_worth(size)), 5 if size == 9 else 9)
    return stones if stones >= 2 else 0


def after_rated_game(black: Rating, white: Rating, black_won: bool, stones: int = 0, size: int = 19) -> tuple[Rating, Rating]:
    """Both players after a rated game: in white's update black counts as the rating of its rank
    raised by the stones' worth; in black's own, white counts as its rating lowered by as much."""
    raised = rating_of(rank_of(black.rating) + stones * stone_worth(size)) if stones else black.rating
    black_score = 1.0 if black_won else 0.0
    white_seen = Rating(white.rating - (raised - black.rating), white.deviation, white.volatility)
    black_seen = Rating(raised, black.deviation, black.volatility)
    return after_game(black, white_seen, black_score), after_game(white, black_seen, 1.0 - black_score)
