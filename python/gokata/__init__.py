"""gokata: a fast, exact Go (weiqi, baduk) rules engine written in Rust.

>>> from gokata import Go
>>> game = Go(9)
>>> game.move("5E", "3C")
>>> game.get_position("5E")
'x'
"""

from gokata._gokata import Go, IllegalMoveError, Server, __version__, playouts, solve

__all__ = ["Go", "IllegalMoveError", "Server", "__version__", "playouts", "solve"]
