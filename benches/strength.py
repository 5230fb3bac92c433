"""gokata's bot against GNU Go 3.8 over GTP: win rate with its 95% interval, and the time a move
takes. Usage::

    python benches/strength.py --playouts 10000 --games 200 [--level 10] [--jobs 2]

Each game is 9x9 with komi 7.5 (``--size``, ``--komi``), colours alternating (gokata black in
even games), GNU Go started as ``gnugo --mode gtp --level 10 --chinese-rules --seed N`` with
a new seed each game and gokata as ``gokata gtp --playouts N --threads T --seed N``. A game
ends by resignation or two passes; both engines then score by area (``final_score``), and
when they disagree play goes on with ``kgs-genmove_cleanup`` and they score again. A game
goes to the colour both scores name, even by different margins (such games are counted and
reported); one whose winner they still disagree on counts as half a win and is reported. GNU Go is /usr/games/gnugo.

``--log FILE`` appends one JSON line a game (its seed, colours, moves, scores and seconds) as
each game ends, so a long run can be stopped and continued with the next ``--first-seed``;
``--summarize FILE...`` prints the tally of such logs without playing::

    python benches/strength.py --playouts 100000 --games 100 --first-seed 1023 --log 100k.jsonl
    python benches/strength.py --summarize 100k.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python_tests"))  # for support.gtp_referee

from gokata.engine import EngineError, EngineProtocolError, EngineTerminated, EngineTimeout, GtpEngine  # noqa: E402
from support.gtp_referee import GNUGO, GameResult, GtpProcess, ProtocolError, agreed_winner, play_game, score_margin  # noqa: E402


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


class Engine(GtpProcess):
    """An engine for the referee (``play_game``), run and spoken to by ``gokata.engine``, under
    the name the tally gives it (``gokata`` or the opponent's, whatever the engine calls itself)."""

    def __init__(self, argv: list[str], name: str) -> None:  # no pipes of GtpProcess's own
        self.name = name
        self.engine = GtpEngine(argv)

    def ask(self, command: str) -> tuple[bool, str]:
        try:
            return True, self.engine.send(command)
        except (EngineTimeout, EngineTerminated, EngineProtocolError) as error:
            raise ProtocolError(f"{self.name}: {error}") from error
        except EngineError as error:  # it answered `?`
            return False, error.answer

    def close(self) -> None:
        self.engine.close(timeout=10.0)


def one_game(number: int, args: argparse.Namespace) -> tuple[str, GameResult]:
    """Game ``number``: gokata's colour and the result."""
    budget = ["--time", str(args.time)] if args.time else ["--playouts", str(args.playouts)]
    seed = str(args.first_seed + number)
    gokata_argv = [*shlex.split(args.gokata), "gtp", *budget, "--threads", str(args.threads), "--seed", seed]
    if args.opponent:
        opponent_argv = [*shlex.split(args.opponent), "--seed", seed]
    else:
        opponent_argv = [GNUGO, "--mode", "gtp", "--level", str(args.level), "--chinese-rules", "--seed", seed]
    gokata = Engine(gokata_argv, "gokata")
    opponent = Engine(opponent_argv, OPPONENT)
    try:
        if number % 2 == 0:
            return "B", play_game(gokata, opponent, args.size, args.komi)
        return "W", play_game(opponent, gokata, args.size, args.komi)
    finally:
        gokata.close()
        opponent.close()


@dataclass
class Tally:
    """Wins (a disputed game or a draw is half), games and seconds a move, game by game."""

    wins: float = 0.0
    played: int = 0
    disputed: int = 0
    """Games whose winner the engines' scores disagree on (each counted as half a win)."""
    margins_differ: int = 0
    """Games both engines give to one colour by different margins (counted for that colour)."""
    by_color: dict[str, list[float]] = field(default_factory=lambda: {"B": [0.0, 0], "W": [0.0, 0]})
    seconds: dict[str, float] = field(default_factory=lambda: {"gokata": 0.0, OPPONENT: 0.0})
    genmoves: dict[str, int] = field(default_factory=lambda: {"gokata": 0, OPPONENT: 0})

    def add(self, color: str, result: GameResult) -> None:
        won = 0.0
        margins_differ = result.resigned is None and len(set(result.scores.values())) > 1
        if margins_differ and result.winner != "0":
            self.margins_differ += 1
        if result.winner == "0" and margins_differ:
            self.disputed += 1
            won = 0.5
        elif result.winner == color:
            won = 1.0
        elif result.winner == "0":
            won = 0.5
        self.wins += won
        self.played += 1
        self.by_color[color][0] += won
        self.by_color[color][1] += 1
        for name in self.seconds:
            self.seconds[name] += result.seconds.get(name, 0.0)
            self.genmoves[name] += result.genmoves.get(name, 0)

    def per_move(self, name: str) -> float:
        return self.seconds[name] / max(1, self.genmoves[name])

    def summary(self) -> str:
        low, high = wilson_interval(self.wins, self.played)
        colors = ", ".join(f"as {'black' if c == 'B' else 'white'} {w:g}/{n:g}" for c, (w, n) in self.by_color.items())
        return (
            f"{self.wins:g}/{self.played} = {self.wins / max(1, self.played):.1%} "
            f"(95% interval {low:.1%} to {high:.1%}); {colors}; {self.disputed} disputed (counted as half), "
            f"{self.margins_differ} won by both engines' count with different margins; "
            f"seconds a move: gokata {self.per_move('gokata'):.3f}, the opponent {self.per_move(OPPONENT):.3f}"
        )


def log_entry(seed: int, color: str, result: GameResult, args: argparse.Namespace) -> dict[str, Any]:
    """One game's line in a ``--log`` file."""
    settings = {name: getattr(args, name) for name in ("label", "playouts", "time", "threads", "level", "size", "komi", "opponent")}
    return {"seed": seed, "gokata": color, **settings, **asdict(result)}


def read_logs(paths: Iterable[str]) -> Iterable[tuple[str, GameResult]]:
    """The games of ``--log`` files, in order."""
    names = {field_name for field_name in GameResult.__dataclass_fields__}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                result = GameResult(**{k: v for k, v in entry.items() if k in names})
                if result.resigned is None and result.scores:
                    # As the referee decides today (a log may be older than a change of rule).
                    result.winner = agreed_winner(score_margin(text) for text in result.scores.values())
                yield entry["gokata"], result


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
    parser.add_argument("--log", help="append one JSON line a game to this file")
    parser.add_argument("--label", help="kept in each --log line: which build played (such as its commit)")
    parser.add_argument("--summarize", nargs="+", metavar="LOG", help="print the tally of --log files and stop")
    args = parser.parse_args()
    if args.summarize:
        tally = Tally()
        for color, result in read_logs(args.summarize):
            tally.add(color, result)
        print(f"{', '.join(args.summarize)}: {tally.summary()}")
        return 0
    tally = Tally()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        games = {pool.submit(one_game, number, args): number for number in range(args.games)}
        for finished in as_completed(games):
            number, (color, result) = games[finished], finished.result()
            tally.add(color, result)
            if args.log:
                with open(args.log, "a") as log:
                    log.write(json.dumps(log_entry(args.first_seed + number, color, result, args)) + "\n")
            how = f"{result.resigned} resigned" if result.resigned else " / ".join(f"{k} {v}" for k, v in result.scores.items())
            so_far = ", ".join(f"{name} {tally.per_move(name):.3f}" for name in tally.seconds)
            print(
                f"game {number + 1} (seed {args.first_seed + number}): gokata {color}, winner {result.winner}, "
                f"{result.moves} moves, {how} (seconds a move so far: {so_far})",
                flush=True,
            )
    print(
        f"gokata at {f'{args.time} s' if args.time else f'{args.playouts} playouts'} a move ({args.threads} thread(s)) vs "
        f"{args.opponent or f'GNU Go level {args.level}'}, {args.size}x{args.size} komi {args.komi}: "
        f"{tally.summary()}; {time.perf_counter() - started:.0f} s in all",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
