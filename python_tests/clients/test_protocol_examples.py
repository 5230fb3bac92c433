"""The protocol's examples (``docs/protocol-examples.jsonl``, which the server's own tests keep
equal to what the server writes) read by the Python client as a connected client reads them:
every server frame goes, in order, through the player's own frame handling (`Player._dispatch`,
as its reader thread calls it; a welcome through `Player._welcome`), for a player of the
example game and for a watcher of it and of the lobby, and what they made of each is checked
against the line. Every kind of frame the client sends has an example too."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, cast

from gokata._frames import _server_error
from gokata._watching import LobbyWatch, WatchedGame
from gokata.client import Player

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "protocol-examples.jsonl"
CLIENT_SOURCES = ROOT / "python" / "gokata"


def examples(origin: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    return [line["frame"] for line in lines if line["from"] == origin]


def unconnected(name: str) -> Player:
    return Player("ws://127.0.0.1:9", name, None, timeout=1.0, reconnect_for=0.0)


def receive(player: Player, frame: dict[str, Any]) -> None:
    """One frame, as the player's reader thread hands it on (under the player's lock)."""
    with player._cond:
        if frame["type"] == "welcome":
            player._welcome(cast(Any, None), frame)
        else:
            player._dispatch(frame)


def check_player(player: Player, frame: dict[str, Any]) -> None:
    """What a player of the game made of `frame`, against the frame."""
    kind = frame["type"]
    if kind == "welcome":
        assert (player.token, player.wins, player.losses) == (frame["token"], frame["wins"], frame["losses"])
        assert (player.rating, player.deviation, player.rank) == (frame["rating"], frame["deviation"], frame["rank"])
        assert sorted(game.id for game in player.games) == sorted(state["id"] for state in frame["games"])
    elif kind in ("start", "state", "undone") and frame["game"]["id"] in player._games:
        state = frame["game"]
        game = player.game(state["id"])
        assert game.moves == state["moves"]
        assert game.turn == state["to_move"]
        assert game.color == ("black" if state["black"] == player.name else "white")
        assert game.is_over == (state["status"] == "over")
        if state["status"] == "over":
            assert (game.winner, game.reason) == (state["winner"], state["reason"])
    elif kind == "played" and frame["game"] in player._games:
        game = player.game(frame["game"])
        if game.moves and len(game.moves) == frame["ply"] + 1:
            last = game.history[-1]
            assert (last.ply, last.color, last.point) == (frame["ply"], frame["color"], frame["point"])
            assert list(last.captured) == frame["captured"]
            assert last.to_move == frame["to_move"] and last.remaining_ms == frame["remaining_ms"]
        else:  # a turn missed: the client asks for the game again
            assert {"type": "sync", "game": frame["game"]} in player._outbox
    elif kind == "chat" and frame["game"] in player._games:
        said = player.game(frame["game"]).messages[-1]
        assert (said.sender, said.text, said.ply, said.at_ms, said.channel) == (
            frame["from"],
            frame["text"],
            frame["ply"],
            frame["at_ms"],
            frame["channel"],
        )
    elif kind == "undo_requested":
        request = player.game(frame["game"]).undo_requested
        assert request is not None and (request.ply, request.by) == (frame["ply"], frame["by"])
    elif kind == "presence":
        assert player.game(frame["game"]).connected[frame["color"]] == frame["connected"]
    elif kind == "over" and frame["game"] in player._games:
        over = player.game(frame["game"]).over
        assert over is not None and (over.winner, over.reason, over.score) == (
            frame["winner"],
            frame["reason"],
            frame["score"],
        )
        assert over.records is not None
        for color, record in over.records.items():
            told = frame["records"][color]
            assert (record.name, record.wins, record.losses, record.rating, record.rank) == (
                told["name"],
                told["wins"],
                told["losses"],
                told["rating"],
                told["rank"],
            )
        assert over.ratings is not None and frame["ratings"] is not None
        for color, change in over.ratings.items():
            assert (change.before, change.after, change.rank) == tuple(
                frame["ratings"][color][key] for key in ("before", "after", "rank")
            )
        mine = frame["records"]["black" if frame["records"]["black"]["name"] == player.name else "white"]
        assert (player.wins, player.losses, player.rank) == (mine["wins"], mine["losses"], mine["rank"])
    elif kind == "error":
        error = _server_error(frame)
        assert (error.code, error.message, error.game, error.reason) == (
            frame["code"],
            frame["message"],
            frame.get("game"),
            frame.get("reason"),
        )
    elif kind == "goodbye":
        assert player._goodbye == frame["reason"]


def check_watcher(watcher: Player, watched: dict[str, WatchedGame], frame: dict[str, Any]) -> None:
    """What a watcher of the games (`watched`, kept after the client drops a game that ended)
    and of the lobby made of `frame`, against the frame."""
    kind = frame["type"]
    if kind == "lobby":
        assert watcher._lobby is not None
        lobby = watcher._lobby.latest
        assert (list(lobby.seeks), list(lobby.games), lobby.total) == (frame["seeks"], frame["games"], frame["total"])
    elif kind in ("state", "undone", "resumed"):
        game = watched[frame["game"]["id"]]
        assert game.moves == frame["game"]["moves"]
        assert (game.black, game.white, game.size) == (
            frame["game"]["black"],
            frame["game"]["white"],
            frame["game"]["size"],
        )
    elif kind == "scoring":
        marks = watched[frame["game"]].marks
        assert marks is not None
        assert (list(marks.dead), marks.score, marks.accepted) == (frame["dead"], frame["score"], frame["accepted"])
    elif kind == "chat":
        said = watched[frame["game"]].messages[-1]
        assert (said.sender, said.text, said.channel) == (frame["from"], frame["text"], frame["channel"])


def test_the_client_reads_every_server_example_as_it_is() -> None:
    frames = examples("server")
    player = unconnected("alice")
    watcher = unconnected("dave")
    game_ids = {frame["game"]["id"] for frame in frames if isinstance(frame.get("game"), dict)}
    watched = {game_id: WatchedGame(watcher, game_id) for game_id in game_ids}
    with watcher._cond:  # as watch() and watch_lobby() leave them before their requests go
        watcher._watches.update(watched)
        watcher._lobby = LobbyWatch(watcher)
    kinds = set()
    for frame in frames:
        kinds.add(frame["type"])
        receive(player, frame)
        check_player(player, frame)
        receive(watcher, frame)
        check_watcher(watcher, watched, frame)
    assert player.game("k3v9q2x7m4pd").is_over
    assert {"welcome", "start", "played", "over", "state", "chat", "scoring", "lobby", "error"} <= kinds


def frame_types_sent_by_the_client() -> set[str]:
    """The ``type`` of every frame literal in the client's source: the frames it can send."""
    types = set()
    for source in CLIENT_SOURCES.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    is_type = isinstance(key, ast.Constant) and key.value == "type"
                    if is_type and isinstance(value, ast.Constant) and isinstance(value.value, str):
                        types.add(value.value)
    return types


def test_every_frame_the_client_sends_has_an_example() -> None:
    sent = frame_types_sent_by_the_client()
    assert {"hello", "seek", "move", "pass", "resign", "sync", "ping", "watch", "watch_lobby"} <= sent
    exemplified = {frame["type"] for frame in examples("client")}
    assert sent - exemplified == set(), "frames the client sends without an example"

