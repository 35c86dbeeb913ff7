"""Train ferz's neural evaluation (NNUE) on `ferz datagen` data, write the network, check it.

  ferz datagen --engine stockfish --games 5000 --nodes 400 --seed 1      # the data
  python3 tools/nnue.py train ~/.cache/ferz/datagen/stockfish-chess-400n-s1 --out net.nnue
  python3 tools/nnue.py check net.nnue ~/.cache/ferz/datagen/stockfish-chess-400n-s1
  python3 tools/nnue.py agree net.nnue ~/.cache/ferz/nnue/net-*/ DATA   # quantised vs float

The data are `ferz datagen` directories (their chunks, in game order) or chunk files (.fzd),
or text files of `FEN;result;score` lines (White's view, the format of tools/tune.py).

`train` (PyTorch: `pip install -e '.[train]'`) fits the network of ferz/core/nnue.py, two
perspectives of piece-square features (by default in a block per bucket of the own king's
square, mirrored to files a-d: --kings; in drop games also the pieces in hand, one input per
count up to a cap per type: --hand-cap) into one hidden layer, clipped, into one output chosen
by the number of pieces on the board, to a blend of the scores and the results:
(1 - w) * sigmoid(score / 400) + w * result with w = --result-weight (0.1), streaming the
positions from memory-mapped arrays, keeping resumable checkpoints outside the repository,
then writes it quantised in ferz's network format (see docs/engine.md) and checks the engine's
scores of it against the float model. `check` loads a written network in the compiled core and
compares its evaluations and the hand-made one's with the data's scores. `train --init NET`
goes on from a network's weights; ferz/nets/ledger.json records what each network was trained
on, `train` writes a run's entry (training.json, beside its checkpoint) and refuses data that
the --init network has seen.
"""

from __future__ import annotations

import argparse
import dataclasses
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
# PyTorch's threads wait for each other by spinning: on a machine shared with other work (the
# 2-core machines ferz is trained on) a thread whose partner is not running burns its time
# slice, and a king-bucket step ran 4 times slower (docs/measurements/training.md); waiting
# asleep costs little when the machine is idle. Set before PyTorch is imported; a value given
# in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


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


# ------------------------------------------------------------------------------ the ledger

LEDGER = ROOT / "ferz" / "nets" / "ledger.json"  # what each network was trained on
# the recipe settings that decide a datagen run's games (filters only choose among positions:
# two runs that differ in them share their games, so their data overlap)
GAME_KEYS = (
    "engine", "variant", "nodes", "seed", "random_moves", "chunk_games", "driver", "openings",
    "book_share", "book_plies", "start_plies",
)  # fmt: skip


def slices(files: list[Path]) -> list[dict]:
    """What the data files are, for the ledger: for each `ferz datagen` directory, its recipe
    (GAME_KEYS, the engine by its UCI name) and each run of consecutive chunks read (`chunks`
    and `games` as [first, stop) ranges, `positions`); any other file by name and SHA-256."""
    import hashlib
    import json

    out: list[dict] = []
    for file in files:
        folder = file.parent
        try:
            made = json.loads((folder / "recipe.json").read_text())
            listed = json.loads((folder / "manifest.json").read_text())["chunks"]
        except (OSError, ValueError, KeyError, TypeError):
            digest = hashlib.sha256(file.read_bytes()).hexdigest()
            out.append({"file": file.name, "sha256": digest})
            continue
        entry = next((c for c in listed if c.get("file") == file.name), None)
        if entry is None:  # (a chunk the manifest does not list: unfinished)
            digest = hashlib.sha256(file.read_bytes()).hexdigest()
            out.append({"file": file.name, "sha256": digest})
            continue
        settings = made.get("recipe", {})
        recipe = {k: settings[k] for k in GAME_KEYS if k in settings}
        recipe["engine"] = made.get("engine", {}).get("id") or settings.get("engine", "")
        chunk = listed.index(entry)
        games = [entry["first_game"], entry["first_game"] + entry["games"]]
        last = out[-1] if out else {}
        if last.get("recipe") == recipe and last["chunks"][1] == chunk:
            last["chunks"][1] = chunk + 1
            last["games"][1] = games[1]
            last["positions"] += entry.get("positions", 0)
        else:
            out.append(
                {
                    "recipe": recipe,
                    "chunks": [chunk, chunk + 1],
                    "games": games,
                    "positions": entry.get("positions", 0),
                }
            )
    return out


def load_ledger(path: Path) -> dict:
    """The ledger (ferz/nets/ledger.json); ValueError saying what is wrong with a bad one."""
    import json

    try:
        ledger = json.loads(path.read_text())
    except ValueError as error:
        raise ValueError(f"{path}: not a ledger ({error})") from None
    if not isinstance(ledger, dict) or not isinstance(ledger.get("networks"), list):
        raise ValueError(f"{path}: not a ledger (no list of networks)")
    return ledger


def seen(ledger: dict, sha256: str, name: str) -> tuple[dict | None, list[dict]]:
    """A network's ledger entry (found by the SHA-256 of its file, else by its name) and the
    data slices it has seen: its own and those of every network it went on from."""
    by_hash = {e.get("sha256"): e for e in ledger["networks"]}
    by_name = {e.get("name"): e for e in ledger["networks"]}
    entry = by_hash.get(sha256) or by_name.get(name)
    found, out, at, hops = entry, [], entry, 0
    while at is not None and hops < len(ledger["networks"]):
        out += at.get("data", [])
        parent = at.get("init") or {}
        at = by_hash.get(parent.get("sha256")) or by_name.get(parent.get("network"))
        hops += 1
    return found, out


def same_games(a: dict, b: dict) -> bool:
    """Whether two data slices hold games in common: recipes alike in the settings both
    record (an engine named by a prefix of the other's name; a recipe without a driver is
    `ferz datagen`'s first, "match") and game ranges that overlap."""
    ra, rb = a.get("recipe"), b.get("recipe")
    if ra is None or rb is None:
        return bool(a.get("sha256")) and a.get("sha256") == b.get("sha256")
    for key in set(ra) & set(rb) - {"engine", "driver"}:
        if ra[key] != rb[key]:
            return False
    if ra.get("driver", "match") != rb.get("driver", "match"):
        return False
    x, y = str(ra.get("engine", "")).lower(), str(rb.get("engine", "")).lower()
    if x and y and not (x.startswith(y) or y.startswith(x)):
        return False
    (a0, a1), (b0, b1) = a.get("games", [0, 0]), b.get("games", [0, 0])
    return a0 < b1 and b0 < a1


# ------------------------------------------------------------------------------ training

MAX_PIECES = 32  # inputs kept per view and position in chess (more: the position is skipped)
ENCODING = 3  # version of the cached arrays
HAND_CAP = 16  # the largest cap of a piece type's hand inputs (--hand-cap)
FIELDS = ("views", "kings", "side", "count", "score", "result")  # the per-position arrays

# King bucket maps (--kings), a bucket per square of the own king seen from its side, rank by
# rank from the first; the maps are mirror images left to right, and the network mirrors a
# view whose king stands on files e-h, so only files a-d matter. "none" is format 1's layout.
_HALF = {
    # k8: the corners and the centre of the back rank apart, then the second rank in two, the
    # third rank, and everything beyond (where a king rarely goes before the endgame)
    "k8": [[0, 1, 2, 3], [4, 4, 5, 5], [6, 6, 6, 6]] + [[7, 7, 7, 7]] * 5,
    # k4: castled short-side corner, centre of the back rank, second rank, the rest
    "k4": [[0, 0, 1, 1], [2, 2, 2, 2]] + [[3, 3, 3, 3]] * 6,
    # k16: each back-rank and second-rank square, the third rank in pairs, the rest in two
    "k16": [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 12, 13, 13]] + [[14, 14, 15, 15]] * 4,
}
KING_LAYOUTS = ("none", *_HALF, "zones", "palace")


def king_map(name: str, files: int, ranks: int, rules=None) -> list[int] | None:
    """The king bucket of each own-view square (a1 = 0, rank by rank) for a --kings layout,
    None for "none"; k4, k8 and k16 are drawn for 8 x 8 boards, "palace" for any board whose
    royal piece is confined to a region (xiangqi's and janggi's palace): a bucket per square
    of that region, left and right halves alike (mirror images share one); "zones" for any
    board (zones_map)."""
    if name == "none":
        return None
    if name == "palace":
        return palace_map(rules)
    if name == "zones":
        return zones_map(files, ranks)
    if name not in _HALF:
        raise ValueError(f"unknown king layout {name!r} (known: {', '.join(KING_LAYOUTS)})")
    if (files, ranks) != (8, 8):
        raise ValueError(f"king layout {name} is drawn for 8 x 8 boards, not {files} x {ranks}")
    return [_HALF[name][r][min(f, 7 - f)] for r in range(8) for f in range(8)]


def zones_map(files: int, ranks: int) -> list[int]:
    """The "zones" king buckets, drawn for any board (shogi's 9 x 9, 10 x 8): on the back rank
    the corner, the next file and the rest apart; on the second rank the two edge files and the
    rest; everything beyond in one (6 buckets, left and right halves alike)."""

    def bucket(f: int, r: int) -> int:
        edge = min(f, files - 1 - f)
        if r == 0:
            return min(edge, 2)
        return (3 if edge <= 1 else 4) if r == 1 else 5

    return [bucket(f, r) for r in range(ranks) for f in range(files)]


def palace_map(rules) -> list[int]:
    """The "palace" king buckets of a variant: a bucket per square (file folded onto the left
    half, rank) of the region its royal piece may not leave, 0 elsewhere (never used)."""
    royal = [p for p in rules.pieces if p.royal] if rules is not None else []
    if len(royal) != 1 or royal[0].region is None:
        name = rules.name if rules is not None else "?"
        raise ValueError(f"king layout palace: {name} has no royal piece confined to a region")
    files = rules.files
    keys = sorted({(r, min(f, files - 1 - f)) for f, r in royal[0].region[0]})
    bucket = {key: i for i, key in enumerate(keys)}
    return [
        bucket.get((r, min(f, files - 1 - f)), 0) for r in range(rules.ranks) for f in range(files)
    ]


def hand_caps(rules, limit: int = HAND_CAP) -> list[int]:
    """The cap of each piece type's hand inputs for a variant with pieces in hand ([] for one
    without): as many of the type as one hand can ever hold (the start position's pieces that
    a capture would put in hand as this type, kings never, plus those in the start's hands;
    only the own start hand without captures to hand), at most `limit`."""
    from ferz.core import fen, nnue

    if not nnue.has_hands(rules):
        return []
    setup = fen.parse(rules, rules.start_fen)
    held = [[0] * len(rules.pieces) for _ in (0, 1)]
    for code, n in setup.hand.items():
        held[code & 1][(code >> 1) - 1] += n
    caps = [max(held[0][t], held[1][t]) for t in range(len(rules.pieces))]
    if rules.captures_to_hand or rules.two_boards:  # (two boards: the partner's captures)
        caps = [held[0][t] + held[1][t] for t in range(len(rules.pieces))]
        for code in setup.pieces.values():
            piece = rules.pieces[(code >> 1) - 1]
            if not piece.royal:
                t = rules.piece_index(piece.demoted) if piece.demoted else code >> 1
                caps[t - 1] += 1
    caps = [min(c, limit) for c in caps]
    if not any(caps):
        raise ValueError(f"{rules.name}: no piece type can be in hand (hand caps all 0)")
    return caps


def input_width(rules, caps: list[int]) -> int:
    """Inputs kept per view and position: every piece of the start position (on the board and
    in hand) is at most one input, so positions of a game never need more (two-board games:
    and the hands' caps); 32 at least."""
    from ferz.core import fen

    setup = fen.parse(rules, rules.start_fen)
    pieces = len(setup.pieces) + sum(setup.hand.values())
    if rules.two_boards:  # (hands filled from the other board: up to each cap, each side)
        pieces += 2 * sum(caps)
    return max(MAX_PIECES, pieces)


def symmetric(rules) -> bool:
    """Whether the rules are left-right symmetric, so that a position and its mirror image
    (file a <-> the last file) are worth the same: every piece moves as its mirror image, and
    every region (pieces', drops', promotions', flags', e.p., palace diagonals) mirrors onto
    itself. Castling and gates are left out (the network sees neither), except cambodian
    moves, whose king and met leaps belong to two files."""
    files = rules.files

    def flip(squares) -> frozenset | None:
        return None if squares is None else frozenset((files - 1 - f, r) for f, r in squares)

    def same(squares) -> bool:
        return squares is None or flip(squares) == frozenset(squares)

    def leg(at):
        return None if at is None else (-at[0], at[1])

    for piece in rules.pieces:
        atoms = set(piece.atoms)
        mirrored = {
            dataclasses.replace(a, dx=-a.dx, leg=leg(a.leg), leg2=leg(a.leg2)) for a in atoms
        }
        if mirrored != atoms:
            return False
        if piece.region is not None and not all(same(r) for r in piece.region):
            return False
    regions = [*rules.flag_regions, rules.en_passant_region, rules.promotion_region]
    regions += [*(rules.drop_regions or ()), rules.diagonal_lines]
    return all(same(r) for r in regions) and not rules.cambodian_moves


def encode(
    paths: list[Path], variant: str, cache: bool = True, jobs: int = 1, hand_cap: int = HAND_CAP
) -> dict:
    """All positions of the files as one set of in-memory arrays (see encode_file): for checks
    and small sets; training reads the files' caches a group at a time (Stream)."""
    import numpy as np

    parts = encode_files(paths, variant, cache, jobs, hand_cap)
    return {k: np.concatenate([part[k] for part in parts]) for k in FIELDS}


def encode_files(
    paths: list[Path], variant: str, cache: bool = True, jobs: int = 1, hand_cap: int = HAND_CAP
) -> list:
    """Each file's positions as arrays (encode_file); each file is encoded by one of `jobs`
    processes and cached beside it, then read back memory-mapped."""
    work = [(path, variant, cache, hand_cap) for path in paths]
    # forked workers (spawned ones would re-run the caller's main module)
    if cache and jobs > 1 and len(paths) > 1 and "fork" in multiprocessing.get_all_start_methods():
        with multiprocessing.get_context("fork").Pool(min(jobs, len(paths))) as pool:
            pool.starmap(encode_file, work)  # (the parent maps the caches afterwards)
    return [encode_file(*item) for item in work]


def encode_file(path: Path, variant: str, cache: bool = True, hand_cap: int = HAND_CAP) -> dict:
    """One file's positions as arrays: each view's base inputs (Inputs: the board's format-1
    inputs, then the hand inputs; padded with their count), each view's own king square seen
    from that side (rank * files + file, -1: none), side to move, piece count (on the board),
    White's score and result. With `cache`, the arrays are kept beside the file as .npy files
    (a directory keyed by the file's size and the inputs' shape) and returned memory-mapped, so
    that tens of millions of positions do not have to fit in memory."""
    import numpy as np

    from ferz.core.position import Position
    from ferz.variants import get

    rules = get(variant)
    base = Inputs(rules, hand_caps(rules, hand_cap))
    stamp = f"{ENCODING}-{path.stat().st_size}"
    if base.caps or base.width != MAX_PIECES:  # (chess's caches keep their names)
        stamp += f"-w{base.width}-h{','.join(map(str, base.caps))}"
    store = path.with_suffix(f".{variant}.{zlib.crc32(stamp.encode()):08x}.enc")
    if cache and store.is_dir():
        return {k: np.load(store / f"{k}.npy", mmap_mode="r") for k in FIELDS}
    width = base.width
    pos = Position(rules)
    # compact arrays (a list of lists of 9 M positions would take some 20 GB)
    views, kings = array("h"), array("h")
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
        white, black = base.of(pos)
        if len(white) > width:
            skipped += 1
            continue
        pad = [base.pad] * (width - len(white))
        for view in (white, black):
            views.extend(view)
            views.extend(pad)
        kings.extend(king_squares(pos))
        side.append(pos.side)
        count.append(n)
        score.append(cp)
        result.append(res)
    data = {
        "views": np.frombuffer(views, dtype=np.int16).reshape(-1, 2, width),
        "kings": np.frombuffer(kings, dtype=np.int16).reshape(-1, 2),
        "side": np.frombuffer(side, dtype=np.int8),
        "count": np.frombuffer(count, dtype=np.int8),
        "score": np.frombuffer(score, dtype=np.float32),
        "result": np.frombuffer(result, dtype=np.float32),
    }
    print(f"{path}: {len(side)} positions encoded, {skipped} skipped", flush=True)
    if not cache:
        return data
    temp = store.with_name(store.name + f".{os.getpid()}.tmp")
    temp.mkdir(exist_ok=True)
    for k in FIELDS:
        np.save(temp / f"{k}.npy", data[k])
    try:
        temp.rename(store)  # whole or not at all (another process may have won the race)
    except OSError:
        for file in temp.iterdir():
            file.unlink()
        temp.rmdir()
    return {k: np.load(store / f"{k}.npy", mmap_mode="r") for k in FIELDS}


class Inputs:
    """A variant's base inputs, each view's: the board's format-1 inputs (nnue.features: own and
    enemy piece types by square, `nfeat` of them), then, for drop games, the hand inputs
    (nnue.hand_features: own and enemy hand, by type, one per count up to the type's cap), then
    the padding index `pad`; `width` inputs are kept per view and position."""

    def __init__(self, rules, caps: list[int]) -> None:
        from ferz.core import nnue

        self.caps = list(caps)
        self.nfeat = 2 * len(rules.pieces) * rules.files * rules.ranks
        self.nhand = 2 * sum(self.caps)
        self.pad = self.nfeat + self.nhand
        self.width = input_width(rules, self.caps)
        self.board = nnue.features(rules)
        self.hand = nnue.hand_features(rules, self.caps, self.nfeat)

    def of(self, pos) -> tuple[list[int], list[int]]:
        """A position's base inputs from White's view and from Black's: its pieces on the board,
        then its hands as read from the FEN's pocket by ferz's FEN reader."""
        from ferz.core.defs import MAXHAND

        white, black = inputs(pos, self.board)
        if self.caps:
            for p in range(2, pos.npc):
                for i in range(1, min(pos.hand[p], MAXHAND - 1) + 1):
                    k = 2 * (p * MAXHAND + i)
                    if self.hand[k] >= 0:
                        white.append(self.hand[k])
                        black.append(self.hand[k + 1])
        return white, black


def inputs(pos, table) -> tuple[list[int], list[int]]:
    """The board inputs of a position's pieces from White's view and from Black's
    (nnue.features; Inputs.of adds the hands)."""
    white, black = [], []
    nsq = pos.nsq
    for c in (0, 1):
        for i in range(pos.pcount[c]):
            sq = pos.plist[c * 64 + i]
            k = 2 * (pos.board[sq] * nsq + sq)
            white.append(table[k])
            black.append(table[k + 1])
    return white, black


def king_squares(pos) -> tuple[int, int]:
    """Each side's king square seen from that side (rank * files + file; -1 without one)."""
    rules = pos.rules
    out = []
    for c in (0, 1):
        k = pos.royal[c]
        if k < 0:
            out.append(-1)
            continue
        rank = rules.rank_of(k) if c == 0 else rules.ranks - 1 - rules.rank_of(k)
        out.append(rank * rules.files + rules.file_of(k))
    return out[0], out[1]


class Layout:
    """What the network's inputs are: format-1 inputs (`kings` None), or the same in a block
    per king bucket, the view mirrored when its king stands on the right half (format 2);
    then, for drop games, the hand inputs (format 3: `hands`, a cap per piece type), neither
    bucketed nor mirrored. Mirroring (of the king buckets, and the trainer's augmentation)
    only for rules that are left-right symmetric."""

    def __init__(
        self, rules, kings: list[int] | None, mirror: bool = True, hands: list[int] | None = None
    ) -> None:
        import numpy as np

        from ferz.core.nnue import mirrored

        self.files, self.area = rules.files, rules.files * rules.ranks
        self.types = 2 * len(rules.pieces)  # own and enemy piece types
        self.nfeat = self.types * self.area  # format-1 inputs
        self.hands = list(hands or [])
        self.nhand = 2 * sum(self.hands)  # hand inputs per view
        self.nbase = self.nfeat + self.nhand  # the base inputs (Inputs), nbase: padding
        self.symmetric = symmetric(rules)
        self.kings, self.mirror = kings, bool(kings) and mirror and self.symmetric
        self.nkings = max(kings) + 1 if kings else 1
        self.ninputs = self.nkings * self.nfeat + self.nhand
        flip = [mirrored(f, self.files) for f in range(self.nfeat)]
        self.flip = np.array(flip + list(range(self.nfeat, self.nbase + 1)), dtype=np.int32)
        self.kmap = np.array(kings or [0], dtype=np.int32)
        # the factoriser's group of each base input: the (own or enemy) piece type of a board
        # input, the (own or enemy) hand and type of a hand input; the padding its own
        group = [f // self.area for f in range(self.nfeat)]
        for own in (0, 1):
            for t, cap in enumerate(self.hands):
                group += [self.types + own * len(self.hands) + t] * cap
        self.ngroups = self.types + (self.types if self.hands else 0)
        self.group = np.array(group + [self.ngroups], dtype=np.int64)
        # network inputs as int16 where they fit: numpy sorts those by radix (FeatureSum's plan)
        self.dtype = np.int16 if self.ninputs < 2**15 else np.int32
        self.rules, self._base, self._table = rules, None, None

    def of(self, pos) -> tuple[list[int], list[int]]:
        """A position's base inputs from each side's view (Inputs.of)."""
        if self._base is None:
            self._base = Inputs(self.rules, self.hands)
        return self._base.of(pos)

    def header(self) -> dict:
        """The header fields of this layout."""
        # The finer output scale always: format 1's 1/64 steps cost ~11 cp on average, and
        # a `qb` alone makes a format 2 file without king buckets (ferz since format 2 reads it).
        out: dict = {"qb": QB2}
        if self.kings:
            out.update({"king_buckets": self.kings, "mirror": self.mirror})
        if self.hands:
            out["hands"] = self.hands
        return out

    def rows(self, views, kings):
        """The network inputs (numpy, `dtype`) of views given as base inputs (n x width) and
        their own king squares (n): the king's bucket block, the view mirrored when the king
        stands on the right half; hand inputs after every block, the padding at `ninputs`.
        One gather from a table by (king square, base input): a few hundred KB, where the
        arithmetic on whole groups wrote several arrays of their size."""
        import numpy as np

        views = np.asarray(views)
        if not self.kings:
            return views.astype(self.dtype)
        if self._table is None:  # (a last row for views without a king: kings -1)
            squares = np.append(np.arange(self.area), -1)
            base = np.broadcast_to(np.arange(self.nbase + 1), (len(squares), self.nbase + 1))
            self._table = self._computed(base, squares)
        kings = np.asarray(kings)
        at = np.where(kings < 0, self.area, kings)
        return self._table[at[:, None], views]

    def _computed(self, views, kings):
        """`rows` computed input by input."""
        import numpy as np

        views = np.asarray(views, dtype=np.int32)
        kings = np.asarray(kings, dtype=np.int32)
        if self.mirror:
            flip = (2 * (kings % self.files) >= self.files)[:, None]
            views = np.where(flip, self.flip[views], views)
        bucket = self.kmap[np.maximum(kings, 0)][:, None]
        hand = views + (self.nkings - 1) * self.nfeat  # (the padding lands on ninputs)
        return np.where(views >= self.nfeat, hand, bucket * self.nfeat + views).astype(self.dtype)

    def inputs(self, views, kings):
        """The network inputs of a batch of views as a torch tensor (rows)."""
        import torch

        return torch.from_numpy(self.rows(views, kings).astype("int64"))


def feature_sum():
    """The autograd function FeatureSum (built on first use: PyTorch is imported lazily): each
    view's hidden sums, the rows that its inputs name of the merged table (an input's own
    weights plus its factorisers', Model.merged), as EmbeddingBag's sum. Its backward is
    another bag sum, over the batch's gradients grouped by input (the `plan`, which leaves the
    padding's row empty), then sums over axes for the factorisers. PyTorch's dense backward
    of EmbeddingBag took most of a step's time (docs/measurements/training.md)."""
    global _FEATURE_SUM
    if _FEATURE_SUM is not None:
        return _FEATURE_SUM
    import torch
    import torch.nn.functional as F

    class FeatureSum(torch.autograd.Function):
        @staticmethod
        def forward(ctx, model, ft, psq, fac, rows, bags, starts):
            ctx.model = model
            ctx.save_for_backward(bags, starts)
            with torch.no_grad():
                return F.embedding_bag(rows, model.filled(), mode="sum")

        @staticmethod
        def backward(ctx, grad):
            bags, starts = ctx.saved_tensors
            # each table row's gradient: the sum of the gradients of the bags that hold it
            rows = F.embedding_bag(bags, grad.contiguous(), starts, mode="sum")
            return (None, rows, *ctx.model.shared_grads(rows), None, None, None)

    _FEATURE_SUM = FeatureSum
    return FeatureSum


_FEATURE_SUM = None


def plan(rows, nrows: int) -> tuple:
    """What FeatureSum's backward needs for an index matrix (numpy, n x width): for each table row
    in turn, the bags (matrix rows) that name it (`bags`), and where each table row's run
    starts (`starts`); a stable argsort, a radix sort for int16 indices."""
    import numpy as np
    import torch

    flat = rows.reshape(-1)
    order = np.argsort(flat, kind="stable")
    counts = np.bincount(flat, minlength=nrows)
    starts = np.zeros(nrows, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    # the padding (the last row, sorted last) is left out: its gradient is never used
    return torch.from_numpy(order[: starts[-1]] // rows.shape[1]), torch.from_numpy(starts)


def build_model(layout: Layout, hidden: int, buckets: int):
    """The float network: inputs -> hidden (shared by both views) -> clipped -> one output per
    bucket, in units of `scale` centipawns.

    Factorisers: each input's weights are trained as the sum of its own, those of its piece
    on that square in any king bucket (with king buckets), and those of its piece type (own
    or enemy, any square). The shared parts learn from every position with that piece, so a
    bucket or a square seen rarely starts from what the others learnt; they are added into
    each input's weights when the network is written (merged). A step sums them into one
    table first (`table`: a few MB) and sums that table's rows per view (FeatureSum), which
    costs a third of summing the three parts' rows per view."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    nin, nbase, groups = layout.ninputs, layout.nbase, layout.ngroups
    bucketed = layout.nkings > 1 or bool(layout.kings)
    nk, types, area, nfeat = layout.nkings, layout.types, layout.area, layout.nfeat
    hand_group = torch.from_numpy(layout.group[nfeat:nbase])

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ft = nn.EmbeddingBag(nin + 1, hidden, mode="sum", padding_idx=nin)
            self.psq = (
                nn.EmbeddingBag(nbase + 1, hidden, mode="sum", padding_idx=nbase)
                if bucketed
                else None
            )
            self.fac = nn.EmbeddingBag(groups + 1, hidden, mode="sum", padding_idx=groups)
            self.ft_b = nn.Parameter(torch.zeros(hidden))
            self.out = nn.Linear(2 * hidden, buckets)
            with torch.no_grad():
                self.ft.weight.uniform_(-0.1, 0.1)
                self.ft.weight[nin].zero_()
                if self.psq is not None:
                    self.ft.weight.mul_(0.1)  # the shared part starts with most of it
                    self.psq.weight.uniform_(-0.1, 0.1)
                    self.psq.weight[nbase].zero_()
                self.fac.weight.uniform_(-0.1, 0.1)
                self.fac.weight[groups].zero_()
                self.ft_b.fill_(0.1)

        def merged(self):
            """Each input's weights with its shared parts added: what the network file holds."""
            # board rows by broadcasting (king bucket, piece type, square)
            board = self.ft.weight[: nk * nfeat].view(nk, types, area, hidden)
            board = board + self.fac.weight[:types].view(1, types, 1, hidden)
            if self.psq is not None:
                board = board + self.psq.weight[:nfeat].view(1, types, area, hidden)
            hand = self.ft.weight[nk * nfeat : nin] + self.fac.weight.index_select(0, hand_group)
            if self.psq is not None:
                hand = hand + self.psq.weight[nfeat:nbase]
            return torch.cat([board.reshape(nk * nfeat, hidden), hand])

        def table(self):
            """The merged weights and a zero row for the padding index (nin)."""
            return torch.cat([self.merged(), self.ft.weight.new_zeros(1, hidden)])

        def filled(self):
            """The table (as `table`) computed in place into a buffer kept between steps, for
            FeatureSum's forward (no autograd: it has its own backward): no temporary tables,
            no copies by concatenation."""
            with torch.no_grad():
                if getattr(self, "_filled", None) is None:
                    self._filled = self.ft.weight.new_zeros(nin + 1, hidden)
                buf = self._filled
                board = buf[: nk * nfeat].view(nk, types, area, hidden)
                own = self.ft.weight[: nk * nfeat].view(nk, types, area, hidden)
                torch.add(own, self.fac.weight[:types].view(1, types, 1, hidden), out=board)
                if self.psq is not None:
                    board.add_(self.psq.weight[:nfeat].view(1, types, area, hidden))
                hand = buf[nk * nfeat : nin]
                extra = self.fac.weight.index_select(0, hand_group)
                torch.add(self.ft.weight[nk * nfeat : nin], extra, out=hand)
                if self.psq is not None:
                    hand.add_(self.psq.weight[nfeat:nbase])
                return buf

        def shared_grads(self, rows):
            """The gradients of the shared parts (psq, fac; None without psq) from those of
            the merged table's rows (its padding row zero): sums over the king buckets, then
            over the squares."""
            board = rows[: nk * nfeat].view(nk, nfeat, hidden).sum(0)
            hand = rows[nk * nfeat : nin]
            psq = None
            if self.psq is not None:
                psq = torch.cat([board, hand, rows.new_zeros(1, hidden)])
            fac = rows.new_zeros(groups + 1, hidden)
            fac[:types] = board.view(types, area, hidden).sum(1)
            fac.index_add_(0, hand_group, hand)
            return psq, fac

        def forward(self, rows, bucket, plans=None):
            """The score (output units) of positions given as the network inputs of both
            views (2n x width: the sides to move's, then the others') and their output
            buckets; with `plans` (plan of `rows`), the fast backward (FeatureSum)."""
            if plans is None:
                h = F.embedding_bag(rows, self.table(), mode="sum")
            else:
                ft, psq, fac = self.ft.weight, self.psq, self.fac.weight
                psq = psq.weight if psq is not None else None
                h = feature_sum().apply(self, ft, psq, fac, rows, *plans)
            # both views as (2, n, hidden) and the output layer's halves as (2, hidden,
            # buckets): one batched product, no copy of the views side by side (a cat and
            # its backward's zero-filled slices took a sixth of a step)
            x = F.hardtanh(h.view(2, len(bucket), hidden) + self.ft_b, 0.0, 1.0)
            w = self.out.weight.view(buckets, 2, hidden).permute(1, 2, 0)
            y = torch.baddbmm(self.out.bias.div(2), x, w).sum(0)  # (half the bias a view)
            return y.gather(1, bucket.unsqueeze(1)).squeeze(1)

        def clip(self) -> None:
            """Keep weights inside what int16 holds after quantisation."""
            with torch.no_grad():
                own = WEIGHT_CLIP - FACTOR_CLIP * (1 if self.psq is None else 2)
                self.ft.weight.clamp_(-own, own)
                self.fac.weight.clamp_(-FACTOR_CLIP, FACTOR_CLIP)
                if self.psq is not None:
                    self.psq.weight.clamp_(-FACTOR_CLIP, FACTOR_CLIP)
                self.out.weight.clamp_(-WEIGHT_CLIP, WEIGHT_CLIP)

    return Model()


WEIGHT_CLIP = 1.98  # floats; times QA (hidden) or QB (output) they stay well inside int16
QA, QB = 255, 64  # the quantisation of ferz/core/nnue.py
QB2 = 256  # the output weights' scale in format 2 (QB's steps cost ~11 cp on average)
FACTOR_CLIP = 0.5  # each shared part's share of it


def mirror_table(layout: Layout):
    """Each base input's left-right mirror (file a <-> the last), hand inputs and the padding
    index kept, or None for rules that are not left-right symmetric (symmetric): there, a
    network that does not see castling rights values a position and its mirror alike, so
    training without king buckets shows either at random (twice the positions for free; with
    king buckets the network mirrors by itself)."""
    return layout.flip if layout.symmetric else None


class Stream:
    """The positions of many encoded files, read a group of files at a time from their
    memory-mapped arrays: each pass visits the files in a random order and shuffles each group
    of about `group` positions, so memory holds one group, not the data set."""

    def __init__(self, parts: list, group: int) -> None:
        self.parts = parts
        self.sizes = [len(part["side"]) for part in parts]
        self.total = sum(self.sizes)
        self.group = group
        # the last 2 % of the positions (whole games: a game's positions are alike), at most
        # 100 000, are held out; ranges: (part, start, stop) of the rest
        self.held_n = min(100_000, max(1, self.total // 50))
        keep = self.total - self.held_n
        self.ranges, self.held = [], []
        at = 0
        for i, size in enumerate(self.sizes):
            cut = min(size, max(0, keep - at))
            if cut:
                self.ranges.append((i, 0, cut))
            if cut < size:
                self.held.append((i, cut, size))
            at += size
        self.fit_n = keep

    def gather(self, ranges: list) -> dict:
        """The arrays of some ranges, in memory."""
        import numpy as np

        return {
            k: np.concatenate([np.asarray(self.parts[i][k][a:b]) for i, a, b in ranges])
            for k in FIELDS
        }

    def groups(self, rng):
        """The fitted positions in groups (dicts of arrays), files in a random order, each group
        shuffled."""
        order = rng.permutation(len(self.ranges))
        chunk, size = [], 0
        for j in order:
            chunk.append(self.ranges[j])
            size += chunk[-1][2] - chunk[-1][1]
            if size >= self.group:
                yield self._shuffled(chunk, rng)
                chunk, size = [], 0
        if chunk:
            yield self._shuffled(chunk, rng)

    def _shuffled(self, chunk: list, rng) -> dict:
        """A group's arrays in a random order."""
        data = self.gather(chunk)
        perm = rng.permutation(len(data["side"]))
        return {k: v[perm] for k, v in data.items()}


def prepare(
    data: dict,
    layout: Layout,
    result_weight: float,
    bucket_div: int,
    buckets: int,
    stm_offset: float = 0.0,
):
    """A group's positions (arrays) as what a step reads, numpy arrays sliced into batches
    without a loop per position: the side to move's network inputs (`us`) and the other
    side's (`them`), the output bucket, and the target (1 - w) * sigmoid((score - offset)
    / 400) + w * result, side to move's (`stm_offset`: centipawns taken off every score)."""
    import numpy as np

    side = np.asarray(data["side"]).astype(np.int64)
    rows = np.arange(len(side))
    views, kings = np.asarray(data["views"]), np.asarray(data["kings"])
    us = layout.rows(views[rows, side], kings[rows, side])
    them = layout.rows(views[rows, 1 - side], kings[rows, 1 - side])
    bucket = np.clip((np.asarray(data["count"]).astype(np.int64) - 2) // bucket_div, 0, buckets - 1)
    sign = 1.0 - 2.0 * side.astype(np.float32)  # White's view -> side to move's
    cp = np.asarray(data["score"], dtype=np.float32) * sign - np.float32(stm_offset)
    res = np.asarray(data["result"], dtype=np.float32)
    res = np.where(side == 0, res, 1.0 - res)
    target = (1 - result_weight) / (1.0 + np.exp(-cp / 400.0)) + result_weight * res
    return {"us": us, "them": them, "bucket": bucket, "target": target.astype(np.float32)}


def batch_tensors(prepared: dict, flip=None, half=None) -> tuple:
    """A prepared batch as tensors: ((both views' inputs, the sides to move's first; output
    buckets), targets, the same inputs as numpy for `plan`); with `flip` (a mirror table) and
    `half` (a mask of positions), those positions' inputs mirrored."""
    import numpy as np
    import torch

    rows = np.concatenate([prepared["us"], prepared["them"]])
    if flip is not None and half is not None:
        mask = np.concatenate([half, half])[:, None]
        rows = np.where(mask, flip[rows], rows).astype(rows.dtype)
    inputs = (torch.from_numpy(rows.astype(np.int64)), torch.from_numpy(prepared["bucket"]))
    return inputs, torch.from_numpy(prepared["target"]), rows


def cache_root() -> Path:
    """Where training checkpoints go: $XDG_CACHE_HOME/ferz/nnue (~/.cache when unset)."""
    from ferz.cache import cache_dir

    return cache_dir("nnue")


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
    kings: str = "none",
    group: int = 1_000_000,
    checkpoints: Path | None = None,
    save_every: int = 500,
    cache: bool = True,
    max_steps: int = 0,
    hand_cap: int = HAND_CAP,
    write_passes: bool = False,
    init: Path | None = None,
    ledger: Path | None = None,
    allow_seen: bool = False,
    command: list[str] | None = None,
    stm_offset: float = 0.0,
    layers: str = "all",
    input_lr: float = 1.0,
) -> dict:
    """Fit a network to the files' scores (and results) and write it at the end (after every
    pass too with `write_passes`); returns its statistics. With `checkpoints` (a directory),
    the run keeps its state there every `save_every` steps and at the end of each pass, and a
    run with the same settings continues from it (the same result as a run that was not
    stopped). `max_steps` (0: no limit) stops this run after that many steps, its state kept,
    as an interruption would. In a drop game the network has hand inputs (format 3), each
    piece type's capped at `hand_cap`. `stm_offset` centipawns are taken off every score, the
    side to move's view (a search's score sits above the static evaluation that the network
    stands for: `check` measures by how much). `layers` "output" trains the output layer
    only, the inputs' weights kept as `init`'s (Adam moves a rarely seen input's weights as
    far as a common one's: docs/measurements/networks.md); `input_lr` scales the inputs'
    learning rate against the output layer's (between both: the inputs move, by less)."""
    import hashlib
    import json

    import numpy as np
    import torch

    from ferz.core import nnue
    from ferz.variants import get

    rules = get(variant)
    caps = hand_caps(rules, hand_cap)
    layout = Layout(rules, king_map(kings, rules.files, rules.ranks, rules), hands=caps)
    files = data_files(paths)
    read = slices(files)
    stream = Stream(encode_files(files, variant, cache, jobs, hand_cap), group)
    n = stream.total
    settings = {
        "data": [str(p.resolve()) for p in files],
        "sizes": stream.sizes,
        "variant": variant,
        "hidden": hidden,
        "buckets": buckets,
        "bucket_div": bucket_div,
        "epochs": epochs,
        "batch": batch,
        "lr": lr,
        "result_weight": result_weight,
        "scale": scale,
        "seed": seed,
        "kings": kings,
        "group": group,
    }
    if caps:  # (only here: the checkpoints of networks without hands keep their keys)
        settings["hands"] = caps
    if stm_offset:  # (the same: runs without an offset keep their checkpoints' keys)
        settings["stm_offset"] = stm_offset
    if layers != "all":
        if init is None:
            raise ValueError("--layers output trains on a network's inputs: give --init")
        settings["layers"] = layers
    if input_lr != 1.0:  # (the same: runs at one rate keep their checkpoints' keys)
        if not 0.0 < input_lr <= 1.0 or layers != "all":
            raise ValueError("--input-lr takes a factor in (0, 1], with --layers all")
        settings["input_lr"] = input_lr
    torch.manual_seed(seed)
    model = build_model(layout, hidden, buckets)
    start = ""
    if init is not None:  # (a network to go on from: its weights, its name in the header)
        net = nnue.read(init)
        why = init_refusal(net, layout, hidden, buckets, bucket_div, scale)
        if why:
            raise ValueError(f"--init {init}: {why}")
        beyond = initialise(model, layout, net)
        digest = hashlib.sha256(Path(init).read_bytes()).hexdigest()
        settings["init"] = {"network": net.header.get("name", ""), "sha256": digest}
        start = f", from {net.header.get('name', init.stem)}"
        print(f"starting from {net.name} ({init}; {beyond} weights beyond the clip)")
        if ledger is not None:
            check_unseen(load_ledger(ledger), ledger, settings["init"], read, allow_seen)
    mirror = mirror_table(layout)
    optimiser = adam(model, lr, layers, input_lr)
    per_epoch = sum((g + batch - 1) // batch for g in group_sizes(stream, seed, 0))
    sched = cosine(optimiser, max(1, epochs * per_epoch), input_lr != 1.0)
    flips = torch.Generator().manual_seed(seed)
    start_epoch, start_step = 0, 0
    state_file = None
    if checkpoints is not None:
        key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
        folder = checkpoints / f"{out.stem}-{key}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "settings.json").write_text(json.dumps(settings, indent=1) + "\n")
        state_file = folder / "checkpoint.pt"
        if state_file.exists():
            state = torch.load(state_file, weights_only=False)
            model.load_state_dict(state["model"])
            optimiser.load_state_dict(state["optimiser"])
            sched.load_state_dict(state["sched"])
            flips.set_state(state["flips"])
            start_epoch, start_step = state["epoch"], state["step"]
            print(f"resuming {state_file}: pass {start_epoch + 1}, step {start_step}", flush=True)

    def save(epoch: int, step: int) -> None:
        if state_file is None:
            return
        state = {
            "model": model.state_dict(),
            "optimiser": optimiser.state_dict(),
            "sched": sched.state_dict(),
            "flips": flips.get_state(),
            "epoch": epoch,
            "step": step,
            "settings": settings,
            "layout": {"kings": layout.kings, "mirror": layout.mirror, "hands": layout.hands},
        }
        temp = state_file.with_suffix(".tmp")
        torch.save(state, temp)
        temp.replace(state_file)

    def loss_of(inputs, target, plans=None) -> torch.Tensor:
        pred = model(*inputs, plans) * scale / 400.0
        return ((torch.sigmoid(pred) - target) ** 2).mean()

    def prepared(data: dict) -> dict:
        return prepare(data, layout, result_weight, bucket_div, buckets, stm_offset)

    held = prepared(stream.gather(stream.held))
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
        **layout.header(),
    }

    def trained(passes: int) -> dict:
        header["trained"] = (
            f"{n} positions, {passes} epochs, result weight {result_weight}, seed {seed},"
            f" kings {kings}{start}"
            + (f", side to move's offset {stm_offset:g} cp" if stm_offset else "")
            + (f", {layers} layer only" if layers != "all" else "")
            + (f", inputs at {input_lr:g} of the rate" if input_lr != 1.0 else "")
        )
        return header

    started = time.time()
    held_loss = float("nan")
    ran = 0
    augment = mirror is not None and not layout.kings  # (king buckets mirror by themselves)
    if init is not None and start_epoch == start_step == 0:  # (what the fresh data teach)
        print(f"held-out error before the first step: {held_out_loss(model, held, scale):.6f}")
    for epoch in range(start_epoch, epochs):
        model.train()
        rng = np.random.default_rng([seed, epoch])  # the pass's order, the same on a rerun
        total, seen, step = 0.0, 0, 0
        clock, cpu = time.time(), time.process_time()
        for group_data in stream.groups(rng):
            data = prepared(group_data)
            for i in range(0, len(data["target"]), batch):
                step += 1
                if epoch == start_epoch and step <= start_step:
                    continue  # done before the run was stopped
                part = {k: v[i : i + batch] for k, v in data.items()}
                half = None
                if augment:  # mirror a random half
                    half = (torch.rand(len(part["target"]), generator=flips) < 0.5).numpy()
                inputs, target, rows = batch_tensors(part, mirror, half)
                plans = plan(rows, layout.ninputs + 1)
                optimiser.zero_grad(set_to_none=True)
                loss = loss_of(inputs, target, plans)
                loss.backward()
                optimiser.step()
                sched.step()
                model.clip()
                total += loss.item() * len(target)
                seen += len(target)
                ran += 1
                if save_every and step % save_every == 0 or ran == max_steps:
                    save(epoch, step)
                if ran == max_steps:
                    print(f"stopped after {ran} steps (pass {epoch + 1}, step {step})")
                    return {"positions": n, "held_out": held_loss, "model": model, "stopped": True}
        spent, cpu = time.time() - clock, time.process_time() - cpu
        held_loss = held_out_loss(model, held, scale)
        print(
            f"epoch {epoch + 1}/{epochs}: train {total / max(1, seen):.6f} held-out"
            f" {held_loss:.6f} ({time.time() - started:.0f} s; the pass {seen / spent:.0f}"
            f" positions/s, {cpu:.1f} s of CPU)",  # (CPU: what a shared machine gave it)
            flush=True,
        )
        save(epoch + 1, 0)
        if write_passes or epoch + 1 == epochs:  # (a stopped run keeps its checkpoint)
            write_model(model, trained(epoch + 1), out)
    if not out.exists():  # (a finished run continued, or no pass: write what it holds)
        write_model(model, trained(max(start_epoch, epochs)), out)
    if state_file is not None:  # the training record: the ledger entry of the network
        record = {
            "name": out.stem,
            "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
            "variant": variant,
            "init": settings.get("init"),
            "data": read,
            "training": " ".join(command) if command else "",
            "positions": n,
            "passes": epochs,
            "held_out": round(held_loss, 6) if held_loss == held_loss else None,
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
        }
        text = json.dumps(record, indent=1) + "\n"
        (state_file.parent / "training.json").write_text(text)
        print(f"training record (its ledger entry): {state_file.parent / 'training.json'}")
    return {
        "positions": n,
        "held_out": held_loss,
        "model": model,
        "layout": layout,
        "stopped": False,
    }


def check_unseen(ledger: dict, where: Path, init: dict, read: list[dict], allow: bool) -> None:
    """Refuse (ValueError) to train a network on data the ledger says it, or a network it
    went on from, was trained on already; with `allow`, say so loudly and go on."""
    entry, before = seen(ledger, init["sha256"], init["network"])
    if entry is None:
        print(f"note: {init['network']} is not in {where}: what it has seen is not known")
        return
    twice = [
        s | {"games": [max(s["games"][0], b["games"][0]), min(s["games"][1], b["games"][1])]}
        if "games" in s and "games" in b
        else s
        for s in read
        for b in before
        if same_games(s, b)
    ]
    if not twice:
        return
    what = "; ".join(describe(s) for s in twice)
    message = f"{entry.get('name')} was trained on these data already ({where}): {what}"
    if not allow:
        raise ValueError(f"{message} (--allow-seen trains on them again)")
    print(f"WARNING: {message}; trained on them again (--allow-seen)", file=sys.stderr)


def describe(data: dict) -> str:
    """A data slice in a few words."""
    recipe = data.get("recipe")
    if recipe is None:
        return f"{data.get('file')} (sha256 {str(data.get('sha256'))[:12]})"
    games = data.get("games", [0, 0])
    return (
        f"{recipe.get('engine')} {recipe.get('variant')} {recipe.get('nodes')} nodes seed"
        f" {recipe.get('seed')}, games {games[0]}-{games[1] - 1}"
    )


def init_refusal(net, layout: Layout, hidden: int, buckets: int, bucket_div: int, scale: int):
    """Why a network cannot start this run's model ("" when it can): its variant, its shape
    (units, output buckets, king buckets and mirroring, hand inputs) and its scale must be the
    run's, named by the options that would give them."""
    kings = "king buckets" if net.kings else "no king buckets (--kings none)"
    refusal = net.refusal(layout.rules)
    checks = [
        (refusal, f"it does not fit {layout.rules.name}: {refusal}"),
        (net.hidden != hidden, f"{net.hidden} hidden units, not --hidden {hidden}"),
        (net.buckets != buckets, f"{net.buckets} output buckets, not --buckets {buckets}"),
        (net.bucket_div != bucket_div, f"--bucket-div {net.bucket_div}, not {bucket_div}"),
        (net.scale != scale, f"--scale {net.scale}, not {scale}"),
        (
            list(net.kings or []) != list(layout.kings or []) or net.mirror != layout.mirror,
            f"{kings}{' mirrored' if net.mirror else ''}, not this run's --kings",
        ),
        (list(net.hands) != layout.hands, f"hand caps {net.hands}, not {layout.hands}"),
    ]
    return next((why for bad, why in checks if bad), "")


def initialise(model, layout: Layout, net) -> int:
    """Set the model's weights to a network's, dequantized (the same scores but for float
    rounding): each input's weights split into its shared parts (the mean over the king
    buckets, then over the squares, inside their clip) and its own remainder. Returns how many
    own weights lie beyond their clip (model.clip cuts them at the first step)."""
    import numpy as np
    import torch

    h, nk, nfeat, types = net.hidden, layout.nkings, layout.nfeat, layout.types
    w = torch.from_numpy(np.asarray(net.ft_w, dtype=np.float32).reshape(-1, h) / QA)
    with torch.no_grad():
        for param in model.parameters():
            param.zero_()
        board = w[: nk * nfeat].view(nk, types, layout.area, h)
        fac = board.mean(dim=(0, 2)).clamp(-FACTOR_CLIP, FACTOR_CLIP)
        board = board - fac.view(1, types, 1, h)
        model.fac.weight[:types] = fac
        if model.psq is not None:
            psq = board.mean(dim=0).clamp(-FACTOR_CLIP, FACTOR_CLIP)
            board = board - psq.unsqueeze(0)
            model.psq.weight[:nfeat] = psq.reshape(nfeat, h)
        model.ft.weight[: nk * nfeat] = board.reshape(nk * nfeat, h)
        model.ft.weight[nk * nfeat : layout.ninputs] = w[nk * nfeat :]
        model.ft_b[:] = torch.tensor(list(net.ft_b), dtype=torch.float32) / QA
        out_w = torch.tensor(list(net.out_w), dtype=torch.float32).view(net.buckets, 2 * h)
        model.out.weight[:] = out_w / net.qb
        model.out.bias[:] = torch.tensor(list(net.out_b), dtype=torch.float32) / (QA * net.qb)
        own = WEIGHT_CLIP - FACTOR_CLIP * (1 if model.psq is None else 2)
        return int((model.ft.weight.abs() > own).sum())


def adam(model, lr: float, layers: str = "all", input_lr: float = 1.0):
    """Adam over the model's parameters (`layers` "output": the output layer's only; the
    inputs' at `input_lr` times `lr`), PyTorch's fused CPU kernel where it has one (a seventh
    of the time of its loop over tensors for 1.8 M weights)."""
    import torch

    params = list(model.out.parameters() if layers == "output" else model.parameters())
    if input_lr != 1.0:
        outputs = {id(q) for q in model.out.parameters()}
        inputs = [q for q in params if id(q) not in outputs]
        params = [
            {"params": list(model.out.parameters()), "lr": lr},
            {"params": inputs, "lr": lr * input_lr},
        ]
    try:
        return torch.optim.Adam(params, lr=lr, fused=True)
    except (RuntimeError, TypeError):  # (an older PyTorch without the fused CPU kernel)
        return torch.optim.Adam(params, lr=lr)


def cosine(optimiser, steps: int, grouped: bool):
    """The learning rate's cosine decay to a fiftieth over `steps` steps, each parameter
    group's from its own rate (`grouped`: PyTorch's CosineAnnealingLR takes one floor for all
    groups, which a group started below it would climb to; one group keeps it, bit for bit
    as the networks before were trained)."""
    import math

    import torch

    if not grouped:
        base = optimiser.param_groups[0]["lr"]
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, steps, eta_min=base / 50)

    def factor(step: int) -> float:
        return 1 / 50 + (1 - 1 / 50) * (1 + math.cos(math.pi * min(step, steps) / steps)) / 2

    return torch.optim.lr_scheduler.LambdaLR(optimiser, factor)


def held_out_loss(model, held: dict, scale: int, size: int = 16384) -> float:
    """The mean squared error of the model on prepared positions, a batch at a time."""
    import torch

    n = len(held["target"])
    total = 0.0
    with torch.no_grad():
        for i in range(0, n, size):
            part = {k: v[i : i + size] for k, v in held.items()}
            inputs, target, _ = batch_tensors(part)
            pred = model(*inputs) * scale / 400.0
            total += float(((torch.sigmoid(pred) - target) ** 2).sum())
    return total / max(1, n)


def group_sizes(stream: Stream, seed: int, epoch: int) -> list[int]:
    """The sizes of a pass's groups (to count its steps), without reading any data."""
    import numpy as np

    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(len(stream.ranges))
    sizes, size = [], 0
    for j in order:
        i, a, b = stream.ranges[j]
        size += b - a
        if size >= stream.group:
            sizes.append(size)
            size = 0
    if size:
        sizes.append(size)
    return sizes


def float_score(model, layout: Layout, pos, bucket_div: int, scale: int = 400) -> float:
    """The float model's score of a position (side to move's centipawns), for checks."""
    return float_scores(model, layout, [sides(layout, pos)], bucket_div, scale)[0]


def sides(layout: Layout, pos) -> tuple:
    """What a score needs of a position: the side to move's base inputs and king square, the
    other side's, and the number of pieces on the board."""
    views, kings = layout.of(pos), king_squares(pos)
    us, them = pos.side, 1 - pos.side
    return views[us], kings[us], views[them], kings[them], pos.pcount[0] + pos.pcount[1]


def float_scores(model, layout: Layout, items: list, bucket_div: int, scale: int = 400) -> list:
    """The float model's scores of positions given by `sides`, in one batch."""
    import numpy as np
    import torch

    width = max(max(len(i[0]), len(i[2])) for i in items)

    def padded(views: list) -> list:
        return views + [layout.nbase] * (width - len(views))

    us = layout.inputs(np.array([padded(i[0]) for i in items]), [i[1] for i in items])
    them = layout.inputs(np.array([padded(i[2]) for i in items]), [i[3] for i in items])
    buckets = model.out.weight.shape[0]
    bucket = torch.tensor([min(buckets - 1, max(0, (i[4] - 2) // bucket_div)) for i in items])
    with torch.no_grad():
        out = model(torch.cat([us, them]), bucket)
    return [float(v) * scale for v in out]


def write_model(model, header: dict, out: Path) -> None:
    """Quantise the float model into ferz's network format."""
    from ferz.core import nnue

    qa, qb = QA, header.get("qb", QB)
    with_kings = "king_buckets" in header
    ft_w = (model.merged().detach() * qa).round().short().flatten().tolist()
    ft_b = (model.ft_b.detach() * qa).round().short().tolist()
    out_w = (model.out.weight.detach() * qb).round().short().flatten().tolist()
    out_b = (model.out.bias.detach() * qa * qb).round().int().tolist()
    nnue.write(out, header, ft_w, ft_b, out_w, out_b)
    kind = "format 2, king buckets" if with_kings else "format 2" if "qb" in header else "format 1"
    if "hands" in header:
        kind = f"format 3, {'king buckets, ' if with_kings else ''}hand inputs"
    print(f"wrote {out} ({out.stat().st_size} bytes, {kind})")


def tolerance(score: float) -> float:
    """How far the quantised network may stray from the float model (cp): rounding the weights
    to 1/255 and 1/64 moves a score by a few centipawns, a few percent of a large one; a
    mistake in the inputs, the views or the output would move it by far more."""
    return 15 + abs(score) / 20


def integer_score(net, layout: Layout, pos, arrays: tuple | None = None) -> int:
    """The network file's score of a position computed here from its arrays (numpy, from
    scratch, the inputs by the trainer's layout): what the engine's incremental accumulators
    and king-bucket cache must give exactly. `arrays`: integer_arrays(net), to convert the
    network's weights once for many positions."""
    import numpy as np

    h = net.hidden
    w, ft_b, all_out_w = arrays or integer_arrays(net)
    views = layout.of(pos)
    kings = king_squares(pos)
    acc = []
    for v in (pos.side, 1 - pos.side):
        rows = layout.rows(np.array([views[v]]), [kings[v]])[0]
        acc.append(ft_b + w[rows.astype(np.int64)].sum(axis=0))
    units = np.clip(np.concatenate(acc), 0, QA)
    b = min(net.buckets - 1, max(0, (pos.pcount[0] + pos.pcount[1] - 2) // net.bucket_div))
    out_w = all_out_w[b * 2 * h : (b + 1) * 2 * h]
    total = (int(units @ out_w) + int(net.out_b[b])) * net.scale
    q = QA * net.qb
    return total // q if total >= 0 else -((-total) // q)


def integer_arrays(net) -> tuple:
    """A network's hidden weights (rows of `hidden`), hidden biases and output weights as
    int64 numpy arrays."""
    import numpy as np

    w = np.asarray(net.ft_w, dtype=np.int64).reshape(-1, net.hidden)
    return w, np.asarray(net.ft_b, dtype=np.int64), np.asarray(net.out_w, dtype=np.int64)


def agree(net_path: Path, model, layout: Layout, data: list[Path], limit: int, variant: str):
    """The compiled engine's evaluation with a written network against the same network
    computed from scratch here (integer_score: must be equal) and against the float model it
    was written from (within `tolerance`), on up to `limit` positions of the data (both sides
    with more than a king: the engine scores bare kings by hand)."""
    from ferz.core import factory, nnue
    from ferz.core.evaluate import Evaluator
    from ferz.variants import get

    rules = get(variant)
    net = nnue.read(net_path)
    ev = Evaluator(rules, net=net)
    pos = factory.position(rules, None, ev)
    arrays = integer_arrays(net)
    got, items, exact = [], [], 0
    every = (sample for file in data_files(data) for sample in samples(file))
    for sample in every:
        if sample is None:
            continue
        try:
            pos.set_fen(sample[0])
        except ValueError:
            continue
        if pos.pcount[0] < 2 or pos.pcount[1] < 2:
            continue
        got.append(ev.eval(pos))
        items.append(sides(layout, pos))
        exact += got[-1] == integer_score(net, layout, pos, arrays)
        if len(got) >= limit:
            break
    want = float_scores(model, layout, items, net.bucket_div, net.scale) if items else []
    diffs = [abs(g - w) for g, w in zip(got, want, strict=True)]
    beyond = sum(abs(g - w) > tolerance(w) for g, w in zip(got, want, strict=True))
    n = len(diffs)
    worst, mean = max(diffs, default=0.0), sum(diffs) / max(1, n)
    print(
        f"{n} positions: engine = integer model in {exact}; engine - float model: largest"
        f" {worst:.1f} cp, mean {mean:.2f} cp, {beyond} beyond 15 cp + 5 %",
        flush=True,
    )
    return {"positions": n, "exact": exact, "beyond": beyond, "largest": worst, "mean": mean}


def agreed(result: dict) -> bool:
    """Whether an `agree` result passes: the engine equal to the integer network on every
    position, and the float model within `tolerance` on all but 1 % of them (a mistake in the
    inputs moves most scores far; a network with large output weights, as chess-2 and those
    that go on from it, strays a little beyond on a few: 1 of 500, by at most 2.4 cp)."""
    return result["exact"] == result["positions"] and result["beyond"] <= result["positions"] // 100


def load_checkpoint(path: Path):
    """The float model and layout of a training checkpoint (checkpoint.pt or its folder)."""
    import torch

    from ferz.variants import get

    if path.is_dir():
        path = path / "checkpoint.pt"
    state = torch.load(path, weights_only=False)
    s = state["settings"]
    shape = state["layout"]
    layout = Layout(get(s["variant"]), shape["kings"], shape["mirror"], shape.get("hands"))
    model = build_model(layout, s["hidden"], s["buckets"])
    model.load_state_dict(state["model"])
    return model, layout, s


def check(net_path: Path, data: Path | list[Path], limit: int, variant: str) -> dict:
    """Compare a written network and the hand-made evaluation with the scores of files (or
    `ferz datagen` directories): the mean
    squared error of their expected results (sigmoid of cp / 400) against the scores', and the
    scores' mean offset above the network, the side to move's view, over positions that
    neither scores beyond 1 500 cp (what `train --stm-offset` takes off)."""
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
    n, above, level = 0, 0.0, 0
    paths = data if isinstance(data, list) else [data]
    every = (sample for file in data_files(paths) for sample in samples(file))
    for sample in every:
        if sample is None:
            continue
        try:
            a.set_fen(sample[0])
            b.set_fen(sample[0])
        except ValueError:
            continue  # (not a position of the variant)
        sign = 1 if a.side == 0 else -1
        target = expected(sign * sample[2])
        score = neural.eval(a)
        if max(abs(score), abs(sample[2])) <= 1500:
            above, level = above + sign * sample[2] - score, level + 1
        errors["network"] += (expected(score) - target) ** 2
        errors["hand-made"] += (expected(hand.eval(b)) - target) ** 2
        n += 1
        if n >= limit:
            break
    result = {k: v / max(1, n) for k, v in errors.items()}
    result["offset"] = above / max(1, level)
    print(
        f"{n} positions: network {result['network']:.6f}, hand-made {result['hand-made']:.6f};"
        f" the scores sit {result['offset']:.1f} cp above the network for the side to move"
    )
    return result


# ------------------------------------------------------------------------------ command line


#: the packages each command needs beyond ferz (`pip install -e '.[train]'` brings them)
NEEDS = {"train": ("torch", "numpy"), "agree": ("torch", "numpy"), "check": ()}


def missing_package(command: str) -> str | None:
    """The first package that `command` needs and this Python lacks, or None."""
    import importlib.util

    return next(
        (name for name in NEEDS.get(command, ()) if not importlib.util.find_spec(name)), None
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: gen, train, check, agree; a missing package, an unreadable file or bad
    input (a ValueError, as in ferz) is one line `nnue.py: error: ...` and exit 2, as ferz's
    commands do."""
    try:
        return run(argv)
    except OSError as error:
        where = f"{error.filename}: " if error.filename is not None else ""
        print(f"nnue.py: error: {where}{error.strerror or error}", file=sys.stderr)
    except ValueError as error:
        print(f"nnue.py: error: {' '.join(str(error).split())}", file=sys.stderr)
    return 2


def run(argv: list[str] | None = None) -> int:
    """Parse the command line and run its command."""
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
    p.add_argument(
        "--stm-offset",
        type=float,
        default=0.0,
        help="centipawns taken off every score, the side to move's view (`check` measures it)",
    )
    p.add_argument(
        "--layers",
        choices=("all", "output"),
        default="all",
        help="the weights that learn: all, or the output layer only (with --init)",
    )
    p.add_argument(
        "--input-lr",
        type=float,
        default=1.0,
        help="the inputs' learning rate as a share of --lr (0 < F <= 1; with --init, a fine-tune"
        " that moves the inputs less than the output layer)",
    )
    p.add_argument("--scale", type=int, default=400, help="centipawns per output unit")
    p.add_argument("--seed", type=int, default=1, help="random seed")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: its default)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="files encoded at once")
    p.add_argument(
        "--kings",
        default="k8",
        choices=KING_LAYOUTS,
        help="king buckets (format 2; k4, k8, k16 on 8 x 8 boards, zones on any board, palace"
        " for a royal piece kept in a region, as in xiangqi; none: format 1's inputs, as"
        " chess-2, with format 2's finer output scale)",
    )
    p.add_argument(
        "--group", type=int, default=1_000_000, help="positions in memory at once (shuffled)"
    )
    p.add_argument(
        "--checkpoints",
        type=Path,
        default=cache_root(),
        help="checkpoint folder; the same command continues a stopped run (default %(default)s)",
    )
    p.add_argument("--save-every", type=int, default=500, help="steps between checkpoints")
    p.add_argument(
        "--max-steps", type=int, default=0, help="stop after this many steps (rerun to continue)"
    )
    p.add_argument("--agree", type=int, default=2000, help="positions of the final check")
    p.add_argument(
        "--init",
        type=Path,
        help="start from this network's weights (e.g. ferz/nets/chess.nnue with --kings none);"
        " its shape must be the run's",
    )
    p.add_argument(
        "--ledger",
        type=Path,
        default=LEDGER,
        help="what each network was trained on: --init refuses data its network has seen"
        " (default %(default)s)",
    )
    p.add_argument(
        "--allow-seen",
        action="store_true",
        help="train on data the ledger says the --init network has seen (a warning)",
    )
    p.add_argument(
        "--write-passes",
        action="store_true",
        help="write the network after every pass, not only at the end",
    )
    p.add_argument(
        "--hand-cap",
        type=int,
        default=HAND_CAP,
        help="drop games: the most pieces of a type counted in hand (%(default)s)",
    )
    p = sub.add_parser("agree", help="a written network's scores against its float model")
    p.add_argument("net", type=Path, help="network file")
    p.add_argument("checkpoint", type=Path, help="training checkpoint (file or folder)")
    p.add_argument("data", type=Path, nargs="+", help="positions (as for train)")
    p.add_argument("--limit", type=int, default=2000, help="positions to compare")
    p = sub.add_parser("check", help="errors of a network and the hand-made evaluation")
    p.add_argument("net", type=Path, help="network file")
    p.add_argument(
        "data", type=Path, nargs="+", help="ferz datagen directories or chunks, or text files"
    )
    p.add_argument("--limit", type=int, default=20000, help="positions to compare")
    p.add_argument("--variant", default="chess", help="variant of the positions")
    args = parser.parse_args(argv)
    package = missing_package(args.command)
    if package:
        print(
            f"nnue.py: error: {args.command} needs {package}: pip install -e '.[train]' "
            f"(or pip install {package})",
            file=sys.stderr,
        )
        return 2
    if args.command == "check":
        check(args.net, args.data, args.limit, args.variant)
    elif args.command == "agree":
        model, layout, settings = load_checkpoint(args.checkpoint)
        result = agree(args.net, model, layout, args.data, args.limit, settings["variant"])
        return 0 if agreed(result) else 1
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
        stats = train(
            args.data, args.out, args.variant, args.hidden, args.buckets, args.bucket_div,
            args.epochs, args.batch, args.lr, args.result_weight, args.scale, args.seed,
            args.jobs, args.kings, args.group, args.checkpoints, args.save_every, True,
            args.max_steps, args.hand_cap, args.write_passes, args.init, args.ledger,
            args.allow_seen, ["tools/nnue.py", *(sys.argv[1:] if argv is None else argv)],
            args.stm_offset, args.layers, args.input_lr,
        )  # fmt: skip
        if args.agree and not stats["stopped"]:
            result = agree(
                args.out, stats["model"], stats["layout"], args.data, args.agree, args.variant
            )
            if not agreed(result):
                print("the written network does not score as the float model", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
