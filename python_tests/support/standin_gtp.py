"""A stand-in GTP engine for the bridge's tests, with faults on demand: it answers slowly
(``--delay``), refuses board sizes (``--refuse 13``), exits in the middle of a ``genmove``
(``--crash``), or answers ``genmove`` with nonsense (``--nonsense``). It keeps the position with
``gokata.Go`` (so a ``play`` the position does not allow is refused, as a real engine would),
answers ``genmove`` with a legal move from gokata's quick search, and passes when its opponent
has just passed. Every command it reads is appended to ``--log`` with its process id, and so
is each answer to ``genmove`` once it is sent (``answered genmove: C3``). Time commands: with
``--time-commands`` it lists and accepts ``time_settings`` and ``time_left``, with
``--kgs-time`` ``kgs-time_settings`` too, and with ``--refuse-time`` it lists all three and
answers each with ``?``; without these it lists none and answers them as unknown."""

from __future__ import annotations

import argparse
import os
import sys
import time

import gokata
from gokata import Go

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before answering genmove")
    parser.add_argument("--refuse", type=int, action="append", default=[], help="a board size to refuse")
    parser.add_argument("--crash", action="store_true", help="exit in the middle of each genmove")
    parser.add_argument("--nonsense", action="store_true", help="answer genmove with nonsense")
    parser.add_argument("--log", help="append every command read here")
    parser.add_argument("--time-commands", action="store_true", help="list and accept time_settings and time_left")
    parser.add_argument("--kgs-time", action="store_true", help="list and accept kgs-time_settings too")
    parser.add_argument("--refuse-time", action="store_true", help="list the time commands, and answer them with ?")
    args = parser.parse_args()
    size = 19
    game = Go(size)
    last_was_pass = False

    def log(line: str) -> None:
        if args.log:
            with open(args.log, "a", encoding="utf-8") as file:
                file.write(f"{os.getpid()} {line}\n")

    def answer(text: str = "", ok: bool = True) -> None:
        sys.stdout.write(("= " if ok else "? ") + text + "\n\n")
        sys.stdout.flush()

    time_commands: list[str] = []
    if args.time_commands or args.kgs_time or args.refuse_time:
        time_commands += ["time_settings", "time_left"]
    if args.kgs_time or args.refuse_time:
        time_commands.append("kgs-time_settings")

    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        log(line)
        name, *rest = line.split()
        if name == "list_commands":
            known = ["boardsize", "clear_board", "komi", "play", "genmove", "quit", "list_commands", *time_commands]
            answer("\n".join(known))
        elif name in time_commands:
            answer("not now", ok=not args.refuse_time)
        elif name == "boardsize":
            wanted = int(rest[0])
            if wanted in args.refuse:
                answer("unacceptable size", ok=False)
            else:
                size, game, last_was_pass = wanted, Go(wanted), False
                answer()
        elif name == "clear_board":
            game, last_was_pass = Go(size), False
            answer()
        elif name == "komi":
            answer()  # the stand-in scores nothing
        elif name == "play":
            color, vertex = rest[0].lower(), rest[1].upper()
            if game.turn != color:
                game.pass_turn()  # GTP lets one colour play twice: the other passed meanwhile
            if vertex == "PASS":
                game.pass_turn()
                last_was_pass = True
            else:
                try:
                    game.move(f"{vertex[1:]}{vertex[0]}")
                except ValueError:
                    answer("illegal move", ok=False)
                    continue
                last_was_pass = False
            answer()
        elif name == "genmove":
            if args.crash:
                os._exit(3)
            time.sleep(args.delay)
            if args.nonsense:
                answer("Z99")
                continue
            if game.turn != rest[0].lower():
                game.pass_turn()
            point = None if last_was_pass else gokata.genmove(game, playouts=30, seed=1, threads=1)
            vertex = "pass" if point is None else f"{point[-1]}{point[:-1]}"
            if point is None:
                game.pass_turn()
            else:
                game.move(point)
            answer(vertex)
            log(f"answered genmove: {vertex}")  # after the answer is sent, for tests to wait on
            last_was_pass = point is None
        elif name == "quit":
            answer()
            return 0
        else:
            answer("unknown command", ok=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
