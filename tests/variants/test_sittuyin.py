"""Sittuyin: the setup phase (mustDrop, rooks on the first rank, kings in hand) and its
promotions, compared with Fairy-Stockfish (pyffish 0.0.90) where it is installed."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core.perft import perft
from ferz.core.position import Position
from tests.variants.oracle import normal_fen, pyffish

pytestmark = pytest.mark.variant

START = "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFRRSSNNkfrrssnn] w - - 0 1"


def _moves(fen: str, moves: tuple[str, ...] = ()) -> list[str]:
    """ferz's legal moves after `moves`, asserted equal to FSF's."""
    board = Board(fen, variant="sittuyin")
    for move in moves:
        board.push_uci(move)
    ours = sorted(m.text for m in board.legal_moves)
    assert ours == sorted(pyffish().legal_moves("sittuyin", fen, list(moves)))
    return ours


def test_start_position_holds_the_kings_in_hand() -> None:
    board = Board(variant="sittuyin")
    assert normal_fen(board.fen()) == normal_fen(START)
    assert board.position.royal[0] == -1 and not board.is_check()
    moves = _moves(START)
    assert len(moves) == 88
    rooks = [m for m in moves if m.startswith("R@")]
    assert rooks and all(m.endswith("1") for m in rooks)  # rooks only on the first rank


def test_pieces_in_hand_must_be_dropped_first() -> None:
    fen = "8/8/4pppp/pppp4/4PPPP/PPPP4/8/3K4[Rk] w - - 0 1"
    assert all(m.startswith("R@") for m in _moves(fen))
    # with nothing in hand White moves; Black, holding its king, may only drop it
    fen = "8/8/4pppp/pppp4/4PPPP/PPPP4/8/3K4[k] w - - 0 1"
    assert "e4e5" in _moves(fen)
    assert all(m.startswith("K@") for m in _moves(fen, ("d1e1",)))


@pytest.mark.parametrize(
    ("fen", "present", "absent"),
    [
        # in place or a fers step, from the promotion region
        ("4k3/8/2P5/8/8/8/8/4K3 w - - 0 1", {"c6c6f", "c6b7f", "c6b5f", "c6d5f"}, set()),
        # several pawns: only one in the region promotes; moving into it does not promote
        ("4k3/8/8/2P5/8/8/P7/4K3 w - - 0 1", {"c5c6"}, {"c5c6f", "a2a2f"}),
        ("4k3/8/8/3P4/8/8/P7/4K3 w - - 0 1", {"d5d5f"}, {"a2a2f"}),
        # the last pawn promotes wherever it stands
        ("4k3/8/8/8/8/8/P7/4K3 w - - 0 1", {"a2a2f", "a2b3f", "a2b1f"}, set()),
        # not while a fers is on the board
        ("4k3/8/8/3P4/8/8/P7/4KF2 w - - 0 1", {"d5d6"}, {"d5d5f"}),
        # the new fers may not attack an enemy piece (the knight on e4), nor may the
        # promotion give check (leaving d5 opens the rook's file to the king)
        ("7k/8/8/3P4/4n3/8/P7/4K3 w - - 0 1", {"d5c4f"}, {"d5d5f"}),
        ("3k4/8/8/3P4/8/8/8/3RK3 w - - 0 1", {"d5d5f"}, {"d5c4f", "d5e6f"}),
    ],
)
def test_sittuyin_promotions_like_fsf(fen: str, present: set, absent: set) -> None:
    moves = set(_moves(fen))
    assert present <= moves and not absent & moves


def test_promotion_in_place_undoes_and_reads_as_san() -> None:
    fen = "4k3/8/2P5/8/8/8/8/4K3 w - - 0 1"
    board = Board(fen, variant="sittuyin")
    before, key = board.fen(), board.position.key
    move = board.parse_uci("c6c6f")
    assert board.san(move) == "c6=F" and board.parse_san("c6=F") == move
    board.push(move)
    assert board.fen().split()[0] == "4k3/8/2F5/8/8/8/8/4K3[]"
    assert (
        board.fen()
        == Board(pyffish().get_fen("sittuyin", fen, ["c6c6f"]), variant="sittuyin").fen()
    )
    board.pop()
    assert board.fen() == before and board.position.key == key


def test_setup_perft_undoes_drops_of_kings() -> None:
    pos = Position(variants.get("sittuyin"))
    pos.set_fen(START)
    assert perft(pos, 2) == 7744
    assert normal_fen(pos.fen()) == normal_fen(START) and pos.royal[0] == -1


def test_promotion_in_place_captures_nothing() -> None:
    """The pawn left standing on its square is the mover, not a victim: the exchange value of
    promoting in place equals that of promoting by a step to an empty, unattacked square."""
    from ferz.core import factory

    fen = "4k3/8/2P5/8/8/8/8/4K3 w - - 0 1"
    search = factory.search(variants.get("sittuyin"), fen)
    board = Board(fen, variant="sittuyin")
    in_place, step = (search.see_value(board.parse_uci(u).code) for u in ("c6c6f", "c6b5f"))
    assert in_place == step > 0


def test_search_sees_the_promotions_only_draw() -> None:
    """Black, far ahead, must not leave White a lone king and pawn that can only promote: that
    position is a draw (FSF's optional game end, which ferz applies), and the search says so."""
    from ferz.engine import Engine, Limits

    fen = "K7/2k5/2P5/1ns5/6n1/8/8/6r1[] b - - 1 41"
    assert pyffish().is_optional_game_end("sittuyin", fen, ["g1g2"])[0]
    scores, best = {}, {}
    for moves in (("g1g2",), ()):
        engine = Engine(variant="sittuyin")
        engine.set_position(fen)
        infos: list = []
        engine.go(
            Limits(depth=4, searchmoves=moves),
            on_info=infos.append,
            on_bestmove=lambda move, _ponder, key=moves: best.__setitem__(key, move),
        )
        assert engine.wait(30)
        scores[moves] = (infos[-1].score_cp, infos[-1].score_mate)
    assert scores["g1g2",] == (0, None)
    cp, mate = scores[()]
    assert (mate is not None and mate > 0) or cp > 300
    assert best[()] != "g1g2"
