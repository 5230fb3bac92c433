"""``gokata.engine``'s faults, each an exception that says what happened: a timeout (the engine
killed, and started again by the next call), an engine killed with ``kill -9`` in the middle of
a ``genmove`` or dying with words on its standard error, an answer that is not GTP, a move off
the board, an engine that cannot start; GTP's corners (CRLF, ids, empty lines, answers on
several lines); and no engine process left behind: after the ``with`` block, after an engine
dropped unclosed, after Python exits, and after Python is killed with ``kill -9``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from gokata import Go
from gokata.engine import EngineError, EngineProtocolError, EngineTerminated, EngineTimeout, GtpEngine
from gokata.engine._gtp import Reply, make_reply, parse_analysis, parse_score
from support.waiting import wait_until

HERE = Path(__file__).resolve().parent
STANDIN = str(HERE.parent / "support" / "standin_gtp.py")
ODDITIES = str(HERE.parent / "support" / "gtp_oddities_standin.py")
GNUGO = "/usr/games/gnugo"
needs_gnugo = pytest.mark.skipif(not os.access(GNUGO, os.X_OK), reason="GNU Go is not installed (scripts/test installs it)")


def standin(*options: str) -> list[str]:
    return [sys.executable, STANDIN, *options]


def oddities(*options: str) -> list[str]:
    return [sys.executable, ODDITIES, *options]


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie nobody reaps counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def test_a_timeout_kills_the_engine_and_the_next_call_starts_it_again() -> None:
    with GtpEngine(standin("--delay", "30")) as engine:
        first = engine.pid
        assert first is not None
        started = time.monotonic()
        with pytest.raises(EngineTimeout) as timed_out:
            engine.play(Go(9), timeout=0.5)
        assert time.monotonic() - started < 5
        assert timed_out.value.command == "genmove black" and timed_out.value.timeout == 0.5
        assert "no answer to 'genmove black' within 0.5 s" in str(timed_out.value)
        assert isinstance(timed_out.value, TimeoutError) and isinstance(timed_out.value, EngineError)
        assert gone(first)
        assert "genmove" in engine.send("list_commands")
        assert engine.pid not in (None, first) and engine.starts == 2


def test_an_engine_killed_in_the_middle_of_a_genmove_is_terminated_with_its_status() -> None:
    with GtpEngine(standin("--delay", "30")) as engine:
        pid = engine.pid
        assert pid is not None
        threading.Timer(0.5, os.kill, (pid, signal.SIGKILL)).start()
        with pytest.raises(EngineTerminated) as died:
            engine.play(Go(9))
        assert died.value.returncode == -signal.SIGKILL
        assert died.value.command == "genmove black"
        assert f"killed by signal {int(signal.SIGKILL)}" in str(died.value) and "during 'genmove black'" in str(died.value)
        engine.send("boardsize 9")  # started again
        assert engine.pid != pid and engine.starts == 2


def test_an_engine_that_dies_says_its_exit_status_and_last_words() -> None:
    with GtpEngine(oddities("--die")) as engine:
        with pytest.raises(EngineTerminated) as died:
            engine.play(Go(9))
    assert died.value.returncode == 7
    assert died.value.stderr == ["oddities: out of cheese"]
    assert "status 7" in str(died.value) and "out of cheese" in str(died.value)


def test_an_answer_that_is_not_gtp_is_an_error_naming_it() -> None:
    with GtpEngine(oddities("--malformed")) as engine:
        pid = engine.pid
        with pytest.raises(EngineProtocolError) as malformed:
            engine.play(Go(9))
        assert malformed.value.command == "genmove black" and malformed.value.answer == "thinking... D5"
        assert "not a GTP reply" in str(malformed.value) and "'thinking... D5'" in str(malformed.value)
        assert engine.send("name") == "Oddities" and engine.pid != pid, "killed, and started again"


def test_a_move_off_the_board_is_an_error_naming_it() -> None:
    with GtpEngine(standin("--nonsense")) as engine:
        with pytest.raises(EngineProtocolError, match=r"'genmove black' is not a move on a 9x9 board: 'Z99'"):
            engine.play(Go(9))
        assert "genmove" in engine.send("list_commands"), "the engine goes on"


def test_an_engine_that_cannot_start_is_an_error() -> None:
    with pytest.raises(EngineError, match="cannot start '/no/such/engine'"):
        GtpEngine(["/no/such/engine", "--mode", "gtp"])
    with pytest.raises(EngineTerminated, match="during 'name'") as died:
        GtpEngine([sys.executable, "-c", "import sys; sys.stderr.write('no GTP here\\n')"])
    assert died.value.returncode == 0 and died.value.stderr == ["no GTP here"]


def test_crlf_ids_empty_lines_and_answers_on_several_lines() -> None:
    with GtpEngine(oddities("--crlf", "--blank-lines", "--move", "b2")) as engine:
        assert (engine.name, engine.version) == ("Oddities", "0.1")
        assert engine.send("showboard") == "   A B C\n 3 . . . 3\n 2 . X . 2\n 1 . . . 1\n   A B C"
        assert engine.play(Go(3)) == "2B"
        with pytest.raises(EngineError, match="refused 'nonsense': unknown command"):
            engine.send("nonsense")
    with GtpEngine(oddities()) as engine, pytest.raises(ValueError, match="one command at a time"):
        engine.send("name\nversion")


def test_replies_are_framed_by_the_protocol_core() -> None:
    assert make_reply("name", ["=12 GNU Go"]) == Reply(True, 12, "GNU Go")
    assert make_reply("name", ["= GNU Go"]) == Reply(True, None, "GNU Go")
    assert make_reply("x", ["?3 unknown command"]).ok is False
    assert make_reply("showboard", ["= ", "   A B", " 2 . . 2"]).text == "   A B\n 2 . . 2"
    assert make_reply("list_commands", ["= name", "version"]).text == "name\nversion"
    with pytest.raises(EngineProtocolError, match="not a GTP reply"):
        make_reply("name", ["GNU Go"])
    assert parse_score("final_score", "B+3.5").margin == 3.5
    assert parse_score("final_score", "W+R").winner == "white" and parse_score("final_score", "W+R").margin is None
    assert parse_score("final_score", "0").winner is None
    with pytest.raises(EngineProtocolError, match="is not a score"):
        parse_score("final_score", "black wins")


def test_analysis_lines_of_lz_analyze_and_kata_analyze() -> None:
    lz = "info move D4 visits 10 winrate 5500 prior 1200 order 1 pv D4 C3 info move pass visits 20 winrate 4000 prior 10 order 0 pv pass D4"
    [first, second] = parse_analysis("lz-analyze", lz, 9, 10000.0)
    assert (first.move, first.visits, first.winrate, first.prior, first.pv, first.order) == (None, 20, 0.4, 0.001, [None, "4D"], 0)
    assert (second.move, second.winrate, second.prior, second.pv) == ("4D", 0.55, 0.12, ["4D", "3C"])
    kata = (
        "info move Q16 visits 7 edgeVisits 7 utility 0.1 winrate 0.48 scoreMean -0.4 scoreLead -0.5 prior 0.09 "
        "lcb 0.4 order 0 pv Q16 D4 pvVisits 7 3 ownership 0.1 -0.2 0.3"
    )
    [only] = parse_analysis("kata-analyze", kata, 19, 1.0)
    assert (only.move, only.visits, only.winrate, only.prior, only.score_lead, only.pv) == ("16Q", 7, 0.48, 0.09, -0.5, ["16Q", "4D"])
    with pytest.raises(EngineProtocolError, match="has a report"):
        parse_analysis("lz-analyze", "info move D4 winrate 5000", 9, 10000.0)


@needs_gnugo
def test_no_engine_is_left_after_the_with_block_or_when_dropped_unclosed() -> None:
    with GtpEngine([GNUGO, "--mode", "gtp"]) as engine:
        pid = engine.pid
        assert pid is not None and not gone(pid)
    assert gone(pid)
    with pytest.raises(EngineError, match="is closed"):
        engine.send("name")
    engine.close()  # again: nothing
    dropped = GtpEngine([GNUGO, "--mode", "gtp"])
    pid = dropped.pid
    assert pid is not None
    del dropped
    wait_until(lambda: gone(pid), 10, "the engine of an engine dropped unclosed to end")


@needs_gnugo
def test_an_engine_started_through_a_wrapper_script_ends_with_it() -> None:
    """What a wrapper script starts (here the engine and a helper in the background, which no
    closed pipe would end) is one process group with it: all of it goes with the `with` block,
    not only the wrapper."""
    with GtpEngine(["sh", "-c", f"sleep 300 & {GNUGO} --mode gtp; true"]) as engine:
        assert engine.name == "GNU Go" and engine.pid is not None
        wrapper = engine.pid
        started = [int(pid) for pid in Path(f"/proc/{wrapper}/task/{wrapper}/children").read_text().split()]
        assert len(started) == 2 and not any(gone(pid) for pid in started)
    wait_until(lambda: all(gone(pid) for pid in started), 10, "what the wrapper started to end with the block")


def python_holding_an_engine(exit_how: str) -> tuple[subprocess.Popen[str], int]:
    """A Python process that starts GNU Go, prints its process id, then ``exit_how``: ``sleep``
    (until killed) or ``exit`` (at once, the engine not closed)."""
    script = textwrap.dedent(
        f"""
        import sys, time
        from gokata.engine import GtpEngine
        engine = GtpEngine([{GNUGO!r}, "--mode", "gtp"])
        print(engine.pid, flush=True)
        if {exit_how!r} == "sleep":
            time.sleep(60)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, int(process.stdout.readline())


@needs_gnugo
def test_no_engine_outlives_python_killed_with_kill_9() -> None:
    process, engine_pid = python_holding_an_engine("sleep")
    assert not gone(engine_pid)
    process.kill()
    process.wait(10)
    wait_until(lambda: gone(engine_pid), 10, "the engine to end with the Python that started it")


@needs_gnugo
def test_no_engine_outlives_python_exiting_without_closing_it() -> None:
    process, engine_pid = python_holding_an_engine("exit")
    assert process.wait(20) == 0
    wait_until(lambda: gone(engine_pid), 10, "the engine to end when Python exits")
