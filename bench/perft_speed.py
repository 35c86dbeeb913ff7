"""Perft speed of ferz against python-chess, measured in one run (compare the ratio, not seconds).

Usage: python bench/perft_speed.py [--quick]

ferz runs perft(6) from the start and perft(5) from Kiwipete (--quick: two plies less),
python-chess the same positions two plies shallower.
"""

from __future__ import annotations

import argparse
import os
import time

from ferz.board import Board
from ferz.core import compiled
from ferz.core.perft import perft

POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 3),
]


def chess_perft(board, depth: int) -> int:
    """python-chess perft with a full push/pop at every node."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def main() -> None:
    """Measure and print nodes/second for both engines and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(f"compiled core: {compiled()}, load average: {os.getloadavg()[0]:.2f}")
    for name, fen, depth, chess_depth in POSITIONS:
        if args.quick:
            depth, chess_depth = depth - 2, chess_depth - 1
        board = Board(fen)
        start = time.perf_counter()
        nodes = perft(board.position, depth)
        ferz_nps = nodes / (time.perf_counter() - start)
        line = f"{name}: ferz perft({depth}) = {nodes} at {ferz_nps / 1e6:.1f} M nodes/s"
        try:
            import chess
        except ImportError:
            print(line + " (python-chess not installed: no ratio)")
            continue
        theirs = chess.Board(fen)
        start = time.perf_counter()
        chess_nodes = chess_perft(theirs, chess_depth)
        chess_nps = chess_nodes / (time.perf_counter() - start)
        print(
            f"{line}; python-chess perft({chess_depth}) = {chess_nodes} at "
            f"{chess_nps / 1e6:.2f} M nodes/s; ratio {ferz_nps / chess_nps:.0f}x"
        )


if __name__ == "__main__":
    main()
