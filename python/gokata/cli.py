"""The ``gokata`` command. Each subcommand has an ``_add_<name>`` function that declares its
arguments and a ``_<name>`` function that runs it and returns the exit status."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from typing import Callable

from gokata import Go, __version__, solve
from gokata._play import PlaySession

MAX_SIZE = 25  # columns are lettered A to Z without I


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``gokata`` with ``argv`` (default: the command line); returns the exit status."""
    parser = argparse.ArgumentParser(prog="gokata", description="Go (weiqi, baduk) in a terminal.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subcommands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    _add_play(subcommands)
    _add_solve(subcommands)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # after --help or --version (0), or bad arguments (2)
        return int(stop.code or 0)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


def _add_play(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = subcommands.add_parser(
        "play",
        help="two people play at this terminal",
        description="Two people play at this terminal, typing one command per line "
        "(a point like 7A, pass, undo, reset, handicap, help, quit).",
    )
    play.add_argument("--size", type=_board_size, default=9, help="board height (default 9)")
    play.add_argument("--width", type=_board_size, help="board width (default: the same as --size)")
    play.set_defaults(run=_play)


def _play(args: argparse.Namespace) -> int:
    game = Go(args.size, args.width)
    # Undecodable bytes in the input become an invalid command, not a crash.
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        PlaySession(game, sys.stdout).run(sys.stdin)
    except KeyboardInterrupt:
        print()
        return 130
    except BrokenPipeError:  # the reader went away, as in `gokata play | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    return 0


def _add_solve(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    solver = subcommands.add_parser(
        "solve",
        help="play a list of coloured moves on a board (the puzzle 'A Game of Go')",
        description="Reads the size S, the move count M, S board lines of . B W and M moves "
        "'COLOR ROW COL' (0-based, row 0 at the top) from standard input; prints the board "
        "after the moves, or NOT_VALID if a move is illegal.",
    )
    solver.set_defaults(run=_solve)


def _solve(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as error:
        print(f"gokata solve: the input is not UTF-8 text (byte {error.start})", file=sys.stderr)
        return 1
    try:
        print(solve(text))
    except ValueError as error:
        print(f"gokata solve: {error}", file=sys.stderr)
        return 1
    return 0


def _board_size(text: str) -> int:
    try:
        size = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= size <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_SIZE}, not {size}")
    return size
