"""Square names of the notations: a move's origin and target, a name as (file, rank)."""

from __future__ import annotations

import re

from ..board import Board, Move

_SQUARE = re.compile(r"([a-z])(\d+)")


def squares(board: Board, move: Move) -> tuple[str | None, str]:
    """The origin (None for a drop) and target square names of a move."""
    found = _SQUARE.findall(move.uci())
    target = "".join(found[-1])
    if "@" in move.uci():
        return None, target
    return "".join(found[0]), target


def split(name: str) -> tuple[int, int]:
    """A square name as (file, rank) counted from 0."""
    match = _SQUARE.fullmatch(name)
    if match is None:
        raise ValueError(f"not a square: {name!r}")
    return ord(match.group(1)) - ord("a"), int(match.group(2)) - 1
