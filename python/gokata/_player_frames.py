"""The frames the server sends a signed-in player, given to what they concern: its games
(:class:`~gokata.client.RemoteGame`), its requests in flight (by ``ref``), its seek, and what it
watches (:mod:`gokata._watching`). Called by the player's reader thread, under its lock."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gokata._frames import Frame, IllegalMoveError, ServerError, _get, _server_error

if TYPE_CHECKING:
    from gokata.client import Player

log = logging.getLogger("gokata.client")

GAME_FRAMES = ("undo_requested", "undo_declined", "undone", "chat", "scoring", "resumed")
"""The frames of a game that its :class:`~gokata.client.RemoteGame` takes as they are."""


def dispatch(player: Player, frame: Frame) -> None:
    """Carries out one frame from the server; what to send in answer goes to ``player._outbox``."""
    if player._watches or player._lobby is not None:
        from gokata import _watching

        if _watching.dispatch(player, frame):
            return
    kind = frame.get("type")
    game_id = frame.get("game")
    game = player._games.get(game_id) if isinstance(game_id, str) else None
    if kind == "played":
        if game is None:
            player._outbox.append({"type": "sync", "game": _get(frame, "game", str)})
        elif not game._on_played(frame):
            player._outbox.append({"type": "sync", "game": game.id})
    elif kind == "over":
        if game is None:
            player._outbox.append({"type": "sync", "game": _get(frame, "game", str)})
            return
        game._on_over(frame)
        records = game._over.records if game._over else None
        mine = records.get(game.color) if records else None
        if mine is not None:
            player.wins, player.losses = mine.wins, mine.losses
            if mine.rating is not None:
                player.rating, player.deviation, player.rank = mine.rating, mine.deviation, mine.rank
    elif kind in GAME_FRAMES:  # undo, chat, the scoring phase; undone and resumed: a STATE
        state_id = frame["game"].get("id") if isinstance(frame.get("game"), dict) else game_id
        own = player._games.get(state_id) if isinstance(state_id, str) else None
        if own is not None:
            own._on_frame(kind, frame)
    elif kind in ("state", "start"):
        state = frame.get("game")
        started = player._adopt(state)
        if kind == "start" and started is not None and player._seek is not None:
            player._seek.resolve(started)
        state_id = state.get("id") if isinstance(state, dict) else None
        fetch = player._fetches.get(state_id) if isinstance(state_id, str) else None
        if kind == "state" and fetch is not None:
            fetch.resolve(started)  # None: not my game
    elif kind == "presence":
        if game is not None:
            game._on_presence(frame)
    elif kind == "seeking":
        seek = player._seek
        if seek is not None and not seek.done and frame.get("ref") == seek.frame.get("ref"):
            player.seeking = {key: value for key, value in frame.items() if key not in ("type", "ref")}
    elif kind == "cancelled":
        if player._cancel is not None:
            player._cancel.resolve()
        if player._seek is not None:
            player._seek.resolve(error=ServerError("cancelled", "the seek was withdrawn", frame))
    elif kind == "error":
        error = _server_error(frame)
        ref = frame.get("ref")
        request = player._by_ref.get(ref) if isinstance(ref, int) else None
        if request is None:  # answers nothing of ours in flight (a request already given up)
            log.warning("server error: %s %s", error.code, error.message)
            return
        if isinstance(error, IllegalMoveError) and request.frame.get("type") == "move":
            mover = player._games.get(request.frame.get("game", ""))
            error.coord = request.frame.get("point")
            if mover is not None:
                error.color = "black" if mover.color == "black" else "white"
        request.resolve(error=error)
    elif kind == "pong":
        ref = frame.get("ref")
        acknowledging = player._by_ref.get(ref) if isinstance(ref, int) else None
        if acknowledging is not None and acknowledging.acknowledged:
            acknowledging.resolve()  # no error came first: the request was taken
    elif kind == "goodbye":
        reason = frame.get("reason")
        player._goodbye = reason if isinstance(reason, str) else "goodbye"
    # welcome (only after hello) and unknown types: nothing to do
