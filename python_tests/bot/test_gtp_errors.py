"""``gokata gtp``'s refusals, through the installed command: a missing argument is a syntax error
naming it, every other error names the value refused (and, for a vertex, what is wrong with
it), the analysis commands refuse arguments they cannot read, a refused command changes
nothing, no input makes the engine fail, and no log line shows a NaN."""

from __future__ import annotations

import random
import subprocess

import pytest

from support.server_process import gokata_command

ENGINE = [*gokata_command(), "gtp", "--playouts", "30", "--threads", "1", "--seed", "3"]


def session(*commands: str) -> tuple[list[str], str]:
    """The replies to ``commands`` (each without its final empty line), and the log."""
    result = subprocess.run(
        ENGINE, input="".join(c + "\n" for c in commands).encode(), capture_output=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert out.endswith("\n\n"), out
    return out[:-2].split("\n\n"), result.stderr.decode()


def answer(*commands: str) -> str:
    """The reply to the last of ``commands``."""
    return session(*commands)[0][-1]


ANALYSIS_USAGE = "[COLOR] [INTERVAL] [interval N] [minmoves N] [maxmoves N] [avoid|allow COLOR VERTICES MOVES]"


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("known_command", "missing COMMAND (usage: known_command COMMAND)"),
        ("boardsize", "missing SIZE (usage: boardsize SIZE)"),
        ("komi", "missing KOMI (usage: komi KOMI)"),
        ("play", "missing COLOR (usage: play COLOR VERTEX)"),
        ("play b", "missing VERTEX (usage: play COLOR VERTEX)"),
        ("genmove", "missing COLOR (usage: genmove COLOR)"),
        ("reg_genmove", "missing COLOR (usage: reg_genmove COLOR)"),
        ("kgs-genmove_cleanup", "missing COLOR (usage: kgs-genmove_cleanup COLOR)"),
        ("final_status_list", "missing STATUS (usage: final_status_list STATUS)"),
        ("time_settings 60 0", "missing BYO_YOMI_STONES (usage: time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES)"),
        ("time_left", "missing COLOR (usage: time_left COLOR TIME STONES)"),
        ("time_left b 10", "missing STONES (usage: time_left COLOR TIME STONES)"),
        ("kgs-time_settings", "missing SYSTEM (usage: kgs-time_settings none|absolute|byoyomi|canadian ...)"),
        ("kgs-time_settings absolute", "missing MAIN_TIME (usage: kgs-time_settings absolute MAIN_TIME)"),
        (
            "kgs-time_settings canadian 60 30",
            "missing BYO_YOMI_STONES (usage: kgs-time_settings canadian MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES)",
        ),
        ("fixed_handicap", "missing NUMBER_OF_STONES (usage: fixed_handicap NUMBER_OF_STONES)"),
        ("place_free_handicap", "missing NUMBER_OF_STONES (usage: place_free_handicap NUMBER_OF_STONES)"),
        ("set_free_handicap", "missing VERTEX (usage: set_free_handicap VERTEX VERTEX ...)"),
        ("loadsgf", "missing FILE (usage: loadsgf FILE [MOVE_NUMBER])"),
        ("lz-analyze interval", f"missing N (usage: lz-analyze {ANALYSIS_USAGE})"),
        ("lz-analyze b avoid b D4", f"missing MOVES (usage: lz-analyze {ANALYSIS_USAGE})"),
        ("lz-genmove_analyze b interval", f"missing N (usage: lz-genmove_analyze {ANALYSIS_USAGE})"),
    ],
)
def test_a_missing_argument_is_a_syntax_error_naming_it(command: str, error: str) -> None:
    replies, _ = session("boardsize 9", command, "showboard", "7 name")
    assert replies[1] == f"? syntax error: {error}"
    assert "x" not in replies[2] and "o" not in replies[2], "nothing was played"
    assert replies[3] == "=7 gokata"


def test_known_command_answers_for_one_command_name() -> None:
    assert session("known_command", "known_command play", "known_command kata-analyze") == (
        [
            "? syntax error: missing COMMAND (usage: known_command COMMAND)",
            "= true",
            "= false",
        ],
        "",
    )
    assert answer("known_command play genmove") == '? syntax error: unexpected "genmove" (usage: known_command COMMAND)'


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("play black Z9", 'invalid coordinate "Z9": the columns of this 9x9 board are A-H, J'),
        ("play b I5", 'invalid coordinate "I5": there is no column I; the columns of this 9x9 board are A-H, J'),
        ("play b J10", 'invalid coordinate "J10": the rows of this 9x9 board are 1 to 9'),
        ("play b A0", 'invalid coordinate "A0": the rows of this 9x9 board are 1 to 9'),
        ("play b A01", 'invalid coordinate "A01": a row number has no leading zero'),
        ("play b 4D", 'invalid coordinate "4D": expected a column letter and a row number, like D4, or pass'),
        ("play purple D4", 'invalid color "purple"'),
        ("boardsize x", 'invalid size "x": not a whole number'),
        ("boardsize 26", 'unacceptable size "26": sizes are 1 to 25'),
        ("boardsize -3", 'unacceptable size "-3": sizes are 1 to 25'),
        ("komi nan", 'invalid komi "nan": not a finite number'),
        ("komi 1e9", 'invalid komi "1e9": komi is -10000 to 10000'),
        ("genmove purple", 'invalid color "purple"'),
        ("final_status_list maybe", 'invalid status "maybe": final_status_list takes dead, alive or seki'),
        ("time_settings 60 x 0", 'invalid time "x"'),
        ("time_left b 10 x", 'invalid number of stones "x"'),
        ("time_left x 1 1", 'invalid color "x"'),
        (
            "kgs-time_settings fischer 1 2",
            'invalid time system "fischer": kgs-time_settings takes none, absolute, byoyomi or canadian',
        ),
        ("fixed_handicap x", 'invalid handicap "x": not a number of stones'),
        ("fixed_handicap 1", 'invalid handicap "1": 9x9 takes 2 to 9 stones'),
        ("fixed_handicap 99999999999999999999999", 'invalid handicap "99999999999999999999999": 9x9 takes 2 to 9 stones'),
        ("place_free_handicap 81", 'invalid handicap "81": 9x9 takes 2 to 80 stones'),
        ("set_free_handicap A1 a1", "bad vertex list: A1 twice"),
        ("set_free_handicap A1 Z9", 'bad vertex list: invalid coordinate "Z9": the columns of this 9x9 board are A-H, J'),
        ("set_free_handicap A1 pass", 'bad vertex list: "pass" is not a point'),
        ("set_free_handicap A1", "bad vertex list: 1 stone; a handicap on this 9x9 board is 2 to 80 stones"),
        ("loadsgf /no/such/file.sgf", 'cannot load file "/no/such/file.sgf": No such file or directory (os error 2)'),
        ("frobnicate", 'unknown command "frobnicate"'),
        ("kata-analyze b 10", 'unknown command "kata-analyze"'),
        ("name now", 'syntax error: unexpected "now" (name takes no arguments)'),
        ("clear_board all", 'syntax error: unexpected "all" (clear_board takes no arguments)'),
        ("undo 3", 'syntax error: unexpected "3" (undo takes no arguments)'),
        ("play b D4 E5", 'syntax error: unexpected "E5" (usage: play COLOR VERTEX)'),
        ("x" * 100, f'unknown command "{"x" * 40}..."'),
    ],
)
def test_every_error_names_the_value_refused(command: str, error: str) -> None:
    assert answer("boardsize 9", command) == f"? {error}"


def test_an_illegal_move_names_the_point_the_colour_and_why() -> None:
    replies, _ = session("boardsize 9", "play b d4", "play w D4", "play b pass", "play w e5", "showboard")
    assert replies[2] == "? illegal move D4 for white: the point is occupied"
    suicide = session("boardsize 3", "play b A2", "play b B1", "play w a1")[0][-1]
    assert suicide == "? illegal move A1 for white: suicide (the stone would have no liberty)"


@pytest.mark.parametrize(
    "command",
    [
        "lz-analyze purple",
        "lz-analyze b purple",
        "lz-analyze 10 purple",
        "lz-analyze ownership true",
        "lz-analyze b 10 20",
        "lz-analyze b w",
        "lz-analyze -5",
        "lz-analyze 1.5",
        "lz-analyze interval x",
        "lz-analyze minmoves many",
        "lz-analyze avoid purple D4 1",
        "lz-analyze avoid b D4,Z9 1",
        "lz-analyze allow b D4 soon",
        "lz-genmove_analyze purple",
        "lz-genmove_analyze b purple",
        "lz-genmove_analyze b interval x",
    ],
)
def test_analysis_commands_refuse_what_they_cannot_read(command: str) -> None:
    replies, _ = session("boardsize 9", f"5 {command}", "showboard")
    refusal = replies[1]
    assert refusal.startswith("?5 "), replies
    bad = {
        "lz-analyze b 10 20": '"20"',
        "lz-analyze b w": '"w"',
        "lz-analyze avoid b D4,Z9 1": '"Z9"',
        "lz-analyze ownership true": '"ownership"',
    }.get(command, f'"{command.split()[-1]}"' if "purple" not in command else '"purple"')
    assert bad in refusal, (bad, refusal)
    assert "info move" not in refusal
    assert "x" not in replies[2] and "o" not in replies[2], "lz-genmove_analyze played nothing"


def test_analysis_arguments_leela_zero_sends_are_still_read() -> None:
    # Each analysis stops at the next command; lz-genmove_analyze plays its move.
    replies, _ = session(
        "boardsize 9",
        "lz-analyze b 10 minmoves 2 avoid w D4,pass 5",
        "lz-analyze interval 10 white",
        "lz-genmove_analyze b 10 allow b E5,D4 1",
        "name",
    )
    assert replies[1].startswith("=\ninfo move ") and replies[2].startswith("=\ninfo move "), replies
    assert replies[3].startswith("=\n") and replies[3].split("\n")[-1].startswith("play "), replies
    assert replies[4] == "= gokata"


def test_genmove_after_two_passes_logs_why_it_did_not_search_and_no_nan() -> None:
    replies, log = session(
        "boardsize 9", "play b pass", "play w pass", "genmove w", "genmove b", "reg_genmove w", "kgs-genmove_cleanup w"
    )
    assert replies[3] == "= pass", replies
    lines = log.splitlines()
    assert len(lines) == 4, log
    assert lines[0].startswith(
        "gokata: white pass (no search: the last turn was a pass, and passing now ends the game with a win, "
    ), log
    assert "visits, win rate 0." in lines[1], log
    assert "nan" not in log.lower(), log


def test_a_refused_command_changes_nothing() -> None:
    valid = ["boardsize 9", "komi 6.5", "time_settings 60 0 0", "play b D4", "play w pass", "play b E5"]
    refused = [
        "boardsize", "boardsize 26", "komi", "komi nan", "play b", "play b Z9", "play w D4", "play b E5 F6",
        "undo 2", "clear_board now", "fixed_handicap 2", "set_free_handicap A1 B2", "time_settings 1 2",
        "time_left b", "loadsgf /no/such/file.sgf", "genmove", "genmove purple", "lz-analyze purple",
        "lz-genmove_analyze b purple", "final_status_list", "quit now",
    ]
    # In the middle of the game: D4 is taken, the board is not empty.
    mixed = valid[:4] + refused + valid[4:]
    final = ["showboard", "final_score", "printsgf"]
    plain_replies = session(*valid, *final)[0]
    mixed_replies = session(*mixed, *final)[0]
    assert [reply.startswith("?") for reply in mixed_replies[4 : 4 + len(refused)]] == [True] * len(refused)
    assert mixed_replies[:4] + mixed_replies[4 + len(refused) :] == plain_replies


def test_random_arguments_never_make_the_engine_fail() -> None:
    rng = random.Random(11)
    names = [
        "known_command", "boardsize", "komi", "play", "genmove", "reg_genmove", "kgs-genmove_cleanup", "undo",
        "final_score", "final_status_list", "time_settings", "time_left", "kgs-time_settings", "fixed_handicap",
        "place_free_handicap", "set_free_handicap", "loadsgf", "lz-analyze", "lz-genmove_analyze", "showboard",
        "clear_board", "printsgf", "",
    ]
    words = [
        "b", "w", "black", "WHITE", "purple", "pass", "A1", "a1", "T19", "Z25", "I5", "J9", "A0", "A01", "0", "1",
        "2", "5", "9", "25", "26", "-1", "-0", "1e9", "nan", "inf", "7.5", "18446744073709551616", "interval",
        "avoid", "allow", "minmoves", "none", "absolute", "byoyomi", "canadian", "dead", "alive", "seki", "D4,E5",
        ",", "/", "/no/such/file", "é", "\u00ff", "x" * 200,
    ]
    commands = ["boardsize 5"]
    for _ in range(300):
        name = rng.choice(names)
        commands.append(" ".join([name, *rng.choices(words, k=rng.randrange(5))]))
    commands.append("9 name")
    result = subprocess.run(
        [*gokata_command(), "gtp", "--playouts", "10", "--threads", "1", "--seed", "5"],
        input="".join(c + "\n" for c in commands).encode(),
        capture_output=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert b"panicked" not in result.stderr and b"nan" not in result.stderr.lower(), result.stderr
    out = result.stdout.decode()
    assert out.endswith("=9 gokata\n\n"), out[-2000:]
    for reply in out[:-2].split("\n\n"):
        assert reply[:1] in ("=", "?"), reply
        if reply.startswith("?"):
            message = reply.split(" ", 1)[1] if " " in reply else ""
            assert message, "every refusal says why"
