"""`ferz perft`: count the leaves of the legal move tree, optionally per root move."""

from __future__ import annotations

import time

from .board import Board
from .core.perft import perft


def main(depth: int, fen: str | None = None, variant: str = "chess", divide: bool = False) -> int:
    """Print the divide lines (if asked), then `Nodes searched` and `Nodes/second`."""
    if depth < 1 or depth > 20:
        raise ValueError(f"perft depth must be between 1 and 20, got {depth}")
    board = Board(fen, variant=variant)
    pos = board.position
    start = time.perf_counter()
    total = 0
    if divide:
        for move in board.legal_moves:
            pos.push(move.code)
            count = perft(pos, depth - 1)
            pos.pop()
            print(f"{move.uci()}: {count}", flush=True)
            total += count
    else:
        total = perft(pos, depth)
    elapsed = max(time.perf_counter() - start, 1e-9)
    if divide:
        print()
    print(f"Nodes searched: {total}")
    print(f"Nodes/second: {int(total / elapsed)}")
    return 0
