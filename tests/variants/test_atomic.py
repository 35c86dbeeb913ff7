"""Atomic chess: explosions, touching kings, self-explosion, compared with Fairy-Stockfish
(pyffish 0.0.90) where it is installed."""

from __future__ import annotations

import pytest

from ferz import variants
from ferz.board import Board
from ferz.variants import ending
from tests.variants.oracle import pyffish

pytestmark = pytest.mark.variant


def _after(fen: str, moves: list[str]) -> Board:
    """The atomic board after the moves, its FEN asserted equal to FSF's."""
    board = Board(fen, variant="atomic")
    for move in moves:
        board.push_uci(move)
    assert board.fen() == pyffish().get_fen("atomic", fen, moves)
    return board


def _moves(fen: str) -> list[str]:
    """ferz's legal moves, asserted equal to FSF's."""
    ours = sorted(m.text for m in Board(fen, variant="atomic").legal_moves)
    assert ours == sorted(pyffish().legal_moves("atomic", fen, []))
    return ours


def test_a_capture_explodes_the_capturer_and_pieces_but_pawns_around() -> None:
    fen = "4k3/8/2b1p3/3p4/2P1n3/5N2/8/4K3 w - - 0 1"
    board = _after(fen, ["c4d5"])
    assert board.fen() == "4k3/8/4p3/8/8/5N2/8/4K3 b - - 0 1"  # the e6 pawn survives
    key = Board(fen, variant="atomic").position.key
    board.pop()
    assert board.fen() == fen and board.position.key == key


def test_en_passant_explodes_around_the_capturing_pawn() -> None:
    board = _after("4k3/3p4/2n5/4P3/8/8/8/4K3 b - - 0 1", ["d7d5", "e5d6"])
    assert board.fen().split()[0] == "4k3/8/8/8/8/8/8/4K3"


def test_kings_may_touch_and_a_touching_king_is_not_in_check() -> None:
    fen = "8/8/8/3kK3/8/8/8/3Q4 b - - 0 1"  # the queen attacks d5 along the file
    assert not Board(fen, variant="atomic").is_check()
    moves = _moves(fen)
    assert "d5d4" in moves and "d5d6" in moves  # attacked, but next to the white king


def test_no_capture_may_explode_the_own_king() -> None:
    # Qxd3 would explode the king on e2; the king itself never captures
    assert _moves("4k3/8/8/8/8/3p4/3QK3/8 w - - 0 1") == [
        "e2d1",
        "e2e1",
        "e2e3",
        "e2f1",
        "e2f2",
        "e2f3",
    ]


def test_exploding_the_enemy_king_wins_even_in_check() -> None:
    fen = "4r3/5k2/6n1/8/8/8/8/4K1R1 w - - 0 1"
    assert Board(fen, variant="atomic").is_check()
    assert "g1g6" in _moves(fen)
    board = _after(fen, ["g1g6"])
    assert ending.immediate_end(board.position) == -1
    assert board.outcome().winner is True and board.legal_moves == []
    assert pyffish().is_immediate_game_end("atomic", fen, ["g1g6"])[0]
    # the finished game's FEN (no black king; White's own king attacked) reads back
    again = Board(board.fen(), variant="atomic")
    assert again.fen() == board.fen() and ending.immediate_end(again.position) == -1
    assert pyffish().is_immediate_game_end("atomic", board.fen(), []) == (True, -32000)


def test_an_exploded_rook_loses_its_castling_right() -> None:
    board = _after("r3k2r/8/8/4b3/8/8/1P5P/R3K2R b KQkq - 0 1", ["e5h2"])
    assert board.fen().split()[2] == "Qkq"


def test_blast_needs_pseudo_royal_extinction() -> None:
    with pytest.raises(variants.DefinitionError, match="only with extinctionPseudoRoyal"):
        variants.parse_text("[x:chess]\nblastOnCapture = true\n")
    with pytest.raises(variants.DefinitionError, match="remove the king"):
        variants.parse_text(
            "[x:chess]\nblastOnCapture = true\nextinctionPseudoRoyal = true\n"
            "extinctionValue = loss\nextinctionPieceTypes = q\n"
        )
