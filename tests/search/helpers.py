"""Helpers for the search tests: run the Engine synchronously and collect its output."""

from __future__ import annotations

import random
from collections.abc import Iterator

from ferz import bench
from ferz.board import Board
from ferz.core import factory, nnue
from ferz.core.evaluate import Evaluator
from ferz.core.tt import TT
from ferz.engine import Engine, Info, Limits
from ferz.variants import get


def think(engine: Engine, fen: str | None = None, moves=(), **limits) -> tuple[str | None, list]:
    """Search a position to the given limits; returns (bestmove, infos)."""
    engine.set_position(fen, moves)
    infos: list[Info] = []
    best: list = []
    engine.go(Limits(**limits), on_info=infos.append, on_bestmove=lambda b, p: best.append(b))
    assert engine.wait(120), "the search did not finish"
    assert len(best) == 1, "exactly one bestmove per go"
    return best[0], infos


def scored(infos: list[Info]) -> list[Info]:
    """The infos that carry a score (principal variation reports)."""
    return [i for i in infos if i.score_cp is not None or i.score_mate is not None]


def bench_lines(depth: int) -> list[list[int]]:
    """[nodes, best move, score] of each bench position searched to `depth` as `ferz bench`
    searches it (one thread, a cleared TT and fresh histories per position)."""
    rules = get("chess")
    evaluator = Evaluator(rules, net=nnue.bundled(rules))
    out = []
    for fen in bench.POSITIONS:
        # a new table is a cleared one (zeros, generation 0), and uncompiled far cheaper than
        # TT.clear's word-by-word loop over 16 MB (a fifth of the uncompiled test's time);
        # test_uncompiled_search_searches_the_same_tree checks the nodes against bench.run's
        tt = TT(bench.HASH_MB)
        search = factory.search(rules, fen, evaluator, tt)
        search.set_root()
        line = list(search.iterate(depth, 1))[-1].lines[0]
        out.append([search.nodes, line.pv[0], line.score])
    return out


def read_epd(path, limit: int | None = None) -> list[tuple[str, dict[str, str]]]:
    """(FEN, operations) of the first `limit` lines of an EPD file."""
    out = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        fields = line.split(None, 4)
        ops = {}
        for op in fields[4].split(";") if len(fields) > 4 else []:
            words = op.split(None, 1)
            if len(words) == 2:
                ops[words[0]] = words[1].strip().strip('"')
        out.append((" ".join(fields[:4]) + " 0 1", ops))
        if limit and len(out) >= limit:
            break
    return out


def random_game(rng: random.Random, plies: int) -> Iterator[Board]:
    """The board after each of up to `plies` random legal moves from the start (one board,
    moved on; the game stops early when it ends)."""
    board = Board()
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.outcome() is not None:
            return
        board.push(rng.choice(moves))
        yield board
