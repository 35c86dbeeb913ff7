"""The neural evaluation (NNUE): a network file, its binding to a variant, its forward pass.

A network sees a position twice, from each side: one input per (own or enemy piece type,
square seen from that side), 2 x types x squares in all. Each view feeds a hidden layer of
`hidden` units, kept incrementally by the Position as pieces come and go (its accumulator:
the layer's bias plus the weight rows of the pieces on the board). The evaluation clips both
views' units to [0, 1], the side to move's first, and takes their dot product with the
weights of one output, chosen by the number of pieces on the board (`buckets` outputs, a new
one every `bucket_div` pieces), as a score in centipawns.

Integers throughout, as in every NNUE engine: the hidden weights and biases are scaled by QA
(255) into int16, the output weights by QB (64; a format 2 header may name another, `qb`),
the output bias by QA * QB; the dot product
of the clipped units (0..QA) with the output weights, plus the bias, times `scale`, divided by
QA * QB, is the score. The file is `FERZNNUE`, a format version, a JSON header (layout, the
rules signature of the variants it was trained for, provenance), the little-endian arrays and
a CRC-32 of everything before it (format in docs/engine.md).

A network applies to a variant whose rules signature (`signature`) is the one it was trained
with: the board, the pieces' movements and roles and every rule that changes the game, but
not the start position or the castling setup, so chess and Chess960 share one network and
nothing asks for a variant's name. tools/nnue.py trains networks.

Format 2 adds king buckets (HalfKP-like inputs, as strong engines use): each view's inputs
also depend on where that view's own king stands. The header's `king_buckets` maps each square
(seen from the own side, a1 = 0 for White, a8 for Black) to a bucket, and with `mirror` set a
king on the right half of the board (files e-h in chess) mirrors that view left to right, so
that the weights only ever see the king on files a-d. Each bucket has its own block of
2 x types x squares inputs; a view's input is block(bucket of its king) + the format-1 input of
the (possibly mirrored) piece square. When a king changes bucket or half, the Position rebuilds
that view from a cache of accumulators per (view, bucket, half) (Position.nn_king).

Format 3 adds the pieces in hand (drop games, gating): the header's `hands` gives a cap per
piece type, and each view has one input per (own or enemy hand, type, i = 1..cap) that is on
while that hand holds at least i pieces of the type (more than the cap read as the cap). The
hand inputs follow the board's (after every king bucket's block; they are neither bucketed nor
mirrored), so a piece entering or leaving a hand changes one row per view.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import zlib
from array import array
from pathlib import Path

import cython
from cython.cimports.ferz.core.position import Position

from .defs import MAXHAND
from .rules import MAX_TYPES

MAGIC = b"FERZNNUE"
VERSION = 3  # the newest format; 1 (no king buckets) and 2 (no hands) still read
VERSIONS = (1, 2, 3)
MAX_CAP = 63  # the largest cap of a hand input block (a piece type's count in hand)
QA = cython.declare(cython.int, 255)
QB = cython.declare(cython.int, 64)
NETS = Path(__file__).resolve().parent.parent / "nets"  # the networks shipped with ferz

if not cython.compiled:  # the C loop of nnue.pxd (the uncompiled core runs its own)
    ferz_nn_dot = None

# Rules fields that do not change what a position is worth: names, texts, the start position
# and where castling pieces start and land.
_UNSIGNED = {
    "name",
    "start_fen",
    "chess960",
    "description",
    "extra",
    "castling",
    "castling_rank",
    "castling_king_file",
    "castling_kingside_file",
    "castling_queenside_file",
    "castling_rook",
    "castling_king",
    # which letters play a part in a rule: derived from the pieces and the rule fields
    "rook_drop_letter",
    "drop_mate_letter",
    "counting_letters",
    "cambodian_letters",
    "chase_letters",
}

# Rules fields added after networks were shipped: they enter the digest only when set (not at
# their default), so that the rules of an existing network keep their signature.
_SIGNED_IF_SET = {
    "stalemate_piece_count",
    "makpong",
    "opposite_bishop_letter",
    "castling_dropped",
    # gating and two-board games (vargate)
    "seirawan_gating",
    "two_boards",
    "must_drop_letter",
    # janggi (varmore)
    "diagonal_lines",
    "king_pass",
    "bikjang",
    "material_counting",
    "material_letters",
    "piece_demotion",
    "promotion_on_capture",
    "drop_promoted",
    "shatar_mate",
    "shak_letters",
    "mate_knight_letter",
}
# Atom and PieceType fields added after networks shipped: signed only when set, likewise
_PIECE_FIELDS_IF_SET = {"leg2": None, "diagonal": False, "janggi_cannon": False}


class NetworkError(ValueError):
    """A network file that cannot be used: unreadable, corrupt, or for other rules."""


ARRAYS = ("hidden weights", "hidden biases", "output weights", "output biases")
LIMITS = {
    "hidden": 4096,
    "buckets": 64,
    "bucket_div": 1024,
    "scale": 100000,
    "files": 16,
    "ranks": 16,
    "types": MAX_TYPES,
}


def king_layout(header: dict) -> tuple[list[int], bool]:
    """A header's king bucket map (one bucket per square, from the own side's view) and whether
    a king on the right half mirrors its view; ([], False) without king buckets (format 1)."""
    kings = header.get("king_buckets")
    if kings is None:
        return [], False
    area = header["files"] * header["ranks"]
    if (
        not isinstance(kings, list)
        or len(kings) != area
        or any(type(b) is not int or not 0 <= b < 64 for b in kings)
    ):
        raise NetworkError(f"bad header (king_buckets: not {area} buckets in 0..63)")
    mirror = header.get("mirror", False)
    if type(mirror) is not bool:
        raise NetworkError(f"bad header (mirror: {mirror!r} is not true or false)")
    return list(kings), mirror


def hand_caps(header: dict) -> list[int]:
    """A header's cap per piece type of the hand inputs (format 3), [] without hand inputs."""
    caps = header.get("hands")
    if caps is None:
        return []
    types = header["types"]
    if (
        not isinstance(caps, list)
        or len(caps) != types
        or any(type(c) is not int or not 0 <= c <= MAX_CAP for c in caps)
    ):
        raise NetworkError(f"bad header (hands: not {types} caps in 0..{MAX_CAP})")
    if not any(caps):
        raise NetworkError("bad header (hands: every cap is 0; a network without hand inputs)")
    return list(caps)


def has_hands(rules) -> bool:
    """Whether a variant's positions can have pieces in hand (drops or gating)."""
    return bool(rules.drops or rules.seirawan_gating)


def output_scale(header: dict) -> int:
    """The output weights' scale: `qb` in a format 2 header (256 from tools/nnue.py: output
    weights of 2 x 256 units are small, steps of 1/64 moved scores by 11 cp on average), else
    QB."""
    qb = header.get("qb", QB)
    if type(qb) is not int or not 1 <= qb <= 1024:
        raise NetworkError(f"bad header (qb: {qb!r} is not an integer in 1..1024)")
    return qb


def shape(header: dict) -> tuple[int, int, int, int]:
    """The sizes of the four arrays a header describes; NetworkError for a bad header."""
    if not isinstance(header, dict):
        raise NetworkError("bad header (not an object)")
    for what, top in LIMITS.items():
        value = header.get(what)
        if type(value) is not int:
            raise NetworkError(f"bad header ({what}: {value!r} is not an integer)")
        if not 1 <= value <= top:
            raise NetworkError(f"{what} {value} is outside 1..{top}")
    h, b = header["hidden"], header["buckets"]
    kings, _ = king_layout(header)
    nfeat = (
        2 * header["types"] * header["files"] * header["ranks"] * (max(kings) + 1 if kings else 1)
    )
    nfeat += 2 * sum(hand_caps(header))
    return nfeat * h, h, b * 2 * h, b


def _canonical(value):
    """A value with its sets sorted, so that its text is the same in every run."""
    if isinstance(value, frozenset | set):
        return sorted(_canonical(v) for v in value)
    if isinstance(value, tuple | list):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in sorted(value.items())}
    if dataclasses.is_dataclass(value):
        return {
            f.name: _canonical(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name not in ("name", "value_mg", "value_eg")
            and not (
                f.name in _PIECE_FIELDS_IF_SET
                and getattr(value, f.name) == _PIECE_FIELDS_IF_SET[f.name]
            )
        }
    return value


def signature(rules) -> str:
    """A digest of everything in a variant's rules that a network's knowledge depends on."""
    data = {
        f.name: _canonical(getattr(rules, f.name))
        for f in dataclasses.fields(rules)
        if f.name not in _UNSIGNED
        and not (f.name in _SIGNED_IF_SET and getattr(rules, f.name) == f.default)
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@cython.cclass
class Network:
    """A quantised network: its header and weight arrays (read-only once loaded)."""

    def __init__(self, header: dict, ft_w: array, ft_b: array, out_w: array, out_b: array):
        sizes = shape(header)
        self.header = header
        self.hidden = int(header["hidden"])
        self.buckets = int(header["buckets"])
        self.bucket_div = int(header["bucket_div"])
        self.scale = int(header["scale"])
        self.files = int(header["files"])
        self.ranks = int(header["ranks"])
        self.ntypes = int(header["types"])
        self.kings, self.mirror = king_layout(header)
        self.qb = output_scale(header)
        self.nkings = max(self.kings) + 1 if self.kings else 1
        self.hands = hand_caps(header)
        self.nhand = sum(self.hands)
        self.hand_base = 2 * self.ntypes * self.files * self.ranks * self.nkings
        self.nfeatures = self.hand_base + 2 * self.nhand
        for what, values, size in zip(ARRAYS, (ft_w, ft_b, out_w, out_b), sizes, strict=True):
            if len(values) != size:
                raise NetworkError(f"{what}: {len(values)} values, the header implies {size}")
        self.ft_w = ft_w
        self.ft_b = ft_b
        self.out_w = out_w
        self.out_b = out_b
        self.max_pieces = self._max_pieces()
        self.fitted = []
        for b in range(self.buckets):
            row = out_w[b * 2 * self.hidden : (b + 1) * 2 * self.hidden]
            if QA * sum(abs(x) for x in row) + abs(out_b[b]) >= 2**31:
                raise NetworkError(f"output {b}: weights too large for 32-bit sums")

    def _max_pieces(self) -> int:
        """How many pieces may stand on the board before a hidden unit could leave int16: the
        bias plus that many of the largest weights of each unit must stay within 32767."""
        h: cython.Py_ssize_t = self.hidden
        n: cython.Py_ssize_t = self.nfeatures * h
        at: cython.Py_ssize_t
        v: cython.int
        worst: cython.int[::1] = array("i", bytes(4 * h))
        for at in range(n):  # (typed: a king-bucket net has millions of weights)
            v = self.ft_w[at]
            if v < 0:
                v = -v
            if v > worst[at % h]:
                worst[at % h] = v
        room = min((32767 - abs(self.ft_b[i])) // worst[i] if worst[i] else 10**6 for i in range(h))
        return max(0, room)

    @property
    def signature(self) -> str:
        """The rules signature the network was trained for."""
        return str(self.header.get("signature", ""))

    @property
    def name(self) -> str:
        """A short name: the file's stem and the network's shape."""
        kings = f", {self.nkings} king buckets" if self.kings else ""
        hands = f", {2 * self.nhand} hand inputs" if self.hands else ""
        name = self.header.get("name", "?")
        return f"{name} ({self.hidden}x2{kings}{hands}, {self.buckets} outputs)"

    def refusal(self, rules) -> str:
        """Why the network does not fit these rules ("" when it was trained for them)."""
        if (self.files, self.ranks) != (rules.files, rules.ranks):
            return f"a {self.files}x{self.ranks} board, not {rules.files}x{rules.ranks}"
        if self.ntypes != len(rules.pieces):
            return f"{self.ntypes} piece types, not {len(rules.pieces)}"
        if self.hands and not has_hands(rules):
            return f"hand inputs, and {rules.name} has no pieces in hand"
        if not self.hands and has_hands(rules):
            return f"no hand inputs, and {rules.name} has pieces in hand"
        if self.signature != signature(rules):
            return "other rules (signature)"
        return ""

    def fits(self, rules) -> bool:
        """Whether the network was trained for these rules."""
        return not self.refusal(rules)

    def require(self, rules) -> None:
        """NetworkError, saying why, unless the network was trained for these rules."""
        reason = self.refusal(rules)
        if reason:
            raise NetworkError(f"network {self.name} was not trained for {rules.name}: {reason}")

    def tables(self, rules) -> tuple:
        """(rows, king_index, hand_rows) of these rules, which the network must fit
        (NetworkError otherwise). Computed once per rules object and shared (read-only): a
        position is set up for every search, each `go`, and a king-bucket network's rows
        take tens of milliseconds to compute."""
        for held, found in self.fitted:
            if held is rules:
                return found
        self.require(rules)
        found = (self.rows(rules), self.king_index(rules), self.hand_rows(rules))
        self.fitted = [*self.fitted[-3:], (rules, found)]
        return found

    def rows(self, rules) -> array:
        """Offsets into the hidden weights of each (piece code, mailbox square), from White's
        view then Black's: rows[2 * (p * nsq + sq) + view] (features() times `hidden`); with
        king buckets, one such table per king index (king_index), one after the other."""
        base = features(rules)
        if not self.kings:
            return array("i", [f * self.hidden if f >= 0 else -1 for f in base])
        block = 2 * self.ntypes * self.files * self.ranks
        out = array("i")
        for k in range(2 * self.nkings):
            bucket, flip = k >> 1, k & 1
            for f in base:
                if f >= 0:
                    if flip:
                        f = mirrored(f, self.files)
                    f = (bucket * block + f) * self.hidden
                out.append(f)
        return out

    def hand_rows(self, rules) -> array:
        """Offsets into the hidden weights of each hand input (hand_features times `hidden`,
        -1 where there is none), at [2 * (p * MAXHAND + i) + view]."""
        table = hand_features(rules, self.hands, self.hand_base)
        return array("i", [f * self.hidden if f >= 0 else -1 for f in table])

    def king_index(self, rules) -> array:
        """The king index of each (view, mailbox square of that view's king), at
        [view * nsq + sq]: 2 * bucket + mirrored (0 everywhere without king buckets)."""
        nsq = rules.nsq
        out = array("i", bytes(4 * 2 * nsq))
        if not self.kings:
            return out
        for sq in rules.squares():
            f, r = rules.file_of(sq), rules.rank_of(sq)
            for view in (0, 1):
                rank = r if view == 0 else rules.ranks - 1 - r
                flip = 1 if self.mirror and 2 * f >= rules.files else 0
                out[view * nsq + sq] = 2 * self.kings[rank * rules.files + f] + flip
        return out


def mirrored(f: int, files: int) -> int:
    """A format-1 input with its square's file mirrored (a <-> h in chess)."""
    return f - f % files + files - 1 - f % files


def features(rules) -> array:
    """The input of each (piece code p, mailbox square sq) from White's view and Black's, at
    [2 * (p * nsq + sq) + view], -1 off the board: own pieces first, then the enemy's; by
    type, then by square seen from that side (rank by rank, a1 = 0 for White, a8 for Black)."""
    nsq = rules.nsq
    ntypes = len(rules.pieces)
    area = rules.files * rules.ranks
    out = array("i", [-1]) * (2 * (2 * ntypes + 2) * nsq)
    for sq in rules.squares():
        f, r = rules.file_of(sq), rules.rank_of(sq)
        for t in range(1, ntypes + 1):
            for colour in (0, 1):
                p = 2 * t + colour
                for view in (0, 1):
                    rank = r if view == 0 else rules.ranks - 1 - r
                    own = 0 if colour == view else ntypes * area
                    out[2 * (p * nsq + sq) + view] = own + (t - 1) * area + rank * rules.files + f
    return out


def hand_features(rules, caps: list[int], base: int) -> array:
    """The input of each (piece code p, count i) in hand from White's view and Black's, at
    [2 * (p * MAXHAND + i) + view]: the input that is on while that hand holds at least i
    pieces of p's type, -1 for none (i = 0, or above the type's cap in `caps`). After the
    board's inputs (from `base` on): the own hand's block, then the enemy's, each by type, then
    by i."""
    out = array("i", [-1]) * (2 * (2 * len(rules.pieces) + 2) * MAXHAND)
    if not caps:
        return out
    starts = [sum(caps[:t]) for t in range(len(caps))]
    for t in range(1, len(caps) + 1):
        for colour in (0, 1):
            p = 2 * t + colour
            for i in range(1, caps[t - 1] + 1):
                for view in (0, 1):
                    own = 0 if colour == view else sum(caps)
                    out[2 * (p * MAXHAND + i) + view] = base + own + starts[t - 1] + i - 1
    return out


def read(path: str | Path) -> Network:
    """Load a network file; NetworkError says what is wrong with a bad one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise NetworkError(f"{path}: {error.strerror or error}") from error
    end = len(data) - 4  # (no negative indices: the module is compiled without wraparound)
    if end < 16 or data[:8] != MAGIC:
        raise NetworkError(f"{path}: not a ferz network file")
    if zlib.crc32(data[:end]) != int.from_bytes(data[end:], "little"):
        raise NetworkError(f"{path}: checksum mismatch (the file is damaged or truncated)")
    version = int.from_bytes(data[8:12], "little")
    if version not in VERSIONS:
        raise NetworkError(f"{path}: format version {version}, this ferz reads 1 to 3")
    size = int.from_bytes(data[12:16], "little")
    try:
        header = json.loads(data[16 : 16 + size].decode())
        sizes = shape(header)
    except NetworkError as error:
        raise NetworkError(f"{path}: {error}") from error
    except ValueError as error:  # (JSON and UTF-8 errors are ValueErrors)
        raise NetworkError(f"{path}: bad header ({error})") from error
    if version == 1 and ("king_buckets" in header or "qb" in header):
        raise NetworkError(f"{path}: king buckets or qb in a format 1 file")
    if (version == 3) != ("hands" in header):
        raise NetworkError(
            f"{path}: hand inputs belong in format 3 files (this is format {version})"
        )
    arrays = []
    at = 16 + size
    for code, count in zip("hhhi", sizes, strict=True):
        values = array(code)
        stop = at + count * values.itemsize
        if stop > end:
            raise NetworkError(f"{path}: truncated weights")
        values.frombytes(data[at:stop])
        if sys.byteorder != "little":
            values.byteswap()
        arrays.append(values)
        at = stop
    if at != end:
        raise NetworkError(f"{path}: {end - at} bytes after the weights")
    header.setdefault("name", path.stem)
    try:
        return Network(header, *arrays)
    except NetworkError as error:
        raise NetworkError(f"{path}: {error}") from error


def write(path: str | Path, header: dict, ft_w, ft_b, out_w, out_b) -> None:
    """Write a network file (the arrays as int16, int16, int16, int32 sequences): format 3
    with hand inputs, else format 2 with king buckets, format 1 without (what ferz before
    format 2 reads)."""
    body = bytearray(MAGIC)
    version = 2 if "king_buckets" in header or "qb" in header else 1
    if "hands" in header:
        version = 3
    body += version.to_bytes(4, "little")
    text = json.dumps(header, sort_keys=True).encode()
    body += len(text).to_bytes(4, "little") + text
    for code, values in (("h", ft_w), ("h", ft_b), ("h", out_w), ("i", out_b)):
        packed = array(code, values)
        if sys.byteorder != "little":
            packed.byteswap()
        body += packed.tobytes()
    body += zlib.crc32(bytes(body)).to_bytes(4, "little")
    Path(path).write_bytes(bytes(body))


_bundled: dict[str, Network | None] = {}


def bundled(rules) -> Network | None:
    """The network shipped with ferz for these rules (ferz/nets/*.nnue), or None."""
    key = signature(rules)
    if key not in _bundled:
        _bundled[key] = None
        for path in sorted(NETS.glob("*.nnue")):
            net = read(path)
            if net.fits(rules):
                _bundled[key] = net
                break
    return _bundled[key]


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def forward(pos: Position, net: Network) -> cython.int:
    """The network's score of pos from the side to move's view (centipawns)."""
    # (Py_ssize_t offsets: with int ones, -fwrapv keeps gcc from vectorising the loops)
    h: cython.Py_ssize_t = net.hidden
    us: cython.Py_ssize_t = pos.nn_at + pos.side * h
    them: cython.Py_ssize_t = pos.nn_at + (pos.side ^ 1) * h
    b: cython.int = (pos.pcount[0] + pos.pcount[1] - 2) // net.bucket_div
    if b >= net.buckets:
        b = net.buckets - 1
    if b < 0:
        b = 0
    w: cython.Py_ssize_t = b * 2 * h
    total: cython.int = 0  # (no overflow: Network checks the largest sum when it loads)
    i: cython.Py_ssize_t
    v: cython.int
    out: cython.longlong
    if cython.compiled:
        total = ferz_nn_dot(cython.address(pos.acc[us]), cython.address(net.out_w[w]), h, QA)
        total += ferz_nn_dot(cython.address(pos.acc[them]), cython.address(net.out_w[w + h]), h, QA)
    else:  # the same loops, uncompiled
        for i in range(h):
            v = pos.acc[us + i]
            total += (0 if v < 0 else (QA if v > QA else v)) * net.out_w[w + i]
            v = pos.acc[them + i]
            total += (0 if v < 0 else (QA if v > QA else v)) * net.out_w[w + h + i]
    out = cython.cast(cython.longlong, total + net.out_b[b]) * net.scale
    # truncated toward zero, compiled (C division) and uncompiled alike; by a constant where
    # it can (a division by a variable costs some 5 % of ferz bench's speed)
    if net.qb == QB:
        if out >= 0:
            return cython.cast(cython.int, out // (QA * QB))
        return -cython.cast(cython.int, (-out) // (QA * QB))
    q: cython.longlong = QA * net.qb
    if out >= 0:
        return cython.cast(cython.int, out // q)
    return -cython.cast(cython.int, (-out) // q)
