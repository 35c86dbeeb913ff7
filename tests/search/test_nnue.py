"""The neural evaluation: network files, accumulators kept by make/unmake, the engine's use."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from ferz.core import factory, nnue
from ferz.core.defs import CASTLE, NN_RING, move_from, move_kind, move_to
from ferz.core.evaluate import Evaluator
from ferz.core.position import Position
from ferz.engine import Engine
from ferz.variants import get
from tests.pure_core import run_pure

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PROMOTIONS = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"
EN_PASSANT = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"


def random_net(path: Path, variant: str = "chess", hidden: int = 32, seed: int = 1, **over):
    """Write a network of random weights for a variant; returns its path."""
    rules = get(variant)
    rng = random.Random(seed)
    nfeat = 2 * len(rules.pieces) * rules.files * rules.ranks
    if "king_buckets" in over:
        nfeat *= max(over["king_buckets"]) + 1
    if isinstance(over.get("hands"), list):
        nfeat += 2 * sum(c for c in over["hands"] if type(c) is int)
    buckets = over.pop("buckets", 4)
    weights = over.pop("weights", 300)
    header = {
        "hidden": hidden,
        "buckets": buckets,
        "bucket_div": 8,
        "scale": 400,
        "files": rules.files,
        "ranks": rules.ranks,
        "types": len(rules.pieces),
        "signature": nnue.signature(rules),
    }
    header.update(over)
    nnue.write(
        path,
        header,
        [rng.randint(-weights, weights) for _ in range(nfeat * hidden)],
        [rng.randint(-100, 100) for _ in range(hidden)],
        [rng.randint(-100, 100) for _ in range(buckets * 2 * hidden)],
        [rng.randint(-2000, 2000) for _ in range(buckets)],
    )
    return path


# king buckets as tools/nnue.py's k8 layout: the back rank's squares a-d apart, the second
# rank in two, the third, the rest; mirrored left to right
K8 = [[0, 1, 2, 3, 3, 2, 1, 0], [4, 4, 5, 5, 5, 5, 4, 4], [6] * 8] + [[7] * 8] * 5
KINGS = {"king_buckets": [b for rank in K8 for b in rank], "mirror": True, "qb": 256}


@pytest.fixture(scope="module", params=["format 1", "king buckets"])
def net(request, tmp_path_factory) -> nnue.Network:
    """A random chess network, of each format."""
    over = KINGS if request.param == "king buckets" else {}
    return nnue.read(random_net(tmp_path_factory.mktemp("nets") / "random.nnue", **over))


def fresh(pos: Position) -> list[int]:
    """The accumulators of the same position computed from scratch."""
    return pos.copy().accumulators()


def random_moves(pos: Position, rng: random.Random, plies: int) -> Iterator[None]:
    """Play up to `plies` random legal moves, pausing after each (for the caller's checks),
    then unmake them all."""
    played = 0
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            break
        pos.make(rng.choice(moves))
        played += 1
        yield
    for _ in range(played):
        pos.unmake()


def test_accumulators_follow_make_and_unmake(net):
    """Through random games (castling, en passant, promotions, captures) the incrementally
    kept hidden units equal those computed from scratch, and unmaking restores them."""
    rules = get("chess")
    pos = Position(rules)
    Evaluator(rules, net=net).install(pos)
    rng = random.Random(3)
    for start in (rules.start_fen, KIWIPETE, PROMOTIONS, EN_PASSANT):
        pos.set_fen(start)
        before = pos.accumulators()
        assert before == fresh(pos)
        for _ in random_moves(pos, rng, 80):
            assert pos.accumulators() == fresh(pos), pos.fen()
        assert pos.accumulators() == before
        pos.make_null()
        assert pos.accumulators() == before  # a null move moves no piece
        pos.unmake_null()


def test_accumulators_follow_atomic_explosions(tmp_path):
    """A capture in atomic removes every piece it blows up (the capturer, the captured, their
    non-pawn neighbours): through random games the incrementally kept hidden units equal
    those computed from scratch, and unmaking restores them."""
    rules = get("atomic")
    pos = Position(rules)
    Evaluator(rules, net=nnue.read(random_net(tmp_path / "atomic.nnue", "atomic"))).install(pos)
    rng = random.Random(5)
    blasts = 0

    def pieces() -> int:
        return sum(c.isalpha() for c in pos.fen().split()[0])

    for _ in range(40):
        pos.set_fen(rules.start_fen)
        before, count = pos.accumulators(), pieces()
        for _ in random_moves(pos, rng, 100):
            blasts += pieces() < count - 1  # (more than the captured piece left the board)
            count = pieces()
            assert pos.accumulators() == fresh(pos), pos.fen()
        assert pos.accumulators() == before
    assert blasts > 50  # (explosions were played)


def test_unmaking_past_the_ring_of_accumulators_computes_them_again(net):
    """Make keeps one accumulator entry per move on a ring of NN_RING; a game longer than the
    ring, unmade to its start, computes each entry the ring no longer holds from the board:
    every position on the way back has the accumulators computed from scratch."""
    rules = get("chess")
    pos = Position(rules)
    Evaluator(rules, net=net).install(pos)
    pos.set_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")  # rooks and kings: no game end soon
    rng = random.Random(11)
    seen = [pos.accumulators()]
    while len(seen) <= NN_RING + 40:
        moves = pos.legal_moves()
        assert moves, pos.fen()
        pos.make(rng.choice(moves))
        seen.append(pos.accumulators())
    assert seen[-1] == fresh(pos)
    while len(seen) > 1:
        seen.pop()
        pos.unmake()
        assert pos.accumulators() == seen[-1] == fresh(pos), (len(seen), pos.fen())
    assert pos.nn_sp == 0


KING_WALK = "4k3/1pp5/8/8/8/8/5PP1/4K2R w K - 0 1"


def test_king_moves_across_buckets_refresh_from_the_cache(tmp_path):
    """A king crossing into another bucket or the other half rebuilds its side's view from
    the cache of accumulators per king bucket: equal to the view computed from scratch, on
    the way out and back (unmake), while a move inside a bucket refreshes nothing."""
    net = nnue.read(random_net(tmp_path / "k8.nnue", **KINGS))
    assert net.nkings == 8 and net.mirror and "8 king buckets" in net.name
    rules = get("chess")
    pos = Position(rules)
    Evaluator(rules, net=net).install(pos)
    pos.set_fen(KING_WALK)
    before = pos.accumulators()
    moves = ["e1d1", "e8d8", "d1c2", "d8c8", "c2d3", "c8d7", "d3e4", "d7e6", "e4f3", "e6f7", "e1g1"]
    done = 0
    for uci in moves[:-1]:
        move = next(m for m in pos.legal_moves() if move_text(pos, m) == uci)
        refreshes = pos.nn_refreshes
        pos.make(move)
        done += 1
        assert pos.accumulators() == fresh(pos), (uci, pos.fen())
        if uci in ("e1d1", "e8d8"):  # e1 -> d1: bucket 3 mirrored -> bucket 3 unmirrored
            assert pos.nn_refreshes == refreshes + 1
        if uci == "d1c2":  # rank 2: bucket 5
            assert pos.nn_refreshes == refreshes + 1
    for _ in range(done):
        pos.unmake()
        assert pos.accumulators() == fresh(pos)
    assert pos.accumulators() == before
    pos.make(next(m for m in pos.legal_moves() if move_kind(m) == CASTLE))
    assert pos.accumulators() == fresh(pos)
    pos.unmake()
    move = next(m for m in pos.legal_moves() if move_text(pos, m) == "f2f3")
    refreshes = pos.nn_refreshes
    pos.make(move)
    assert pos.nn_refreshes == refreshes  # no king moved


def move_text(pos: Position, move: int) -> str:
    """A move's origin and destination squares as text (e1d1)."""
    rules = pos.rules
    return rules.square_name(move_from(move)) + rules.square_name(move_to(move))


def test_format_1_files_stay_format_1_and_bad_king_maps_are_refused(tmp_path):
    """A network without king buckets is written and read as format 1 (what xiangqi-1 is); a
    format 2 header with a bad king bucket map or output scale, or format 1 with either, is
    refused."""
    path = random_net(tmp_path / "v1.nnue", hidden=8)
    assert int.from_bytes(path.read_bytes()[8:12], "little") == 1
    assert nnue.read(path).kings == []
    shipped = nnue.NETS / "xiangqi.nnue"
    assert int.from_bytes(shipped.read_bytes()[8:12], "little") == 1
    path = random_net(tmp_path / "v2.nnue", hidden=8, **KINGS)
    assert int.from_bytes(path.read_bytes()[8:12], "little") == 2
    good = nnue.read(path)
    for over, message in (
        ({"king_buckets": [0] * 63}, "king_buckets"),
        ({"king_buckets": [-1] * 64}, "king_buckets"),
        ({"mirror": "yes"}, "mirror"),
        ({"qb": 0}, "qb"),
    ):
        bad = tmp_path / "bad.nnue"
        nnue.write(bad, dict(good.header, **over), good.ft_w, good.ft_b, good.out_w, good.out_b)
        with pytest.raises(nnue.NetworkError, match=message):
            nnue.read(bad)
    data = bytearray(path.read_bytes())
    data[8:12] = (1).to_bytes(4, "little")
    data[-4:] = zlib.crc32(bytes(data[:-4])).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(nnue.NetworkError, match="king buckets or qb in a format 1 file"):
        nnue.read(path)


def test_evaluation_is_colour_symmetric(net):
    """A position and its colour-flipped mirror get the same score for the side to move."""
    rules = get("chess")
    ev = Evaluator(rules, net=net)
    pos = factory.position(rules, None, ev)
    for fen in (rules.start_fen, KIWIPETE, "8/2k5/3p4/8/4P3/8/5K2/8 w - - 0 1"):
        board, side, *_ = fen.split()
        flipped = "/".join(reversed(board.swapcase().split("/")))
        pos.set_fen(fen)
        score = ev.eval(pos)
        pos.set_fen(f"{flipped} {'b' if side == 'w' else 'w'} - - 0 1")
        assert ev.eval(pos) == score


def test_network_scores_are_used_and_bare_kings_keep_the_mop_up(net):
    """With a network the score is the network's, except against a bare king, where the
    hand-made material and mop-up evaluation drives the mate."""
    rules = get("chess")
    hand = Evaluator(rules)
    neural = Evaluator(rules, net=net)
    a, b = factory.position(rules, KIWIPETE, hand), factory.position(rules, KIWIPETE, neural)
    assert b.nn and not a.nn
    assert hand.eval(a) != neural.eval(b)
    for pos in (a, b):
        pos.set_fen("8/8/2k5/8/8/8/8/3QK3 w - - 0 1")
    assert hand.eval(a) == neural.eval(b)


SCORES = """
import json, sys
from ferz.core import compiled, nnue
from ferz.core import factory
from ferz.core.evaluate import Evaluator
from ferz.variants import get
path, fens = json.load(sys.stdin)
rules = get("chess")
ev = Evaluator(rules, net=nnue.read(path))
pos = factory.position(rules, None, ev)
out = []
for fen in fens:
    pos.set_fen(fen)
    out.append([ev.eval(pos), pos.accumulators()])
    for m in pos.legal_moves()[:6]:
        pos.make(m)
        out.append([ev.eval(pos), pos.accumulators()])
        pos.unmake()
print(json.dumps({"compiled": compiled(), "results": out}))
"""


@pytest.mark.parametrize("over", [{}, KINGS], ids=["format 1", "king buckets"])
def test_compiled_and_uncompiled_scores_agree(tmp_path, over):
    """The uncompiled core computes the same integers (the bench's node counts rely on it)."""
    path = random_net(tmp_path / "random.nnue", hidden=16, **over)
    cases = [str(path), [KIWIPETE, PROMOTIONS, EN_PASSANT, get("chess").start_fen, KING_WALK]]
    compiled = subprocess.run(
        [sys.executable, "-c", SCORES], input=json.dumps(cases), capture_output=True, text=True
    )
    assert compiled.returncode == 0, compiled.stderr
    result = json.loads(compiled.stdout)
    assert result["compiled"] is True
    assert result["results"] == run_pure(SCORES, cases)


def test_rules_signature_decides_where_a_network_applies(net):
    """Chess, Chess960 and chess without castling share the rules a network learnt; games
    with other goals, drops, boards or pieces do not."""
    for variant in ("chess", "chess960", "nocastle"):
        assert net.fits(get(variant)), variant
    for variant in ("crazyhouse", "atomic", "3check", "antichess", "shatranj", "capablanca"):
        assert not net.fits(get(variant)), variant
    with pytest.raises(ValueError, match="not trained for"):
        Evaluator(get("atomic"), net=net)


def test_positions_share_the_tables_the_network_computed_for_their_rules():
    """Every search sets a position up (each `go`): the network's tables for its rules
    (feature rows, king indexes, hand rows) are computed once and shared, and a position of
    rules the network does not fit is refused before any of its state changes."""
    rules = get("crazyhouse")
    net = nnue.bundled(rules)
    first, second = Position(rules), Position(rules)
    for pos in (first, second):
        Evaluator(rules, net=net).install(pos)
        pos.set_fen(rules.start_fen)
    assert net.tables(rules) is net.tables(rules)
    assert net.tables(rules)[0] is net.tables(rules)[0]
    assert first.accumulators() == second.accumulators()
    chess = Position(get("chess"))
    with pytest.raises(ValueError, match="not trained for"):
        chess.set_net(net)
    assert chess.net is None


def test_shipped_networks_serve_their_own_variants():
    """Each network in ferz/nets is chosen by the rules it was trained for: xiangqi-1 for
    xiangqi only (not its smaller or other-army cousins), crazyhouse-3 for crazyhouse only
    (not the drop games whose captures or hands work otherwise), makruk-1 for makruk only
    (not its cousins with other rules), shogi-1 for shogi only (not the smaller shogi games),
    capablanca-2 for the 10x8 games with its army and rules (not those with other pieces or
    drops), janggi-1 for janggi only (not its modern or casual rules), atomic-1 for atomic
    only, chess-6a for the chess family."""
    assert nnue.bundled(get("xiangqi")).header["name"] == "xiangqi-1"
    assert nnue.bundled(get("crazyhouse")).header["name"] == "crazyhouse-3"
    assert nnue.bundled(get("makruk")).header["name"] == "makruk-1"
    assert nnue.bundled(get("shogi")).header["name"] == "shogi-1"
    assert nnue.bundled(get("janggi")).header["name"] == "janggi-1"
    assert nnue.bundled(get("atomic")).header["name"] == "atomic-1"
    for variant in ("capablanca", "caparandom", "gothic", "embassy"):
        assert nnue.bundled(get(variant)).header["name"] == "capablanca-2", variant
    assert nnue.bundled(get("chess960")).header["name"] == "chess-6a"
    cousins = {
        "xiangqi-1": ("minixiangqi", "manchu", "janggi", "supply"),
        "crazyhouse-3": ("loop", "chessgi", "bughouse", "koedem", "placement", "seirawan"),
        "makruk-1": ("makpong", "cambodian", "asean", "karouk", "sittuyin"),
        "shogi-1": ("minishogi", "judkins", "gorogoro", "euroshogi", "kyotoshogi", "dobutsu"),
        "capablanca-2": ("janus", "centaur", "capahouse", "grand", "seirawan", "chess"),
        "janggi-1": ("janggimodern", "janggicasual", "janggitraditional", "xiangqi", "minixiangqi"),
        "atomic-1": ("chess", "antichess", "3check", "horde", "crazyhouse", "chess960"),
    }
    for name, variants in cousins.items():
        for variant in variants:
            net = nnue.bundled(get(variant))
            assert net is None or net.header["name"] != name, variant
    engine = Engine()
    engine.set_option("UCI_Variant", "xiangqi")
    assert engine._evaluator.net.header["name"] == "xiangqi-1"
    engine.set_option("Use NNUE", False)
    assert engine._evaluator.net is None


def test_too_many_pieces_for_int16_switch_the_network_off(tmp_path):
    """Weights that could overflow the int16 units with the position's pieces are never summed:
    the hand-made evaluation takes over for that position."""
    net = nnue.read(random_net(tmp_path / "big.nnue", weights=3000))
    assert 2 <= net.max_pieces < 32
    rules = get("chess")
    pos = factory.position(rules, None, Evaluator(rules, net=net))  # 32 pieces
    assert not pos.nn
    pos.set_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert pos.nn


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: b"XXXXXXXX" + data[8:], "not a ferz network"),
        (lambda data: data[:100], "checksum"),
        (lambda data: data[:40] + bytes([data[40] ^ 1]) + data[41:], "checksum"),
        (lambda data: b"", "not a ferz network"),
    ],
)
def test_damaged_files_are_refused_with_a_reason(tmp_path, damage, message):
    """Wrong magic, truncation, a flipped bit or an empty file: a NetworkError saying which."""
    path = random_net(tmp_path / "net.nnue", hidden=8)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(nnue.NetworkError, match=message):
        nnue.read(path)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"hidden": 5000}, "hidden"),
        ({"buckets": 0}, "buckets"),
        ({"types": "six"}, "bad header"),
        ({"files": 9}, "truncated"),
        ({"scale": 0}, "scale"),
    ],
)
def test_inconsistent_headers_are_refused(tmp_path, override, message):
    """A header that does not match its arrays, or is out of range, is refused."""
    path = random_net(tmp_path / "net.nnue", hidden=8)
    good = nnue.read(path)
    header = dict(good.header, **override)
    bad = tmp_path / "bad.nnue"
    nnue.write(bad, header, good.ft_w, good.ft_b, good.out_w, good.out_b)
    with pytest.raises(nnue.NetworkError, match=message):
        nnue.read(bad)
    with pytest.raises(nnue.NetworkError, match="No such file"):
        nnue.read(tmp_path / "missing.nnue")


def test_engine_options_choose_the_evaluation(tmp_path):
    """EvalFile loads a network (a bad one is refused and changes nothing), Use NNUE false
    evaluates by hand, and a variant the network does not fit falls back to another."""
    engine = Engine()
    shipped = engine.network
    path = random_net(tmp_path / "mine.nnue")
    engine.set_option("EvalFile", str(path))
    mine = engine.network
    assert mine is not None and mine is not shipped
    assert mine.header["signature"] == nnue.signature(get("chess"))
    with pytest.raises(ValueError, match="not a ferz network"):
        engine.set_option("EvalFile", __file__)
    assert engine.network is mine and engine.options.get("EvalFile") == str(path)
    engine.set_position(KIWIPETE)
    with_net = engine.evaluate()
    engine.set_option("Use NNUE", False)
    assert engine.network is None
    hand = Evaluator(get("chess"))
    pos = factory.position(get("chess"), KIWIPETE, hand)
    assert engine.evaluate() == hand.eval(pos) != with_net
    engine.set_option("Use NNUE", True)
    assert engine.network is mine
    engine.set_option("UCI_Variant", "atomic")
    assert engine.network is None or engine.network.fits(get("atomic"))
    engine.set_option("UCI_Variant", "chess")
    assert engine.network is mine


def test_shipped_chess_network():
    """ferz ships a network for chess: it loads, fits Chess960 too, and scores the start
    position close to equal and a side a queen up as winning."""
    net = nnue.bundled(get("chess"))
    assert net is not None
    assert nnue.bundled(get("chess960")) is net
    assert nnue.bundled(get("crazyhouse")) is not net
    assert nnue.bundled(get("atomic")) is not net
    rules = get("chess")
    ev = Evaluator(rules, net=net)
    pos = factory.position(rules, None, ev)
    assert abs(ev.eval(pos)) < 80
    pos.set_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert ev.eval(pos) > 500
    pos.set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1")
    assert ev.eval(pos) < -500
    assert Engine().network is net
