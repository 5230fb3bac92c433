"""The ``gokata`` command: the installed program fed piped input, and ``main()`` in-process."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gokata import Go
from gokata._play import PlaySession
from gokata.cli import main
from support.command_runs import Run
from support.server_process import gokata_command
from support.waiting import wait_until

EMPTY_5 = [".....", ".....", ".....", ".....", "....."]
NINES = "9" * 30


def run(*args: str, stdin: str | bytes = "", command: list[str] | None = None) -> Run:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        (command or gokata_command()) + list(args), input=data, capture_output=True, timeout=60
    )
    out, err = (stream.decode(errors="replace") for stream in (done.stdout, done.stderr))
    return Run(done.returncode, out, err)


GAME_OVER = "Two passes in a row: the game is over."


def play(*lines: str, size: int = 5) -> Run:
    """``gokata play --size size`` with ``lines`` as input; it must end cleanly, with status 0
    if the game ended (two passes or quit) and 1 if the input ended first."""
    result = run("play", "--size", str(size), stdin="".join(line + "\n" for line in lines))
    assert result.err == ""
    assert result.status == (1 if result.last_line.startswith("End of input") else 0), result.out
    return result


def ended_by_passes(out: str) -> bool:
    """Whether the transcript ends with two passes: the verdict, the score and the winner."""
    lines = out.splitlines()
    return (
        len(lines) >= 3
        and lines[-3] == GAME_OVER
        and re.fullmatch(r"Score by area: black \d+, white \d+ \+ 0\.5 komi = \d+\.5\.", lines[-2]) is not None
        and re.fullmatch(r"(Black|White) wins by \d+\.5\.", lines[-1]) is not None
    )


def test_a_short_game_with_a_capture() -> None:
    result = play("2A", "1A", "1B")
    assert "Black plays 1B, capturing 1 stone: 1A." in result.out
    assert result.boards[0] == EMPTY_5
    assert result.boards[-2] == [".....", ".....", ".....", "x....", "o...."]
    assert result.boards[-1] == [".....", ".....", ".....", "x....", ".x..."]
    assert "White to play (turn 4)." in result.out
    assert result.last_line == "End of input: stopped after 3 turns."


def test_a_two_stone_capture_and_both_coordinate_forms() -> None:
    result = play("a2", "1A", "2b", "B1", "1c")
    assert result.errors == []
    # Every move is echoed in the kata form, whichever form was typed.
    assert [line for line in result.out.splitlines() if " plays " in line] == [
        "Black plays 2A.",
        "White plays 1A.",
        "Black plays 2B.",
        "White plays 1B.",
        "Black plays 1C, capturing 2 stones: 1A 1B.",
    ]
    assert "Black plays 1C, capturing 2 stones: 1A 1B." in result.out
    assert result.boards[-1] == [".....", ".....", ".....", "xx...", "..x.."]


def test_an_illegal_move_is_reported_and_the_same_player_tries_again() -> None:
    result = play("3C", "3C", "3D")
    assert result.errors == ["error: illegal move 3C for white: the point is occupied"]
    assert result.out.count("White to play (turn 2).") == 2  # after the move, after the error
    assert len(result.boards) == 3  # the failed move prints no board
    assert result.boards[-1][2] == "..xo."


def test_suicide_and_ko_are_refused() -> None:
    # Black 1A would have no liberty; white may not retake a ko at once.
    suicide = play("5E", "2A", "5D", "1B", "1A")
    assert suicide.errors == [
        "error: illegal move 1A for black: suicide (the stone would have no liberty)"
    ]
    ko = play("3B", "3C", "2C", "2D", "4C", "4D", "1A", "3E", "3D", "3C")
    assert "Black plays 3D, capturing 1 stone: 3C." in ko.out
    assert len(ko.errors) == 1 and "ko" in ko.errors[0]
    assert ko.out.splitlines()[-2] == "White to play (turn 10)."


def test_undo() -> None:
    result = play("3C", "2C", "undo", "4C", "undo 2", "2B")
    assert result.errors == []
    assert "Took back 1 turn." in result.out
    assert "Took back 2 turns." in result.out
    after_undo, after_4c, after_undo_2, after_2b = result.boards[-4:]
    assert after_undo == [".....", ".....", "..x..", ".....", "....."]
    assert after_4c == [".....", "..o..", "..x..", ".....", "....."]  # white played again
    assert after_undo_2 == EMPTY_5
    assert after_2b == [".....", ".....", ".....", ".x...", "....."]  # black to play again


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("undo 5", "error: undo 5: only 1 turn has been played"),
        ("undo -1", "error: undo -1: the number of turns must be at least 1"),
        ("undo 0", "error: undo 0: the number of turns must be at least 1"),
        ("undo two", "error: undo: 'two' is not a whole number"),
        ("undo 1.5", "error: undo: '1.5' is not a whole number"),
        ("undo 1 1", "error: undo takes one number, not 2 arguments"),
        ("undo " + "9" * 40, "error: undo " + "9" * 40 + ": only 1 turn has been played"),
    ],
)
def test_bad_undo_changes_nothing(command: str, error: str) -> None:
    result = play("3C", command, "undo")
    assert result.errors == [error]
    assert result.boards[-1] == EMPTY_5


def test_reset() -> None:
    result = play("3C", "2C", "pass", "reset", "2B", "pass", "pass")
    assert "New game on an empty board." in result.out
    assert result.boards[-2] == EMPTY_5
    assert result.boards[-1][3] == ".x..."
    # The pass before the reset is forgotten: the game ends only at the last two passes.
    assert result.out.count("the game is over") == 1
    assert ended_by_passes(result.out)


def test_handicap() -> None:
    result = play("handicap 3", "handicap 2", "5E", size=9)
    assert "Black has 3 handicap stones." in result.out
    assert result.errors == ["error: handicap 2: handicap stones were already placed"]
    stones = result.boards[1]
    assert [stones[9 - row][col] for row, col in [(7, 6), (3, 2), (3, 6)]] == ["x"] * 3  # 7G 3C 3G
    assert sum(row.count("x") for row in stones) == 3
    # The engine keeps black to move after handicap stones (the kata's rule).
    assert "Black plays 5E." in result.out


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (["handicap"], "error: handicap needs a number, like 'handicap 2'"),
        (["handicap x"], "error: handicap: 'x' is not a whole number"),
        (["handicap 6"], "error: handicap 6: a 9x9 board takes 1 to 5 handicap stones"),
        (["handicap " + "9" * 30], f"error: handicap {'9' * 30}: a 9x9 board takes 1 to 5 handicap stones"),
        (["handicap -2"], "error: handicap -2: a 9x9 board takes 1 to 5 handicap stones"),
        (["5E", "handicap 2"], "error: handicap 2: the game has already started"),
    ],
)
def test_bad_handicap(lines: list[str], error: str) -> None:
    assert play(*lines, size=9).errors == [error]


def test_handicap_needs_a_standard_board() -> None:
    assert play("handicap 1").errors == [
        "error: handicap 1: handicap is only for 9x9, 13x13 and 19x19 boards, not 5x5"
    ]


def test_two_passes_end_the_game() -> None:
    result = play("3C", "pass", "pass", "2B", "quit")
    assert "White passes." in result.out and "Black passes." in result.out
    assert result.status == 0
    # The area score, komi 0.5 for white, and the winner: black's one stone owns the board.
    assert result.out.splitlines()[-3:] == [
        GAME_OVER,
        "Score by area: black 25, white 0 + 0.5 komi = 0.5.",
        "Black wins by 24.5.",
    ]
    assert "2B" not in result.out  # nothing after the end is read


def test_the_score_counts_stones_and_surrounded_points() -> None:
    # Black walls off column A (10 points), white columns C to E (15): white wins by 5.5.
    lines = ["5A", "5C", "4B", "4C", "3B", "3C", "2B", "2C", "1B", "1C", "5B", "pass", "pass"]
    result = play(*lines)
    assert result.out.splitlines()[-2:] == [
        "Score by area: black 10, white 15 + 0.5 komi = 15.5.",
        "White wins by 5.5.",
    ]
    assert result.status == 0


@pytest.mark.parametrize(
    "lines",
    [
        ["pass", "undo", "pass"],  # the first pass was taken back
        ["pass", "3C", "pass"],
        ["pass", "help", "pass x", "3C", "pass"],
        ["3C", "pass", "undo", "pass"],
        ["pass", "reset", "pass"],
    ],
)
def test_passes_that_are_not_two_in_a_row(lines: list[str]) -> None:
    result = play(*lines)
    assert "game is over" not in result.out
    assert result.last_line.startswith("End of input")


def test_a_pass_after_undo_can_still_end_the_game() -> None:
    result = play("3C", "pass", "2C", "undo", "pass")
    assert ended_by_passes(result.out)


def test_end_of_input_stops_with_status_1() -> None:
    # The game did not end (no two passes, no quit): the status says so.
    empty = run("play", stdin="")
    assert (empty.status, empty.err) == (1, "")
    assert empty.boards == [["." * 9] * 9]
    assert empty.last_line == "End of input: stopped after 0 turns."
    unfinished_line = run("play", stdin="5E")
    assert unfinished_line.status == 1
    assert unfinished_line.boards[-1][4] == "....x...."


def test_piped_input_with_an_illegal_move_is_reported_and_goes_on() -> None:
    result = play("3C", "3C", "3D", "pass", "pass")
    assert result.errors == ["error: illegal move 3C for white: the point is occupied"]
    assert result.status == 0 and ended_by_passes(result.out)
    unfinished = play("3C", "3C")
    assert unfinished.errors == result.errors and unfinished.status == 1


def test_quit() -> None:
    result = play("3C", "QUIT", "2C")
    assert result.last_line == "Stopped after 1 turn."
    assert result.status == 0
    assert "2C" not in result.out
    assert play("quit now").errors == ["error: quit takes no arguments"]


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("hello", "error: unknown command 'hello' (type help for the commands)"),
        ("pas", "error: unknown command 'pas' (type help for the commands)"),
        ("3C 2C", "error: play one point per line"),
        ("pass 2", "error: pass takes no arguments"),
        ("reset all", "error: reset takes no arguments"),
        ("6A", 'error: coordinate "6A" is off the board: rows are 1 to 5, not 6'),
        ("0A", 'error: coordinate "0A" is off the board: rows are 1 to 5, not 0'),
        ("3F", 'error: coordinate "3F" is off the board: column F is past the last column E'),
        ("3I", 'error: invalid coordinate "3I": there is no column I; the columns are A-E'),
        ("33", 'error: invalid coordinate "33": expected a row number and a column letter, like'
         " '7A' or 'A7'"),
        (NINES + "A", f'error: coordinate "{NINES}A" is off the board: rows are 1 to 5, not'
         f" {NINES}"),
    ],
)
def test_malformed_commands_are_reported_and_change_nothing(line: str, error: str) -> None:
    result = play(line, "   ", "", "\t")
    assert result.errors == [error]
    assert "Traceback" not in result.out
    assert result.boards == [EMPTY_5]
    assert result.out.count("Black to play (turn 1).") == 2


def test_undecodable_input_is_an_unknown_command() -> None:
    result = run("play", "--size", "5", stdin=b"\xff\xfe\n3C\n")
    assert (result.status, result.err) == (1, "")
    assert result.errors == ["error: unknown command '\ufffd\ufffd' (type help for the commands)"]
    assert result.boards[-1][2] == "..x.."


def test_help() -> None:
    result = play("help", "3C")
    for command in ["pass", "undo [n]", "reset", "handicap n", "help", "quit"]:
        assert f"\n  {command} " in result.out
    assert result.errors == []


def test_a_rectangular_board() -> None:
    result = run("play", "--size", "3", "--width", "7", stdin="1G\n")
    assert result.status == 1
    assert "gokata: 3x7 board." in result.out
    assert result.boards[-1] == [".......", ".......", "......x"]


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["--size", "0"], "argument --size: must be 1 to 25, not 0"),
        (["--size", "26"], "argument --size: must be 1 to 25, not 26"),
        (["--size", "-3"], "argument --size: must be 1 to 25, not -3"),
        (["--size", "abc"], "argument --size: 'abc' is not a whole number"),
        (["--size", "9.5"], "argument --size: '9.5' is not a whole number"),
        (["--width", "0"], "argument --width: must be 1 to 25, not 0"),
        (["--size", "9", "--width", "26"], "argument --width: must be 1 to 25, not 26"),
        (["--size"], "argument --size: expected one argument"),
    ],
)
def test_bad_board_sizes_are_usage_errors(args: list[str], complaint: str) -> None:
    result = run("play", *args, stdin="5E\n")
    assert result.status == 2
    assert result.out == ""
    assert result.err.splitlines()[-1] == f"gokata play: error: {complaint}"
    assert "Traceback" not in result.err


def test_no_command_is_a_usage_error() -> None:
    result = run()
    assert result.status == 2
    last = result.err.splitlines()[-1]
    assert last == "gokata: error: the following arguments are required: COMMAND"


def test_python_dash_m_gokata() -> None:
    result = run("play", "--size", "5", stdin="3C\nquit\n", command=[sys.executable, "-m", "gokata"])
    assert result.status == 0
    assert result.boards[-1][2] == "..x.."


def test_output_is_flushed_before_the_next_line_is_read() -> None:
    """A player at the other end of a pipe sees each answer before typing the next command."""
    with subprocess.Popen(
        gokata_command() + ["play", "--size", "5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        watchdog = threading.Timer(30, process.kill)
        watchdog.start()
        try:

            def read_until(line: str) -> None:
                assert process.stdout is not None
                while (got := process.stdout.readline()) != line + "\n":
                    assert got, f"output ended before {line!r}"

            read_until("Black to play (turn 1).")
            process.stdin.write("3C\n")
            process.stdin.flush()
            read_until("White to play (turn 2).")
            process.stdin.write("quit\n")
            process.stdin.flush()
            read_until("Stopped after 1 turn.")
            assert process.wait() == 0
        finally:
            watchdog.cancel()


def start_play() -> subprocess.Popen[str]:
    """``gokata play --size 5`` with pipes, once its first prompt has been read."""
    process = subprocess.Popen(
        gokata_command() + ["play", "--size", "5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    while process.stdout.readline() != "Black to play (turn 1).\n":
        pass
    return process


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signal")
def test_ctrl_c_stops_quietly() -> None:
    with start_play() as process:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert (process.returncode, err) == (130, "")


def test_a_closed_output_pipe_stops_with_one_line() -> None:
    read_end, write_end = os.pipe()
    with subprocess.Popen(
        gokata_command() + ["play"],
        stdin=subprocess.PIPE,
        stdout=write_end,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        os.close(write_end)
        with open(read_end) as output:  # like `gokata play | head -1`
            assert output.readline().startswith("gokata: 9x9 board.")
        _, err = process.communicate("help\n" * 5000, timeout=30)
    assert (process.returncode, err) == (1, "gokata play: cannot write the output: its reader closed it\n")


# In-process: main() reads sys.stdin and writes sys.stdout.


def test_main_in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("2A\n1A\nundo\n1B\nbad\npass\npass\n"))
    assert main(["play", "--size", "4", "--width", "3"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "error: unknown command 'bad' (type help for the commands)" in out
    assert ended_by_passes(out)
    assert Run(0, out, err).boards[-1] == ["...", "...", "x..", ".o."]


def test_main_in_process_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--size", "0"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("gokata play: error: argument --size: must be 1 to 25, not 0\n")
    assert main([]) == 2
    assert main(["unknown"]) == 2
    capsys.readouterr()
    assert main(["--version"]) == 0
    assert re.fullmatch(r"gokata \S+\n", capsys.readouterr().out)


# Any sequence of commands, sensible or not, is handled without an exception.

_COMMANDS = st.one_of(
    st.sampled_from(["pass", "undo", "undo 2", "undo 0", "undo -1", "reset", "handicap 2", "help"]),
    st.builds(lambda row, col: f"{row}{col}", st.integers(0, 6), st.sampled_from("ABCDEFIJ")),
    st.builds(lambda row, col: f"{col}{row}", st.integers(0, 6), st.sampled_from("abcdef")),
    st.text(max_size=8).filter(lambda text: "\n" not in text and "\r" not in text),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_COMMANDS, max_size=40), st.sampled_from([(5, 5), (9, 9), (2, 7)]))
def test_any_commands_keep_the_session_consistent(lines: list[str], size: tuple[int, int]) -> None:
    out = io.StringIO()
    session = PlaySession(Go(*size), out)
    ended = session.run(io.StringIO("".join(line + "\n" for line in lines)))
    assert ended == session.over
    assert len(session.passes) == session.game.move_number
    assert ended_by_passes(out.getvalue()) == (session.passes[-2:] == [True, True])
    if not session.over:
        assert out.getvalue().splitlines()[-1].startswith("End of input: stopped after")


# A person at a terminal gets a prompt; piped input does not


def test_a_prompt_before_each_command_at_a_terminal() -> None:
    out = io.StringIO()
    session = PlaySession(Go(5), out, prompt=True)
    assert session.run(io.StringIO("3C\npass\npass\n"))
    text = out.getvalue()
    assert text.count("\n> ") == 3  # before each of the three commands, on a line of its own
    assert "> Black plays 3C." in text  # the echo follows the typed line (the terminal's newline)
    unfinished = io.StringIO()
    assert not PlaySession(Go(5), unfinished, prompt=True).run(io.StringIO("3C\n"))
    assert unfinished.getvalue().endswith("> \nEnd of input: stopped after 1 turn.\n")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminal")
def test_the_prompt_on_a_real_terminal() -> None:
    import pty

    leader, follower = pty.openpty()
    with subprocess.Popen(
        gokata_command() + ["play", "--size", "5"], stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        os.close(follower)
        os.write(leader, b"3C\nquit\n")
        out, err = process.communicate(timeout=30)
    os.close(leader)
    assert (process.returncode, err) == (0, b"")
    assert out.decode().count("> ") == 2


def test_no_prompt_with_piped_input() -> None:
    assert "> " not in play("3C", "quit").out


# gokata solve and play: Ctrl-C, a closed output and a full disk end with one line, no traceback

PUZZLE = "3\n1\n.B.\nBW.\n.B.\nB 1 2\n"


def blocked_in_read(pid: int) -> bool:
    """Whether the process is in a read(2) of its standard input (Linux)."""
    try:
        with open(f"/proc/{pid}/syscall") as syscall:
            fields = syscall.read().split()
    except OSError:
        return False
    return len(fields) > 1 and fields[0] == "0" and int(fields[1], 16) == 0


@pytest.mark.skipif(not os.path.exists("/proc/self/syscall"), reason="needs Linux /proc")
def test_solve_on_ctrl_c() -> None:
    with subprocess.Popen(
        gokata_command() + ["solve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        # Reading the puzzle, Python's handlers set (or gone, which fails below).
        wait_until(
            lambda: process.poll() is not None or blocked_in_read(process.pid),
            30,
            "gokata solve blocked reading its input",
        )
        assert process.poll() is None
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (130, "", "gokata solve: interrupted\n")


def test_solve_into_a_closed_pipe() -> None:
    # Like `gokata solve | head -0`: the reader is gone before the answer is written.
    read_end, write_end = os.pipe()
    os.close(read_end)
    done = subprocess.run(
        gokata_command() + ["solve"], input=PUZZLE.encode(), stdout=write_end, stderr=subprocess.PIPE, timeout=60
    )
    os.close(write_end)
    assert (done.returncode, done.stderr) == (1, b"gokata solve: cannot write the output: its reader closed it\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("args", "stdin"),
    [(["solve"], PUZZLE), (["play", "--size", "5"], "3C\npass\npass\n"), (["play"], "")],
)
def test_a_full_disk(args: list[str], stdin: str) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            gokata_command() + args, input=stdin.encode(), stdout=full, stderr=subprocess.PIPE, timeout=60
        )
    assert done.returncode == 1
    assert done.stderr.decode() == f"gokata {args[0]}: cannot write the output: No space left on device\n"

