"""``gokata.client`` with the server's terms, against the real server run as a process: a seek
with each time control, echoed as it will be paired and met only by the same terms; refusals
naming the field; ratings and ranks moved by a rated game (and not by an unrated one), the
handicap that ranks give, a handicap game mirrored with its stones and white first, a draw, and a
byo-yomi game lost on time once the periods run out."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest

from gokata.client import BadRequestError, Over, Player, RemoteGame, clock_text, connect, parse_time
from support.clients import unique
from support.server_process import ServerProcess
from support.waiting import wait_until

NEW_CLOCKS: dict[str, dict[str, Any]] = {
    "5m": {"main_ms": 300_000},
    "abs:20m": {"main_ms": 1_200_000},
    "5m+5s": {"main_ms": 300_000},
    "10m+5x30s": {"main_ms": 600_000, "periods": 5, "period_ms": 30_000},
    "10m+25/5m": {"main_ms": 600_000, "period_ms": 300_000, "stones": 25},
}
"""Each time control's clock at the start of a game."""


@contextmanager
def paired(url: str, **terms: Any) -> Iterator[tuple[Player, Player, RemoteGame, RemoteGame, dict[str, Any]]]:
    """Two new players, the first seeking black and the second white, on ``terms``; their views
    of the game and the first seek's echo (the terms as the server will pair them)."""
    black, white = connect(url, unique("black")), connect(url, unique("white"))
    try:
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(black.seek, 9, "black", 30, **terms)
            wait_until(lambda: black.seeking is not None or waiting.done(), 10, "the seek's echo")
            echo = black.seeking
            assert echo is not None, waiting.result()
            theirs = white.seek(9, "white", timeout=30, **terms)
            game = waiting.result(timeout=30)
        assert black.seeking is None, "no seek waits once paired"
        assert (game.id, game.color, theirs.color) == (theirs.id, "black", "white")
        yield black, white, game, theirs, echo
    finally:
        black.close()
        white.close()


@pytest.mark.parametrize("notation", list(NEW_CLOCKS))
def test_a_seek_with_each_time_control_is_echoed_and_the_game_has_it(server: ServerProcess, notation: str) -> None:
    control = parse_time(notation)
    with paired(server.ws_url, time=notation) as (black, white, game, theirs, echo):
        expected = {
            "size": 9,
            "color": "black",
            "opponent": "human",
            "rated": True,
            "handicap": 0,
            "komi": 0.5,
            "time": control,
        }
        assert {key: echo.get(key) for key in expected} == expected, "(a server may add fields)"
        for view in (game, theirs):
            assert (view.time, view.rated, view.handicap, view.komi) == (control, True, 0, 0.5)
            assert view.clocks == {"black": NEW_CLOCKS[notation], "white": NEW_CLOCKS[notation]}
            assert view.ranks == {"black": "6k?", "white": "6k?"}
            clock = NEW_CLOCKS[notation]
            total = clock["main_ms"] + clock.get("periods", 1) * clock.get("period_ms", 0)
            assert view.move_time_ms == total
            remaining = view.remaining_ms
            assert remaining is not None and total - 10_000 < remaining <= total
        time.sleep(0.05)  # a turn's time, counted in whole milliseconds, may be 0 on loopback
        played = game.move("5E")
        assert played.clocks is not None and set(played.clocks) == {"black", "white"}
        assert played.clocks == game.clocks
        wait_until(lambda: theirs.move_number == 1, 10, "white to see the move")
        assert theirs.clocks == game.clocks and theirs.move_time_ms == played.remaining_ms
        after = game.clocks["black"]
        if notation == "5m+5s":
            assert 300_000 < after["main_ms"] < 305_000, "the increment added, the turn's time taken"
        elif notation != "5m":
            assert NEW_CLOCKS[notation]["main_ms"] - 10_000 < after["main_ms"] < NEW_CLOCKS[notation]["main_ms"]
        game.resign()


def test_a_dict_time_control_and_a_seek_on_other_terms_is_not_met(server: ServerProcess) -> None:
    fischer = {"system": "fischer", "initial_ms": 60_000, "increment_ms": 2_000, "max_ms": 90_000}
    with connect(server.ws_url, unique("ann")) as ann, connect(server.ws_url, unique("bob")) as bob:
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(ann.seek, 9, "any", 30, time=fischer, rated=False)
            wait_until(lambda: ann.seeking is not None, 10, "ann's seek")
            assert ann.seeking is not None and (ann.seeking["time"], ann.seeking["rated"]) == (fischer, False)
            for other in ({"time": fischer}, {"time": "1m+2s", "rated": False}, {"rated": False}):
                with pytest.raises(TimeoutError):  # rated, another maximum, the server's clock
                    bob.seek(9, timeout=1.0, **other)
            game = bob.seek(9, timeout=30, time=dict(fischer), rated=False)
            assert waiting.result(timeout=30).id == game.id
        assert (game.time, game.rated) == (fischer, False)
        game.resign()


def test_bad_terms_are_refused_naming_the_field(server: ServerProcess) -> None:
    with connect(server.ws_url, unique("ann")) as ann:
        with pytest.raises(ValueError, match="a period is missing"):
            ann.seek(9, timeout=5, time="10m+5x")  # not sent
        refusals: list[tuple[dict[str, Any], str]] = [
            ({"time": {"system": "byoyomi", "main_ms": 500, "period_ms": 30_000, "periods": 5}}, "time.main_ms"),
            ({"time": {"system": "byoyomi", "main_ms": 60_000, "period_ms": 30_000, "periods": 31}}, "time.periods"),
            ({"time": {"system": "fischer", "initial_ms": 60_000, "increment_ms": 1_000, "max_ms": 1_000}}, "time.max_ms"),
            ({"time": {"system": "per_move", "move_ms": 60_000, "stones": 3}}, "time.stones"),
            ({"handicap": 3}, "handicap"),
            ({"handicap": 6, "rated": False}, "handicap"),
            ({"handicap": "auto", "rated": False}, "handicap"),
            ({"komi": 6.5}, "komi"),
            ({"komi": 6.25, "rated": False}, "komi"),
        ]
        for terms, field in refusals:
            with pytest.raises(BadRequestError) as refused:
                ann.seek(9, timeout=5, **terms)
            assert f"'{field}'" in str(refused.value), (terms, str(refused.value))
        with pytest.raises(ValueError, match="handicap must be"):
            ann.seek(9, timeout=5, handicap=True)
        with pytest.raises(ValueError, match="rated must be"):
            ann.seek(9, timeout=5, rated=None)  # type: ignore[arg-type]


def rank_number(rating: float) -> float:
    """The rank of a rating as a real number (protocol: ``23.15 * ln(rating / 525)``)."""
    return 23.15 * math.log(rating / 525)


def test_a_rated_game_moves_ratings_and_ranks_and_an_unrated_one_does_not(server: ServerProcess) -> None:
    with paired(server.ws_url) as (black, white, game, theirs, _):
        for player in (black, white):
            assert (player.rating, player.deviation, player.rank) == (1500.0, 350.0, "6k?")
        assert game.rated and game.ranks == {"black": "6k?", "white": "6k?"}
        over = game.resign()
        assert over.ratings is not None and theirs.result(timeout=10) == over
        assert game.ratings == theirs.ratings == over.ratings
        assert over.ratings["black"].before == over.ratings["white"].before == 1500.0
        assert over.ratings["white"].after > 1500.0 > over.ratings["black"].after
        for player, color in ((black, "black"), (white, "white")):
            change, record = over.ratings[color], over.records[color] if over.records else None
            assert record is not None and (record.rating, record.rank) == (change.after, change.rank)
            assert (player.rating, player.rank, player.deviation) == (change.after, change.rank, record.deviation)
            assert player.deviation is not None and player.deviation < 350.0
            assert record.rated_games == 1
            listed = black.record() if color == "black" else white.record()
            assert (listed.rating, listed.rank) == (change.after, change.rank)
            account = server.get_json(f"/api/players/{player.name}")
            assert (account["rating"], account["rank"], account["rated_games"]) == (change.after, change.rank, 1)
        ranks_after = {"black": black.rank, "white": white.rank}
        ratings_after = (black.rating, white.rating)

        # Unrated, with a whole-number komi and no stones: two passes at once are a draw.
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(black.seek, 9, "black", 30, rated=False, komi=0)
            wait_until(lambda: black.seeking is not None, 10, "the unrated seek")
            draw = white.seek(9, "white", timeout=30, rated=False, komi=0)
            mine = waiting.result(timeout=30)
        assert (draw.rated, draw.komi, draw.ranks) == (False, 0.0, ranks_after)
        mine.pass_turn()
        wait_until(lambda: draw.my_turn, 10, "white's turn")
        draw.pass_turn()
        over = mine.result(timeout=10)
        assert (over.winner, over.reason, over.score, over.ratings) == (None, "passes", {"black": 0, "white": 0, "komi": 0}, None)
        assert (mine.winner, draw.winner, mine.ratings) == (None, None, None) and over.how == "a draw"
        assert repr(mine).split("\n")[0].endswith(", a draw; I am black>")
        assert (black.wins, black.losses, white.wins, white.losses) == (0, 1, 1, 0), "a draw counts as neither"
        assert (black.rating, white.rating) == ratings_after, "an unrated game moves no rating"
        history = server.get_json(f"/api/players/{black.name}/games")
        assert [(g["id"], g["rated"], g["winner"]) for g in history["games"]] == [
            (mine.id, False, None),
            (game.id, True, "white"),
        ], "newest first"
        assert history["games"][1]["ratings"]["black"]["after"] == ratings_after[0]


def test_an_automatic_handicap_from_the_ranks_puts_the_weaker_player_black(server: ServerProcess) -> None:
    with paired(server.ws_url) as (loser, winner, game, _, _echo):
        game.resign()
        wait_until(lambda: winner.rank != "6k?" and loser.rank != "6k?", 10, "the new ranks")
        assert loser.rating is not None and winner.rating is not None
        stones = math.floor(rank_number(winner.rating) - rank_number(loser.rating))  # on 19x19
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(winner.seek, 19, "any", 30, handicap="auto")
            wait_until(lambda: winner.seeking is not None, 10, "the automatic seek")
            assert winner.seeking is not None and winner.seeking["handicap"] == "auto"
            weaker = loser.seek(19, "any", timeout=30, handicap="auto")
            stronger = waiting.result(timeout=30)
        assert stones >= 2 and weaker.handicap == stronger.handicap == stones
        assert (weaker.color, stronger.color) == ("black", "white")
        assert weaker.ranks == {"black": loser.rank, "white": winner.rank}
        # Black's stones on the board before the first turn; white moves first.
        for view in (weaker, stronger):
            assert sum(row.count("x") for row in view.board) == stones and view.turn == "white"
            assert view.move_number == 0
        assert stronger.my_turn and not weaker.my_turn
        assert stronger.move("3C").color == "white"
        wait_until(lambda: weaker.my_turn, 10, "black's turn")
        assert weaker.history[0].color == "white" and weaker.get_position("3C") == "o"
        assert weaker.move("17R").color == "black"
        wait_until(lambda: stronger.move_number == 2, 10, "white to see black's move")
        local = stronger.local_copy()
        assert local.move_number == 2 and local.turn == "white"
        weaker.sync()
        assert weaker.moves == ["3C", "17R"] and weaker.turn == "white", "the state agrees"
        weaker.resign()


def test_an_unrated_handicap_game_with_a_komi_of_its_own(server: ServerProcess) -> None:
    with paired(server.ws_url, rated=False, handicap=3, komi=6) as (black, white, game, theirs, echo):
        assert (echo["rated"], echo["handicap"], echo["komi"]) == (False, 3, 6)
        for view in (game, theirs):
            assert (view.rated, view.handicap, view.komi, view.turn) == (False, 3, 6.0, "white")
            assert sum(row.count("x") for row in view.board) == 3
        assert theirs.my_turn and not game.my_turn
        theirs.pass_turn()
        wait_until(lambda: game.my_turn, 10, "black's turn")
        game.pass_turn()
        over = theirs.result(timeout=10)
        assert (over.winner, over.score) == ("black", {"black": 81, "white": 0, "komi": 6})
        assert over.ratings is None and game.ratings is None
        assert (black.rating, white.rating) == (1500.0, 1500.0)


def test_a_byoyomi_game_is_lost_on_time_when_the_periods_run_out(server: ServerProcess) -> None:
    byoyomi = {"system": "byoyomi", "main_ms": 1_000, "period_ms": 1_000, "periods": 2}
    with paired(server.ws_url, time=byoyomi) as (black, white, game, theirs, _):
        fresh = {"main_ms": 1_000, "periods": 2, "period_ms": 1_000}
        assert game.clocks == {"black": fresh, "white": fresh} and game.move_time_ms == 3_000
        game.move("5E")  # at once: within main time
        wait_until(lambda: theirs.my_turn, 10, "white's turn")
        time.sleep(1.3)  # main time gone, within the first period
        played = theirs.move("4D")
        assert played.clocks is not None
        white_clock = played.clocks["white"]
        assert white_clock["main_ms"] == 0 and white_clock["periods"] in (1, 2), white_clock
        assert clock_text(theirs.time, white_clock) == f"{white_clock['periods']} x 0:01"
        black_clock = played.clocks["black"]
        assert 0 < black_clock["main_ms"] <= 1_000 and black_clock["periods"] == 2
        left = played.remaining_ms
        assert left is not None and left == black_clock["main_ms"] + 2_000, "black's time: main and both periods"
        started = time.monotonic()
        over = game.result(timeout=15)  # black lets its time run out
        assert isinstance(over, Over) and (over.winner, over.reason, over.score) == ("white", "timeout", None)
        assert left / 1000 - 0.5 < time.monotonic() - started < left / 1000 + 5
        assert theirs.result(timeout=10) == over and over.ratings is not None, "rated: a timeout counts"
        assert (black.losses, white.wins) == (1, 1)
