"""Fairy-Stockfish's gating games (seirawan, shouse) and two-board games played on one board
(bughouse, koedem, supply): perft against Debian's `fairy-stockfish` 11.1 from positions with
gates, pieces in hand and capturable kings, after random play from them, the moves' texts, FEN
round trips, the gates in the hash, and the game ends."""

from __future__ import annotations

import dataclasses
import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core import endrules
from ferz.core.perft import perft
from ferz.core.position import Position
from ferz.engine import Engine, Limits
from tests.variants.oracle import fairy_stockfish, pyffish
from tests.variants.test_pyffish import immediate_end

pytestmark = pytest.mark.variant

NEW = ["seirawan", "shouse", "bughouse", "koedem", "supply"]

# (variant, FEN): gates, castling with gating, hands, capturable kings; perft to depth 3 (or
# the first depth over NODE_CAP) must equal fairy-stockfish 11.1's.
POSITIONS = [
    # castling may gate on the king's or the rook's square; the gates of both sides are open
    ("seirawan", "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R[EHeh] w KQkq - 0 1"),
    # one piece left in hand, some gates closed
    ("seirawan", "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R[Eh] w KQCDkqbc - 0 1"),
    # a gated piece would block the pin: FSF 11.1 still forbids the pinned piece's move
    ("seirawan", "4k3/8/8/8/8/8/8/r2BK3[Hh] w DE - 0 1"),
    # the king in check: moves from gates, with and without gating
    ("seirawan", "4k3/8/8/8/8/8/4r3/RN2K2R[HEe] w KQBE - 0 1"),
    # a hand but no gates, and gates of a side with an empty hand (dropped)
    ("seirawan", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[He] w ABCDEFGHkq - 0 1"),
    # S-House: drops and gating of captured pieces, captures to hand
    ("shouse", "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R[NPnp] w KQkqBb - 0 1"),
    ("shouse", "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R[HEQhe] w KQBCDFGkqbcdfg - 0 3"),
    # bughouse: pieces in hand from the partner; drops, stalemate loses
    ("bughouse", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[QNPqbp] w KQkq - 0 3"),
    ("bughouse", "k7/8/1Q6/8/8/8/8/K7[Rr] b - - 0 1"),
    # koedem: kings are commoners; a king in hand must be dropped (any drop) first
    ("koedem", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[kP] b KQ - 0 1"),
    ("koedem", "rnbq1bnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQ1BNR[Kk] w - - 0 1"),
    ("koedem", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 0 3"),
    # supply: drops on the own half only, never giving check
    ("supply", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB1R[RNCPrnp] w - - 0 1"),
    ("supply", "3ak4/4a4/9/9/9/9/9/9/4A4/4K4[RCrc] w - - 0 1"),
]

NODE_CAP = 300_000


@pytest.fixture(scope="module")
def fsf():
    """One fairy-stockfish process for the module."""
    engine = fairy_stockfish()
    yield engine
    engine.close()


def _board(name: str, fen: str) -> Board:
    return Board(fen, variant=name)


def _compare(fsf, name: str, fen: str, history: list[str], board: Board, cap: int) -> None:
    """Perft of the board (the FEN after the moves of history) at depths 1-3 against FSF's."""
    for depth in (1, 2, 3):
        ours = perft(board.position, depth)
        theirs = fsf.perft(name, fen, history, depth)
        assert ours == theirs, f"{name} {fen} moves {' '.join(history)} depth {depth}"
        if ours > cap:
            break


@pytest.mark.parametrize(("name", "fen"), POSITIONS)
def test_perft_matches_fsf(fsf, name: str, fen: str) -> None:
    _compare(fsf, name, fen, [], _board(name, fen), NODE_CAP)


def _random_play(fsf, name: str, fen: str, seed: int, cap: int, plies: int = 40) -> int:
    """A seeded random game from fen (gating and drops preferred), perft compared with FSF's
    every few plies; returns the positions compared."""
    rng = random.Random(seed)
    board = _board(name, fen)
    checked = 0
    for ply in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        if ply % 5 == 2:
            _compare(fsf, name, fen, [m.text for m in board.move_stack], board, cap)
            checked += 1
        special = [m for m in moves if "@" in m.text or m.text[-1].isalpha()]
        board.push(rng.choice(special if special and rng.random() < 0.5 else moves))
    return checked


@pytest.mark.parametrize(("name", "fen"), POSITIONS)
def test_perft_after_random_play_matches_fsf(fsf, name: str, fen: str) -> None:
    assert sum(_random_play(fsf, name, fen, seed, 60_000) for seed in range(2)) >= 1


@pytest.mark.slow
@pytest.mark.parametrize(("name", "fen"), POSITIONS)
def test_deeper_perft_after_random_play_matches_fsf(fsf, name: str, fen: str) -> None:
    for seed in range(10, 16):
        _random_play(fsf, name, fen, seed, 3_000_000, plies=60)


@pytest.mark.parametrize("name", NEW)
def test_fen_round_trip_in_random_play(name: str) -> None:
    rules = variants.get(name)
    starts = [rules.start_fen] + [fen for n, fen in POSITIONS if n == name]
    for seed, start in enumerate(starts):
        rng = random.Random(seed)
        board = Board(start, variant=name)
        for _ in range(60):
            fen = board.fen()
            again = Position(rules)
            again.set_fen(fen)
            assert again.fen() == fen
            assert again.key == board.position.key, fen
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))


def test_seirawan_start_and_notation() -> None:
    board = Board(variant="seirawan")
    assert board.fen() == variants.get("seirawan").start_fen
    texts = {m.text for m in board.legal_moves}
    assert {"b1c3", "b1c3h", "b1c3e", "g1f3e"} <= texts and len(texts) == 28
    move = board.parse_uci("b1c3h")
    assert board.san(move) == "Nc3/H"
    assert board.parse_san("Nc3/H") == move and board.parse_san("Nc3") != move
    board.push(move)
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/RHBQKBNR[Eeh] b KQCDFGkqbcdfg - 1 1"
    board.pop()
    assert board.fen() == variants.get("seirawan").start_fen


def test_seirawan_castling_gates_on_king_or_rook_square() -> None:
    fen = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R[EHeh] w KQkq - 0 1"
    board = Board(fen, variant="seirawan")
    texts = {m.text for m in board.legal_moves}
    assert {"e1g1", "e1g1h", "e1g1e", "h1e1h", "h1e1e", "e1c1h", "a1e1e"} <= texts
    top = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/"
    for text, san, rank in (("e1g1h", "O-O/He1", "R3HRK1"), ("h1e1h", "O-O/Hh1", "R4RKH")):
        move = board.parse_uci(text)
        assert board.san(move) == san
        assert board.parse_san(san) == move
        board.push(move)
        # the a1 gate stays open for the elephant; FSF 11.1 also lists Black's implied `aeh`
        assert board.fen() == f"{top}{rank}[Eeh] b Akq - 1 1"
        board.pop()
    assert board.parse_uci("e1h1") == board.parse_uci("e1g1")  # king takes rook, no gating


def test_gates_are_hashed() -> None:
    """A knight that leaves its gate and comes back: the board repeats, the gate does not."""
    board = Board(variant="seirawan")
    start_key = board.position.key
    for text in ("b1c3", "b8c6", "c3b1", "c6b8"):
        board.push_uci(text)
    assert board.fen().split()[0] == variants.get("seirawan").start_fen.split()[0]
    assert board.position.key != start_key
    assert not board.position.is_repetition()


def test_two_board_captures_stay_off_the_hands() -> None:
    for name in ("bughouse", "koedem", "supply"):
        rules = variants.get(name)
        assert rules.two_boards and rules.drops and not rules.captures_to_hand


# Game ends by the variants' rules on one board: (variant, FEN, value for the side to move).
ENDINGS = [
    ("bughouse", "k7/8/1Q6/8/8/8/8/K7[] b - - 0 1", -1),  # stalemate loses
    # Black has no king while White holds both: Black loses
    ("koedem", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[K] b KQ - 0 1", -1),
    ("koedem", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[K] w KQ - 0 1", 1),
    ("koedem", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR[Kk] w - - 0 1", None),
]


@pytest.mark.parametrize(("name", "fen", "value"), ENDINGS)
def test_game_ends(fsf, name: str, fen: str, value: int | None) -> None:
    board = Board(fen, variant=name)
    ended = immediate_end(board.position)
    if ended is None and not board.legal_moves:
        ended = endrules.no_moves_value(board.position, board.is_check())
    assert ended == value
    sf = pyffish()
    over, result = sf.is_immediate_game_end(name, fen, [])
    if not over and not sf.legal_moves(name, fen, []):
        over, result = True, sf.game_result(name, fen, [])
    assert ((result > 0) - (result < 0) if over else None) == value
    assert fsf.perft(name, fen, [], 1) == (0 if value is not None else len(board.legal_moves))


def test_supply_drops_never_check() -> None:
    board = Board("3k5/9/9/9/9/9/9/9/9/4K4[R] w - - 0 1", variant="supply")
    drops = [m.text for m in board.legal_moves if "@" in m.text]
    assert drops and not any(t.startswith("R@d") for t in drops)
    assert all(int(t[3:]) <= 5 for t in drops)  # the own half only


def test_definitions_keep_fsf_options() -> None:
    seirawan = variants.get("seirawan")
    assert seirawan.seirawan_gating and not seirawan.drops
    shouse = variants.get("shouse")
    assert shouse.seirawan_gating and shouse.drops and shouse.captures_to_hand
    koedem = variants.get("koedem")
    assert koedem.must_drop and koedem.must_drop_letter == "K" and koedem.extinction_value
    plain = dataclasses.replace(variants.get("crazyhouse"))
    assert not plain.two_boards and not plain.seirawan_gating


@pytest.mark.parametrize("name", NEW)
def test_smoke_game(name: str) -> None:
    """ferz plays itself a few moves of each game, from its start and from a position with
    gates or hands: legal moves, no crash."""
    fens = [variants.get(name).start_fen] + [fen for n, fen in POSITIONS if n == name][:1]
    for fen in fens:
        engine = Engine(variant=name)
        board = Board(fen, variant=name)
        for _ in range(10):
            if board.outcome() is not None:
                break
            move = engine.play(board, Limits(nodes=1500)).move
            assert move in {m.text for m in board.legal_moves}, (name, board.fen(), move)
            board.push(board.parse_uci(move))
        assert len(board.move_stack) >= 2


USER_GATING = """[tinyseirawan:seirawan]
maxFile = 6
knight = -
promotionPieceTypes = heqrb
startFen = rbqkbr/pppppp/6/6/6/6/PPPPPP/RBQKBR[EHeh] w KQBCbc - 0 1
castlingKingFile = d
castlingKingsideFile = e
castlingQueensideFile = b
"""


def test_user_gating_variant_matches_fsf(tmp_path) -> None:
    """A narrower board with gating, castling elsewhere and gates of one side missing, loaded
    into both engines (VariantPath)."""
    path = tmp_path / "tiny.ini"
    path.write_text(USER_GATING)
    rules = variants.parse_text(USER_GATING, str(path))["tinyseirawan"]
    engine = fairy_stockfish()
    try:
        engine.load(path)
        board = Board(rules.start_fen, rules=rules)
        rng = random.Random(3)
        for _ in range(12):
            history = [m.text for m in board.move_stack]
            for depth in (1, 2, 3):
                assert perft(board.position, depth) == engine.perft(
                    "tinyseirawan", rules.start_fen, history, depth
                ), (history, depth)
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
    finally:
        engine.close()


@pytest.mark.parametrize("name", NEW)
def test_incremental_state_equals_a_fresh_one(name: str) -> None:
    """After every legal move (gating, castling with gating, drops, closing the last gate) the
    key and the evaluation's material equal those computed from scratch, and unmake restores
    the position, its gates and its hands."""
    from array import array

    rng = random.Random(5)
    for fen in [variants.get(name).start_fen] + [f for n, f in POSITIONS if n == name]:
        board = Board(fen, variant=name)
        pos = board.position
        size = pos.npc * pos.nsq
        pos.set_tables(
            array("i", [rng.randint(-99, 99) for _ in range(size)]),
            array("i", [rng.randint(-99, 99) for _ in range(size)]),
            array("i", [rng.randint(0, 4) for _ in range(pos.npc)]),
        )
        for _ in range(30):
            moves = pos.legal_moves()
            if not moves:
                break
            before = (pos.fen(), pos.key, pos.mg, pos.eg, pos.gates, tuple(pos.hand))
            for m in moves:
                assert pos.make(m)
                after = (pos.key, pos.mg, pos.eg)
                pos.refresh()
                assert (pos.key, pos.mg, pos.eg) == after, (fen, board.fen(), m)
                pos.unmake()
                assert (pos.fen(), pos.key, pos.mg, pos.eg, pos.gates, tuple(pos.hand)) == before
            pos.make(rng.choice(moves))
