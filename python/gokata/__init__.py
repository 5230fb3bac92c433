"""gokata: a fast, exact Go (weiqi, baduk) rules engine written in Rust.

>>> from gokata import Go
>>> game = Go(9)
>>> game.move("5E", "3C")
>>> game.get_position("5E")
'x'
"""

from gokata._gokata import (
    Go,
    IllegalMoveError,
    Server,
    SgfError,
    SgfGame,
    SgfNode,
    __version__,
    analyze,
    genmove,
    playouts,
    read_sgf_collection,
    solve,
    svg,
    write_sgf_collection,
)

__all__ = [
    "Go",
    "IllegalMoveError",
    "Server",
    "SgfError",
    "SgfGame",
    "SgfNode",
    "__version__",
    "analyze",
    "genmove",
    "playouts",
    "read_sgf_collection",
    "solve",
    "svg",
    "write_sgf_collection",
]
