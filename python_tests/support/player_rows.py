"""Players of given ratings, made by writing the ``players`` table (its columns ``rating``,
``deviation``, ``volatility`` and ``rated_games``, as the server's migrations make them) while
the server is stopped: the quick way to players of different ranks, where reaching them by
games would take dozens. The names are registered by the server first (``hello``), so their
rows and tokens are the server's own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from support.databases import Databases
from support.glicko2 import Rating
from support.server_process import Player, ServerProcess, fresh_name, sign_in


def write_ratings(databases: Databases, db: str, ratings: Mapping[str, tuple[Rating, int]]) -> None:
    """Sets each named player's rating and rated games (``{name: (rating, rated_games)}``) in
    the database ``db`` of kind ``databases.kind``; no server may be running on it."""
    if databases.kind == "sqlite":
        connection = sqlite3.connect(db)
        try:
            with connection:
                for name, (rating, games) in ratings.items():
                    changed = connection.execute(
                        "UPDATE players SET rating = ?, deviation = ?, volatility = ?, rated_games = ? WHERE name = ?",
                        (rating.rating, rating.deviation, rating.volatility, games, name),
                    ).rowcount
                    assert changed == 1, name
        finally:
            connection.close()
        return
    database = db.rsplit("/", 1)[1]
    statements = [
        f"UPDATE players SET rating = {rating.rating!r}, deviation = {rating.deviation!r}, "
        f"volatility = {rating.volatility!r}, rated_games = {games} WHERE name = '{name}'"
        for name, (rating, games) in ratings.items()
    ]
    # Names are letters, digits, _ and -: nothing to quote.
    databases.cluster.psql("BEGIN; " + "; ".join(statements) + "; COMMIT;", database)
    listed = ", ".join(f"'{name}'" for name in ratings)
    assert databases.cluster.psql(f"SELECT count(*) FROM players WHERE name IN ({listed})", database) == str(len(ratings))


def players_rated(
    server: ServerProcess, databases: Databases, ratings: Mapping[str, Rating], rated_games: int = 10
) -> dict[str, Player]:
    """New players (one a key of ``ratings``, each name made from its key) with those ratings:
    registered, the server stopped, their rows written, the server started again, and each
    signed in again. Any other connection to the server is closed by the restart."""
    names = {key: fresh_name(key) for key in ratings}
    tokens = {}
    for key, name in names.items():
        player = sign_in(server, name)
        tokens[key] = player.token
        player.wire.close()
    server.stop()
    write_ratings(databases, server.db, {names[key]: (rating, rated_games) for key, rating in ratings.items()})
    server.restart()
    return {key: sign_in(server, names[key], tokens[key]) for key in ratings}
