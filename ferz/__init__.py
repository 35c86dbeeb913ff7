"""ferz: a chess and chess-variant engine with a compiled core."""

__version__ = "0.1.0"
