"""`gokata serve`, games: turns, captures, ko, two passes and the score, resignation, records,
the public game state, and coming back with the token.

One server for the module; every test plays games of its own. Scores are checked against
`gokata.Go.score` on the same moves, a computation path apart from the server's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Optional

import pytest

from gokata import Go
from support.databases import Databases
from support.expected import Ledger, assert_matches, assert_welcome
from support.server_process import Frame, Player, ServerProcess, fresh_name, play, sign_in, start_game

MOVE_TIME = 300.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("games"), "server"), MOVE_TIME) as process:
        yield process


def rows(go: Go) -> list[str]:
    return ["".join(row) for row in go.board]


def play_all(black: Player, white: Player, game: str, points: Sequence[Optional[str]], first_ply: int = 0) -> list[Frame]:
    """Plays ``points`` from ``first_ply`` on; the `played` frames."""
    frames = []
    for ply, point in enumerate(points, first_ply):
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        frames.append(play(mover, other, game, ply, point))
    return frames


def state_without_clock(state: Frame) -> Frame:
    return {key: value for key, value in state.items() if key != "remaining_ms"}


def test_a_turn_is_announced_to_both_players(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gturn")
    game = start["id"]
    played = play(black, white, game, 0, "e5")
    assert played == {
        "type": "played",
        "game": game,
        "ply": 0,
        "color": "black",
        "point": "5E",
        "captured": [],
        "to_move": "white",
        "remaining_ms": int(MOVE_TIME * 1000),
        # Per move, every turn has the whole move time: neither clock ever runs down.
        "clocks": {"black": {"main_ms": int(MOVE_TIME * 1000)}, "white": {"main_ms": int(MOVE_TIME * 1000)}},
    }
    played = play(white, black, game, 1, None)
    assert (played["color"], played["point"], played["captured"], played["to_move"]) == ("white", None, [], "black")
    state = white.wire.sync(game)
    go = Go(9)
    go.move("5E")
    go.pass_turn()
    assert state["moves"] == ["5E", None]
    assert state["board"] == rows(go)
    assert state["to_move"] == "black"
    assert 0 < state["remaining_ms"] <= state["move_time_ms"] == int(MOVE_TIME * 1000)
    assert state["status"] == "playing"


def test_captures_are_listed_top_row_first_then_left_to_right(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gcap")
    game = start["id"]
    # White 2A and 1A are taken (the top row first), then a white chain 9A-9H (left to right).
    points: list[Optional[str]] = ["3A", "2A", "2B", "1A"]
    play_all(black, white, game, points)
    played = play(black, white, game, 4, "1B")
    assert (played["point"], played["captured"]) == ("1B", ["2A", "1A"])
    more: list[Optional[str]] = ["9A", "8A", "9B", "8B", "9C", "8C", "9D", "8D", "9E", "8E", "9F", "8F", "9G", "8G", "9H", "8H", "5E"]
    play_all(black, white, game, more, 5)  # white first
    go = Go(9)
    go.move("3A", "2A", "2B", "1A", "1B", *[p for p in more if p is not None])
    expected = go.captures("9J")
    assert sorted(expected) == sorted(f"9{c}" for c in "ABCDEFGH")
    played = play(black, white, game, 22, "9J")
    assert played["captured"] == [f"9{c}" for c in "ABCDEFGH"]
    go.move("9J")
    state = white.wire.sync(game)
    assert state["board"] == rows(go)
    assert state["board"][0] == "........x"


def test_ko_is_refused_until_a_move_elsewhere(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gko")
    game = start["id"]
    frames = play_all(black, white, game, ["3B", "3C", "2A", "2B", "1B", "2D", "9J", "1C"])
    assert all(f["captured"] == [] for f in frames)
    assert play(black, white, game, 8, "2C")["captured"] == ["2B"]
    reply = white.wire.error({"type": "move", "game": game, "ply": 9, "point": "2B"}, "illegal_move")
    assert reply["reason"] == "ko"
    play_all(black, white, game, ["9A", "9B"], 9)  # white then black, elsewhere
    assert play(white, black, game, 11, "2B")["captured"] == ["2C"]
    reply = black.wire.error({"type": "move", "game": game, "ply": 12, "point": "2C"}, "illegal_move")
    assert reply["reason"] == "ko"


def finish_by_passes(black: Player, white: Player, game: str, points: list[Optional[str]]) -> tuple[Frame, Go]:
    """Plays ``points`` then two passes; the `over` both players got, and the local game."""
    play_all(black, white, game, points)
    go = Go(9)
    for point in points:
        go.pass_turn() if point is None else go.move(point)
    n = len(points)
    first, second = (black, white) if n % 2 == 0 else (white, black)
    play(first, second, game, n, None)
    assert play(second, first, game, n + 1, None)["to_move"] == ("black" if n % 2 == 0 else "white")
    over = black.wire.expect("over")
    assert white.wire.expect("over") == over
    return over, go


def test_two_passes_end_the_game_with_the_area_score(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gscore")
    game = start["id"]
    points: list[Optional[str]] = ["5E", "5F", "4E", "4F", "6E", "6F", "3E", "3F", "7E", "7F", "2E", "2F", "8E", "8F", "1E", "1F", "9E", "9F", "5A", None, "5B"]
    over, go = finish_by_passes(black, white, game, points)
    score = go.score(komi=0.5)
    assert over["game"] == game and over["reason"] == "passes"
    assert over["score"] == {"black": score["black"], "white": score["white"], "komi": 0.5}
    assert over["winner"] == score["winner"]
    ledger = Ledger()
    ledger.check_over(over, black.name, white.name, ledger.finish(black.name, white.name, score["winner"]))
    state = black.wire.sync(game)
    assert state["status"] == "over"
    assert (state["winner"], state["reason"], state["score"], state["remaining_ms"]) == (
        over["winner"], "passes", over["score"], None
    )
    assert state["moves"] == points + [None, None]
    assert state["board"] == rows(go)
    assert server.get(f"/api/games/{game}") == (200, state)


def test_white_wins_an_empty_board_by_komi(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gkomi", size=13)
    game = start["id"]
    play(black, white, game, 0, None)
    play(white, black, game, 1, None)
    over = black.wire.expect("over")
    assert white.wire.expect("over") == over
    assert (over["winner"], over["reason"], over["score"]) == ("white", "passes", {"black": 0, "white": 0, "komi": 0.5})


def test_a_pass_then_a_move_does_not_end_the_game(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gnotend")
    game = start["id"]
    play_all(black, white, game, [None, "5E", None, "4D"])
    for wire in (black.wire, white.wire):
        wire.silent(0.1)
    assert white.wire.sync(game)["status"] == "playing"


@pytest.mark.parametrize(("resigner", "on_turn"), [("black", True), ("black", False), ("white", True), ("white", False)])
def test_resignation_on_either_turn(server: ServerProcess, resigner: str, on_turn: bool) -> None:
    black, white, start = start_game(server, "Gres")
    game = start["id"]
    # After one move white is to move; after two, black.
    moves = 1 if (resigner == "white") == on_turn else 2
    play_all(black, white, game, ["5E", "4D"][:moves])
    who = black if resigner == "black" else white
    who.wire.send({"type": "resign", "game": game})
    over = black.wire.expect("over")
    assert white.wire.expect("over") == over
    winner = "white" if resigner == "black" else "black"
    assert {key: over[key] for key in over if key not in ("records", "ratings")} == {
        "type": "over",
        "game": game,
        "winner": winner,
        "reason": "resign",
        "score": None,
    }
    assert {"type", "game", "winner", "reason", "score", "records", "ratings"} <= set(over)
    ledger = Ledger()
    ledger.check_over(over, black.name, white.name, ledger.finish(black.name, white.name, winner))
    assert black.wire.sync(game)["moves"] == ["5E", "4D"][:moves]


def test_records_add_up_in_over_welcome_and_the_api(server: ServerProcess) -> None:
    alice = sign_in(server, fresh_name("Grec"))
    bob = sign_in(server, fresh_name("Grec"))
    ledger = Ledger()
    for round_ in range(3):
        # Alternate colours; alice resigns the second game, bob the others.
        first, second = (alice, bob) if round_ % 2 == 0 else (bob, alice)
        first.wire.request({"type": "seek", "size": 9, "color": "black"}, "seeking")
        second.wire.send({"type": "seek", "size": 9, "color": "white"})
        state = second.wire.expect("start")["game"]
        assert first.wire.expect("start")["game"] == state
        loser, winner = (alice, bob) if round_ == 1 else (bob, alice)
        loser.wire.send({"type": "resign", "game": state["id"]})
        over = alice.wire.expect("over")
        assert bob.wire.expect("over") == over
        ratings = ledger.finish(first.name, second.name, "black" if winner is first else "white")
        ledger.check_over(over, first.name, second.name, ratings)
    for who in (alice, bob):
        assert_matches(server.get_json(f"/api/players/{who.name.upper()}"), ledger.standing(who.name))
        again = sign_in(server, who.name, who.token)
        record = ledger.of(who.name)
        assert_welcome(again.welcome, who.name, wins=record.wins, losses=record.losses, rating=record.rating)
        assert again.welcome["games"] == []
        again.wire.close()
    assert [(ledger.of(who.name).wins, ledger.of(who.name).losses) for who in (alice, bob)] == [(2, 1), (1, 2)]


def test_the_public_game_state_equals_the_state_frame(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gpub", size=19)
    game = start["id"]
    play_all(black, white, game, ["16D", "4Q", None])
    outsider = sign_in(server, fresh_name("Gpub"))
    state = outsider.wire.sync(game)
    status, public = server.get(f"/api/games/{game}")
    assert status == 200
    assert state_without_clock(public) == state_without_clock(state)
    assert abs(public["remaining_ms"] - state["remaining_ms"]) < 2000
    assert len(state["board"]) == 19 and all(len(row) == 19 for row in state["board"])
    assert state["board"][3][3] == "x" and state["board"][15][15] == "o"


def test_reconnect_with_the_token_finds_the_game_and_play_goes_on(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Grecon")
    game = start["id"]
    points: list[Optional[str]] = ["5E", "4D", None, "6F", "3C"]
    play_all(black, white, game, points)
    black.wire.close()
    white.wire.send({"type": "move", "game": game, "ply": 5, "point": "7G"})  # black is away
    played = white.wire.expect("played")
    assert played["ply"] == 5
    # Back, with another spelling of the name.
    back = sign_in(server, black.name.lower(), black.token)
    assert back.name == black.name
    games = back.welcome["games"]
    assert [g["id"] for g in games] == [game]
    state = games[0]
    assert state["moves"] == points + ["7G"]
    assert (state["to_move"], state["status"], state["black"], state["white"]) == ("black", "playing", black.name, white.name)
    assert state_without_clock(state) == state_without_clock(white.wire.sync(game))
    # A second connection of the same player gets the game's messages too.
    tab = sign_in(server, black.name, black.token)
    assert [g["id"] for g in tab.welcome["games"]] == [game]
    back.wire.send({"type": "move", "game": game, "ply": 6, "point": "2B"})
    played = back.wire.expect("played")
    assert tab.wire.expect("played") == played == white.wire.expect("played")
    # Either connection may play.
    play(white, tab, game, 7, None)
    back.wire.expect("played")
    tab.wire.send({"type": "pass", "game": game, "ply": 8})
    for wire in (tab.wire, back.wire, white.wire):
        assert wire.expect("played")["ply"] == 8
        assert wire.expect("over")["reason"] == "passes"
    again = sign_in(server, white.name, white.token)
    assert again.welcome["games"] == []


def test_a_game_downloads_as_sgf_while_playing_and_when_over(server: ServerProcess) -> None:
    black, white, state = start_game(server, "Gsgf")
    game = state["id"]
    points = ["3C", "7G", "4C", "6G", "5E"]
    for ply, point in enumerate(points):
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        play(mover, other, game, ply, point)

    def downloaded() -> Go:
        status, text = server.get(f"/api/games/{game}.sgf")
        assert status == 200 and isinstance(text, str), (status, text)
        assert f"PB[{black.name}]" in text and f"PW[{white.name}]" in text and "KM[0.5]" in text, text
        return Go.from_sgf(text)

    unfinished = downloaded()
    current = black.wire.sync(game)
    assert ["".join(row) for row in unfinished.board] == current["board"]
    assert unfinished.turn == current["to_move"] and unfinished.move_number == len(points)
    white.wire.send({"type": "resign", "game": game})
    assert black.wire.expect("over")["winner"] == "black"
    status, text = server.get(f"/api/games/{game}.sgf")
    assert status == 200 and "RE[B+R]" in text, text
    assert downloaded().move_number == len(points)
    assert server.get("/api/games/nosuchgame.sgf")[0] == 404
    black.wire.close()
    white.wire.close()


def test_the_opponent_is_told_when_a_player_goes_and_comes_back(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Gaway")
    game = start["id"]
    assert start["connected"] == {"black": True, "white": True}
    second = sign_in(server, white.name, white.welcome["token"])
    white.wire.close()
    black.wire.silent(0.3, presence=True)  # still connected through the second connection
    second.wire.close()
    gone = black.wire.expect("presence")
    assert gone == {"type": "presence", "game": game, "name": white.name, "color": "white", "connected": False}
    state = black.wire.request({"type": "sync", "game": game}, "state")["game"]
    assert state["connected"] == {"black": True, "white": False}
    assert server.get_json(f"/api/games/{game}")["connected"] == {"black": True, "white": False}
    back = sign_in(server, white.name, white.welcome["token"])
    assert black.wire.expect("presence") == {**gone, "connected": True}
    assert back.welcome["games"][0]["connected"] == {"black": True, "white": True}
    back.wire.request({"type": "resign", "game": game}, "over")
    black.wire.expect("over")
    back.wire.close()
    black.wire.silent(0.3, presence=True)  # the game is over: nobody is told
