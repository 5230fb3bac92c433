"""Byte-exact transcripts of ``gokata gtp``: what GTP version 2 says of ids, replies, comments,
control characters, line endings, vertices, board sizes and komi, each command's answers and
errors, and 1,000 commands sent at once answered in order. The engine runs as the command a
GUI starts (``python -m gokata gtp``), with few playouts, one thread and a seed."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gokata import Go

ENGINE = [sys.executable, "-m", "gokata", "gtp", "--playouts", "60", "--threads", "1", "--seed", "7"]


def transcript(commands: bytes, *extra: str, timeout: float = 60) -> bytes:
    """Everything the engine writes on its output for ``commands`` (its input then closes)."""
    result = subprocess.run([*ENGINE, *extra], input=commands, capture_output=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return result.stdout


def replies(text: bytes) -> list[str]:
    """The replies of a transcript, each without its final empty line."""
    decoded = text.decode()
    assert decoded.endswith("\n\n") or decoded == "", decoded
    return decoded[:-2].split("\n\n") if decoded else []


def test_ids_are_echoed_and_every_reply_ends_with_an_empty_line() -> None:
    assert transcript(b"1 protocol_version\n22 name\nversion\n") == (
        b"=1 2\n\n=22 gokata\n\n= " + __import__("gokata").__version__.encode() + b"\n\n"
    )


def test_comments_control_characters_crlf_and_empty_lines() -> None:
    commands = b"# a comment line\n\n   \r\n5 na\x01me # trailing comment\r\nprotocol_version\t\r\n\x07\n"
    assert transcript(commands) == b"=5 gokata\n\n= 2\n\n"


def test_unknown_and_malformed_commands_get_an_error_and_the_next_command_works() -> None:
    commands = (
        b"3 frobnicate\n"
        b"\xff\xfe\n"
        b"boardsize x\n"
        b"boardsize\n"
        b"komi nan\n"
        b"play b\n"
        b"play purple d4\n"
        b"play b z99\n"
        b"genmove\n"
        b"genmove purple\n"
        b"time_left b x 0\n"
        b"final_status_list maybe\n"
        b"loadsgf /no/such/file.sgf\n"
        b"lz-analyze interval\n"
        + b"x" * 100_000
        + b"\n9 name\n"
    )
    assert replies(transcript(commands)) == [
        '?3 unknown command "frobnicate"',
        '? unknown command "\ufffd\ufffd"',
        '? invalid size "x": not a whole number',
        "? syntax error: missing SIZE (usage: boardsize SIZE)",
        '? invalid komi "nan": not a finite number',
        "? syntax error: missing VERTEX (usage: play COLOR VERTEX)",
        '? invalid color "purple"',
        '? invalid coordinate "z99": the columns of this 19x19 board are A-H, J-T',
        "? syntax error: missing COLOR (usage: genmove COLOR)",
        '? invalid color "purple"',
        '? invalid time "x"',
        '? invalid status "maybe": final_status_list takes dead, alive or seki',
        '? cannot load file "/no/such/file.sgf": No such file or directory (os error 2)',
        "? syntax error: missing N (usage: lz-analyze [COLOR] [INTERVAL] [interval N] [minmoves N]"
        " [maxmoves N] [avoid|allow COLOR VERTICES MOVES])",
        '? unknown command "' + "x" * 40 + '..."',
        "=9 gokata",
    ]


def test_board_sizes_1_to_25_and_komi_kept_across_boardsize_and_clear_board() -> None:
    # On an empty board the area score is komi for white: final_score shows the komi.
    commands = b"komi 6.5\nboardsize 1\nfinal_score\nboardsize 25\nclear_board\nfinal_score\n"
    commands += b"boardsize 26\nboardsize 0\nboardsize -3\nkomi -2\nfinal_score\nkomi 0\nfinal_score\n"
    assert replies(transcript(commands)) == [
        "=",
        "=",
        "= W+6.5",
        "=",
        "=",
        "= W+6.5",
        '? unacceptable size "26": sizes are 1 to 25',
        '? unacceptable size "0": sizes are 1 to 25',
        '? unacceptable size "-3": sizes are 1 to 25',
        "=",
        "= B+2",
        "=",
        "= 0",
    ]


def test_vertices_in_either_case_skip_i_and_pass_in_any_case() -> None:
    commands = b"boardsize 9\nplay b j9\nplay W A1\nplay b i5\nplay b PASS\nplay w Pass\nplay b J10\nshowboard\n"
    assert replies(transcript(commands)) == [
        "=",
        "=",
        "=",
        '? invalid coordinate "i5": there is no column I; the columns of this 9x9 board are A-H, J',
        "=",
        "=",
        '? invalid coordinate "J10": the rows of this 9x9 board are 1 to 9',
        "= \n"
        "    A B C D E F G H J\n"
        "  9 . . . . . . . . x 9\n"
        "  8 . . . . . . . . . 8\n"
        "  7 . . . . . . . . . 7\n"
        "  6 . . . . . . . . . 6\n"
        "  5 . . . . . . . . . 5\n"
        "  4 . . . . . . . . . 4\n"
        "  3 . . . . . . . . . 3\n"
        "  2 . . . . . . . . . 2\n"
        "  1 o . . . . . . . . 1\n"
        "    A B C D E F G H J",
    ]


def test_illegal_moves_same_colour_twice_and_undo_down_to_the_start() -> None:
    # Black takes the white stone at A1; white may not play there again (suicide).
    commands = b"boardsize 5\nplay w a1\nplay b a2\nplay b c1\nplay w b2\nplay b b1\nplay w a1\nplay b b1\n"
    commands += b"undo\nplay w a1\nundo\nundo\nundo\nundo\nundo\nundo\nundo\n"
    assert replies(transcript(commands)) == [
        "=",
        "=",  # w A1
        "=",  # b A2
        "=",  # b C1: the same colour twice
        "=",  # w B2
        "=",  # b B1 captures A1
        "? illegal move A1 for white: suicide (the stone would have no liberty)",
        "? illegal move B1 for black: the point is occupied",
        "=",  # undo b B1
        "? illegal move A1 for white: the point is occupied",
        "=",
        "=",
        "=",
        "=",
        "? cannot undo",
        "? cannot undo",
        "? cannot undo",
    ]


def test_final_score_and_status_lists() -> None:
    # Black owns the left four columns, white the rest; a lone black stone sits in white's area.
    rows = ["...xo....", "...xo....", "...xo....", "...xo....", "...xo..x.", "...xo....", "...xo....", "...xo....", "...xo...."]
    moves = []
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if cell != ".":
                moves.append(f"play {'b' if cell == 'x' else 'w'} {'ABCDEFGHJ'[c]}{9 - r}\n")
    commands = b"boardsize 9\nkomi 7.5\n" + "".join(moves).encode()
    commands += b"final_score\nfinal_status_list dead\nfinal_status_list seki\nfinal_status_list alive\n"
    answers = replies(transcript(commands))
    assert answers[-4:-1] == ["= W+16.5", "= H5", "="]  # 36 to 45 and komi 7.5, the H5 stone dead
    alive = answers[-1].removeprefix("= ").split()
    assert len(alive) == 18 and "H5" not in alive and "D9" in alive and "E1" in alive


def test_stones_in_seki_are_listed_as_seki_neither_dead_nor_alive() -> None:
    # Black's three stones at the top and white's seven below them share their last two
    # liberties, A5 and B4: whoever plays there is taken, so neither does. Black's wall lives.
    black = ["B5", "C5", "C4", "E5", "E4", "E3", "A2", "B2", "C2", "D2", "E2"]
    white = ["D5", "D4", "A4", "A3", "B3", "C3", "D3"]
    moves = [f"play b {v}\n" for v in black] + [f"play w {v}\n" for v in white]
    commands = b"boardsize 5\nkomi 0\n" + "".join(moves).encode()
    commands += b"final_status_list seki\nfinal_status_list dead\nfinal_status_list alive\nfinal_score\n"
    answers = replies(transcript(commands))
    assert answers[-4:] == [
        "= B5 C5 D5 A4 C4 D4 A3 B3 C3 D3",
        "=",
        "= E5 E4 E3 A2 B2 C2 D2 E2",
        "= B+9",  # 16 to 7: A5 and B4 are no one's
    ]
    # Black fills B4 (its self-atari), white takes the three stones: no seki is left.
    answers = replies(transcript(commands + b"play b B4\nplay w A5\nfinal_status_list seki\n"))
    assert answers[-1] == "="


@pytest.mark.parametrize("parallel", [[], ["--root-parallel"]])
def test_two_threads_on_one_tree_or_a_tree_each_play_legal_moves(parallel: list[str]) -> None:
    commands = b"boardsize 9\ngenmove b\ngenmove w\ngenmove b\ngenmove w\nshowboard\n"
    answers = replies(transcript(commands, "--threads", "2", "--playouts", "400", *parallel))
    moves = [a.removeprefix("= ") for a in answers[1:5]]
    assert all(re.fullmatch(r"[A-HJ]\d", m) for m in moves) and len(set(moves)) == 4, answers
    board = answers[5]
    assert board.count("x") == 2 and board.count("o") == 2, board


def test_lz_genmove_analyze_reports_every_interval_while_it_searches() -> None:
    # A second's search and a report every 10 centiseconds: several reports, each well formed,
    # with more visits than the one before, then the move.
    argv = [sys.executable, "-m", "gokata", "gtp", "--time", "1", "--threads", "1", "--seed", "7"]
    result = subprocess.run(argv, input=b"boardsize 9\n3 lz-genmove_analyze b 10\n", capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    reply = replies(result.stdout)[-1].split("\n")
    assert reply[0] == "=3" and re.fullmatch(r"play [A-HJ]\d", reply[-1]), reply
    reports = reply[1:-1]
    assert len(reports) >= 4, reply
    totals = []
    for report in reports:
        parts = ["info " + p for p in report.removeprefix("info ").split(" info ")]
        assert all(INFO.fullmatch(part) for part in parts), report
        totals.append(sum(int(part.split()[4]) for part in parts))
    assert totals == sorted(totals) and totals[-1] > totals[0], totals
    # The move played is the first candidate of the last report.
    assert reports[-1].split()[2] == reply[-1].split()[1]


def test_handicap_commands() -> None:
    commands = b"boardsize 9\nfixed_handicap 5\nfixed_handicap 2\nclear_board\nfixed_handicap 6\nboardsize 19\n"
    commands += b"fixed_handicap 9\nclear_board\nplace_free_handicap 3\nclear_board\nset_free_handicap a1 b2 a1\n"
    commands += b"set_free_handicap a1 b2\nset_free_handicap c3 d4\nplay b t19\nclear_board\nfixed_handicap 1\n"
    assert replies(transcript(commands)) == [
        "=",
        "= C3 G7 C7 G3 E5",
        "? board not empty",
        "=",
        "= C3 G7 C7 G3 C5 G5",
        "=",
        "= D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
        "=",
        "= D4 Q16 D16",
        "=",
        "? bad vertex list: A1 twice",
        "=",
        "? board not empty",
        "=",
        "=",
        '? invalid handicap "1": 19x19 takes 2 to 9 stones',
    ]


def test_time_commands_are_accepted_and_checked() -> None:
    commands = b"time_settings 300 30 5\ntime_left b 120 0\ntime_left white 25 3\ntime_settings 1 2\n"
    commands += b"kgs-time_settings none\nkgs-time_settings byoyomi 60 10 3\nkgs-time_settings canadian 60 60 10\n"
    commands += b"kgs-time_settings absolute 60\nkgs-time_settings fischer 1 2\ntime_left x 1 1\n"
    assert replies(transcript(commands)) == [
        "=",
        "=",
        "=",
        "? syntax error: missing BYO_YOMI_STONES (usage: time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES)",
        "=",
        "=",
        "=",
        "=",
        '? invalid time system "fischer": kgs-time_settings takes none, absolute, byoyomi or canadian',
        '? invalid color "x"',
    ]


def test_known_command_list_commands_and_gogui_analyze_commands() -> None:
    answers = replies(transcript(b"known_command genmove\nknown_command frobnicate\nlist_commands\ngogui-analyze_commands\n"))
    assert answers[:2] == ["= true", "= false"]
    listed = answers[2].removeprefix("= ").split("\n")
    required = ["protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize"]
    required += ["clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score", "final_status_list"]
    required += ["time_settings", "time_left", "kgs-time_settings", "fixed_handicap", "place_free_handicap"]
    required += ["set_free_handicap", "loadsgf", "printsgf", "reg_genmove", "kgs-genmove_cleanup"]
    required += ["gogui-analyze_commands", "lz-analyze", "lz-genmove_analyze"]
    assert sorted(listed) == sorted(required)
    known = replies(transcript("".join(f"known_command {name}\n" for name in listed).encode()))
    assert known == ["= true"] * len(listed)
    for entry in answers[3].removeprefix("= ").split("\n"):
        kind, label, command = entry.split("/", 2)
        assert kind in ("plist", "string") and label and command.split()[0] in listed


def test_quit_is_answered_and_ends_the_session() -> None:
    assert transcript(b"4 quit\nname\n") == b"=4\n\n"


def test_genmove_plays_a_legal_move_and_reg_genmove_only_names_one(tmp_path: Path) -> None:
    answers = replies(transcript(b"boardsize 7\nreg_genmove b\nshowboard\ngenmove b\ngenmove b\nshowboard\n"))
    named = answers[1].removeprefix("= ")
    assert re.fullmatch(r"[A-HJ][1-7]", named), named
    assert "x" not in answers[2], "reg_genmove plays nothing"
    first, second = answers[3].removeprefix("= "), answers[4].removeprefix("= ")
    assert first != second and answers[5].count("x") == 2, answers
    # The same seed and one thread: the same moves.
    assert replies(transcript(b"boardsize 7\ngenmove b\ngenmove w\ngenmove b\n")) == replies(
        transcript(b"boardsize 7\ngenmove b\ngenmove w\ngenmove b\n")
    )


def test_genmove_passes_when_passing_wins_and_cleanup_captures_dead_stones_first() -> None:
    # White passed; black owns everything but a dead white stone: genmove passes only when the
    # dead stone is gone, kgs-genmove_cleanup captures it.
    rows = ["xxxxx", "x...x", "x.o.x", "x...x", "xxxxx"]
    setup = "".join(
        f"play {'b' if cell == 'x' else 'w'} {'ABCDE'[c]}{5 - r}\n"
        for r, row in enumerate(rows)
        for c, cell in enumerate(row)
        if cell != "."
    )
    commands = f"boardsize 5\nkomi 0.5\n{setup}play w pass\nkgs-genmove_cleanup b\n".encode()
    answers = replies(transcript(commands, "--no-resign"))
    assert answers[-1] != "= pass"
    empty_board_pass = replies(transcript(b"boardsize 5\nkomi -0.5\nplay w pass\ngenmove b\n"))
    assert empty_board_pass[-1] == "= pass"


def test_printsgf_and_loadsgf_round_trip(tmp_path: Path) -> None:
    commands = b"boardsize 9\nkomi 5.5\nplay b e5\nplay w c3\nplay b pass\nplay w g7\nprintsgf\n"
    answers = replies(transcript(commands))
    sgf = answers[-1].removeprefix("= ")
    assert "SZ[9]" in sgf and "KM[5.5]" in sgf and ";B[ee]" in sgf and ";W[gc]" in sgf
    path = tmp_path / "game.sgf"
    path.write_text(sgf)
    game = Go.from_sgf(sgf)
    assert game.move_number == 4
    loaded = replies(transcript(f"komi 0\nloadsgf {path}\nfinal_score\nshowboard\nloadsgf {path} 2\nshowboard\n".encode()))
    assert loaded[1] == "=" and loaded[2] != "= W+0"  # KM[5.5] read
    assert loaded[3].count("x") == 1 and loaded[3].count("o") == 2
    assert loaded[5].count("x") == 1 and loaded[5].count("o") == 0, "up to move 2, not including it"
    assert replies(transcript(f"loadsgf {path} 0\n".encode()))[0].startswith("? move number")


def test_a_thousand_commands_sent_at_once_are_answered_in_order() -> None:
    names = ["name", "protocol_version", "known_command play", "known_command nothing", "showboard", "bogus"]
    expected_by_name = {
        "name": "gokata",
        "protocol_version": "2",
        "known_command play": "true",
        "known_command nothing": "false",
    }
    commands, expected = [], []
    board_rows = replies(transcript(b"boardsize 3\nshowboard\n"))[1].removeprefix("= ")
    commands.append("boardsize 3")
    expected.append("=1000")
    for i in range(1, 1000):
        name = names[i % len(names)]
        commands.append(f"{i} {name}")
        if name == "bogus":
            expected.append(f'?{i} unknown command "bogus"')
        elif name == "showboard":
            expected.append(f"={i} {board_rows}")
        else:
            expected.append(f"={i} {expected_by_name[name]}")
    commands[0] = "1000 boardsize 3"
    out = transcript(("\n".join(commands) + "\n").encode())
    assert replies(out) == expected


def read_reply_lines(process: subprocess.Popen[bytes], deadline: float) -> list[str]:
    """Lines up to and including the next empty one."""
    assert process.stdout is not None
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = process.stdout.readline().decode()
        assert line, "the engine closed its output"
        lines.append(line.rstrip("\n"))
        if line == "\n":
            return lines
    raise AssertionError(f"no complete reply in time: {lines}")


INFO = re.compile(r"info move ([A-HJ-T]\d{1,2}|pass) visits \d+ winrate \d+ prior \d+ order \d+ pv( ([A-HJ-T]\d{1,2}|pass))+")


def test_lz_analyze_reports_until_the_next_command_and_lz_genmove_analyze_plays() -> None:
    process = subprocess.Popen([*ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"boardsize 9\n5 lz-analyze b 5\n")
        process.stdin.flush()
        assert read_reply_lines(process, time.monotonic() + 30) == ["=", ""]
        assert process.stdout.readline() == b"=5\n"
        infos = [process.stdout.readline().decode() for _ in range(3)]
        for info in infos:
            for part in ("info " + p for p in info.rstrip("\n").split(" info ") if p.removeprefix("info ")):
                assert INFO.fullmatch(part.replace("info info", "info")), part
        process.stdin.write(b"6 name\n")
        process.stdin.flush()
        rest = read_reply_lines(process, time.monotonic() + 30)
        assert all(line.startswith("info move ") for line in rest[:-1]) and rest[-1] == ""
        assert read_reply_lines(process, time.monotonic() + 30) == ["=6 gokata", ""]
        process.stdin.write(b"lz-genmove_analyze b 10\nshowboard\n")
        process.stdin.flush()
        lines = read_reply_lines(process, time.monotonic() + 30)
        assert lines[0] == "=" and lines[-1] == "" and re.fullmatch(r"play [A-HJ]\d", lines[-2]), lines
        assert all(line.startswith("info move ") for line in lines[1:-2])
        board = "\n".join(read_reply_lines(process, time.monotonic() + 30))
        assert board.count("x") == 1
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert process.returncode == 0


def test_lz_analyze_followed_at_once_by_a_command_still_reports_and_stops() -> None:
    out = replies(transcript(b"lz-analyze 10\nname\n"))
    analysis, name = out
    lines = analysis.split("\n")
    assert lines[0] == "=" and len(lines) >= 2 and all(INFO.match(line) for line in lines[1:])
    assert name == "= gokata"


@pytest.mark.parametrize("arguments", [["--playouts", "0"], ["--playouts", "5", "--time", "1"], ["--time", "0"], ["--threads", "0"]])
def test_bad_arguments_are_refused(arguments: list[str]) -> None:
    result = subprocess.run([sys.executable, "-m", "gokata", "gtp", *arguments], capture_output=True, timeout=30, input=b"")
    assert result.returncode == 2 and result.stdout == b"" and b"gtp" in result.stderr


def test_logs_go_to_standard_error_only() -> None:
    result = subprocess.run([*ENGINE], input=b"boardsize 5\ngenmove b\n", capture_output=True, timeout=60)
    assert re.fullmatch(rb"=\n\n= [A-E][1-5]\n\n", result.stdout), result.stdout
    assert b"gokata: black" in result.stderr


def test_a_ko_may_not_be_retaken_at_once_but_after_a_move_elsewhere() -> None:
    setup = b"boardsize 9\nplay b D6\nplay b C5\nplay b D4\nplay w E6\nplay w F5\nplay w E4\nplay w D5\n"
    commands = setup + b"play b E5\nplay w D5\nplay w A1\nplay b J9\nplay w D5\nshowboard\n"
    answers = replies(transcript(commands))
    ko = "? illegal move D5 for white: ko (it would recreate the position as it was before the last turn)"
    assert answers[8:13] == ["=", ko, "=", "=", "="]
    rows = {line.split()[0]: line.split()[1:10] for line in answers[13].split("\n")[2:11]}
    assert rows["5"][3] == "o" and rows["5"][4] == ".", "white retook: E5 captured"
