#!/usr/bin/env python3
"""A stand-in UCI engine that plays the first legal move (python-chess) and misbehaves on
purpose at its Nth move: `misbehave.py KIND N`.

KIND is one of: good (never misbehaves), crash (exits with code 3), illegal (plays a1a1),
slow (sleeps 1.5 s, then moves: a time forfeit at short time controls), stall (never
answers), disconnect (closes its output and keeps running), nomove (`bestmove (none)`).
Every game counts its own moves (ucinewgame resets the count), so each game misbehaves.
`misbehave.py killparent FILE` kills its parent process (a Ray worker in the test of worker
deaths) when it starts and FILE does not exist yet, after creating FILE: the first start
only; then it plays as `good`.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import chess


def main() -> int:
    """Speak enough UCI for ferz match."""
    kind = sys.argv[1] if len(sys.argv) > 1 else "good"
    if kind == "killparent":
        marker = sys.argv[2]
        if not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getppid(), signal.SIGKILL)
        kind, at = "good", 1
    else:
        at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    board = chess.Board()
    moves_made = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print(f"id name misbehave-{kind}\nuciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "ucinewgame":
            moves_made = 0
        elif words[0] == "position":
            fen = " ".join(words[2:8]) if words[1] == "fen" else chess.STARTING_FEN
            board = chess.Board(fen)
            if "moves" in words:
                for move in words[words.index("moves") + 1 :]:
                    board.push_uci(move)
        elif words[0] == "go":
            moves_made += 1
            if moves_made == at and kind != "good":
                if kind == "crash":
                    return 3
                if kind == "illegal":
                    print("bestmove a1a1", flush=True)
                    continue
                if kind == "slow":
                    time.sleep(1.5)
                elif kind == "stall":
                    time.sleep(3600)
                elif kind == "disconnect":
                    os.close(1)
                    time.sleep(3600)
                elif kind == "nomove":
                    print("bestmove (none)", flush=True)
                    continue
            move = sorted(board.legal_moves, key=lambda m: m.uci())[0]
            print(f"info depth 1 score cp 0 nodes 1 pv {move.uci()}", flush=True)
            print(f"bestmove {move.uci()}", flush=True)
        elif words[0] == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
