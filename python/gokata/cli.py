"""The ``gokata`` command. Each subcommand has an ``_add_<name>`` function that declares its
arguments and a ``_<name>`` function that runs it and returns the exit status."""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
from collections.abc import Sequence
from typing import Callable

from gokata import Go, Server, __version__, solve
from gokata._gokata import _gtp
from gokata._match_cli import add_match, whole_number
from gokata._play import PlaySession
from gokata._time_control import NOTATION, TimeControl, parse_time

MAX_SIZE = 25  # columns are lettered A to Z without I


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``gokata`` with ``argv`` (default: the command line); returns the exit status."""
    parser = argparse.ArgumentParser(prog="gokata", description="Go (weiqi, baduk) in a terminal.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subcommands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    _add_play(subcommands)
    _add_solve(subcommands)
    _add_serve(subcommands)
    _add_connect(subcommands)
    _add_gtp(subcommands)
    _add_bot(subcommands)
    add_match(subcommands)
    argv, engine = _split_engine(list(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # after --help or --version (0), or bad arguments (2)
        return int(stop.code or 0)
    args.engine = engine
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


def _add_play(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = subcommands.add_parser(
        "play",
        help="two people play at this terminal",
        description="Two people play at this terminal, typing one command per line "
        "(a point like 7A, pass, undo, reset, handicap, help, quit). Two passes in a row end "
        "the game, scored by area with komi 0.5 for white.",
        epilog="Exit status: 0 when the game ends (two passes, or quit), 1 when the input ends "
        "first or the output cannot be written, 130 on Ctrl-C.",
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
        ended = PlaySession(game, sys.stdout, prompt=sys.stdin.isatty()).run(sys.stdin)
    except KeyboardInterrupt:
        print()
        return 130
    except OSError as error:  # the output closed (`gokata play | head`) or full (`> /dev/full`)
        return _output_failed("play", error)
    return 0 if ended else 1


def _output_failed(command: str, error: OSError) -> int:
    """Standard output could not be written (its reader went away, as in `gokata solve | head
    -0`, or the disk is full): one line on standard error, status 1, nothing more at exit."""
    reason = "its reader closed it" if isinstance(error, BrokenPipeError) else error.strerror or str(error)
    try:
        print(f"gokata {command}: cannot write the output: {reason}", file=sys.stderr, flush=True)
    except OSError:
        pass  # standard error is gone too: the status says it
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return 1


def _add_solve(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    solver = subcommands.add_parser(
        "solve",
        help="play a list of coloured moves on a board (the puzzle 'A Game of Go')",
        description="Reads the size S, the move count M, S board lines of . B W and M moves "
        "'COLOR ROW COL' (0-based, row 0 at the top) from standard input; prints the board "
        "after the moves, or NOT_VALID if a move is illegal.",
        epilog="Exit status: 0 when it printed the answer, 1 for malformed input or output that "
        "cannot be written, 130 on Ctrl-C.",
    )
    solver.set_defaults(run=_solve)


def _solve(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
        answer = solve(text)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()  # here, so that a write error is caught and not met at exit
    except UnicodeDecodeError as error:
        print(f"gokata solve: the input is not UTF-8 text (byte {error.start})", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"gokata solve: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gokata solve: interrupted", file=sys.stderr)
        return 130
    except OSError as error:  # the output closed (`gokata solve | head -0`) or full
        return _output_failed("solve", error)
    return 0


def _add_serve(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = subcommands.add_parser(
        "serve",
        help="run the game server: players pair up and play over WebSocket",
        description="Runs the game server in the foreground until Ctrl-C or SIGTERM. Players "
        "connect to ws://HOST:PORT/ws (the protocol: docs/protocol.md) or with 'gokata connect'.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8080, help="port (default 8080; 0 picks a free one)")
    serve.add_argument(
        "--db",
        default="gokata.sqlite3",
        help="SQLite database file (default gokata.sqlite3), or a PostgreSQL database "
        "(postgresql://USER@HOST:PORT/DBNAME, or 'host=... dbname=...') that several servers may share",
    )
    serve.add_argument(
        "--move-time", type=_seconds, default=300.0, help="seconds a player has for each move (default 300)"
    )
    serve.add_argument(
        "--bot", nargs="?", const="gokata-bot", metavar="NAME",
        help="also run the server's own computer opponent, under NAME (default gokata-bot), for "
        "players who ask for the computer",
    )
    limits = serve.add_argument_group("limits per client address (a client over one is refused; nobody else notices)")
    limits.add_argument(
        "--max-connections-per-address", type=whole_number(1), default=64, metavar="N",
        help="open connections from one address (default 64)",
    )
    limits.add_argument(
        "--registrations-per-hour", type=whole_number(0), default=20, metavar="N",
        help="new names one address may register in an hour (default 20)",
    )
    limits.add_argument(
        "--api-requests-per-second", type=whole_number(1), default=20, metavar="N",
        help="HTTP API requests a second from one address, twice as many at once (default 20)",
    )
    limits.add_argument(
        "--behind-proxy", action="store_true",
        help="take the client's address from the last X-Forwarded-For entry (only behind a proxy that sets it)",
    )
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    try:
        server = Server(
            args.host,
            args.port,
            args.db,
            args.move_time,
            max_connections_per_address=args.max_connections_per_address,
            registrations_per_hour=args.registrations_per_hour,
            api_requests_per_second=args.api_requests_per_second,
            behind_proxy=args.behind_proxy,
            bot=args.bot,
        )
    except (OSError, ValueError) as error:
        print(f"gokata serve: {error}", file=sys.stderr)
        return 1
    # SIGTERM stops the server as cleanly as Ctrl-C does.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    computer = f"; the computer plays as {args.bot}" if args.bot else ""
    try:
        print(
            f"gokata serve: listening on {server.url} (WebSocket {server.ws_url}, database {server.database}, "
            f"{args.move_time:g} s a move{computer}); Ctrl-C stops it",
            flush=True,
        )
        while not server.wait(0.25):  # short waits, so that Python sees signals
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    try:
        server.stop()
    except RuntimeError as error:
        print(f"gokata serve: {error}", file=sys.stderr)
        return 1
    try:
        print("gokata serve: stopped", flush=True)
    except BrokenPipeError:  # nobody reads the output any more; the server stopped all the same
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, not {port}")
    return port


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0.001 <= seconds <= 7 * 24 * 3600:
        raise argparse.ArgumentTypeError(f"must be a millisecond (0.001) to a week, not {text}")
    return seconds


def _add_connect(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    client = subcommands.add_parser(
        "connect",
        help="play a game on a gokata server",
        description="Signs in to a gokata server, seeks a game (or continues an unfinished one) "
        "and plays it at this terminal, one command per line: a point like C7 or pass on your "
        "turn; undo, say TEXT, resign, help and quit at any time (help lists every command). From "
        "a pipe, lines are read while you are to act. A new name's token is saved under $XDG_CONFIG_HOME/gokata/tokens.json (default "
        "~/.config) and used the next time; a game that ended while you were away is told "
        "before any new game is sought.",
    )
    client.add_argument("url", metavar="URL", help="the server: ws://HOST:PORT/ws, http://HOST:PORT/, HOST:PORT or HOST (port 8080)")
    client.add_argument("--name", required=True, help="your player name (1 to 20 letters, digits, _ or -)")
    client.add_argument("--token", help="the token of a registered name (default: the saved one)")
    client.add_argument("--size", type=int, choices=(9, 13, 19), default=9, help="board size to seek (default 9)")
    client.add_argument("--color", choices=("black", "white", "any"), default="any", help="colour to seek (default any)")
    client.add_argument(
        "--opponent",
        choices=("human", "computer", "any"),
        default="human",
        help="whom to play: a person (the default), the computer (a bot on the server) or any",
    )
    _add_terms(client, "seek")
    client.add_argument(
        "--handicap", type=_handicap, metavar="N|auto",
        help="black's handicap stones: 0, or 2 to 9 (2 to 5 on 9x9) with --unrated; auto (rated) "
        "gives stones from the two ranks (default: an even game)",
    )
    client.add_argument(
        "--komi", type=_komi, metavar="K", help="white's komi with --unrated: a multiple of 0.5 from -150 to 150 (default 0.5)"
    )
    client.add_argument(
        "--scoring", choices=("all_alive", "agreement"), default="all_alive",
        help="after two passes in a row: all_alive ends the game, every stone counted alive (the "
        "default); agreement starts a scoring phase where the players mark the dead stones and accept",
    )
    client.set_defaults(run=_connect)


def _add_terms(parser: argparse.ArgumentParser, what: str) -> None:
    """``--time`` and ``--unrated``, for ``gokata connect`` and ``gokata bot``."""
    parser.add_argument(
        "--time", type=_time, metavar="CONTROL",
        help=f"the time control to {what}: {NOTATION}; durations in s, m, h or d, 1s to 7d "
        "(Fischer's clock grows to twice its initial time at most; default: the server's move time)",
    )
    parser.add_argument("--unrated", action="store_true", help=f"{what} an unrated game (default: rated)")


def _time(text: str) -> TimeControl:
    try:
        return parse_time(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _handicap(text: str) -> int | str:
    if text.strip().lower() == "auto":
        return "auto"
    if not text.strip().isdigit() or int(text) == 1 or int(text) > 9:
        raise argparse.ArgumentTypeError(f"the handicap is auto, 0, or 2 to 9 stones, not {text!r}")
    return int(text)


def _komi(text: str) -> float:
    try:
        komi = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (abs(komi) <= 150 and (komi * 2).is_integer()):
        raise argparse.ArgumentTypeError(f"komi is a multiple of 0.5 from -150 to 150, not {text}")
    return komi


def _terms_error(args: argparse.Namespace) -> str | None:
    """What is wrong with ``gokata connect``'s terms taken together, if anything: stones and
    komi are chosen in unrated games, a rated game's handicap comes from the ranks."""
    if not args.unrated and isinstance(args.handicap, int) and args.handicap:
        return f"--handicap {args.handicap} is for unrated games: add --unrated (a rated game takes --handicap auto)"
    if args.unrated and args.handicap == "auto":
        return "--handicap auto gives stones from the ranks, in rated games only: give a number of stones with --unrated"
    if not args.unrated and args.komi is not None and args.komi != 0.5:
        return f"--komi {args.komi:g} is for unrated games: add --unrated (a rated game's komi is 0.5)"
    if isinstance(args.handicap, int) and args.handicap > 5 and args.size == 9:
        return f"--handicap {args.handicap}: at most 5 stones on 9x9"
    return None


def _connect(args: argparse.Namespace) -> int:
    try:
        from gokata._connect import ConnectionLost, ConnectSession
        from gokata._terminal import Keyboard, Screen
    except ImportError as error:  # websockets is an optional dependency
        print(f"gokata connect: {error}; install it with: pip install websockets (the client extra)", file=sys.stderr)
        return 1
    terms_error = _terms_error(args)
    if terms_error is not None:
        print(f"gokata connect: {terms_error}", file=sys.stderr)
        return 2
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        screen = Screen(sys.stdout, live=sys.stdout.isatty())
        keyboard = Keyboard(sys.stdin.fileno())
        session = ConnectSession(
            args.url,
            args.name,
            args.token,
            args.size,
            args.color,
            screen,
            keyboard,
            opponent=args.opponent,
            rated=not args.unrated,
            time=args.time,
            handicap=args.handicap,
            komi=args.komi,
            scoring=args.scoring,
        )
        session.run()
    except KeyboardInterrupt:  # the session said why
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except ConnectionLost as error:
        print(f"gokata connect: {error}", file=sys.stderr)
        return 1
    except ValueError as error:  # the server refused the sign-in or the seek; a bad URL
        message = str(error)
        if getattr(error, "code", "") == "name_taken":  # said once, in the terminal's words
            message = f'the name "{args.name}" is taken: sign in with --token TOKEN, or pick another --name'
        print(f"gokata connect: {message}", file=sys.stderr)
        return 1
    return 0


def _add_gtp(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gtp = subcommands.add_parser(
        "gtp",
        help="a GTP engine: the bot for Sabaki, GoGui, Lizzie or another engine",
        description="Reads Go Text Protocol (version 2) commands on standard input and answers "
        "on standard output; logs go to standard error. The bot is a Monte-Carlo tree search "
        "with RAVE over light playouts.",
        epilog="Exit status: 0 after quit or the end of the input, 1 when the output cannot be "
        "written, 130 on Ctrl-C.",
    )
    budget = gtp.add_mutually_exclusive_group()
    budget.add_argument(
        "--playouts", type=whole_number(1), metavar="N", help="simulations a move (default 10000)"
    )
    budget.add_argument("--time", type=_seconds, metavar="SECONDS", help="seconds a move, instead of a playout count")
    gtp.add_argument("--threads", type=whole_number(1), metavar="T", help="search threads (default: one per core)")
    gtp.add_argument("--seed", type=whole_number(0), metavar="S", help="random seed (with one thread, the same moves each time)")
    gtp.add_argument("--no-resign", action="store_true", help="never resign")
    gtp.add_argument(
        "--root-parallel",
        action="store_true",
        help="each thread searches a tree of its own, summed at the root (default: one tree shared by all threads)",
    )
    gtp.set_defaults(run=_gtp_session)


def _gtp_session(args: argparse.Namespace) -> int:
    try:
        _gtp(
            playouts=args.playouts,
            time=args.time,
            threads=args.threads,
            seed=args.seed,
            resign=not args.no_resign,
            root_parallel=args.root_parallel,
        )
    except KeyboardInterrupt:
        return 130
    except OSError as error:
        return _output_failed("gtp", error)
    return 0


def _board_size(text: str) -> int:
    try:
        size = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= size <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_SIZE}, not {size}")
    return size


def _add_bot(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bot = subcommands.add_parser(
        "bot",
        help="play on a gokata server with any GTP engine",
        description="Signs in to a gokata server as a program (the account is marked as a bot) "
        "and plays with a GTP engine: gnugo --mode gtp, gokata gtp, KataGo... Each game gets an "
        "engine process of its own, restarted if it fails; a move the engine does not find within "
        "the move time (less a margin) is chosen by gokata's own quick search. The token of a new "
        "name is saved as 'gokata connect' saves one.",
        usage="gokata bot URL --name NAME [options] -- COMMAND [ARGS...]",
        epilog="Example: gokata bot ws://localhost:8080/ws --name gnugo-bot -- "
        "/usr/games/gnugo --mode gtp --level 10",
    )
    bot.add_argument("url", metavar="URL", help="the server: ws://HOST:PORT/ws, http://HOST:PORT/, HOST:PORT or HOST (port 8080)")
    bot.add_argument("--name", required=True, help="the bot's player name")
    bot.add_argument("--token", help="the token of a registered name (default: the saved one)")
    bot.add_argument("--sizes", type=_sizes, default=(9, 13, 19), metavar="9,13,19", help="board sizes to play (default all three; those the engine refuses are left out)")
    bot.add_argument("--games", type=whole_number(1), default=1, metavar="N", help="games at once (default 1)")
    bot.add_argument(
        "--opponent",
        choices=("human", "computer", "any"),
        default="human",
        help="whom to seek: people (default), other bots, or either",
    )
    _add_terms(bot, "seek")
    bot.set_defaults(run=_bot)


def _split_engine(argv: list[str]) -> tuple[list[str], list[str]]:
    """``gokata bot ... -- COMMAND ARGS``: the engine's command line is everything after the
    first ``--`` (argparse would read its options as the bot's)."""
    if argv[:1] in (["bot"], ["match"]) and "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1 :]
    return argv, []


def _sizes(text: str) -> tuple[int, ...]:
    sizes = []
    for part in text.split(","):
        if part.strip() not in ("9", "13", "19"):
            raise argparse.ArgumentTypeError(f"sizes are 9, 13 and 19 separated by commas, not {part!r}")
        if int(part) not in sizes:
            sizes.append(int(part))
    return tuple(sizes)


def _bot(args: argparse.Namespace) -> int:
    engine: list[str] = args.engine
    if not engine:
        print("gokata bot: no engine: give its command after --, e.g. -- gnugo --mode gtp", file=sys.stderr)
        return 2
    try:
        from gokata._bridge import BridgeOptions, run_bridge
        from gokata._saved import load_token, save_token
    except ImportError as error:  # websockets is an optional dependency
        print(f"gokata bot: {error}; install it with: pip install websockets (the client extra)", file=sys.stderr)
        return 1
    import logging

    logging.basicConfig(level=logging.INFO, format="gokata bot: %(message)s", stream=sys.stderr)
    try:
        token = args.token if args.token is not None else load_token(args.url, args.name)
    except ValueError as error:  # a bad URL
        print(f"gokata bot: {error}", file=sys.stderr)
        return 1
    options = BridgeOptions(
        args.url, args.name, token, engine, args.sizes, args.games, args.opponent, rated=not args.unrated, time=args.time
    )

    def saved(new_token: str) -> None:
        where = save_token(args.url, args.name, new_token)
        print(f"gokata bot: {args.name} is registered; its token is saved in {where}", file=sys.stderr)

    try:
        run_bridge(options, saved)
    except KeyboardInterrupt:
        return 130
    except (ValueError, ConnectionError) as error:  # refused sign-in, no engine, server gone
        print(f"gokata bot: {error}", file=sys.stderr)
        return 1
    return 0
