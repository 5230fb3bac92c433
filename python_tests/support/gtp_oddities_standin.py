"""A stand-in GTP engine for ``gokata.engine``'s tests of the protocol's corners: it answers
with CRLF line endings (``--crlf``), echoes ids, sends empty lines before its answers
(``--blank-lines``), answers ``genmove`` with text that is not GTP (``--malformed``) or with a
fixed vertex (``--move D5``), or writes to its standard error and exits with status 7 in the
middle of a ``genmove`` (``--die``). ``showboard`` answers on several lines. Every command read
is appended to ``--log``. It keeps no position: ``play`` is always accepted, ``genmove``
passes."""

from __future__ import annotations

import argparse
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crlf", action="store_true")
    parser.add_argument("--blank-lines", action="store_true")
    parser.add_argument("--malformed", action="store_true")
    parser.add_argument("--move", default="pass")
    parser.add_argument("--die", action="store_true")
    parser.add_argument("--log")
    args = parser.parse_args()
    end = "\r\n" if args.crlf else "\n"

    def answer(ident: str, text: str = "", ok: bool = True) -> None:
        if args.blank_lines:
            sys.stdout.write(end * 2)
        sys.stdout.write(("=" if ok else "?") + ident + " " + text.replace("\n", end) + end + end)
        sys.stdout.flush()

    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        if args.log:
            with open(args.log, "a", encoding="utf-8") as log:
                log.write(" ".join(words) + "\n")
        ident = words.pop(0) if words[0].isdigit() else ""
        name = words[0] if words else ""
        if name == "name":
            answer(ident, "Oddities")
        elif name == "version":
            answer(ident, "0.1")
        elif name == "list_commands":
            answer(ident, "\n".join(["name", "version", "list_commands", "boardsize", "clear_board", "komi", "play", "genmove", "showboard", "quit"]))
        elif name in ("boardsize", "clear_board", "komi", "play"):
            answer(ident)
        elif name == "showboard":
            answer(ident, "\n   A B C\n 3 . . . 3\n 2 . X . 2\n 1 . . . 1\n   A B C")
        elif name == "genmove":
            if args.die:
                sys.stderr.write("oddities: out of cheese\n")
                sys.stderr.flush()
                return 7
            if args.malformed:
                sys.stdout.write("thinking... D5" + end + end)
                sys.stdout.flush()
            else:
                answer(ident, args.move)
        elif name == "quit":
            answer(ident)
            return 0
        else:
            answer(ident, "unknown command", ok=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
