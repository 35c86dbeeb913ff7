#!/usr/bin/env python3
"""Label quality of `ferz datagen` outputs, side by side: each sampled position's stored score
against a deeper search of the same engine (the reference), in win-probability space.

    python3 tools/label_quality.py DIR [DIR ...] --engine /usr/games/stockfish \\
        --sample 2000 --nodes 20000 --jobs 2

For each directory: `--sample` positions drawn with a fixed seed, each searched afresh
(`ucinewgame`, `position fen`, `go nodes N`) by the engine (`--cache FILE` keeps the references of a
run for the next, by FEN; one --nodes per file); printed are the mean absolute error
of the label against the reference as win probabilities (sigmoid(cp / 400)), the same in
centipawns (both clipped to +-2000), the share of labels more than 100 cp off, and how the
positions spread over plies and game phases (pieces on the board), so that two outputs'
distributions can be compared as well as their labels, and how far the labels sit above the
reference for the side to move (a shallow search's bias).

With `--net FILE` (repeatable), each network's static evaluation of the same positions is
compared with the reference as well: its error, its mean offset and its error once that offset
is taken off, and how often it orders two random positions as the reference does. This is the
cheap check of a trained network before a match: a lower held-out error against shallow labels
is no gain where the network does not come closer to the deeper search.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ferz.datagen.fileformat import TrainingRecord, read_chunk  # noqa: E402
from ferz.datagen.generate import dataset  # noqa: E402
from ferz.datagen.selfplay import UciProcess  # noqa: E402

PLIES = ((0, 20), (20, 40), (40, 80), (80, 10_000))
PHASES = (("opening (>= 28 pieces)", 28, 99), ("middle (13-27)", 13, 27), ("end (<= 12)", 0, 12))


def win(cp: int) -> float:
    """The win probability of a centipawn score (the trainer's sigmoid(cp / 400))."""
    return 1.0 / (1.0 + math.exp(-max(-2000, min(2000, cp)) / 400.0))


def sample(path: Path, count: int, seed: int) -> list[TrainingRecord]:
    """`count` records of a datagen directory, drawn with a seed."""
    records = [r for chunk in dataset(path) for r in read_chunk(chunk)[1]]
    return random.Random(seed).sample(records, min(count, len(records)))


def references(fens: list[str], engine: str, nodes: int, variant: str, jobs: int) -> list[int]:
    """The engine's score of each FEN (side to move's view) at `nodes`, each on a fresh hash."""
    parts = [fens[i::jobs] for i in range(jobs)]

    def run(part: list[str]) -> list[int]:
        """One engine's share of the searches."""
        process = UciProcess([engine], {"Hash": "16", "Threads": "1"}, variant)
        scores = []
        try:
            for fen in part:
                process.new_game()
                process.send(f"position fen {fen}\ngo nodes {nodes}\n".encode())
                scores.append(process.result()[2] or 0)
        finally:
            process.close()
        return scores

    with ThreadPoolExecutor(jobs) as pool:
        done = list(pool.map(run, parts))
    out = [0] * len(fens)
    for i, scores in enumerate(done):
        out[i::jobs] = scores
    return out


def report(name: str, records: list[TrainingRecord], reference: list[int]) -> None:
    """Print one output's figures."""
    n = len(records)
    wp = sum(abs(win(r.score) - win(ref)) for r, ref in zip(records, reference, strict=True))
    cp = sum(
        abs(max(-2000, min(2000, r.score)) - max(-2000, min(2000, ref)))
        for r, ref in zip(records, reference, strict=True)
    )
    off = sum(abs(r.score - ref) > 100 for r, ref in zip(records, reference, strict=True))
    print(f"{name}: {n} positions")
    print(f"  MAE win probability {wp / n:.4f}, centipawns {cp / n:.1f}, >100 cp off {off / n:.1%}")
    shares = [sum(low <= r.ply < high for r in records) / n for low, high in PLIES]
    plies = ", ".join(
        f"{low}-{high - 1 if high < 10_000 else ''}: {share:.1%}"
        for (low, high), share in zip(PLIES, shares, strict=True)
    )
    print(f"  plies {plies}")
    pieces = [sum(c.isalpha() for c in r.fen.split()[0]) for r in records]
    parts = []
    for label, low, high in PHASES:
        errors = [
            abs(win(r.score) - win(ref))
            for r, ref, p in zip(records, reference, pieces, strict=True)
            if low <= p <= high
        ]
        mae = sum(errors) / max(1, len(errors))
        parts.append(f"{label}: {len(errors) / n:.1%} (MAE {mae:.4f})")
    print(f"  phases {', '.join(parts)}")
    mean = sum(abs(r.score) for r in records) / n
    draws = sum(r.result == 0 for r in records) / n
    level = [(r.score, ref) for r, ref in zip(records, reference, strict=True)]
    level = [(a, b) for a, b in level if max(abs(a), abs(b)) <= 1500]
    above = sum(a - b for a, b in level) / max(1, len(level))  # (as for the networks below)
    print(f"  mean |label| {mean:.0f} cp, drawn games {draws:.1%}, labels {above:+.1f} cp")


def network_scores(net: Path, fens: list[str], variant: str) -> list[int]:
    """A network's static evaluation of each FEN, side to move's view."""
    from ferz.core import factory, nnue
    from ferz.core.evaluate import Evaluator
    from ferz.variants import get

    rules = get(variant)
    evaluator = Evaluator(rules, net=nnue.read(net))
    pos = factory.position(rules, None, evaluator)
    scores = []
    for fen in fens:
        pos.set_fen(fen)
        scores.append(evaluator.eval(pos))
    return scores


def compare(name: str, scores: list[int], reference: list[int], pairs: int, seed: int) -> dict:
    """A network's scores against the reference (positions either scores beyond 1 500 cp left
    out): MAE in win probability, mean offset (reference minus network), MAE with that offset
    taken off, and the share of random pairs of positions it orders as the reference."""
    both = [
        (ref, s) for s, ref in zip(scores, reference, strict=True) if max(abs(s), abs(ref)) <= 1500
    ]
    n = max(1, len(both))
    offset = sum(ref - s for ref, s in both) / n
    mae = sum(abs(win(ref) - win(s)) for ref, s in both) / n
    level = sum(abs(win(ref) - win(round(s + offset))) for ref, s in both) / n
    rng = random.Random(seed)
    agree = counted = 0
    for _ in range(pairs if len(both) > 1 else 0):
        (r1, s1), (r2, s2) = rng.sample(both, 2)
        if r1 != r2:
            counted += 1
            agree += (r1 > r2) == (s1 > s2)
    order = agree / max(1, counted)
    print(
        f"  {name}: MAE win probability {mae:.4f} ({level:.4f} without its offset of"
        f" {offset:+.1f} cp), orders {order:.2%} of pairs as the reference"
    )
    return {"mae": mae, "offset": offset, "level": level, "order": order}


def main() -> int:
    """Sample, search, compare."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="datagen directories")
    parser.add_argument("--engine", default="/usr/games/stockfish", help="reference engine")
    parser.add_argument("--variant", default="chess")
    parser.add_argument("--sample", type=int, default=2000, help="positions per directory")
    parser.add_argument("--nodes", type=int, default=20000, help="reference search nodes")
    parser.add_argument("--jobs", type=int, default=2, help="engines at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cache", type=Path, help="JSON file of reference scores by FEN, read and extended"
    )
    parser.add_argument(
        "--net", type=Path, action="append", default=[], help="a network to compare (repeatable)"
    )
    parser.add_argument("--pairs", type=int, default=20000, help="random pairs ordered")
    args = parser.parse_args()
    known: dict[str, int] = {}
    if args.cache and args.cache.exists():
        known = json.loads(args.cache.read_text())
    for path in args.paths:
        records = sample(path, args.sample, args.seed)
        fens = [r.fen for r in records if r.fen not in known]
        found = references(fens, args.engine, args.nodes, args.variant, args.jobs) if fens else []
        known.update(zip(fens, found, strict=True))
        if args.cache:
            args.cache.write_text(json.dumps(known))
        reference = [known[r.fen] for r in records]
        report(str(path), records, reference)
        for net in args.net:
            scores = network_scores(net, [r.fen for r in records], args.variant)
            compare(net.stem, scores, reference, args.pairs, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
