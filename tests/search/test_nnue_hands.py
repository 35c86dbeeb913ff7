"""Networks with hand inputs (format 3): files, the accumulators kept through drops, captures
to hand, promotions, demotions and gating, compiled and uncompiled alike."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from ferz.core import factory, nnue
from ferz.core.defs import WALL
from ferz.core.evaluate import Evaluator
from ferz.core.position import Position
from ferz.engine import Engine
from ferz.variants import get
from tests.pure_core import run_pure
from tests.search.test_nnue import random_moves, random_net


def caps_of(variant: str, cap: int = 3) -> list[int]:
    """Hand caps for a test network: `cap` for every type but the royal ones (small, so that
    random games often pass a cap)."""
    return [0 if piece.royal else cap for piece in get(variant).pieces]


def flat_buckets(variant: str) -> dict:
    """A king bucket map for any board: three buckets by the king's rank, mirrored halves."""
    rules = get(variant)
    buckets = [min(2, r) for r in range(rules.ranks) for _ in range(rules.files)]
    return {"king_buckets": buckets, "mirror": True, "qb": 256}


def hand_net(tmp_path: Path, variant: str, kings: bool = False, hidden: int = 16) -> Path:
    """A random network with hand inputs for a variant (and king buckets)."""
    over = {"hands": caps_of(variant)}
    if kings:
        over.update(flat_buckets(variant))
    name = f"{variant}{'-k' if kings else ''}.nnue"
    return random_net(tmp_path / name, variant, hidden=hidden, **over)


def expected_acc(pos: Position, net: nnue.Network) -> list[int]:
    """Both views' hidden units computed here from the weights, by the format's definition
    (not by the engine's tables): the bias, the board's pieces in the king's block (mirrored
    with the king on the right half), and one row per hand input that is on."""
    rules = pos.rules
    files, ranks, types = rules.files, rules.ranks, len(rules.pieces)
    area, h = files * ranks, net.hidden
    block = 2 * types * area
    caps, total = net.hands, sum(net.hands)
    out: list[int] = []
    for view in (0, 1):
        acc = list(net.ft_b)

        def add(feature: int, acc=acc) -> None:
            for i in range(h):
                acc[i] += net.ft_w[feature * h + i]

        bucket, flip = 0, False
        if net.kings:
            king = pos.royal[view]
            kf, kr = rules.file_of(king), rules.rank_of(king)
            kr = kr if view == 0 else ranks - 1 - kr
            bucket, flip = net.kings[kr * files + kf], net.mirror and 2 * kf >= files
        for sq in rules.squares():
            p = pos.board[sq]
            if p <= WALL:
                continue
            f, r = rules.file_of(sq), rules.rank_of(sq)
            r = r if view == 0 else ranks - 1 - r
            f = files - 1 - f if flip else f
            own = 0 if p & 1 == view else types * area
            add(bucket * block + own + ((p >> 1) - 1) * area + r * files + f)
        for p in range(2, pos.npc):
            t = (p >> 1) - 1
            own = 0 if p & 1 == view else total
            for i in range(min(pos.hand[p], caps[t])):
                add(net.nkings * block + own + sum(caps[:t]) + i)
        out += acc
    return out


GAMES = {"crazyhouse": 4, "shogi": 3, "kyotoshogi": 4, "seirawan": 3, "bughouse": 2}
# starts with full hands, so that the counts pass the test networks' caps of 3
FULL = {
    "crazyhouse": "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R[PPPPPNBpppppnr] w",
    "shogi": "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[PPPPPGSppppplln] w - - 0 1",
    "kyotoshogi": "p+nks+l/5/5/5/+LSK+NP[PPPPSnnnnl] w - - 0 1",
    "bughouse": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QRRNPPPPPqbbnnppppp] w KQkq - 0 1",
}


@pytest.mark.parametrize("kings", [False, True], ids=["hands", "hands and king buckets"])
@pytest.mark.parametrize("variant", list(GAMES))
def test_accumulators_with_hands_follow_random_games(tmp_path, variant, kings):
    """Through seeded random games (drops, captures into hand, promotions and demotions,
    gating, a bughouse hand from the FEN) the incrementally kept hidden units equal those
    computed from scratch by the format's definition, and unmaking restores them."""
    rules = get(variant)
    net = nnue.read(hand_net(tmp_path, variant, kings, hidden=8))
    assert net.hands and net.nhand == sum(caps_of(variant))
    pos = Position(rules)
    Evaluator(rules, net=net).install(pos)
    rng = random.Random(7)
    starts = [rules.start_fen] * GAMES[variant] + ([FULL[variant]] if variant in FULL else [])
    held = 0
    for start in starts:
        pos.set_fen(start)
        before = pos.accumulators()
        assert pos.nn and before == expected_acc(pos, net)
        for _ in random_moves(pos, rng, 70):
            held = max(held, max(pos.hand[p] for p in range(2, pos.npc)))
            assert pos.accumulators() == expected_acc(pos, net), pos.fen()
        assert pos.accumulators() == before
    assert held >= (1 if variant == "seirawan" else 4)  # (the caps of 3 were passed)


SCORES = """
import json, random, sys
from ferz.core import compiled, factory, nnue
from ferz.core.evaluate import Evaluator
from ferz.variants import get
cases = json.load(sys.stdin)
out = []
for path, variant in cases:
    rules = get(variant)
    ev = Evaluator(rules, net=nnue.read(path))
    pos = factory.position(rules, None, ev)
    rng = random.Random(5)
    for _ in range(50):
        moves = pos.legal_moves()
        if not moves:
            break
        pos.make(rng.choice(moves))
        out.append([ev.eval(pos), pos.accumulators()])
print(json.dumps({"compiled": compiled(), "results": out}))
"""


def test_compiled_and_uncompiled_hand_networks_agree(tmp_path):
    """The uncompiled core keeps the same hand rows and computes the same scores."""
    cases = [
        [str(hand_net(tmp_path, "crazyhouse", hidden=8)), "crazyhouse"],
        [str(hand_net(tmp_path, "shogi", kings=True, hidden=8)), "shogi"],
    ]
    compiled = subprocess.run(
        [sys.executable, "-c", SCORES], input=json.dumps(cases), capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stderr
    result = json.loads(compiled.stdout)
    assert result["compiled"] is True and len(result["results"]) == 100
    assert result["results"] == run_pure(SCORES, cases)


def test_hand_networks_are_format_3_and_refused_where_hands_do_not_fit(tmp_path):
    """A network with hand inputs is written as format 3 and serves its drop game; one with
    hands for chess, or one without hands for crazyhouse, is refused with the reason."""
    path = hand_net(tmp_path, "crazyhouse")
    assert int.from_bytes(path.read_bytes()[8:12], "little") == 3
    net = nnue.read(path)
    assert net.fits(get("crazyhouse")) and "hand inputs" in net.name
    engine = Engine()
    engine.set_option("UCI_Variant", "crazyhouse")
    engine.set_option("EvalFile", str(path))
    assert engine.network is net or engine.network.header == net.header
    engine.set_position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 0 3")
    assert isinstance(engine.evaluate(), int)
    chess = nnue.read(random_net(tmp_path / "chess-hands.nnue", "chess", hidden=8, hands=[2] * 6))
    with pytest.raises(nnue.NetworkError, match="hand inputs, and chess has no pieces in hand"):
        Evaluator(get("chess"), net=chess)
    with pytest.raises(nnue.NetworkError, match="hand inputs"):
        factory.position(get("chess"), None).set_net(chess)
    bare = nnue.read(random_net(tmp_path / "zh-bare.nnue", "crazyhouse", hidden=8))
    with pytest.raises(nnue.NetworkError, match="no hand inputs, and crazyhouse has pieces"):
        Evaluator(get("crazyhouse"), net=bare)


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        ([3] * 9, "hands: not 10 caps"),
        ([3] * 9 + [-1], "hands: not 10 caps"),
        ([3] * 9 + [64], "hands: not 10 caps in 0..63"),
        ([0] * 10, "every cap is 0"),
        ("3", "hands: not 10 caps"),
        ([3.0] * 10, "hands: not 10 caps"),
    ],
)
def test_bad_hand_caps_are_refused(tmp_path, hands, message):
    """A hand cap list of the wrong length, or with a cap outside 0..63, or all 0, is refused."""
    good = nnue.read(hand_net(tmp_path, "crazyhouse", hidden=8))
    bad = tmp_path / "bad.nnue"
    weights = list(good.ft_w)
    if isinstance(hands, list) and all(type(c) is int and c > 0 for c in hands):
        weights = weights[: (good.nfeatures - 2 * good.nhand + 2 * sum(hands)) * good.hidden]
    header = dict(good.header, hands=hands)
    nnue.write(bad, header, weights, good.ft_b, good.out_w, good.out_b)
    with pytest.raises(nnue.NetworkError, match=message):
        nnue.read(bad)


def test_hands_belong_in_format_3_only(tmp_path):
    """A format 2 file with `hands` (which an older ferz would misread) or a format 3 file
    without them is refused; formats 1 and 2 read as before (the shipped chess network)."""
    hands = hand_net(tmp_path, "crazyhouse", hidden=8)
    plain = random_net(tmp_path / "plain.nnue", "crazyhouse", hidden=8)
    for path, version in ((hands, 2), (plain, 3)):
        data = bytearray(path.read_bytes())
        data[8:12] = version.to_bytes(4, "little")
        data[-4:] = zlib.crc32(bytes(data[:-4])).to_bytes(4, "little")
        bad = tmp_path / f"v{version}.nnue"
        bad.write_bytes(bytes(data))
        with pytest.raises(nnue.NetworkError, match="hand inputs belong in format 3"):
            nnue.read(bad)
    shipped = nnue.read(nnue.NETS / "chess.nnue")
    assert shipped.hands == [] and shipped.nhand == 0 and shipped.fits(get("chess"))


def test_hand_inputs_count_toward_the_int16_limit(tmp_path):
    """Pieces in hand are inputs too: a position whose pieces on the board and in hand could
    overflow the int16 units is evaluated by hand, as one with too many on the board."""
    path = random_net(
        tmp_path / "big.nnue",
        "crazyhouse",
        hidden=8,
        weights=3000,
        hands=[16, 4, 4, 4, 2, 0, 0, 0, 0, 0],
    )
    net = nnue.read(path)
    rules = get("crazyhouse")
    pos = factory.position(rules, "4k3/8/8/8/8/8/8/4K3[] w - - 0 1", Evaluator(rules, net=net))
    assert pos.nn and 2 <= net.max_pieces < 30
    pawns = "P" * (net.max_pieces - 1)
    pos.set_fen(f"4k3/8/8/8/8/8/8/4K3[{pawns}] w - - 0 1")
    assert not pos.nn
    pos.set_fen(f"4k3/8/8/8/8/8/8/4K3[{pawns[1:]}] w - - 0 1")
    assert pos.nn


def test_a_king_with_pieces_in_hand_is_not_bare(tmp_path):
    """The network judges a drop game's position where a side has only its king on the board
    but pieces in hand; the hand-made mop-up takes over only when a king has nothing at all."""
    rules = get("crazyhouse")
    net = nnue.read(hand_net(tmp_path, "crazyhouse"))

    def both(fen: str) -> tuple[int, int]:
        """The evaluation of fen with the network and without it."""
        with_net, without = Evaluator(rules, net=net), Evaluator(rules)
        a = factory.position(rules, fen, with_net)
        b = factory.position(rules, fen, without)
        return with_net.eval(a), without.eval(b)

    networked, handmade = both("4k3/8/8/8/8/8/8/R3K3[q] w - - 0 1")
    assert networked != handmade  # Black's queen in hand: no mop-up of a bare king
    networked, handmade = both("4k3/8/8/8/8/8/8/R3K3[] w - - 0 1")
    assert networked == handmade  # a bare king: the hand-made mop-up drives the mate
