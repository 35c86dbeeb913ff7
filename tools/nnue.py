"""Train ferz's neural evaluation (NNUE) on `ferz datagen` data, write the network, check it.

  ferz datagen --engine stockfish --games 5000 --nodes 400 --seed 1      # the data
  python3 tools/nnue.py train ~/.cache/ferz/datagen/stockfish-chess-400n-s1 --out net.nnue
  python3 tools/nnue.py check net.nnue ~/.cache/ferz/datagen/stockfish-chess-400n-s1

The data are `ferz datagen` directories (their chunks, in game order) or chunk files (.fzd),
or text files of `FEN;result;score` lines (White's view, the format of tools/tune.py).

`train` (PyTorch: `pip install -e '.[train]'`) fits the network of ferz/core/nnue.py, two
perspectives of piece-square features into one hidden layer, clipped, into one output chosen
by the number of pieces on the board, to a blend of the scores and the results:
(1 - w) * sigmoid(score / 400) + w * result with w = --result-weight (0.1), then writes it
quantised in ferz's network format (see docs/engine.md). `check` loads a written network in the
compiled core and compares its evaluations and the hand-made one's with the data's scores.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
import zlib
from array import array
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# ------------------------------------------------------------------------------ positions


def samples(path: Path) -> Iterator[tuple[str, float, int] | None]:
    """(FEN, White's result 1/0.5/0, White's score) of each position of a file: `ferz datagen`
    chunks (.fzd) or `FEN;result;score` text lines (lines that are not are skipped, None)."""
    from ferz.datagen.fileformat import SUFFIX, read_chunk

    if path.suffix == SUFFIX:
        for record in read_chunk(path)[1]:
            yield record.fen, record.white_result(), record.white_score()
        return
    with path.open() as lines:
        for line in lines:
            fields = line.strip().split(";")
            try:
                yield fields[0], float(fields[1]), int(fields[2])
            except (IndexError, ValueError):
                yield None


def data_files(paths: list[Path]) -> list[Path]:
    """The files of the arguments: a `ferz datagen` directory stands for its chunks (in game
    order), a file for itself."""
    from ferz.datagen.generate import dataset

    return [file for path in paths for file in dataset(path)]


# ------------------------------------------------------------------------------ training

MAX_PIECES = 32  # inputs kept per view and position (more pieces: the position is skipped)
ENCODING = 2  # version of the cached arrays
FIELDS = ("views", "side", "count", "score", "result")  # the per-position arrays


def encode(paths: list[Path], variant: str, cache: bool = True, jobs: int = 1):
    """The positions of `FEN;result;score` files as arrays: each view's inputs (padded with
    the input count), side to move, piece count, White's score and result. Each file is
    encoded by one of `jobs` processes and cached beside it as .npz (keyed by its size)."""
    import numpy as np

    work = [(path, variant, cache) for path in paths]
    # forked workers (spawned ones would re-run the caller's main module)
    if jobs > 1 and len(paths) > 1 and "fork" in multiprocessing.get_all_start_methods():
        with multiprocessing.get_context("fork").Pool(min(jobs, len(paths))) as pool:
            parts = pool.starmap(encode_file, work)
    else:
        parts = [encode_file(*item) for item in work]
    data = {k: np.concatenate([part[k] for part in parts]) for k in FIELDS}
    data["nfeat"] = parts[0]["nfeat"]
    return data


def encode_file(path: Path, variant: str, cache: bool = True) -> dict:
    """One file's positions as arrays (see encode), from its cache when it has one."""
    import numpy as np

    from ferz.core import nnue
    from ferz.core.position import Position
    from ferz.variants import get

    rules = get(variant)
    stamp = f"{ENCODING}-{path.stat().st_size}"
    store = path.with_suffix(f".{variant}.{zlib.crc32(stamp.encode()):08x}.npz")
    if cache and store.exists():
        with np.load(store) as data:
            return {k: data[k] for k in data.files}
    table = nnue.features(rules)
    nfeat = 2 * len(rules.pieces) * rules.files * rules.ranks
    pos = Position(rules)
    # compact arrays (a list of lists of 9 M positions would take some 20 GB)
    views = array("h")
    side, count, score, result = array("b"), array("b"), array("f"), array("f")
    skipped = 0
    for sample in samples(path):
        if sample is None:
            skipped += 1
            continue
        fen, res, cp = sample
        try:
            pos.set_fen(fen)
        except ValueError:
            skipped += 1
            continue
        n = pos.pcount[0] + pos.pcount[1]
        if n > MAX_PIECES:
            skipped += 1
            continue
        pad = [nfeat] * (MAX_PIECES - n)
        for view in inputs(pos, table):
            views.extend(view)
            views.extend(pad)
        side.append(pos.side)
        count.append(n)
        score.append(cp)
        result.append(res)
    data = {
        "views": np.frombuffer(views, dtype=np.int16).reshape(-1, 2, MAX_PIECES),
        "side": np.frombuffer(side, dtype=np.int8),
        "count": np.frombuffer(count, dtype=np.int8),
        "score": np.frombuffer(score, dtype=np.float32),
        "result": np.frombuffer(result, dtype=np.float32),
        "nfeat": np.array(nfeat),
    }
    print(f"{path}: {len(side)} positions encoded, {skipped} skipped", flush=True)
    if cache:
        np.savez(store, **data)
    return data


def inputs(pos, table) -> tuple[list[int], list[int]]:
    """The inputs of a position's pieces from White's view and from Black's (nnue.features)."""
    white, black = [], []
    nsq = pos.nsq
    for c in (0, 1):
        for i in range(pos.pcount[c]):
            sq = pos.plist[c * 64 + i]
            k = 2 * (pos.board[sq] * nsq + sq)
            white.append(table[k])
            black.append(table[k + 1])
    return white, black


def build_model(nfeat: int, hidden: int, buckets: int, area: int):
    """The float network: inputs -> hidden (shared by both views) -> clipped -> one output per
    bucket, in units of `scale` centipawns.

    Each input's weights are trained as the sum of its own and those of its piece type (own
    or enemy, any square): the type's part learns from every position with that piece, so
    rarely seen squares start from the piece's worth (a factoriser; merged when written)."""
    import torch
    from torch import nn

    types = nfeat // area  # own and enemy piece types

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ft = nn.EmbeddingBag(nfeat + 1, hidden, mode="sum", padding_idx=nfeat)
            self.fac = nn.EmbeddingBag(types + 1, hidden, mode="sum", padding_idx=types)
            self.ft_b = nn.Parameter(torch.zeros(hidden))
            self.out = nn.Linear(2 * hidden, buckets)
            with torch.no_grad():
                self.ft.weight.uniform_(-0.1, 0.1)
                self.ft.weight[nfeat].zero_()
                self.fac.weight.uniform_(-0.1, 0.1)
                self.fac.weight[types].zero_()
                self.ft_b.fill_(0.1)

        def hidden(self, inputs):
            return self.ft(inputs) + self.fac(torch.div(inputs, area, rounding_mode="floor"))

        def forward(self, us, them, bucket):
            a = self.hidden(us) + self.ft_b
            b = self.hidden(them) + self.ft_b
            x = torch.cat([a, b], dim=1).clamp(0.0, 1.0)
            return self.out(x).gather(1, bucket.unsqueeze(1)).squeeze(1)

        def merged(self):
            """Each input's weights with its type's added: what the network file holds."""
            rows = torch.arange(nfeat)
            return (
                self.ft.weight[:nfeat]
                + self.fac.weight[torch.div(rows, area, rounding_mode="floor")]
            )

        def clip(self) -> None:
            """Keep weights inside what int16 holds after quantisation."""
            with torch.no_grad():
                self.ft.weight.clamp_(-WEIGHT_CLIP + FACTOR_CLIP, WEIGHT_CLIP - FACTOR_CLIP)
                self.fac.weight.clamp_(-FACTOR_CLIP, FACTOR_CLIP)
                self.out.weight.clamp_(-WEIGHT_CLIP, WEIGHT_CLIP)

    return Model()


WEIGHT_CLIP = 1.98  # floats; times QA (hidden) or QB (output) they stay well inside int16
FACTOR_CLIP = 0.5  # the piece types' share of it


def mirror_table(variant: str):
    """Each input's left-right mirror (file a <-> h), the padding index kept: a network that
    does not see castling rights values a position and its mirror alike, so training shows
    either at random (twice the positions for free)."""
    import torch

    from ferz.variants import get

    rules = get(variant)
    files, area = rules.files, rules.files * rules.ranks
    nfeat = 2 * len(rules.pieces) * area
    table = [f - f % files + files - 1 - f % files for f in range(nfeat)] + [nfeat]
    return torch.tensor(table)


def train(
    paths: list[Path],
    out: Path,
    variant: str,
    hidden: int,
    buckets: int,
    bucket_div: int,
    epochs: int,
    batch: int,
    lr: float,
    result_weight: float,
    scale: int,
    seed: int,
    jobs: int = 1,
) -> dict:
    """Fit a network to the files' scores (and results), write it; returns its statistics."""
    import numpy as np
    import torch

    from ferz.core import nnue
    from ferz.variants import get

    torch.manual_seed(seed)
    data = encode(data_files(paths), variant, jobs=jobs)
    n = len(data["side"])
    nfeat = int(data["nfeat"])
    rng = np.random.default_rng(seed)
    # the last 2 % of the positions (whole games: a game's positions are alike) are held out
    held = np.arange(n - max(1, n // 50), n)
    fit = np.arange(0, n - max(1, n // 50))
    side = data["side"].astype(np.int64)
    stm = torch.from_numpy(side)
    rows = np.arange(n)
    # (int16 until each view is picked: int64 copies of both would double the memory)
    us = torch.from_numpy(data["views"][rows, side].astype(np.int64))
    them = torch.from_numpy(data["views"][rows, 1 - side].astype(np.int64))
    bucket = torch.from_numpy((data["count"].astype(np.int64) - 2) // bucket_div).clamp(
        0, buckets - 1
    )
    sign = 1.0 - 2.0 * stm.float()  # White's view -> side to move's
    cp = torch.from_numpy(data["score"]) * sign
    res = torch.from_numpy(data["result"])
    res = torch.where(stm == 0, res, 1.0 - res)
    target = (1 - result_weight) * torch.sigmoid(cp / 400.0) + result_weight * res
    rules = get(variant)
    model = build_model(nfeat, hidden, buckets, rules.files * rules.ranks)
    mirror = mirror_table(variant)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    steps = epochs * ((len(fit) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, steps, eta_min=lr / 50)

    def loss_of(index, flip: bool = False) -> torch.Tensor:
        a, b = us[index], them[index]
        if flip:  # mirror a random half of the batch
            half = torch.rand(len(index)) < 0.5
            a = torch.where(half.unsqueeze(1), mirror[a], a)
            b = torch.where(half.unsqueeze(1), mirror[b], b)
        pred = model(a, b, bucket[index]) * scale / 400.0
        return ((torch.sigmoid(pred) - target[index]) ** 2).mean()

    held_t = torch.from_numpy(held)
    header = {
        "name": out.stem,
        "hidden": hidden,
        "buckets": buckets,
        "bucket_div": bucket_div,
        "scale": scale,
        "files": rules.files,
        "ranks": rules.ranks,
        "types": len(rules.pieces),
        "pieces": "".join(p.letter for p in rules.pieces),
        "signature": nnue.signature(rules),
        "variant": variant,
        "trained": "",
    }
    started = time.time()
    for epoch in range(epochs):
        model.train()
        perm = torch.from_numpy(rng.permutation(fit))
        total = 0.0
        for i in range(0, len(perm), batch):
            index = perm[i : i + batch]
            optimiser.zero_grad()
            loss = loss_of(index, flip=True)
            loss.backward()
            optimiser.step()
            sched.step()
            model.clip()
            total += loss.item() * len(index)
        with torch.no_grad():
            held_loss = loss_of(held_t).item()
        print(
            f"epoch {epoch + 1}/{epochs}: train {total / len(fit):.6f} held-out {held_loss:.6f}"
            f" ({time.time() - started:.0f} s)",
            flush=True,
        )
        # written after every pass, so that a stopped run keeps what it has learnt
        header["trained"] = f"{n} positions, {epoch + 1} epochs, result weight {result_weight}"
        write_model(model, header, out)
    return {"positions": n, "held_out": held_loss, "model": model}


def float_score(model, variant: str, fen: str, bucket_div: int, scale: int = 400) -> float:
    """The float model's score of a position (side to move's centipawns), for checks."""
    import torch

    from ferz.core import nnue
    from ferz.core.position import Position
    from ferz.variants import get

    rules = get(variant)
    table = nnue.features(rules)
    pos = Position(rules)
    pos.set_fen(fen)
    views = inputs(pos, table)
    buckets = model.out.weight.shape[0]
    bucket = min(buckets - 1, max(0, (pos.pcount[0] + pos.pcount[1] - 2) // bucket_div))
    with torch.no_grad():
        out = model(
            torch.tensor([views[pos.side]]),
            torch.tensor([views[1 - pos.side]]),
            torch.tensor([bucket]),
        )
    return float(out[0]) * scale


def write_model(model, header: dict, out: Path) -> None:
    """Quantise the float model into ferz's network format."""
    from ferz.core import nnue

    qa, qb = 255, 64
    ft_w = (model.merged().detach() * qa).round().short().flatten().tolist()
    ft_b = (model.ft_b.detach() * qa).round().short().tolist()
    out_w = (model.out.weight.detach() * qb).round().short().flatten().tolist()
    out_b = (model.out.bias.detach() * qa * qb).round().int().tolist()
    nnue.write(out, header, ft_w, ft_b, out_w, out_b)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


def check(net_path: Path, data: Path, limit: int, variant: str) -> dict:
    """Compare a written network and the hand-made evaluation with the scores of a file (or
    `ferz datagen` directory): the mean
    squared error of their expected results (sigmoid of cp / 400) against the scores'."""
    import math

    from ferz.core import factory, nnue
    from ferz.core.evaluate import Evaluator
    from ferz.variants import get

    rules = get(variant)
    net = nnue.read(net_path)
    neural, hand = Evaluator(rules, net=net), Evaluator(rules)
    a, b = factory.position(rules, None, neural), factory.position(rules, None, hand)

    def expected(cp: float) -> float:
        return 1.0 / (1.0 + math.exp(-cp / 400.0))

    errors = {"network": 0.0, "hand-made": 0.0}
    n = 0
    every = (sample for file in data_files([data]) for sample in samples(file))
    for sample in every:
        if sample is None:
            continue
        a.set_fen(sample[0])
        b.set_fen(sample[0])
        sign = 1 if a.side == 0 else -1
        target = expected(sign * sample[2])
        errors["network"] += (expected(neural.eval(a)) - target) ** 2
        errors["hand-made"] += (expected(hand.eval(b)) - target) ** 2
        n += 1
        if n >= limit:
            break
    result = {k: v / max(1, n) for k, v in errors.items()}
    print(f"{n} positions: " + ", ".join(f"{k} {v:.6f}" for k, v in result.items()))
    return result


# ------------------------------------------------------------------------------ command line


def main(argv: list[str] | None = None) -> int:
    """Command line: gen, train, check."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("gen", help="moved: generate data with `ferz datagen` (docs/engine.md)")
    p = sub.add_parser("train", help="fit a network to positions and write it")
    p.add_argument(
        "data", type=Path, nargs="+", help="ferz datagen directories or chunks, or text files"
    )
    p.add_argument("--out", type=Path, required=True, help="network file to write")
    p.add_argument("--variant", default="chess", help="variant of the positions")
    p.add_argument("--hidden", type=int, default=256, help="hidden units per view")
    p.add_argument("--buckets", type=int, default=8, help="outputs, chosen by piece count")
    p.add_argument("--bucket-div", type=int, default=4, help="pieces per output bucket")
    p.add_argument("--epochs", type=int, default=20, help="passes over the positions")
    p.add_argument("--batch", type=int, default=4096, help="positions per step")
    p.add_argument("--lr", type=float, default=0.002, help="Adam's learning rate (cosine decay)")
    p.add_argument("--result-weight", type=float, default=0.1, help="share of the game result")
    p.add_argument("--scale", type=int, default=400, help="centipawns per output unit")
    p.add_argument("--seed", type=int, default=1, help="random seed")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: its default)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="files encoded at once")
    p = sub.add_parser("check", help="errors of a network and the hand-made evaluation")
    p.add_argument("net", type=Path, help="network file")
    p.add_argument("data", type=Path, help="ferz datagen directory or chunk, or text file")
    p.add_argument("--limit", type=int, default=20000, help="positions to compare")
    p.add_argument("--variant", default="chess", help="variant of the positions")
    args = parser.parse_args(argv)
    if args.command == "check":
        check(args.net, args.data, args.limit, args.variant)
    elif args.command == "gen":
        print(
            "tools/nnue.py gen is now `ferz datagen` (resumable, reproducible from a seed, "
            "binary chunks that `train` reads): see `ferz datagen --help` and docs/engine.md",
            file=sys.stderr,
        )
        return 2
    elif args.command == "train":
        if args.threads:
            import torch

            torch.set_num_threads(args.threads)
        train(
            args.data, args.out, args.variant, args.hidden, args.buckets, args.bucket_div,
            args.epochs, args.batch, args.lr, args.result_weight, args.scale, args.seed,
            args.jobs,
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
