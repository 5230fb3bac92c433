"""``gokata.engine.GtpEngine`` with real GNU Go: what it says of itself; games where its every
move is legal and its board (``showboard``) stays gokata's; handicap sent as
``fixed_handicap`` or, where GNU Go places the stones elsewhere, ``set_free_handicap``; setup
stones, a capture both agree on; a rollback sent as ``undo`` and a new game as
``clear_board``; ``final_score`` and ``final_status_list``; a refused command."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest

from gokata import Go
from gokata.engine import EngineError, GtpEngine, Score

GNUGO = "/usr/games/gnugo"
pytestmark = pytest.mark.skipif(not os.access(GNUGO, os.X_OK), reason="GNU Go is not installed (scripts/test installs it)")


@pytest.fixture
def gnugo() -> Iterator[GtpEngine]:
    with GtpEngine([GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules"]) as engine:
        yield engine


def engine_board(engine: GtpEngine, size: int) -> list[str]:
    """GNU Go's ``showboard``, as the rows of ``Go.board`` (``.``, ``x``, ``o``)."""
    rows = []
    for line in engine.send("showboard").splitlines():
        words = line.split()
        if len(words) > size + 1 and words[0].isdigit() and words[size + 1] == words[0]:
            rows.append("".join({"X": "x", "O": "o"}.get(word, ".") for word in words[1 : size + 1]))
    assert len(rows) == size, engine.send("showboard")
    return rows


def board(game: Go) -> list[str]:
    return ["".join(row) for row in game.board]


def sent(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The commands sent since the log was last cleared."""
    return [r.getMessage().split(" < ", 1)[1] for r in caplog.records if " < " in r.getMessage()]


def play_turns(engine: GtpEngine, game: Go, turns: int) -> None:
    """GNU Go plays both sides for ``turns`` turns, each move checked by gokata's rules."""
    for _ in range(turns):
        move = engine.play(game)
        assert move != "resign"
        if move is None:
            game.pass_turn()
        else:
            assert game.is_legal(move), (move, str(game))
            game.move(move)


def test_it_says_its_name_version_and_commands(gnugo: GtpEngine) -> None:
    assert (gnugo.name, gnugo.version) == ("GNU Go", "3.8")
    assert {"genmove", "undo", "fixed_handicap", "set_free_handicap", "final_score"} <= gnugo.commands
    assert gnugo.knows("final_status_list") and not gnugo.knows("lz-analyze")
    assert "GNU Go" in repr(gnugo) and gnugo.pid is not None


def test_its_moves_are_legal_and_its_board_stays_gokatas(gnugo: GtpEngine, caplog: pytest.LogCaptureFixture) -> None:
    game = Go(9)
    game.komi = 7.5
    with caplog.at_level(logging.DEBUG, logger="gokata.engine"):
        for _ in range(4):
            play_turns(gnugo, game, 8)
            assert engine_board(gnugo, 9) == board(game)
    commands = sent(caplog)
    assert commands[:3] == ["boardsize 9", "clear_board", "komi 7.5"]
    assert commands.count("clear_board") == 1, "each call sends only the new turns"
    assert sum(1 for c in commands if c.startswith("play ")) == 0, "GNU Go played every move itself"


def test_the_opponents_moves_are_sent_one_call_at_a_time(gnugo: GtpEngine, caplog: pytest.LogCaptureFixture) -> None:
    game = Go(9)
    with caplog.at_level(logging.DEBUG, logger="gokata.engine"):
        for _ in range(3):
            point = next(p for p in ("5E", "3C", "7G", "3G", "7C") if game.is_legal(p))
            game.move(point)
            caplog.clear()
            reply = gnugo.play(game)
            assert isinstance(reply, str) and game.is_legal(reply)
            game.move(reply)
            expected = [f"play black {point[-1]}{point[:-1]}", "genmove white"]
            assert sent(caplog) == (["boardsize 9", "clear_board", *expected] if game.move_number == 2 else expected)
    assert engine_board(gnugo, 9) == board(game)


@pytest.mark.parametrize("size, stones", [(9, 4), (19, 9)])
def test_a_handicap_is_sent_as_fixed_handicap(gnugo: GtpEngine, caplog: pytest.LogCaptureFixture, size: int, stones: int) -> None:
    game = Go(size)
    game.handicap_stones(stones)
    with caplog.at_level(logging.DEBUG, logger="gokata.engine"):
        play_turns(gnugo, game, 2)
    assert f"fixed_handicap {stones}" in sent(caplog)
    assert not any(c.startswith("set_free_handicap") for c in sent(caplog))
    assert engine_board(gnugo, size) == board(game)


def test_a_handicap_gnugo_would_place_elsewhere_is_sent_as_free_handicap(gnugo: GtpEngine, caplog: pytest.LogCaptureFixture) -> None:
    game = Go(9)
    game.handicap_stones(3)  # C3 G3 G7; GNU Go's fixed_handicap 3 is C7 G7 C3
    with caplog.at_level(logging.DEBUG, logger="gokata.engine"):
        play_turns(gnugo, game, 3)
    commands = sent(caplog)
    assert "set_free_handicap C3 G3 G7" in commands
    assert commands.index("set_free_handicap C3 G3 G7") > commands.index("fixed_handicap 3"), "tried, then taken back"
    assert engine_board(gnugo, 9) == board(game)


def test_setup_stones_and_a_capture_both_agree_on(gnugo: GtpEngine) -> None:
    rows = [".........", ".........", ".........", "...o.....", "..oxo....", ".........", ".........", "...x.....", "........."]
    game = Go.from_board(rows, turn="white")
    move = gnugo.play(game)
    assert move == "4D", "the black stone in atari is taken"
    assert game.captures(move) == ["5D"]
    game.move(move)
    assert engine_board(gnugo, 9) == board(game)
    play_turns(gnugo, game, 6)
    assert engine_board(gnugo, 9) == board(game)


def test_a_rollback_is_sent_as_undo_and_a_new_game_as_clear_board(gnugo: GtpEngine, caplog: pytest.LogCaptureFixture) -> None:
    game = Go(9)
    play_turns(gnugo, game, 10)
    game.rollback(3)
    with caplog.at_level(logging.DEBUG, logger="gokata.engine"):
        caplog.clear()
        play_turns(gnugo, game, 1)
        assert sent(caplog) == ["undo", "undo", "undo", f"genmove {'white' if game.turn == 'black' else 'black'}"]
        assert engine_board(gnugo, 9) == board(game)
        caplog.clear()
        fresh = Go(9)
        fresh.move("5E")
        play_turns(gnugo, fresh, 1)
        assert "clear_board" in sent(caplog) and "undo" not in sent(caplog), "not eight undos"
        assert engine_board(gnugo, 9) == board(fresh)


def test_final_score_and_dead_stones(gnugo: GtpEngine) -> None:
    rows = [".........", "....o....", ".........", ".........", ".........", "xxxxxxxxx", "ooooooooo", ".........", "........."]
    game = Go.from_board(rows)
    game.komi = 7.5
    assert gnugo.final_status_list(game, "dead") == ["8E"]
    assert set(gnugo.final_status_list(game, "alive")) == {f"{row}{column}" for row in (3, 4) for column in "ABCDEFGHJ"}
    assert gnugo.final_score(game) == Score("B+19.5", "black", 19.5)
    with pytest.raises(ValueError, match="dead, alive or seki"):
        gnugo.final_status_list(game, "undecided")


def test_a_refused_command_is_an_engine_error_with_its_words(gnugo: GtpEngine) -> None:
    pid = gnugo.pid
    with pytest.raises(EngineError) as refused:
        gnugo.send("frobnicate 3")
    assert type(refused.value) is EngineError
    assert (refused.value.command, refused.value.answer) == ("frobnicate 3", "unknown command")
    assert "frobnicate 3" in str(refused.value) and "unknown command" in str(refused.value)
    assert gnugo.send("name") == "GNU Go" and gnugo.pid == pid, "the engine goes on"
    with pytest.raises(EngineError, match="neither kata-analyze nor lz-analyze"):
        gnugo.analyze(Go(9), 0.1)
