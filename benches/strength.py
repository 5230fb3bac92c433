"""gokata's bot against GNU Go 3.8 over GTP: win rate with its 95% interval, and the time a move
takes. Usage::

    python benches/strength.py --playouts 10000 --games 200 [--level 10] [--jobs 2]

Each game is 9x9 with komi 7.5 (``--size``, ``--komi``), colours alternating (gokata black in
even games), GNU Go started as ``gnugo --mode gtp --level 10 --chinese-rules --seed N`` with
a new seed each game and gokata as ``gokata gtp --playouts N --threads T --seed N``. A game
ends by resignation or two passes; both engines then score by area (``final_score``), and
when they disagree play goes on with ``kgs-genmove_cleanup`` and they score again. A game
they still disagree on counts as half a win and is reported. GNU Go is /usr/games/gnugo.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python_tests"))

from gtp_referee import GameResult, GtpProcess, gnugo, play_game  # noqa: E402


OPPONENT = "GNU Go"
"""The opponent's name in a result; the same for any ``--opponent``."""


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def one_game(number: int, args: argparse.Namespace) -> tuple[str, GameResult]:
    """Game ``number``: gokata's colour and the result."""
    budget = ["--time", str(args.time)] if args.time else ["--playouts", str(args.playouts)]
    gokata_argv = [*shlex.split(args.gokata), "gtp", *budget, "--threads", str(args.threads)]
    gokata_argv += ["--seed", str(args.first_seed + number)]
    gokata = GtpProcess(gokata_argv, "gokata")
    if args.opponent:
        opponent = GtpProcess([*shlex.split(args.opponent), "--seed", str(args.first_seed + number)], OPPONENT)
    else:
        opponent = gnugo(args.level, args.first_seed + number)
    try:
        if number % 2 == 0:
            return "B", play_game(gokata, opponent, args.size, args.komi)
        return "W", play_game(opponent, gokata, args.size, args.komi)
    finally:
        gokata.close()
        opponent.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--playouts", type=int, default=10_000)
    parser.add_argument("--time", type=float, help="seconds a gokata move, instead of --playouts")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--level", type=int, default=10, help="GNU Go's level (default 10)")
    parser.add_argument("--threads", type=int, default=1, help="gokata's search threads (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--gokata", default="gokata", help="the gokata command, split like a shell line (default: gokata on PATH)")
    parser.add_argument(
        "--opponent",
        help="another GTP engine instead of GNU Go, split like a shell line and given --seed N "
        "(such as an older gokata: 'gokata gtp --playouts 1000 --threads 1')",
    )
    args = parser.parse_args()
    wins, disputed, played = 0.0, 0, 0
    seconds = {"gokata": 0.0, OPPONENT: 0.0}
    genmoves = {"gokata": 0, OPPONENT: 0}
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for number, (color, result) in enumerate(pool.map(lambda n: one_game(n, args), range(args.games))):
            played += 1
            if result.winner == "0" and result.resigned is None and len(set(result.scores.values())) > 1:
                disputed += 1
                wins += 0.5
            elif result.winner == color:
                wins += 1
            elif result.winner == "0":
                wins += 0.5
            for name in seconds:
                seconds[name] += result.seconds.get(name, 0.0)
                genmoves[name] += result.genmoves.get(name, 0)
            how = f"{result.resigned} resigned" if result.resigned else " / ".join(f"{k} {v}" for k, v in result.scores.items())
            so_far = ", ".join(f"{name} {seconds[name] / max(1, genmoves[name]):.3f}" for name in seconds)
            print(
                f"game {number + 1}: gokata {color}, winner {result.winner}, {result.moves} moves, {how} "
                f"(seconds a move so far: {so_far})",
                flush=True,
            )
    low, high = wilson_interval(wins, played)
    per_move = {name: seconds[name] / max(1, genmoves[name]) for name in seconds}
    print(
        f"gokata at {f'{args.time} s' if args.time else f'{args.playouts} playouts'} a move ({args.threads} thread(s)) vs "
        f"{args.opponent or f'GNU Go level {args.level}'}, "
        f"{args.size}x{args.size} komi {args.komi}: {wins:g}/{played} = {wins / max(1, played):.1%} "
        f"(95% interval {low:.1%} to {high:.1%}); {disputed} disputed (counted as half); "
        f"seconds a move: gokata {per_move['gokata']:.3f}, the opponent {per_move[OPPONENT]:.3f}; "
        f"{time.perf_counter() - started:.0f} s in all",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
