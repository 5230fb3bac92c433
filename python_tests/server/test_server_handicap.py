"""`gokata serve`, handicaps and komi: rated seeks asking ``"handicap": "auto"`` get stones from
the players' ranks (``floor(difference / worth)``, a stone worth 1 rank on 19x19, 3 on 13x13,
6 on 9x9; at most 9, 5 on 9x9; 0 or 1 an even game), the weaker player black, the stones where
`gokata.Go.handicap_stones` puts them, white moving first, komi 0.5; a colour asked for is
honoured only where it is the one the rank gets; the rating update counts black as raised by
the stones (checked against `support.glicko2`). Unrated seeks name their stones and komi and
pair only with the same. Bad values are bad requests naming the field.

Players of given ranks are made by writing their ratings into the database while the server is
stopped (`support.player_rows`), once for the module; each player plays at most one game.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gokata import Go
from support import glicko2
from support.databases import Databases
from support.expected import Ledger, assert_shows, seeking
from support.glicko2 import Rating
from support.player_rows import players_rated
from support.server_process import Frame, Player, ServerProcess, fresh_name, play, sign_in

MOVE_TIME = 300.0
MOVE_MS = int(MOVE_TIME * 1000)
RATED_GAMES = 10
"""The rated games the written players are said to have played (only the leaderboard cares)."""


def at_rank(rank: float) -> Rating:
    """A settled player (deviation 100) of this rank."""
    return Rating(glicko2.rating_of(rank), 100.0, 0.06)


# (size, weaker rank, stronger rank, stones). No rank is a whole number, where a label changes
# (test_server_ratings has those).
AUTOMATIC: list[tuple[int, float, float, int]] = [
    (9, 20.3, 32.2, 0),  # 11.9 ranks: less than two stones' worth (6 each)
    (9, 20.3, 32.8, 2),
    (9, 15.3, 34.8, 3),
    (9, 5.3, 40.3, 5),  # 35 ranks: 5 at most on 9x9
    (13, 20.3, 26.2, 0),  # 5.9 ranks: one stone (3 each) is an even game
    (13, 20.3, 26.8, 2),
    (13, 20.3, 29.5, 3),
    (13, 10.3, 40.3, 9),  # 30 ranks: 10 stones' worth, 9 at most
    (19, 24.3, 25.8, 0),  # 1.5 ranks: one stone is an even game
    (19, 24.3, 26.5, 2),
    (19, 20.3, 26.0, 5),
    (19, 10.3, 30.3, 9),  # 20 ranks: 9 at most
]

COLOURS = {
    # For the colour rules: pairs needing stones on 19x19 (4.2 ranks: 4 stones), several times
    # over, and players of the same rank.
    **{f"weak{n}": at_rank(22.2) for n in range(4)},
    **{f"strong{n}": at_rank(26.4) for n in range(4)},
    **{f"even{n}": at_rank(24.3) for n in range(4)},
}


def case_key(index: int, role: str) -> str:
    return f"c{index}{role}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("handicap"), "server"), MOVE_TIME) as process:
        yield process


@pytest.fixture(scope="module")
def roster(server: ServerProcess, databases: Databases) -> dict[str, Player]:
    """Every player of the module with its rating, signed in."""
    ratings: dict[str, Rating] = dict(COLOURS)
    for index, (_, weaker, stronger, _) in enumerate(AUTOMATIC):
        ratings[case_key(index, "w")] = at_rank(weaker)
        ratings[case_key(index, "s")] = at_rank(stronger)
    return players_rated(server, databases, ratings, RATED_GAMES)


def rows(go: Go) -> list[str]:
    return ["".join(row) for row in go.board]


def with_stones(size: int, stones: int) -> Go:
    go = Go(size)
    if stones:
        go.handicap_stones(stones)
    return go


def seek(who: Player, size: int, color: str = "any", **terms: Any) -> Frame:
    """A seek that waits."""
    answer: Frame = who.wire.request({"type": "seek", "size": size, "color": color, **terms}, "seeking")
    return answer


def paired(newcomer: Player, waiting: Player, size: int, color: str = "any", **terms: Any) -> Frame:
    newcomer.wire.send({"type": "seek", "size": size, "color": color, **terms})
    state: Frame = newcomer.wire.expect("start")["game"]
    assert waiting.wire.expect("start")["game"] == state
    return state


def cancel(*players: Player) -> None:
    for who in players:
        who.wire.request({"type": "cancel"}, "cancelled")


def end_by_resignation(state: Frame, black: Player, white: Player, loser: Player) -> Frame:
    loser.wire.send({"type": "resign", "game": state["id"]})
    over: Frame = black.wire.expect("over")
    assert white.wire.expect("over") == over
    return over


@pytest.mark.parametrize("index", range(len(AUTOMATIC)), ids=[f"{c[0]}x{c[0]}-{c[3]}stones" for c in AUTOMATIC])
def test_an_automatic_handicap_comes_from_the_ranks(server: ServerProcess, roster: dict[str, Player], index: int) -> None:
    size, weaker_rank, stronger_rank, stones = AUTOMATIC[index]
    assert glicko2.handicap_stones(stronger_rank - weaker_rank, size) == stones, "the reference agrees"
    weaker, stronger = roster[case_key(index, "w")], roster[case_key(index, "s")]
    ratings = {weaker.name: at_rank(weaker_rank), stronger.name: at_rank(stronger_rank)}
    # Either may seek first.
    first, second = (weaker, stronger) if index % 2 == 0 else (stronger, weaker)
    assert_shows(seek(first, size, handicap="auto"), seeking(size, move_ms=MOVE_MS, handicap="auto"))
    state = paired(second, first, size, handicap="auto")
    assert (state["rated"], state["handicap"], state["komi"], state["moves"]) == (True, stones, 0.5, [])
    if stones:
        assert (state["black"], state["white"]) == (weaker.name, stronger.name), "the weaker is black"
    black = weaker if state["black"] == weaker.name else stronger
    white = stronger if black is weaker else weaker
    assert state["board"] == rows(with_stones(size, stones))
    assert sum(row.count("x") for row in state["board"]) == stones
    assert state["ranks"] == {"black": glicko2.label(ratings[black.name]), "white": glicko2.label(ratings[white.name])}
    assert state["to_move"] == ("white" if stones else "black")
    assert state["remaining_ms"] > 0 and state["move_time_ms"] == MOVE_MS
    if stones:
        # White moves first: black may not.
        black.wire.error({"type": "move", "game": state["id"], "ply": 0, "point": "1A"}, "not_your_turn")
        played = play(white, black, state["id"], 0, "1A")
        assert (played["color"], played["to_move"]) == ("white", "black")
        play(black, white, state["id"], 1, "1B")
        synced = white.wire.sync(state["id"])
        assert synced["board"][size - 1][:2] == "ox" and synced["to_move"] == "white"
    # The stronger resigns: the rating update counts black as raised by the stones.
    over = end_by_resignation(state, black, white, stronger)
    ledger = Ledger()
    for who in (black, white):
        ledger.set_rating(who.name, ratings[who.name])
        ledger.of(who.name).rated_games = RATED_GAMES
    expected = ledger.finish(black.name, white.name, "black" if black is weaker else "white", handicap=stones, size=size)
    ledger.check_over(over, black.name, white.name, expected)
    if stones:
        # Not as an even game: the handicap changes both updates.
        even = glicko2.after_rated_game(ratings[black.name], ratings[white.name], black is weaker)
        assert abs(even[0].rating - ledger.of(black.name).rating.rating) > 1e-3
        assert abs(even[1].rating - ledger.of(white.name).rating.rating) > 1e-3
    listed = server.get_json(f"/api/players/{black.name}/games")["games"]
    assert [(g["id"], g["handicap"], g["komi"], g["rated"]) for g in listed] == [(state["id"], stones, 0.5, True)]
    assert listed[0]["ranks"] == state["ranks"]


def test_a_colour_asked_with_an_automatic_handicap_must_be_the_one_the_rank_gets(
    server: ServerProcess, roster: dict[str, Player]
) -> None:
    weak, strong = [roster[f"weak{n}"] for n in range(4)], [roster[f"strong{n}"] for n in range(4)]
    auto = {"handicap": "auto"}
    # The stronger asks black, but stones make it white: no game.
    seek(strong[0], 19, "black", **auto)
    seek(weak[0], 19, "any", **auto)
    strong[0].wire.silent(0.2)
    cancel(strong[0], weak[0])
    # The weaker asks white, but stones make it black: no game either.
    seek(strong[0], 19, "any", **auto)
    seek(weak[1], 19, "white", **auto)
    strong[0].wire.silent(0.2)
    cancel(strong[0], weak[1])
    # The stronger asks white, the weaker any: a game, the weaker black.
    seek(strong[1], 19, "white", **auto)
    state = paired(weak[1], strong[1], 19, "any", **auto)
    assert (state["black"], state["white"], state["handicap"]) == (weak[1].name, strong[1].name, 4)
    end_by_resignation(state, weak[1], strong[1], strong[1])
    # The weaker asks black, the stronger any: a game, as asked.
    seek(weak[2], 19, "black", **auto)
    state = paired(strong[2], weak[2], 19, "any", **auto)
    assert (state["black"], state["white"], state["handicap"]) == (weak[2].name, strong[2].name, 4)
    end_by_resignation(state, weak[2], strong[2], weak[2])
    # Both ask the colours their ranks get.
    seek(strong[3], 19, "white", **auto)
    state = paired(weak[3], strong[3], 19, "black", **auto)
    assert (state["black"], state["white"], state["handicap"]) == (weak[3].name, strong[3].name, 4)
    end_by_resignation(state, weak[3], strong[3], weak[3])

    # Where no stones are needed, colours are the seeks' to choose: black does not meet black.
    even = [roster[f"even{n}"] for n in range(4)]
    seek(even[0], 19, "black", **auto)
    seek(even[1], 19, "black", **auto)
    even[0].wire.silent(0.1)
    state = paired(even[2], even[0], 19, "white", **auto)
    assert (state["black"], state["white"], state["handicap"], state["to_move"]) == (even[0].name, even[2].name, 0, "black")
    end_by_resignation(state, even[0], even[2], even[0])
    # An automatic seek meets only automatic ones: the default (no stones) does not pair with it.
    seek(even[3], 19, "white")
    even[1].wire.silent(0.1)
    even[3].wire.silent(0.1)
    cancel(even[1], even[3])


def test_new_players_asking_for_an_automatic_handicap_play_even(server: ServerProcess) -> None:
    a, b = sign_in(server, fresh_name("Hnew")), sign_in(server, fresh_name("Hnew"))
    seek(a, 9, handicap="auto")
    state = paired(b, a, 9, handicap="auto")
    assert (state["handicap"], state["to_move"], state["komi"], state["ranks"]) == (
        0, "black", 0.5, {"black": "6k?", "white": "6k?"}
    )
    black, white = (a, b) if state["black"] == a.name else (b, a)
    over = end_by_resignation(state, black, white, white)
    ledger = Ledger()
    ledger.check_over(over, black.name, white.name, ledger.finish(black.name, white.name, "black"))


def test_unrated_seeks_name_their_stones_and_komi_and_pair_only_with_the_same(server: ServerProcess) -> None:
    a, b, c, d = (sign_in(server, fresh_name("Hfix")) for _ in range(4))
    terms = {"rated": False, "handicap": 3, "komi": 6.5}
    assert_shows(seek(a, 13, "black", **terms), seeking(13, "black", move_ms=MOVE_MS, rated=False, handicap=3, komi=6.5))
    seek(b, 13, "white", rated=False, handicap=3)  # another komi (0.5)
    seek(c, 13, "white", rated=False, handicap=2, komi=6.5)  # other stones
    seek(d, 13, "white", handicap=0)  # rated, even
    for who in (a, b, c, d):
        who.wire.silent(0.05)
    cancel(b, c, d)
    e = sign_in(server, fresh_name("Hfix"))
    state = paired(e, a, 13, "any", **terms)
    assert (state["black"], state["white"], state["rated"], state["handicap"], state["komi"]) == (a.name, e.name, False, 3, 6.5)
    assert state["board"] == rows(with_stones(13, 3)) and state["to_move"] == "white"
    game = state["id"]
    play(e, a, game, 0, None)
    play(a, e, game, 1, None)
    over = a.wire.expect("over")
    assert e.wire.expect("over") == over
    go = with_stones(13, 3)
    score = go.score(komi=6.5)
    assert over["score"] == {"black": score["black"], "white": score["white"], "komi": 6.5}
    assert (over["winner"], over["reason"], over["ratings"]) == (score["winner"], "passes", None)

    # A negative komi, no stones, on 9x9: black gets the komi's worth.
    f, g = sign_in(server, fresh_name("Hneg")), sign_in(server, fresh_name("Hneg"))
    seek(f, 9, "black", rated=False, komi=-3.5)
    state = paired(g, f, 9, "white", rated=False, komi=-3.5)
    assert (state["handicap"], state["komi"], state["to_move"]) == (0, -3.5, "black")
    play(f, g, state["id"], 0, None)
    play(g, f, state["id"], 1, "5E")
    play(f, g, state["id"], 2, None)
    play(g, f, state["id"], 3, None)
    over = f.wire.expect("over")
    assert g.wire.expect("over") == over
    assert (over["winner"], over["score"]) == ("white", {"black": 0, "white": 81, "komi": -3.5})


def test_an_unrated_game_with_whole_komi_may_be_drawn(server: ServerProcess) -> None:
    a, b = sign_in(server, fresh_name("Hdraw")), sign_in(server, fresh_name("Hdraw"))
    seek(a, 9, "black", rated=False, komi=0)
    state = paired(b, a, 9, "white", rated=False, komi=0)
    assert state["komi"] == 0
    play(a, b, state["id"], 0, None)
    play(b, a, state["id"], 1, None)
    over = a.wire.expect("over")
    assert b.wire.expect("over") == over
    assert (over["winner"], over["reason"], over["score"], over["ratings"]) == (
        None, "passes", {"black": 0, "white": 0, "komi": 0}, None
    )
    for color, who in (("black", a), ("white", b)):
        assert (over["records"][color]["wins"], over["records"][color]["losses"]) == (0, 0), "a draw counts for neither"
        assert server.get_json(f"/api/players/{who.name}")["wins"] == 0
    final = a.wire.sync(state["id"])
    assert (final["status"], final["winner"], final["score"]) == ("over", None, over["score"])


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"handicap": 2}, "'handicap'"),  # fixed stones in a rated seek
        ({"rated": True, "handicap": 9}, "'handicap'"),
        ({"rated": False, "handicap": "auto"}, "'handicap'"),
        ({"rated": False, "handicap": 1}, "'handicap'"),
        ({"rated": False, "handicap": 10}, "'handicap'"),
        ({"rated": False, "handicap": -1}, "'handicap'"),
        ({"rated": False, "handicap": 2.5}, "'handicap'"),
        ({"rated": False, "handicap": "two"}, "'handicap'"),
        ({"rated": False, "handicap": True}, "'handicap'"),
        ({"rated": False, "size": 9, "handicap": 6}, "'handicap'"),
        ({"rated": False, "size": [19, 9], "handicap": 7}, "'handicap'"),
        ({"komi": 6.5}, "'komi'"),  # another komi in a rated seek
        ({"rated": False, "komi": 0.3}, "'komi'"),
        ({"rated": False, "komi": 150.5}, "'komi'"),
        ({"rated": False, "komi": -151}, "'komi'"),
        ({"rated": False, "komi": "6.5"}, "'komi'"),
        ({"rated": "no"}, "'rated'"),
        ({"rated": 0}, "'rated'"),
    ],
)
def test_bad_handicaps_and_komi_are_bad_requests_naming_the_field(
    server: ServerProcess, fields: dict[str, Any], named: str
) -> None:
    who = sign_in(server, fresh_name("Hbad"))
    frame = {"type": "seek", "size": 19, **fields}
    error = who.wire.error(frame, "bad_request")
    assert named in error["message"], error
    assert who.name not in [s["name"] for s in server.get_json("/api/seeks")["seeks"]], "nothing waits"
    who.wire.close()


def test_the_extreme_komi_and_stones_are_accepted(server: ServerProcess) -> None:
    who = sign_in(server, fresh_name("Hedge"))
    for fields in (
        {"rated": False, "komi": 150},
        {"rated": False, "komi": -150},
        {"rated": False, "handicap": 9, "komi": 0},
        {"rated": False, "size": 9, "handicap": 5},
        {"rated": False, "handicap": 0, "komi": 7},
        {"rated": True, "handicap": 0, "komi": 0.5},
    ):
        frame: dict[str, Any] = {"type": "seek", "size": 19, "color": "any", **fields}
        answer = who.wire.request(frame, "seeking")
        assert (answer["rated"], answer["handicap"], answer["komi"]) == (
            fields["rated"], fields.get("handicap", 0), fields.get("komi", 0.5)
        )
    cancel(who)
