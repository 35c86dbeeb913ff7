"""Texel tuning of the evaluation: generate positions, label them, fit the weights of params.py.

  python3 tools/tune.py selfplay --games 2000 --nodes 5000 --out games.txt
  python3 tools/tune.py extract match.pgn [more.pgn ...] --out games.txt
  python3 tools/tune.py label games.txt --out labelled.txt [--engine /usr/games/stockfish]
  python3 tools/tune.py tune labelled.txt [--epochs 3000] [--result-weight 0.25] [--write]

A position file has one `FEN;result[;reference]` line per position: the game's result from
White's view (1, 0.5, 0) and, after `label`, a reference engine's static evaluation in White's
centipawns (Stockfish's `eval` command: its NNUE, far less noisy than results).

`tune` keeps the quiet positions (not in check, quiescence equal to the static evaluation),
asks the compiled evaluation for each one's trace (term counts, king-danger counts, phase,
scale: Evaluator.trace_features), and fits every weight of the tuned block of ferz/params.py at
once (material, square tables, TERMS, KING_DANGER) by gradient descent (Adam) on the mean
squared error between sigmoid(K * eval) and the target, a blend of the game result and the
reference's evaluation turned into an expected result. With `--write` it rewrites the block
(tools/paramfile.py); otherwise it prints what it would change.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from ferz import params  # noqa: E402
from ferz.board import Board  # noqa: E402
from ferz.core import factory  # noqa: E402
from ferz.core.attacks import in_check  # noqa: E402
from ferz.core.defs import MAXP  # noqa: E402
from ferz.core.evaltables import danger_names, table_name, term_layout  # noqa: E402
from ferz.core.evaluate import Evaluator  # noqa: E402
from ferz.data import OPENINGS  # noqa: E402
from ferz.match.engines import Process  # noqa: E402
from ferz.variants import get  # noqa: E402

TABLES = ("pawn", "knight", "bishop", "rook", "queen", "king")  # PST names, in feature order
ANSWER_SECONDS = 60.0  # a reference engine's longest answer to one position (label)
VALUED = ("pawn", "knight", "bishop", "rook", "queen")  # KNOWN_VALUES names, in feature order


# ------------------------------------------------------------------------------ positions


def _opening(rng: random.Random, variant: str, openings: list[str]):
    """A start for a self-play game: a bundled opening (chess) or the start position, plus 2-8
    random plies (positions no engine would reach); None if the random plies end the game."""
    from ferz.match.openings import Opening

    start = get(variant).start_fen
    if variant == "chess" and openings:
        start = " ".join(rng.choice(openings).split()[:4]) + " 0 1"
    board = Board(start, variant=variant)
    for _ in range(rng.randint(2, 8)):
        if board.outcome() is not None:
            return None
        board.push(rng.choice(board.legal_moves))
    if board.outcome() is not None:
        return None
    return Opening(board.starting_fen, tuple(move.uci() for move in board.move_stack))


def samples(record) -> tuple[float | None, list[tuple[str, int]]]:
    """(White's result, quiet positions with White's score) of a played game: positions not in
    check, scored below 15 pawns, whose move neither captures nor promotes."""
    if record.failure or record.result not in ("1-0", "0-1", "1/2-1/2"):
        return None, []
    result = {"1-0": 1.0, "0-1": 0.0}.get(record.result, 0.5)
    board = Board(record.opening.fen, variant=record.variant)
    for move in record.opening.moves:
        board.push_uci(move)
    kept = []
    for ply in record.plies:
        move = board.parse_uci(ply.uci)
        body = board.san(move).rstrip("+#")
        tactical = "x" in body or "=" in body
        if (
            ply.score is not None
            and abs(ply.score) < 1500
            and not board.is_check()
            and not tactical
        ):
            kept.append((board.fen(), ply.score if board.turn else -ply.score))
        board.push(move)
    return result, kept


def selfplay(
    games: int,
    nodes: int,
    out: Path,
    seed: int,
    variant: str,
    concurrency: int = 1,
    ray: str | None = None,
) -> int:
    """Play ferz against itself through ferz's match runner (local threads or Ray tasks) and
    append `fen;result` lines of the games' quiet positions."""
    from ferz.match.adjudication import Adjudication
    from ferz.match.clock import MatchLimits
    from ferz.match.cluster import play_games
    from ferz.match.engines import EngineSpec
    from ferz.match.runner import MatchConfig

    openings = OPENINGS.read_text().splitlines() if OPENINGS.exists() else []
    rng = random.Random(seed)
    starts = []
    while len(starts) < games:
        start = _opening(rng, variant, openings)
        if start is not None:
            starts.append(start)
    spec = EngineSpec([], name="ferz", options={"Hash": "16"})
    config = MatchConfig(
        (spec, spec),
        variant,
        MatchLimits(nodes=nodes),
        # a decisive score kept for 8 plies decides; after move 60, 20 quiet plies draw
        Adjudication(1000, 4, 10, 10, 60, max_moves=200),
        tuple(starts),
        games,
        pairs=False,  # ferz plays both sides: a reversed game would be the same game
        seed=seed,
    )
    started = time.time()
    records = play_games(config, concurrency, ray)
    count = 0
    with out.open("a") as sink:
        for index in sorted(records):
            result, kept = samples(records[index])
            if result is None:
                continue
            for fen, _ in kept:
                sink.write(f"{fen};{result}\n")
            count += len(kept)
    rate = len(records) / max(1e-9, time.time() - started)
    print(f"{len(records)} games: {count} positions, {rate:.2f} games/s", flush=True)
    return count


def extract(paths: list[str], out: Path, every: int) -> int:
    """Append `fen;result` lines from PGN games (python-chess needed), skipping the opening."""
    import chess.pgn

    count = 0
    with out.open("a") as sink:
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


def label(source: Path, engine: str, out: Path) -> int:
    """Append a reference engine's static evaluation (White's centipawns) to every line.

    Stockfish's `eval` prints `Final evaluation +0.35 (white side)`; the halfmove clock is set
    to 0 first, since Stockfish damps its evaluation as the fifty-move count grows."""
    proc = Process()
    proc.spawn([engine])
    proc.send("uci")
    proc.send("isready")
    proc.wait_for("readyok", ANSWER_SECONDS, "readyok")
    count = 0
    with source.open() as lines, out.open("w") as sink:
        for line in lines:
            fen, _, result = line.strip().partition(";")
            if not result:
                continue
            fields = fen.split()
            fields[4:6] = ["0", "1"]
            proc.send(f"position fen {' '.join(fields)}")
            proc.send("eval")
            proc.send("isready")
            value = None
            for text in proc.wait_for("readyok", ANSWER_SECONDS, "readyok after eval"):
                if text.startswith("Final evaluation"):
                    word = text.split()[2]
                    value = None if word == "none" else round(float(word) * 100)
            if value is not None:
                sink.write(f"{fen};{result.split(';')[0]};{value}\n")
                count += 1
    proc.quit(10.0)
    return count


# ------------------------------------------------------------------------------ traces


class Traces:
    """The quiet positions of a labelled file as arrays: term counts, king-danger counts,
    material and square-table features, phase and scale, the targets."""

    def __init__(self, path: Path, limit: int, variant: str = "chess") -> None:
        import numpy as np

        rules = get(variant)
        ev = Evaluator(rules)
        search = factory.search(rules, None, ev)
        pos = search.pos
        self.layout = term_layout()
        self.danger = danger_names()
        nterms = len(ev.wmg)
        # square-table feature of a piece code on a square: its table and White's square index
        tables = {}
        for t, piece in enumerate(rules.pieces, start=1):
            name = table_name(piece)
            if name in TABLES:
                tables[t] = TABLES.index(name)
        self.square = {sq: (rules.file_of(sq), rules.rank_of(sq)) for sq in rules.squares()}
        terms, danger, rows, cols, vals, other = [], [], [], [], [], []
        phase, scale, compiled, results, refs = [], [], [], [], []
        skipped = 0
        with path.open() as lines:
            for line in lines:
                if limit and len(results) >= limit:
                    break
                fields = line.strip().split(";")
                if len(fields) < 2:
                    continue
                try:
                    pos.set_fen(fields[0])
                except ValueError:
                    skipped += 1
                    continue
                if in_check(pos):
                    skipped += 1
                    continue
                trace = ev.trace_features(pos)
                static = trace["eval"]
                if trace["dead"] or trace["mopup"] or abs(search.quiesce() - static) > 0:
                    skipped += 1
                    continue
                n = len(results)
                base = 0
                for c in (0, 1):
                    sign = 1 if c == 0 else -1
                    for i in range(pos.pcount[c]):
                        sq = pos.plist[c * MAXP + i]
                        t = pos.board[sq] >> 1
                        if t not in tables:
                            base += sign  # (not modelled: a piece without a square table)
                            continue
                        f, r = self.square[sq]
                        rel = r if c == 0 else rules.ranks - 1 - r
                        k = tables[t]
                        if TABLES[k] in VALUED:
                            rows.append(n)
                            cols.append(VALUED.index(TABLES[k]))
                            vals.append(sign)
                        rows.append(n)
                        cols.append(len(VALUED) + k * 64 + rel * 8 + f)
                        vals.append(sign)
                other.append(base)
                terms.append(trace["terms"])
                danger.append(trace["danger"][0] + trace["danger"][1])
                phase.append(trace["phase"] / trace["max_phase"])
                scale.append(trace["scale"] / 64)
                white = static - ev.tempo
                compiled.append(white if pos.side == 0 else -white)  # to check the model
                results.append(float(fields[1]))
                refs.append(float(fields[2]) if len(fields) > 2 else math.nan)
        from scipy import sparse

        n = len(results)
        self.n = n
        self.skipped = skipped
        self.terms = sparse.csr_matrix(np.array(terms, dtype=np.float64).reshape(n, nterms))
        nd = len(self.danger)
        self.danger_counts = np.array(danger, dtype=np.float64).reshape(n, 2, nd)
        self.psq = sparse.csr_matrix(
            (vals, (rows, cols)), shape=(n, len(VALUED) + 64 * len(TABLES)), dtype=np.float64
        )
        self.unmodelled = np.array(other)
        self.phase = np.array(phase)
        self.scale = np.array(scale)
        self.compiled = np.array(compiled, dtype=np.float64)
        self.results = np.array(results)
        self.refs = np.array(refs)


# ------------------------------------------------------------------------------ the model


class Model:
    """The evaluation as a differentiable function of the tuned weights (floats)."""

    def __init__(self) -> None:
        import numpy as np

        self.layout = term_layout()
        self.danger_names = danger_names()
        wmg, weg = [], []
        for value in params.TERMS.values():
            for mg, eg in value if isinstance(value, list) else [value]:
                wmg.append(mg)
                weg.append(eg)
        psq_mg = [params.KNOWN_VALUES[n][0] for n in VALUED]
        psq_eg = [params.KNOWN_VALUES[n][1] for n in VALUED]
        for name in TABLES:
            psq_mg += params.PST[name]["mg"]
            psq_eg += params.PST[name]["eg"]
        self.w = {
            "tmg": np.array(wmg, float),
            "teg": np.array(weg, float),
            "pmg": np.array(psq_mg, float),
            "peg": np.array(psq_eg, float),
            "kd": np.array([params.KING_DANGER[n] for n in self.danger_names], float),
            "deg": np.array([float(params.KING_DANGER["danger_eg"])]),
        }
        self.start = {k: v.copy() for k, v in self.w.items()}

    def forward(self, data: Traces, w: dict | None = None) -> tuple:
        """White's evaluation of every position, and what the gradient needs."""
        import numpy as np

        w = w or self.w
        d = data.danger_counts @ w["kd"]  # (n, 2): danger of White's and Black's king
        relu = np.maximum(d, 0.0)
        sign = np.array([1.0, -1.0])
        mg = data.terms @ w["tmg"] + data.psq @ w["pmg"] - (relu**2 / 4096) @ sign
        eg = data.terms @ w["teg"] + data.psq @ w["peg"] - (relu * w["deg"][0] / 256) @ sign
        a = data.phase
        b = data.scale * (1 - data.phase)
        return a * mg + b * eg, (a, b, relu)

    def gradient(self, data: Traces, grad_eval, cache) -> dict:
        """Gradient of the loss from its derivative with respect to each evaluation."""
        import numpy as np

        a, b, relu = cache
        ga = grad_eval * a
        gb = grad_eval * b
        sign = np.array([1.0, -1.0])
        g = {
            "tmg": data.terms.T @ ga,
            "teg": data.terms.T @ gb,
            "pmg": data.psq.T @ ga,
            "peg": data.psq.T @ gb,
        }
        # d(mg)/d(danger_c) = -sign_c * 2 relu_c / 4096; d(eg)/d(danger_c) = -sign_c * deg / 256
        active = (relu > 0).astype(float)
        dd = -(ga[:, None] * (2 * relu / 4096) + gb[:, None] * active * self.w["deg"][0] / 256)
        dd = dd * sign[None, :]
        g["kd"] = np.einsum("nc,ncj->j", dd, data.danger_counts)
        g["deg"] = np.array([-(gb[:, None] * relu / 256 * sign[None, :]).sum()])
        return g


def mirror_index():
    """Each square-table feature's left-right mirror (a1 <-> h1); piece values map to
    themselves. Averaging gradients over the pairs keeps the tables symmetric, which halves
    the unknowns and the noise, at the price of what is not symmetric in chess (kings castle
    short more often: on 161 421 positions the held-out error was 0.01474 symmetric and
    0.01424 free)."""
    import numpy as np

    index = list(range(len(VALUED)))
    for k in range(len(TABLES)):
        base = len(VALUED) + 64 * k
        index += [base + (sq & ~7) + 7 - (sq & 7) for sq in range(64)]
    return np.array(index)


def smooth_gradient(model: Model) -> dict:
    """Gradient of the smoothness prior: the sum of squared differences between neighbours in
    the tables of TERMS (mobility counts, ranks), which pulls rarely seen entries towards
    their neighbours instead of letting them take any value. (Square tables are left free:
    neighbouring squares can differ for good reasons, such as a pawn on f2 or f3.)"""
    import numpy as np

    g = {name: np.zeros_like(v) for name, v in model.w.items()}
    for offset, size in model.layout.values():
        if size < 2:
            continue
        for name in ("tmg", "teg"):
            w = model.w[name][offset : offset + size]
            d = np.diff(w)
            g[name][offset : offset + size - 1] -= 2 * d
            g[name][offset + 1 : offset + size] += 2 * d
    return g


def sigmoid(x, k: float):
    """Expected result of centipawn scores."""
    import numpy as np

    return 1.0 / (1.0 + np.power(10.0, -k * x / 400.0))


def fit_k(scores, targets) -> float:
    """The scaling constant K with the smallest error (golden-section search)."""
    import numpy as np

    lo, hi = 0.05, 5.0
    for _ in range(40):
        x1 = hi - (hi - lo) / 1.618
        x2 = lo + (hi - lo) / 1.618
        e1 = np.mean((targets - sigmoid(scores, x1)) ** 2)
        e2 = np.mean((targets - sigmoid(scores, x2)) ** 2)
        if e1 < e2:
            hi = x2
        else:
            lo = x1
    return (lo + hi) / 2


def targets(data: Traces, result_weight: float) -> tuple:
    """Blend of results and the reference's expected results; returns (targets, ref scale)."""
    import numpy as np

    has_ref = ~np.isnan(data.refs)
    if not has_ref.any():
        return data.results, None
    refs = np.where(has_ref, data.refs, 0.0)
    # the reference's centipawns as expected results, scaled to fit the games' results
    k_ref = fit_k(refs[has_ref], data.results[has_ref])
    blended = result_weight * data.results + (1 - result_weight) * sigmoid(refs, k_ref)
    return np.where(has_ref, blended, data.results), k_ref


def tune(
    data: Traces,
    epochs: int,
    result_weight: float,
    rate: float,
    l2: float,
    smooth: float,
    holdout: float,
    symmetric: bool = False,
) -> Model:
    """Fit the model's weights with Adam on the mean squared error; prints progress, with
    the error on a held-out share of the positions (not fitted) when `holdout` > 0."""
    import numpy as np

    model = Model()
    mirror = mirror_index() if symmetric else None
    if mirror is not None:  # start from symmetric tables
        for name in ("pmg", "peg"):
            model.w[name] = (model.w[name] + model.w[name][mirror]) / 2
    y, k_ref = targets(data, result_weight)
    held = np.random.default_rng(1).random(data.n) < holdout
    train = (~held).astype(float)
    ntrain = max(1.0, train.sum())
    scores, _ = model.forward(data)
    drift = scores - data.compiled
    print(
        f"positions {data.n} (skipped {data.skipped}); model - compiled eval: mean "
        f"{np.mean(np.abs(drift)):.2f} cp, max {np.max(np.abs(drift)):.0f} cp"
        + (f"; reference K {k_ref:.3f}" if k_ref else ""),
        flush=True,
    )
    k = fit_k(scores, y)
    # the error's second derivative for one position at p = 1/2 with a unit count, over N
    curvature = 2 * (0.25 * k * math.log(10) / 400) ** 2 / ntrain
    m = {name: np.zeros_like(v) for name, v in model.w.items()}
    v2 = {name: np.zeros_like(v) for name, v in model.w.items()}
    beta1, beta2 = 0.9, 0.999
    ln10 = math.log(10)
    for epoch in range(1, epochs + 1):
        scores, cache = model.forward(data)
        p = sigmoid(scores, k)
        err = p - y
        loss = float(np.sum(train * err**2) / ntrain)
        grad_eval = train * 2 * err * p * (1 - p) * k * ln10 / 400 / ntrain
        g = model.gradient(data, grad_eval, cache)
        prior = smooth_gradient(model) if smooth else None
        if mirror is not None:
            for name in ("pmg", "peg"):
                g[name] = (g[name] + g[name][mirror]) / 2
        for name in model.w:
            # priors worth `smooth` and `l2` positions (of a term's curvature at an even
            # score): rarely seen table entries follow their neighbours, rarely seen terms
            # stay near their current values
            if prior is not None:
                g[name] = g[name] + smooth * curvature * prior[name]
            g[name] = g[name] + l2 * curvature * (model.w[name] - model.start[name])
            m[name] = beta1 * m[name] + (1 - beta1) * g[name]
            v2[name] = beta2 * v2[name] + (1 - beta2) * g[name] ** 2
            mhat = m[name] / (1 - beta1**epoch)
            vhat = v2[name] / (1 - beta2**epoch)
            model.w[name] -= rate * mhat / (np.sqrt(vhat) + 1e-8)
        if epoch == 1 or epoch % 100 == 0:
            test = f" held-out {float(np.mean(err[held] ** 2)):.6f}" if held.any() else ""
            print(f"epoch {epoch}: K {k:.3f} error {loss:.6f}{test}", flush=True)
    return model


def rounded(model: Model) -> tuple:
    """The fitted weights as the tuned block's dictionaries (rounded to integers)."""
    w = {name: [int(round(x)) for x in v] for name, v in model.w.items()}
    values = {n: (w["pmg"][i], w["peg"][i]) for i, n in enumerate(VALUED)}
    pst = {}
    for k, name in enumerate(TABLES):
        base = len(VALUED) + 64 * k
        pst[name] = {"mg": w["pmg"][base : base + 64], "eg": w["peg"][base : base + 64]}
    terms = {}
    for name, (offset, size) in model.layout.items():
        pairs = [(w["tmg"][i], w["teg"][i]) for i in range(offset, offset + size)]
        terms[name] = pairs if isinstance(params.TERMS[name], list) else pairs[0]
    danger = {n: w["kd"][i] for i, n in enumerate(model.danger_names)}
    danger["danger_eg"] = w["deg"][0]
    return values, terms, danger, pst


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_self = sub.add_parser("selfplay", help="generate positions by self-play")
    p_self.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p_self.add_argument("--nodes", type=int, default=5000, help="nodes per move (default 5000)")
    p_self.add_argument("--seed", type=int, default=1, help="random seed (openings, sampling)")
    p_self.add_argument("--variant", default="chess", help="variant to play (default chess)")
    p_self.add_argument("--out", type=Path, required=True, help="position file to write")
    p_self.add_argument("--concurrency", type=int, default=1, help="games at once (local)")
    p_self.add_argument("--ray", metavar="ADDRESS", help="play the games as Ray tasks")
    p_ext = sub.add_parser("extract", help="positions from PGN files")
    p_ext.add_argument("pgn", nargs="+", help="PGN files (games with results)")
    p_ext.add_argument("--every", type=int, default=3, help="keep every n-th ply")
    p_ext.add_argument("--out", type=Path, required=True, help="position file to write")
    p_label = sub.add_parser("label", help="add a reference engine's static evaluation")
    p_label.add_argument("positions", type=Path, help="position file (FEN;result)")
    p_label.add_argument(
        "--engine", default="/usr/games/stockfish", help="UCI engine with an `eval` command"
    )
    p_label.add_argument("--out", type=Path, required=True, help="labelled file to write")
    p_tune = sub.add_parser("tune", help="fit the weights to the positions")
    p_tune.add_argument("positions", type=Path, help="labelled position file")
    p_tune.add_argument("--epochs", type=int, default=2000, help="Adam steps (default 2000)")
    p_tune.add_argument("--rate", type=float, default=0.5, help="Adam step, centipawns")
    p_tune.add_argument(
        "--l2",
        type=float,
        default=0.0,
        help="prior towards the current weights, worth this many positions",
    )
    p_tune.add_argument(
        "--smooth",
        type=float,
        default=0.0,
        help="prior towards smooth tables (neighbours), worth this many positions",
    )
    p_tune.add_argument("--holdout", type=float, default=0.1, help="share kept out of the fit")
    p_tune.add_argument(
        "--result-weight", type=float, default=0.25, help="share of the game result in targets"
    )
    p_tune.add_argument("--limit", type=int, default=0, help="use at most N positions")
    p_tune.add_argument(
        "--symmetric",
        action="store_true",
        help="keep square tables left-right symmetric (fewer unknowns, for little data)",
    )
    p_tune.add_argument("--write", action="store_true", help="rewrite ferz/params.py")
    args = parser.parse_args(argv)
    if args.command == "selfplay":
        count = selfplay(
            args.games, args.nodes, args.out, args.seed, args.variant, args.concurrency, args.ray
        )
        print(f"{count} positions")
        return 0
    if args.command == "extract":
        print(f"{extract(args.pgn, args.out, args.every)} positions")
        return 0
    if args.command == "label":
        print(f"{label(args.positions, args.engine, args.out)} positions")
        return 0
    started = time.time()
    data = Traces(args.positions, args.limit)
    print(f"traced in {time.time() - started:.0f} s", flush=True)
    model = tune(
        data,
        args.epochs,
        args.result_weight,
        args.rate,
        args.l2,
        args.smooth,
        args.holdout,
        args.symmetric,
    )
    values, terms, danger, pst = rounded(model)
    import paramfile

    if args.write:
        paramfile.rewrite(values, terms, danger, pst)
        print(f"rewrote {paramfile.PARAMS}")
    else:
        print(paramfile.format_block(values, terms, danger, pst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
