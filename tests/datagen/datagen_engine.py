#!/usr/bin/env python3
"""A fast, deterministic stand-in UCI engine for the datagen tests: it takes the most valuable
piece it can (else plays a move picked by a digest of the position) and reports the material
balance, side to move's view, as its score. Same position, same move and score, so its games
are reproducible; greedy captures end them quickly (by adjudication on material)."""

from __future__ import annotations

import hashlib
import os
import sys
import time

from ferz.board import Board

# seconds to wait before each answer to `go` (a test that must interrupt a run mid-way)
DELAY = float(os.environ.get("DATAGEN_STANDIN_DELAY", "0"))
VALUES = {"p": 100, "n": 300, "b": 300, "r": 500, "q": 900, "k": 0}


def material(board: Board) -> int:
    """The material balance from the side to move's view, in centipawns."""
    total = 0
    for piece in board.piece_map().values():
        value = VALUES.get(piece.lower(), 0)
        total += value if piece.isupper() == board.turn else -value
    return total


def choose(board: Board) -> str:
    """The move: the capture of the most valuable piece, else one picked by a digest."""
    moves = sorted(board.legal_moves, key=lambda move: move.uci())
    captures = []
    for move in moves:
        if board.is_capture(move):
            target = board.piece_at(move.uci()[2:4]) or "p"
            captures.append((VALUES.get(target.lower(), 100), move.uci()))
    if captures:
        return max(captures)[1]
    digest = hashlib.blake2b(board.fen().encode(), digest_size=4).digest()
    return moves[int.from_bytes(digest, "little") % len(moves)].uci()


def main() -> int:
    """Speak enough UCI for ferz match."""
    board = Board()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name datagen-stand-in 1")
            print("option name Hash type spin default 16 min 1 max 1024")
            print("option name Threads type spin default 1 min 1 max 1")
            print("uciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "position":
            end = words.index("moves") if "moves" in words else len(words)
            board = Board(" ".join(words[2:end])) if words[1] == "fen" else Board()
            for move in words[end + 1 :]:
                board.push_uci(move)
        elif words[0] == "go":
            time.sleep(DELAY)
            move = choose(board)
            print(f"info depth 1 score cp {material(board)} nodes 1 pv {move}")
            # the reply it expects, as Stockfish names it (the selfplay driver plays it
            # unsearched where the position would be dropped anyway)
            board.push_uci(move)
            reply = "" if board.is_game_over() else f" ponder {choose(board)}"
            board.pop()
            print(f"bestmove {move}{reply}", flush=True)
        elif words[0] == "quit":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
