"""Texel tuning of the evaluation weights in ferz/params.py (EVAL).

  python3 tools/tune.py selfplay --games 200 --nodes 4000 --out positions.txt
  python3 tools/tune.py extract games.pgn [more.pgn ...] --out positions.txt
  python3 tools/tune.py label positions.txt --engine /usr/games/stockfish --out labelled.txt
  python3 tools/tune.py tune positions.txt [--weights name,name] [--passes 3]

A position file has one `FEN;result` per line, result 1, 0.5 or 0 from White's view (`label`
replaces the results by a reference engine's evaluation, as an expected result 1/(1+10^(-cp/400)),
which is far less noisy than game results when there are few games). `tune`
minimises the mean squared error between the game results and sigmoid(K * eval) over the quiet
positions (not in check), first fitting K, then changing one weight at a time by +-step while
the error falls (coordinate descent). It prints the improved weights as a Python dict to copy
into ferz/params.py; nothing is rewritten automatically.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ferz.core.evaluate import RUNTIME_WEIGHTS, Evaluator  # noqa: E402
from ferz.core.position import Position  # noqa: E402
from ferz.params import EVAL, KNOWN_VALUES  # noqa: E402

# Piece values are tunable too, as value_<movement>_mg / value_<movement>_eg.
VALUE_NAMES = [f"value_{n}_{p}" for n in KNOWN_VALUES for p in ("mg", "eg")]
from ferz.variants import get  # noqa: E402


def sigmoid(score: float, k: float) -> float:
    """Expected result (White's view) of a centipawn score."""
    return 1.0 / (1.0 + 10.0 ** (-k * score / 400.0))


class Dataset:
    """Quiet positions with game results, evaluated under changing weights."""

    def __init__(self, lines: list[str]) -> None:
        self.rules = get("chess")
        self.positions: list[Position] = []
        self.results: list[float] = []
        self.evaluator = Evaluator(self.rules)
        for line in lines:
            fen, _, result = line.strip().rpartition(";")
            if not fen:
                continue
            pos = Position(self.rules)
            try:
                pos.set_fen(fen)
            except ValueError:
                continue
            if pos.check():
                continue
            self.positions.append(pos)
            self.results.append(float(result))
        self.install(self.evaluator)

    def install(self, evaluator: Evaluator) -> None:
        """Give every position the material tables of an evaluator."""
        self.evaluator = evaluator
        for pos in self.positions:
            evaluator.install(pos)

    def error(self, k: float) -> float:
        """Mean squared error of the predictions."""
        total = 0.0
        ev = self.evaluator
        for pos, result in zip(self.positions, self.results, strict=True):
            score = ev.eval(pos)
            if pos.side == 1:
                score = -score
            total += (result - sigmoid(score, k)) ** 2
        return total / max(1, len(self.positions))


def fit_k(data: Dataset) -> float:
    """The scaling constant K with the smallest error (golden-section search)."""
    lo, hi = 0.1, 3.0
    for _ in range(30):
        a = hi - (hi - lo) / 1.618
        b = lo + (hi - lo) / 1.618
        if data.error(a) < data.error(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def tune(data: Dataset, names: list[str], passes: int) -> dict[str, int]:
    """Coordinate descent over the named weights; returns the improved EVAL."""
    weights = dict(EVAL)
    for name in VALUE_NAMES:
        _, piece, phase = name.split("_")
        weights[name] = KNOWN_VALUES[piece][0 if phase == "mg" else 1]
    k = fit_k(data)
    best = data.error(k)
    print(f"positions {len(data.positions)}  K {k:.3f}  error {best:.6f}", flush=True)
    for p in range(passes):
        improved = False
        for name in names:
            step = max(1, abs(weights[name]) // 8)
            for delta in (step, -step):
                moved = False
                # Keep going in a direction while the error falls (at most 8 steps).
                for _ in range(8):
                    trial = dict(weights)
                    trial[name] += delta
                    _apply(data, trial, name)
                    error = data.error(k)
                    if error >= best:
                        break
                    best, weights, moved = error, trial, True
                _apply(data, weights, name)
                if moved:
                    improved = True
                    print(f"pass {p + 1}: {name} = {weights[name]}  error {best:.6f}", flush=True)
                    break
        if not improved:
            break
    return weights


def _apply(data: Dataset, weights: dict[str, int], name: str) -> None:
    """Use new weights: run-time weights are set directly, table weights rebuild the tables."""
    if name in RUNTIME_WEIGHTS:
        setattr(data.evaluator, name, weights[name])
        data.evaluator.clear_cache()  # cached pawn terms used the old weights
        return
    for value_name in VALUE_NAMES:
        _, piece, phase = value_name.split("_")
        mg, eg = KNOWN_VALUES[piece]
        KNOWN_VALUES[piece] = (
            (weights[value_name], eg) if phase == "mg" else (mg, weights[value_name])
        )
    data.install(Evaluator(data.rules, {n: v for n, v in weights.items() if n in EVAL}))


def extract(paths: list[str], out: Path, every: int) -> int:
    """Write FEN;result lines from PGN games (python-chess needed), skipping the opening."""
    import chess.pgn

    count = 0
    with out.open("w") as sink:
        for path in paths:
            with open(path) as pgn:
                while (game := chess.pgn.read_game(pgn)) is not None:
                    result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(game.headers["Result"])
                    if result is None:
                        continue
                    board = game.board()
                    for ply, move in enumerate(game.mainline_moves()):
                        board.push(move)
                        if ply >= 16 and ply % every == 0 and not board.is_check():
                            sink.write(f"{board.fen()};{result}\n")
                            count += 1
    return count


def selfplay(games: int, nodes: int, out: Path, seed: int, sample: float = 0.15) -> int:
    """Play fast self-play games from the shared openings and write sampled positions."""
    import chess

    from ferz.engine import Engine, Limits

    openings = (ROOT.parent / "shared" / "data" / "openings.epd").read_text().splitlines()
    rng = random.Random(seed)
    engine = Engine()
    count = 0
    with out.open("w") as sink:
        for g in range(games):
            fen = " ".join(rng.choice(openings).split()[:4]) + " 0 1"
            board = chess.Board(fen)
            engine.new_game()
            seen = []
            while not board.is_game_over(claim_draw=True) and board.ply() < 400:
                engine.set_position(fen, [m.uci() for m in board.move_stack])
                got: list = []
                engine.go(Limits(nodes=nodes), on_bestmove=lambda b, p, got=got: got.append(b))
                engine.wait()
                board.push_uci(got[0])
                if rng.random() < sample and not board.is_check():
                    seen.append(board.fen())
            outcome = board.outcome(claim_draw=True)
            result = 0.5 if outcome is None or outcome.winner is None else float(outcome.winner)
            for position in seen:
                sink.write(f"{position};{result}\n")
            count += len(seen)
            print(f"game {g + 1}/{games}: {board.result(claim_draw=True)}", flush=True)
    return count


def label(source: Path, engine_cmd: str, depth: int, out: Path) -> int:
    """Replace the results of a position file by a UCI engine's evaluations (White's view)."""
    import chess
    import chess.engine

    count = 0
    with chess.engine.SimpleEngine.popen_uci(engine_cmd) as engine, out.open("w") as sink:
        for line in source.read_text().splitlines():
            fen = line.rpartition(";")[0]
            if not fen:
                continue
            board = chess.Board(fen)
            info = engine.analyse(board, chess.engine.Limit(depth=depth))
            cp = info["score"].white().score(mate_score=3000)
            sink.write(f"{fen};{1 / (1 + 10 ** (-cp / 400)):.4f}\n")
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_self = sub.add_parser("selfplay", help="generate positions by self-play")
    p_self.add_argument("--games", type=int, default=100)
    p_self.add_argument("--nodes", type=int, default=4000)
    p_self.add_argument("--seed", type=int, default=1)
    p_self.add_argument("--sample", type=float, default=0.15, help="share of positions kept")
    p_self.add_argument("--out", type=Path, required=True)
    p_ext = sub.add_parser("extract", help="positions from PGN files")
    p_ext.add_argument("pgn", nargs="+")
    p_ext.add_argument("--every", type=int, default=3, help="keep every n-th ply")
    p_ext.add_argument("--out", type=Path, required=True)
    p_label = sub.add_parser("label", help="label positions with a reference engine's eval")
    p_label.add_argument("positions", type=Path)
    p_label.add_argument("--engine", default="/usr/games/stockfish")
    p_label.add_argument("--depth", type=int, default=8)
    p_label.add_argument("--out", type=Path, required=True)
    p_tune = sub.add_parser("tune", help="fit the weights to the positions")
    p_tune.add_argument("positions", type=Path)
    p_tune.add_argument("--weights", help="comma-separated names (default: all)")
    p_tune.add_argument("--passes", type=int, default=3)
    p_tune.add_argument("--limit", type=int, default=0, help="use at most N positions")
    args = parser.parse_args(argv)
    if args.command == "selfplay":
        print(f"{selfplay(args.games, args.nodes, args.out, args.seed, args.sample)} positions")
        return 0
    if args.command == "label":
        print(f"{label(args.positions, args.engine, args.depth, args.out)} positions")
        return 0
    if args.command == "extract":
        print(f"{extract(args.pgn, args.out, args.every)} positions")
        return 0
    lines = args.positions.read_text().splitlines()
    if args.limit:
        lines = lines[: args.limit]
    names = args.weights.split(",") if args.weights else [n for n in EVAL if n != "phase_div"]
    unknown = [n for n in names if n not in EVAL and n not in VALUE_NAMES]
    if unknown:
        parser.error(f"unknown weights: {', '.join(unknown)}")
    weights = tune(Dataset(lines), names, args.passes)
    changed = {n: v for n, v in weights.items() if n in EVAL and v != EVAL[n]}
    changed.update({n: weights[n] for n in VALUE_NAMES if n in names})
    print("changed weights:", changed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
