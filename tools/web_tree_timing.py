"""Time the analysis tree's API on big trees: import a PGN of a random game with two
alternatives at every move, then comment a move deep in it again and again.

    python tools/web_tree_timing.py [--plies 300] [--edits 10]

Prints, for chess, shogi and xiangqi, the moves in the tree, the import's time and the median
and largest time of one edit (read from SQLite, changed, written back, sent in full).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from starlette.testclient import TestClient  # noqa: E402

from ferz import pgn  # noqa: E402
from ferz.board import Board  # noqa: E402
from ferz.web.security import SecurityPolicy  # noqa: E402
from ferz.web.server import create_app  # noqa: E402


def big_game(variant: str, plies: int, alternatives: int, seed: int = 1) -> tuple[str, list[str]]:
    """A PGN of a random game with `alternatives` variations at every move; its main line."""
    rng = random.Random(seed)
    board = Board(variant=variant)
    moves: list[str] = []
    for _ in range(plies):
        legal = board.legal_moves
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move.uci())
        board.push(move)
    game = pgn.Game.from_board(board)
    node, board = game.root, game.board()
    for uci in moves:
        for other in [m for m in board.legal_moves if m.uci() != uci][:alternatives]:
            node.add_variation(board, other)
        board.push_uci(uci)
        node = node.child(uci) or node
    return pgn.write(game), moves


def main() -> int:
    """Run the timing; prints one line per variant."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=300)
    parser.add_argument("--edits", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        policy = SecurityPolicy.make("127.0.0.1", ["testserver"])  # TestClient's Host
        app = create_app(Path(folder) / "games.sqlite3", slots=1, policy=policy)
        with TestClient(app) as client:
            for variant in ("chess", "shogi", "xiangqi"):
                text, moves = big_game(variant, args.plies, 2)
                start = time.perf_counter()
                res = client.post("/api/import", json={"text": text})
                took = time.perf_counter() - start
                if res.status_code != 200:
                    print(f"{variant}: import failed: {res.text}", file=sys.stderr)
                    return 1
                line = res.json()
                times = []
                for n in range(args.edits):
                    body = {"op": "comment", "path": moves[: len(moves) // 2], "comment": f"{n}"}
                    start = time.perf_counter()
                    res = client.post(f"/api/games/{line['id']}/tree", json=body)
                    times.append(time.perf_counter() - start)
                    if res.status_code != 200:
                        print(f"{variant}: edit failed: {res.text}", file=sys.stderr)
                        return 1
                print(
                    f"{variant}: {len(line['tree']['nodes'])} moves; import {took * 1000:.0f} ms;"
                    f" edit median {statistics.median(times) * 1000:.0f} ms,"
                    f" max {max(times) * 1000:.0f} ms"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
