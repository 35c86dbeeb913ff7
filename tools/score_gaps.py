#!/usr/bin/env python3
# ferz - a chess and chess-variant engine
# Copyright (C) 2026 the ferz authors
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where an engine's scores were wrong in a match: the moments one engine called itself
winning while its opponent, a move earlier, called the game level.

    python3 tools/score_gaps.py match.pgn --engine ferz [--high 150 --low 50]
    python3 tools/score_gaps.py match.pgn --engine ferz --check 40 \\
        --reference /usr/games/stockfish --nodes 200000

Reads a PGN whose moves carry their mover's score as `{ +0.52/13 0.4s }` (ferz match and the
team's match script write them). For each result of the named engine (win, draw, loss) it
prints how many games had a move where both engines gave it `--high` cp or more, and how many
had a move where it gave itself `--high` or more while the opponent's score of the move before
gave it less than `--low`: a gap. With `--check N` the first gap of N of those games, drawn
with `--seed`, is searched again by the reference engine (`--nodes`, one thread), and each is
printed with both engines' scores, the reference's and the pieces on the board; then the means.
"""

from __future__ import annotations

import argparse
import random
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn

SCORE = re.compile(r"\s*([+-]?)(M?)(\d+(?:\.\d+)?)/")
MATE_CP = 10000


@dataclass
class Gap:
    """A moment the engine called itself winning and its opponent did not."""

    game: str
    result: int  # +1 win, 0 draw, -1 loss for the engine
    own: int  # the engine's score, cp
    other: int  # the opponent's score of the move before, for the engine, cp
    fen: str  # the position after the engine's move


def score(comment: str) -> int | None:
    """The mover's score in a move comment, cp (mates as +-MATE_CP); None without one."""
    found = SCORE.match(comment)
    if not found:
        return None
    value = MATE_CP if found.group(2) else round(100 * float(found.group(3)))
    return -value if found.group(1) == "-" else value


def scan(path: Path, engine: str, high: int, low: int) -> tuple[dict, dict, dict, list[Gap]]:
    """Games by result, games where both agreed on `high`, games with a gap, and each game's
    first gap."""
    games = {1: 0, 0: 0, -1: 0}
    agreed = {1: 0, 0: 0, -1: 0}
    gapped = {1: 0, 0: 0, -1: 0}
    first: list[Gap] = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            white = game.headers.get("White") == engine
            if not white and game.headers.get("Black") != engine:
                continue
            outcome = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}.get(game.headers.get("Result", ""))
            if outcome is None:
                continue  # (an unfinished game)
            result = outcome if white else -outcome
            games[result] += 1
            other: int | None = None
            both = gap = None
            board = game.board()
            for node in game.mainline():
                board.push(node.move)
                value = score(node.comment)
                if value is None:
                    continue
                if board.turn != white:  # the engine made this move
                    if value >= high and other is not None:
                        if -other >= high:
                            both = True
                        if -other < low and gap is None and abs(value) < MATE_CP:
                            gap = Gap(
                                game.headers.get("Round", "?"),
                                result,
                                value,
                                -other,
                                board.fen(),
                            )
                else:
                    other = value
            agreed[result] += bool(both)
            if gap is not None:
                gapped[result] += 1
                first.append(gap)
    return games, agreed, gapped, first


def check(gaps: list[Gap], reference: str, nodes: int) -> list[int]:
    """The reference engine's score of each gap's position, for the engine that moved."""
    scores = []
    with chess.engine.SimpleEngine.popen_uci(shlex.split(reference)) as ref:
        if "Threads" in ref.options:
            ref.configure({"Threads": 1})
        for gap in gaps:
            board = chess.Board(gap.fen)
            info = ref.analyse(board, chess.engine.Limit(nodes=nodes))
            scores.append(info["score"].pov(not board.turn).score(mate_score=MATE_CP))
    return scores


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, scan the games, print the counts (and the checks)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", type=Path, help="the match's games, with scores in comments")
    parser.add_argument("--engine", required=True, help="the engine's name in the PGN tags")
    parser.add_argument("--high", type=int, default=150, help="a winning score, cp")
    parser.add_argument("--low", type=int, default=50, help="a level score, cp")
    parser.add_argument("--check", type=int, default=0, help="gaps to search again")
    parser.add_argument(
        "--reference", default="stockfish", help="the engine that checks (a command line)"
    )
    parser.add_argument("--nodes", type=int, default=200_000, help="its nodes a position")
    parser.add_argument("--seed", type=int, default=1, help="which gaps are drawn")
    args = parser.parse_args(argv)
    try:
        games, agreed, gapped, first = scan(args.pgn, args.engine, args.high, args.low)
    except OSError as error:
        print(f"score_gaps: {error}", file=sys.stderr)
        return 2
    names = {1: "wins", 0: "draws", -1: "losses"}
    for result in (1, 0, -1):
        print(
            f"{names[result]}: {games[result]}, both at +{args.high} or more in"
            f" {agreed[result]}, a gap in {gapped[result]}"
        )
    if args.check and first:
        pick = random.Random(args.seed).sample(first, min(args.check, len(first)))
        ref = check(pick, args.reference, args.nodes)
        for gap, value in zip(pick, ref, strict=True):
            pieces = len(chess.Board(gap.fen).piece_map())
            print(
                f"game {gap.game}: result {gap.result:+d}, {args.engine} {gap.own:+d},"
                f" opponent {gap.other:+d}, reference {value:+d}, {pieces} pieces, {gap.fen}"
            )
        n = len(pick)
        print(
            f"mean of {n}: {args.engine} {sum(g.own for g in pick) / n:+.0f},"
            f" reference {sum(ref) / n:+.0f}; reference within {args.low} of level:"
            f" {sum(abs(v) <= args.low for v in ref)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
