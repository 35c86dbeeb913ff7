"""A/B match of two UCI engines at a fixed node budget per move (python-chess referees).

  python3 tools/nodematch.py --engine-a "ferz uci" --params-a "lmr_div=190" \
      --engine-b "ferz uci" --nodes 20000 --pairs 150 --seed 7

A node budget makes games independent of the machine's load: the instrument for changes of the
search's shape or of the evaluation (not of speed, which it cannot see) on a busy 2-core
machine, next to a time-control match. Each pair plays one opening of --openings (random,
seeded) twice with colours swapped, both engines at the same budget, jittered per pair
(0.8-1.25x) so that an opening drawn twice gives different games. --params-a/-b set the
FERZ_PARAMS environment variable of that engine (ferz's parameter overrides), --option-a/-b
NAME=VALUE (repeatable) its UCI options (`--option-a "Use NNUE=false"`).

Games end by the rules (checkmate, stalemate, insufficient material, threefold repetition,
fifty moves, claimed), by adjudication (both engines' last 8 scores beyond +-900 cp; after move
50, the last 12 within +-8 cp is a draw), or at 400 plies (a draw). Prints one line per pair:
W/D/L, score, Elo with a 95 % interval from the pentanomial (pair) statistics.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import shlex
import sys
from pathlib import Path

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from vmatch import elo_from_score  # noqa: E402 (the Elo of a score, as the variant matches)

from ferz.data import OPENINGS  # noqa: E402


def start(
    command: str, params: str, hash_mb: int, options: list[str] | None = None
) -> chess.engine.SimpleEngine:
    """Launch one engine with its FERZ_PARAMS and UCI options (NAME=VALUE)."""
    env = dict(os.environ)
    if params:
        env["FERZ_PARAMS"] = params
    try:
        engine = chess.engine.SimpleEngine.popen_uci(shlex.split(command), env=env)
        settings: dict[str, str | int] = {"Hash": hash_mb}
        for option in options or []:
            name, _, value = option.partition("=")
            settings[name] = value
        engine.configure(settings)
    except (chess.engine.EngineError, asyncio.CancelledError, TimeoutError, OSError) as error:
        # (an engine that exits at once can surface as a cancelled handshake)
        message = f"{command!r} did not start (FERZ_PARAMS={params!r}): {error!r}"
        raise RuntimeError(message) from error
    return engine


def play(white, black, fen: str, nodes: int) -> float:
    """One game from fen; White's score (1, 0.5, 0)."""
    board = chess.Board(fen)
    engines = {chess.WHITE: white, chess.BLACK: black}
    scores: list[int] = []
    game = object()  # a new game for both engines (ucinewgame)
    while not board.is_game_over(claim_draw=True):
        if board.ply() >= 400:
            return 0.5
        result = engines[board.turn].play(
            board, chess.engine.Limit(nodes=nodes), info=chess.engine.INFO_SCORE, game=game
        )
        score = result.info.get("score")
        scores.append(score.white().score(mate_score=30000) if score else 0)
        last = scores[-8:]
        if len(last) == 8 and (min(last) > 900 or max(last) < -900):
            return 1.0 if last[0] > 0 else 0.0
        if board.fullmove_number > 50 and len(scores) >= 12 and max(map(abs, scores[-12:])) < 8:
            return 0.5
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    return 0.5 if outcome is None or outcome.winner is None else float(outcome.winner)


def summary(pairs: list[float]) -> str:
    """Pentanomial statistics of the pair scores (0, 0.25, ..., 1)."""
    n = len(pairs)
    mean = sum(pairs) / n
    var = sum((p - mean) ** 2 for p in pairs) / n
    half = 1.96 * math.sqrt(var / n) if n > 1 else 0.5
    counts = [sum(1 for p in pairs if round(p * 4) == k) for k in range(5)]
    return (
        f"score {mean:.3f} elo {elo_from_score(mean):+.1f}"
        f" [{elo_from_score(mean - half):+.1f}, {elo_from_score(mean + half):+.1f}]"
        f" pairs {counts}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the match; print a line per pair."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine-a", required=True)
    ap.add_argument("--engine-b", required=True)
    ap.add_argument("--params-a", default="", help="FERZ_PARAMS for engine A")
    ap.add_argument("--params-b", default="", help="FERZ_PARAMS for engine B")
    ap.add_argument("--option-a", action="append", default=[], help="NAME=VALUE for engine A")
    ap.add_argument("--option-b", action="append", default=[], help="NAME=VALUE for engine B")
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--hash", type=int, default=16, help="MB")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--openings", default=str(OPENINGS))
    args = ap.parse_args(argv)
    fens = []
    for line in Path(args.openings).read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4:
            fens.append(" ".join(fields[:4]) + " 0 1")
    rng = random.Random(args.seed)
    a = start(args.engine_a, args.params_a, args.hash, args.option_a)
    try:
        b = start(args.engine_b, args.params_b, args.hash, args.option_b)
    except RuntimeError:
        a.quit()
        raise
    wins = draws = losses = 0
    pairs: list[float] = []
    try:
        for k in range(args.pairs):
            fen = rng.choice(fens)
            nodes = int(args.nodes * rng.uniform(0.8, 1.25))
            first = play(a, b, fen, nodes)
            second = 1 - play(b, a, fen, nodes)
            for s in (first, second):
                wins += s == 1
                draws += s == 0.5
                losses += s == 0
            pairs.append((first + second) / 2)
            print(f"pair {k + 1}: +{wins} ={draws} -{losses} {summary(pairs)}", flush=True)
    finally:
        a.quit()
        b.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
