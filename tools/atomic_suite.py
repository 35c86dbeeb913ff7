"""Tactical suites for atomic chess, built from seeded random games and checked exhaustively.

Usage (PYTHONPATH picks the ferz tree to measure, so two checkouts can be compared):
  PYTHONPATH=. python3 tools/atomic_suite.py build win2 --count 200 --seed 1 --out win2_1.json
  PYTHONPATH=. python3 tools/atomic_suite.py build defence --count 200 --seed 3 --out def_3.json
  PYTHONPATH=. python3 tools/atomic_suite.py solve win2_1.json --nodes 1024,4096,16384

`win2`: the side to move wins by force in two moves (a move after which every reply allows a
win at once: a capture that blows up the king, or mate), and has no win in one; the solutions
are every such first move. `defence`: at least half the moves lose at once (the opponent then
wins in one) and some do not; the solutions are those. Both are found with ferz's own atomic
rules, which the test suite checks against pyffish. `solve` counts the positions where the
engine's move under a node limit is a solution (one search thread, so the counts repeat).
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from ferz.board import Board
from ferz.core import endrules
from ferz.core.attacks import in_check
from ferz.core.defs import NO_END
from ferz.engine import Engine, Limits


def wins_now(pos) -> list[int]:
    """The legal moves after which the opponent has lost (its king blown up, or mated)."""
    out = []
    for m in pos.legal_moves():
        pos.make(m)
        value = endrules.end_value(pos)
        if value == -1 or (value == NO_END and not pos.legal_moves() and in_check(pos)):
            out.append(m)
        pos.unmake()
    return out


def wins_in_two(pos, m: int) -> bool:
    """Whether move m wins at once, or leaves only replies after which a win in one exists."""
    pos.make(m)
    try:
        value = endrules.end_value(pos)
        if value != NO_END:
            return value == -1
        replies = pos.legal_moves()
        if not replies:
            return in_check(pos)
        for reply in replies:
            pos.make(reply)
            lost = endrules.end_value(pos) == NO_END and bool(wins_now(pos))
            pos.unmake()
            if not lost:
                return False
        return True
    finally:
        pos.unmake()


def holds(pos, m: int) -> bool | None:
    """After m: True if the opponent cannot win at once, False if it can, None if m ends the
    game (those moves are left out of the defence suite)."""
    pos.make(m)
    try:
        if endrules.end_value(pos) != NO_END or not pos.legal_moves():
            return None
        return not wins_now(pos)
    finally:
        pos.unmake()


def random_position(rng: random.Random) -> Board | None:
    """A position 6 to 39 plies into a random game (captures preferred now and then)."""
    board = Board(variant="atomic")
    for _ in range(rng.randrange(6, 40)):
        moves = board.legal_moves
        if not moves or board.outcome():
            return None
        captures = [m for m in moves if board.piece_at(m.text[2:4]) is not None]
        board.push(rng.choice(captures if captures and rng.random() < 0.3 else moves))
    return None if board.outcome() else board


def solutions(kind: str, board: Board) -> list[str]:
    """The solving moves of a position for a suite kind, or [] if it does not qualify."""
    pos = board.position
    if wins_now(pos):
        return []
    if kind == "win2":
        return sorted(m.text for m in board.legal_moves if wins_in_two(pos, m.code))
    verdicts = [(m.text, holds(pos, m.code)) for m in board.legal_moves]
    safe = [text for text, ok in verdicts if ok]
    losing = sum(1 for _, ok in verdicts if ok is False)
    return sorted(safe) if safe and losing >= len(verdicts) // 2 else []


def build(kind: str, count: int, seed: int) -> list[dict]:
    """`count` positions of a suite kind from games seeded by `seed`."""
    rng = random.Random(seed)
    suite: list[dict] = []
    while len(suite) < count:
        board = random_position(rng)
        if board is not None and (good := solutions(kind, board)):
            suite.append({"fen": board.fen(), "solutions": good})
    return suite


def solve(suite: list[dict], nodes: int) -> int:
    """How many positions the engine solves with this node limit."""
    solved = 0
    for case in suite:
        engine = Engine(variant="atomic")
        engine.set_position(case["fen"])
        best: list = []
        engine.go(Limits(nodes=nodes), on_bestmove=lambda move, _ponder, out=best: out.append(move))
        engine.wait(120)
        solved += bool(best) and best[0] in case["solutions"]
    return solved


def main() -> None:
    """Build a suite or count what the engine solves."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("kind", choices=("win2", "defence"))
    b.add_argument("--count", type=int, default=200)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--out", required=True)
    s = sub.add_parser("solve")
    s.add_argument("suite")
    s.add_argument("--nodes", default="1024,4096,16384")
    args = parser.parse_args()
    if args.command == "build":
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(build(args.kind, args.count, args.seed), out, indent=0)
        return
    with open(args.suite, encoding="utf-8") as source:
        suite = json.load(source)
    for limit in (int(x) for x in args.nodes.split(",")):
        print(f"nodes {limit}: solved {solve(suite, limit)}/{len(suite)}", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
