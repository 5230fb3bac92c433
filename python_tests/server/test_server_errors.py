"""`gokata serve`, refusals: every error code, bad frames, the order of the turn checks, stale
plies, and a flooding client that is cut off without disturbing anyone else.

One server for the module; every test plays games of its own. After each refusal the game's
state is compared with the state before: an error changes nothing.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator, Sequence
from typing import Optional

import pytest
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close, Opcode
from websockets.frames import Frame as WebSocketFrame
from websockets.protocol import State
from websockets.uri import parse_uri

from gokata import Go
from support.databases import Databases
from support.expected import Ledger, assert_matches
from support.server_process import (
    RECV_TIMEOUT,
    Frame,
    Player,
    ServerProcess,
    fresh_name,
    loopback_source,
    play,
    sign_in,
    start_game,
)

MAX_FRAME = 16 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, databases: Databases) -> Iterator[ServerProcess]:
    with ServerProcess(databases.new(tmp_path_factory.mktemp("errors"), "server")) as process:
        yield process


def same_state(before: Frame, after: Frame) -> None:
    """Equal but for the clock, which runs."""
    assert {k: v for k, v in after.items() if k != "remaining_ms"} == {
        k: v for k, v in before.items() if k != "remaining_ms"
    }


def play_all(black: Player, white: Player, game: str, points: Sequence[Optional[str]]) -> None:
    for ply, point in enumerate(points):
        mover, other = (black, white) if ply % 2 == 0 else (white, black)
        play(mover, other, game, ply, point)


# -- bad frames ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ("{", "JSON"),
        ("", "JSON"),
        ("hello", "JSON"),
        ('{"type":"ping"', "JSON"),
        ("[1]", "array"),
        ("42", "number"),
        ('"ping"', "string"),
        ("null", "null"),
        ("{}", "'type'"),
        ('{"type":7}', "'type'"),
        ('{"type":null}', "'type'"),
        ('{"type":"dance"}', '"dance"'),
        ('{"type":"HELLO","name":"x"}', '"HELLO"'),
        ('{"type":"sync"}', "'game'"),
        ('{"type":"sync","game":5}', "'game'"),
        ('{"type":"move","game":"g","ply":0}', "'point'"),
        ('{"type":"move","game":"g","point":"5E"}', "'ply'"),
        ('{"type":"move","ply":0,"point":"5E"}', "'game'"),
        ('{"type":"move","game":"g","ply":-1,"point":"5E"}', "-1"),
        ('{"type":"move","game":"g","ply":1.5,"point":"5E"}', "1.5"),
        ('{"type":"move","game":"g","ply":"0","point":"5E"}', "'ply'"),
        ('{"type":"move","game":"g","ply":0,"point":55}', "'point'"),
        ('{"type":"move","game":["g"],"ply":0,"point":"5E"}', "'game'"),
        ('{"type":"pass","game":"g"}', "'ply'"),
        ('{"type":"pass","game":"g","ply":true}', "'ply'"),
        ('{"type":"resign"}', "'game'"),
        ('{"type":"resign","game":{}}', "'game'"),
    ],
)
def test_malformed_frames_are_bad_requests_that_name_the_problem(server: ServerProcess, raw: str, named: str) -> None:
    player = sign_in(server, fresh_name("Ebad"))
    reply = player.wire.error(raw, "bad_request")
    assert named in reply["message"], reply
    player.wire.ping()  # the connection stays usable
    player.wire.close()


def test_bad_frames_before_hello_are_bad_requests_too(server: ServerProcess) -> None:
    with server.connect() as wire:
        wire.error("{", "bad_request")
        wire.error(b"\x00\x01", "bad_request")
        wire.error('{"type":"dance"}', "bad_request")
        assert wire.request({"type": "hello", "name": fresh_name("Eearly")}, "welcome")


def test_a_binary_frame_is_a_bad_request(server: ServerProcess) -> None:
    player = sign_in(server, fresh_name("Ebin"))
    reply = player.wire.error(json.dumps({"type": "ping", "t": 1}).encode(), "bad_request")
    assert "binary" in reply["message"]
    player.wire.ping()
    player.wire.close()


def test_frames_up_to_16_kib_are_read_and_larger_ones_refused(server: ServerProcess) -> None:
    player = sign_in(server, fresh_name("Ebig"))
    envelope = '{"type":"ping","t":""}'
    at_limit = '{"type":"ping","t":"' + "x" * (MAX_FRAME - len(envelope)) + '"}'
    assert len(at_limit.encode()) == MAX_FRAME
    player.wire.send_raw(at_limit)
    assert len(player.wire.expect("pong")["t"]) == MAX_FRAME - len(envelope)
    over = '{"type":"ping","t":"' + "x" * (MAX_FRAME + 1 - len(envelope)) + '"}'
    reply = player.wire.error(over, "bad_request")
    assert str(MAX_FRAME) in reply["message"]
    # Multi-byte characters count as bytes.
    player.wire.error('{"type":"ping","t":"' + "é" * (MAX_FRAME // 2) + '"}', "bad_request")
    player.wire.error(b"x" * (MAX_FRAME + 1), "bad_request")
    # 60 KiB: refused, and the connection stays usable.
    player.wire.error('{"type":"ping","t":"' + "x" * (60 * 1024) + '"}', "bad_request")
    player.wire.ping()
    player.wire.request({"type": "cancel"}, "cancelled")
    player.wire.close()


def test_a_frame_over_64_kib_is_refused_and_closes_the_connection(server: ServerProcess) -> None:
    player = sign_in(server, fresh_name("Ehuge"))
    try:
        player.wire.send_raw('{"type":"ping","t":"' + "x" * (64 * 1024) + '"}')
        reply = player.wire.expect("error")
        assert reply["code"] == "bad_request", reply
    except ConnectionClosed:
        pytest.fail("the connection closed before the bad_request")
    closed = player.wire.closed()
    # The frame is read whole, refused in words, and the connection closed with 1009.
    assert closed.rcvd is not None and closed.rcvd.code == 1009, closed
    # The server goes on; the player signs in again.
    again = sign_in(server, player.name, player.token)
    again.wire.ping()
    again.wire.close()


# -- turns: the order of the checks ----------------------------------------------------------


def test_unknown_games_are_refused_for_every_request(server: ServerProcess) -> None:
    player = sign_in(server, fresh_name("Eunk"))
    for frame in (
        {"type": "move", "game": "nosuchgame00", "ply": 0, "point": "5E"},
        {"type": "move", "game": "", "ply": 0, "point": "zz"},  # step 1 comes first
        {"type": "pass", "game": "nosuchgame00", "ply": 3},
        {"type": "resign", "game": "nosuchgame00"},
        {"type": "sync", "game": "nosuchgame00"},
    ):
        reply = player.wire.error(frame, "unknown_game")
        assert reply["game"] == frame["game"]
    player.wire.close()


def test_a_third_player_cannot_act_in_someone_elses_game(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Eout")
    game = start["id"]
    play(black, white, game, 0, "5E")
    outsider = sign_in(server, fresh_name("Eoutx"))
    before = outsider.wire.sync(game)  # games are public
    assert before["moves"] == ["5E"]
    for frame in (
        {"type": "move", "game": game, "ply": 1, "point": "4D"},
        {"type": "move", "game": game, "ply": 0, "point": "4D"},  # before the stale check
        {"type": "move", "game": game, "ply": 1, "point": "not a point"},
        {"type": "pass", "game": game, "ply": 1},
        {"type": "pass", "game": game, "ply": 7},
        {"type": "resign", "game": game},
    ):
        reply = outsider.wire.error(frame, "not_your_game")
        assert reply["game"] == game
    same_state(before, outsider.wire.sync(game))
    for wire in (black.wire, white.wire):
        wire.silent(0.1)
    # The game goes on.
    play(white, black, game, 1, "4D")
    # Even once it is over, it is not the outsider's.
    black.wire.send({"type": "resign", "game": game})
    assert black.wire.expect("over") == white.wire.expect("over")
    outsider.wire.error({"type": "resign", "game": game}, "not_your_game")
    outsider.wire.error({"type": "pass", "game": game, "ply": 2}, "not_your_game")


def test_not_your_turn_comes_after_the_ply_check(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Eturn")
    game = start["id"]
    before = black.wire.sync(game)
    reply = white.wire.error({"type": "move", "game": game, "ply": 0, "point": "5E"}, "not_your_turn")
    assert reply["game"] == game
    white.wire.error({"type": "pass", "game": game, "ply": 0}, "not_your_turn")
    white.wire.error({"type": "move", "game": game, "ply": 0, "point": "malformed"}, "not_your_turn")
    white.wire.error({"type": "move", "game": game, "ply": 0, "point": "1A"}, "not_your_turn")
    # A wrong ply out of turn gets the state: step 3 comes before step 4.
    assert white.wire.request({"type": "move", "game": game, "ply": 1, "point": "5E"}, "state")["game"]["moves"] == []
    same_state(before, black.wire.sync(game))
    play(black, white, game, 0, "5E")
    black.wire.error({"type": "move", "game": game, "ply": 1, "point": "4D"}, "not_your_turn")
    black.wire.error({"type": "pass", "game": game, "ply": 1}, "not_your_turn")
    play(white, black, game, 1, None)
    play(black, white, game, 2, "4D")
    state = white.wire.sync(game)
    assert state["moves"] == ["5E", None, "4D"] and state["to_move"] == "white"


def test_illegal_moves_are_refused_with_their_reason_and_change_nothing(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Eill")
    game = start["id"]
    # Black 2A and 1B; white 2B and a stone elsewhere: white at 1A would be suicide.
    # Then a ko at the bottom edge: black 1D... set up step by step and checked against Go.
    points: list[str | None] = ["3B", "3C", "2A", "2B", "1B", "2D", "9J", "1C", "2C"]
    play_all(black, white, game, points)
    local = Go(9)
    local.move(*[p for p in points if p is not None])
    assert local.illegal_reason("2B") == "ko"
    before = white.wire.sync(game)
    assert before["board"] == ["".join(row) for row in local.board]
    cases = [  # the point sent, as the message names it, the reason
        ("2B", "2B", "ko"),
        ("b2", "2B", "ko"),  # GTP form, lower case
        ("3B", "3B", "occupied"),
        ("2C", "2C", "occupied"),
        ("1A", "1A", "suicide"),
        ("10A", "10A", "off-board"),
        ("5K", "5K", "off-board"),
        ("0A", "0A", "off-board"),
        ("100Z", "100Z", "off-board"),
    ]
    for point, named, reason in cases:
        if point not in ("0A", "100Z"):
            assert local.illegal_reason(point) == reason, point
        reply = white.wire.error({"type": "move", "game": game, "ply": 9, "point": point}, "illegal_move")
        assert reply["reason"] == reason, reply
        assert reply["game"] == game
        assert named in reply["message"], reply
    for malformed in ("", "5I", "E", "5", "pass", "hello", "5 E", "A-1"):
        reply = white.wire.error({"type": "move", "game": game, "ply": 9, "point": malformed}, "bad_request")
        assert reply["game"] == game and "reason" not in reply, reply
        assert f'"{malformed}"' in reply["message"], reply
    same_state(before, white.wire.sync(game))
    for wire in (black.wire, white.wire):
        wire.silent(0.1)
    # The ko is taken back after a move elsewhere, in the GTP form; the server writes the kata form.
    played = play(white, black, game, 9, "h9")
    assert played["point"] == "9H"
    play(black, white, game, 10, "8J")
    played = play(white, black, game, 11, "b2")
    assert (played["point"], played["captured"]) == ("2B", ["2C"])


def test_a_stale_ply_gets_the_state_and_is_not_played(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Estale")
    game = start["id"]
    played = play(black, white, game, 0, "5E")
    # Black resends its move, as after a reconnect: the state, not a second turn.
    state = black.wire.request({"type": "move", "game": game, "ply": 0, "point": "5E"}, "state")["game"]
    assert state["moves"] == ["5E"] and state["to_move"] == "white"
    # A different point at the old ply is not played either.
    state = black.wire.request({"type": "move", "game": game, "ply": 0, "point": "3C"}, "state")["game"]
    assert state["moves"] == ["5E"]
    # A ply from the future, by either player, and a pass at a wrong ply.
    for who, frame in (
        (white, {"type": "move", "game": game, "ply": 2, "point": "4D"}),
        (white, {"type": "move", "game": game, "ply": 2**64 - 1, "point": "4D"}),
        (white, {"type": "move", "game": game, "ply": 2**53 + 1, "point": "4D"}),
        (black, {"type": "move", "game": game, "ply": 5, "point": "4D"}),
        (white, {"type": "pass", "game": game, "ply": 0}),
        (white, {"type": "pass", "game": game, "ply": 3}),
        (white, {"type": "move", "game": game, "ply": 0, "point": "5E"}),  # stale, though occupied
    ):
        state = who.wire.request(frame, "state")["game"]
        assert state["moves"] == ["5E"], (frame, state)
    for wire in (black.wire, white.wire):
        wire.silent(0.1)
    assert played["to_move"] == "white"
    play(white, black, game, 1, "4D")


def test_turns_and_resignations_in_a_finished_game_get_the_state(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Eover")
    game = start["id"]
    play(black, white, game, 0, "5E")
    white.wire.send({"type": "resign", "game": game})
    over = white.wire.expect("over")
    assert black.wire.expect("over") == over
    assert (over["winner"], over["reason"], over["score"]) == ("black", "resign", None)
    final = black.wire.sync(game)
    for who, frame in (
        (white, {"type": "move", "game": game, "ply": 1, "point": "4D"}),
        (white, {"type": "pass", "game": game, "ply": 1}),
        (black, {"type": "move", "game": game, "ply": 1, "point": "4D"}),
        (black, {"type": "resign", "game": game}),
        (white, {"type": "resign", "game": game}),
    ):
        state = who.wire.request(frame, "state")["game"]
        assert state == final, frame
    assert final["status"] == "over" and final["remaining_ms"] is None
    for wire in (black.wire, white.wire):
        wire.silent(0.1)
    # Counted once, the ratings moved once.
    ledger = Ledger()
    ledger.finish(black.name, white.name, "black")
    for who in (black, white):
        assert_matches(server.get_json(f"/api/players/{who.name}"), ledger.standing(who.name))


# -- flooding --------------------------------------------------------------------------------


def flood(server: ServerProcess) -> tuple[Player, int, list[Frame], ConnectionClosed]:
    """A fresh player sends pings without reading until the server cuts it off (at most 2,000,
    on loopback), then reads until the connection ends: the player, the frames sent, those
    received, the close."""
    flooder = sign_in(server, fresh_name("Eflood"))
    sent = 0
    try:
        for n in range(2000):
            flooder.wire.send({"type": "ping", "t": n})
            sent += 1
    except ConnectionClosed:
        pass
    replies: list[Frame] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            replies.append(flooder.wire.recv())
        except ConnectionClosed as closed:
            return flooder, sent, replies, closed
    raise AssertionError(f"the flooding connection was not closed; {len(replies)} frames received")


def test_a_flood_is_cut_off_without_disturbing_another_game(server: ServerProcess) -> None:
    black, white, start = start_game(server, "Eflood")
    game = start["id"]
    play(black, white, game, 0, "5E")
    flooder, sent, replies, _ = flood(server)
    pongs = [r["t"] for r in replies if r["type"] == "pong"]
    assert pongs == list(range(len(pongs))), "answers come in order, the last ones may be dropped"
    assert len(pongs) < sent and sent > 200, (len(pongs), sent)
    assert all(r["type"] == "pong" or r.get("code") == "rate_limited" for r in replies), replies
    # The game of two other players goes on undisturbed, and nothing reached them meanwhile.
    play(white, black, game, 1, "4D")
    play(black, white, game, 2, "3C")
    assert black.wire.sync(game)["moves"] == ["5E", "4D", "3C"]
    # The flooder may come back.
    again = sign_in(server, flooder.name, flooder.token)
    again.wire.ping()
    again.wire.close()


class PlainSocketClient:
    """A WebSocket client on a plain socket, driven by the ``websockets`` library's sans-I/O
    protocol: unlike a threaded client, it still reads what the server sent after its own send
    failed because the server reset the connection."""

    def __init__(self, server: ServerProcess) -> None:
        self.protocol = ClientProtocol(parse_uri(server.ws_url), max_size=None)
        self.socket = socket.create_connection(
            ("127.0.0.1", server.port), timeout=RECV_TIMEOUT, source_address=(loopback_source(), 0)
        )
        self.protocol.send_request(self.protocol.connect())
        self.socket.sendall(b"".join(self.protocol.data_to_send()))
        while self.protocol.state is not State.OPEN:
            assert self.read(), "the server closed the connection during the handshake"
        self.protocol.events_received()  # the handshake's response

    def send_text(self, text: str) -> None:
        self.protocol.send_text(text.encode())
        try:
            self.socket.sendall(b"".join(self.protocol.data_to_send()))
        except ConnectionResetError:
            pass  # the server closed before reading it all: what it said is read below

    def read(self) -> bool:
        """Feeds the protocol what arrives next; False at the end of the connection."""
        try:
            data = self.socket.recv(65536)
        except ConnectionResetError:
            data = b""
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        return bool(data)

    def frames(self, until_closed: bool = False) -> list[Frame | Close]:
        """The JSON frames that arrive next, at least one; or, ``until_closed``, every frame
        (the close frame as a ``Close``) until the server ends the connection."""
        frames: list[Frame | Close] = []
        connected = True
        while connected and (until_closed or not frames):
            connected = self.read()
            frames += self.decoded()
        return frames

    def decoded(self) -> list[Frame | Close]:
        frames: list[Frame | Close] = []
        for event in self.protocol.events_received():
            if isinstance(event, WebSocketFrame) and event.opcode == Opcode.TEXT:
                frames.append(json.loads(bytes(event.data)))
            elif isinstance(event, WebSocketFrame) and event.opcode == Opcode.CLOSE:
                frames.append(Close.parse(event.data))
        return frames

    def close(self) -> None:
        self.socket.close()


@pytest.mark.parametrize("size", [1024 * 1024 + 1, 2 * 1024 * 1024, 16 * 1024 * 1024])
def test_a_frame_over_the_read_limit_is_refused_unread_with_code_1009(server: ServerProcess, size: int) -> None:
    name = fresh_name("Emega")
    client = PlainSocketClient(server)
    try:
        client.send_text(json.dumps({"type": "hello", "name": name}))
        [welcome] = client.frames()
        assert isinstance(welcome, dict) and welcome["type"] == "welcome", welcome
        client.send_text("x" * size)  # the server stops at the frame's header
        refused, close = client.frames(until_closed=True)  # and nothing else
    finally:
        client.close()
    assert refused == {
        "type": "error",
        "code": "bad_request",
        "message": f"a frame of {size} bytes: frames are at most {MAX_FRAME} bytes, and one over "
        "1048576 is not read: the connection is closed",
    }
    assert isinstance(close, Close) and (close.code, close.reason) == (1009, "frame too large")
    # The server goes on; the player signs in again.
    again = sign_in(server, name, welcome["token"])
    again.wire.ping()
    again.wire.close()


def test_a_binary_frame_over_64_kib_closes_the_connection(server: ServerProcess) -> None:
    player = sign_in(server, fresh_name("Ebin"))
    player.wire.send_raw(b"\x00" * (64 * 1024 + 1))
    assert player.wire.expect("error")["code"] == "bad_request"
    closed = player.wire.closed()
    assert closed.rcvd is not None and closed.rcvd.code == 1009, closed


def test_a_flood_gets_rate_limited_then_a_close_with_code_1008(server: ServerProcess) -> None:
    # The client is still sending when the server closes: the server reads and drops its
    # frames until the client answers the close, so that the error and the close frame arrive
    # rather than a TCP reset.
    _, sent, replies, closed = flood(server)
    errors = [r for r in replies if r["type"] == "error"]
    assert [e["code"] for e in errors] == ["rate_limited"], (sent, len(replies), closed)
    assert closed.rcvd is not None and closed.rcvd.code == 1008, (sent, len(replies), closed)
