"""``gokata match``: two GTP engines play each other, refereed by gokata (``gokata.engine.match``).
Declared here and registered by ``cli``; ``gokata.engine`` (asyncio) is imported only to run."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Callable

USAGE = 'gokata match [options] -- "ENGINE A COMMAND" -- "ENGINE B COMMAND"'


def add_match(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    match = subcommands.add_parser(
        "match",
        help="play two GTP engines against each other and tally the results",
        description="Plays games between two GTP engines (GNU Go, KataGo, gokata gtp...), colours "
        "alternating (engine A black in odd games), several at once with --jobs. gokata referees "
        "each game: an illegal move, a crash, an error or no answer within --move-timeout loses it. "
        "A game ends by two passes, a resignation or the move cap, and is scored by area (every "
        "stone counted as alive) and by both engines' final_score where they have one "
        "(disagreements are listed). Each game is written as SGF into --sgf-dir; --resume plays "
        "only the games missing there. Prints each game as it ends, then the tally with 95% "
        "Wilson intervals, overall and by colour.",
        usage=USAGE,
        epilog='Example: gokata match --games 100 --jobs 2 --sgf-dir run1 -- "gnugo --mode gtp --level 10" '
        '-- "gokata gtp --playouts 10000". Each engine is one quoted command after its --, or its '
        "words up to the next --. Exit status: 0 when the games were played, 1 when an engine cannot "
        "start or the folder is not this match's, 2 for bad arguments, 130 on Ctrl-C.",
    )
    match.add_argument("--games", type=whole_number(1), default=2, metavar="N", help="games to play (default 2)")
    match.add_argument("--size", type=whole_number(2, 25), default=9, metavar="N", help="board size (default 9)")
    match.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    match.add_argument("--jobs", type=whole_number(1), default=1, metavar="N", help="games at once (default 1)")
    match.add_argument(
        "--move-timeout", type=_positive, metavar="SECONDS",
        help="seconds an engine has for each move, position included (default: no limit)",
    )  # fmt: skip
    match.add_argument("--max-moves", type=whole_number(1), metavar="N", help="turns before a game is stopped and scored (default 3 x points)")
    match.add_argument("--sgf-dir", metavar="DIR", help="write each game there as game-0001.sgf...")
    match.add_argument("--resume", action="store_true", help="play only the games missing from --sgf-dir")
    match.set_defaults(run=run_match)


def engine_commands(words: list[str]) -> list[list[str]]:
    """The engines' command lines from the words after the first ``--``: split at each further
    ``--``; a part of one word is split as a shell would."""
    parts: list[list[str]] = [[]]
    for word in words:
        if word == "--":
            parts.append([])
        else:
            parts[-1].append(word)
    return [shlex.split(part[0]) if len(part) == 1 else part for part in parts]


def run_match(args: argparse.Namespace) -> int:
    commands = engine_commands(list(getattr(args, "engine", [])))
    if len(commands) != 2 or not all(commands):
        print(f"gokata match: two engines are needed, each after --: {USAGE}", file=sys.stderr)
        return 2
    if args.resume and args.sgf_dir is None:
        print("gokata match: --resume needs the --sgf-dir of the match to continue", file=sys.stderr)
        return 2
    from gokata.engine import EngineError, GameRecord, match

    def report(record: GameRecord) -> None:
        scores = "; final_score " + ", ".join(f"{record.black_name if e == record.black else record.white_name} {s}" for e, s in sorted(record.engine_scores.items())) if record.engine_scores else ""
        detail = f" ({record.detail})" if record.detail else ""
        print(
            f"game {record.number}: {record.black_name} (black) vs {record.white_name} (white): {record.result}, "
            f"{record.ended_by}{detail}, {record.moves} moves{scores}",
            flush=True,
        )

    try:
        result = match(
            commands[0], commands[1], games=args.games, size=args.size, komi=args.komi, jobs=args.jobs,
            sgf_dir=args.sgf_dir, resume=args.resume, move_timeout=args.move_timeout, max_moves=args.max_moves,
            on_game=report,
        )  # fmt: skip
    except KeyboardInterrupt:
        print("gokata match: interrupted (--resume continues it)", file=sys.stderr)
        return 130
    except (EngineError, ValueError, OSError) as error:
        print(f"gokata match: {error}", file=sys.stderr)
        return 1
    print(result.summary(), flush=True)
    return 0


def whole_number(least: int, most: int = 1_000_000_000) -> Callable[[str], int]:
    """A whole number from ``least`` to ``most`` (a billion unless given), for argparse."""

    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not least <= number <= most:
            raise argparse.ArgumentTypeError(f"must be {least} to {most}, not {number}")
        return number

    return parse


def _positive(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return seconds
