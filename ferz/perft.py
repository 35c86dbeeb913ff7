"""Perft for every front end: count the leaves of the legal move tree, optionally per root move.

`ferz perft` (ferz.commands.perft), UCI `go perft N`, xboard's `perft N` and `Board.perft` all
count with the compiled core (ferz.core.perft) and print the same divide (`e2e4: 20` lines, a
blank line, the total).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .board import Board
from .core.perft import perft

MAX_DEPTH = 20


def check_depth(depth: int) -> None:
    """Refuse a depth outside 1..MAX_DEPTH with a clear ValueError."""
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be between 1 and {MAX_DEPTH}, got {depth}")


def count(board: Board, depth: int) -> int:
    """Leaf nodes of the legal move tree of `depth` plies below the board's position."""
    return perft(board.position, depth)


def divide(board: Board, depth: int) -> Iterator[tuple[str, int]]:
    """Each legal root move (UCI) with the leaf count below it; the board is left as it was."""
    pos = board.position
    for move in board.legal_moves:
        pos.make(move.code)
        try:
            nodes = perft(pos, depth - 1)
        finally:
            pos.unmake()
        yield board.uci(move), nodes


def divide_lines(
    board: Board, depth: int, notation: Callable[[str], str] | None = None
) -> Iterator[str]:
    """The divide as every front end prints it, line by line as counted: `move: count` lines,
    a blank line, then `Nodes searched: total`. `notation` rewrites each UCI move (xboard's
    rank numbering)."""
    check_depth(depth)
    total = 0
    for move, nodes in divide(board, depth):
        yield f"{notation(move) if notation else move}: {nodes}"
        total += nodes
    yield ""
    yield f"Nodes searched: {total}"
