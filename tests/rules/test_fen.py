"""FEN parsing and formatting: round trips, and every kind of bad FEN refused with its reason."""

from __future__ import annotations

import pytest

from ferz.board import Board, InvalidFenError
from tests.conftest import read_perft_epd

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.mark.parametrize("fen", [fen for fen, _ in read_perft_epd("perftsuite.epd")][:60])
def test_round_trip(fen: str) -> None:
    board = Board(fen)
    again = Board(board.fen())
    assert again.fen() == board.fen()
    assert again.position.key == board.position.key


@pytest.mark.parametrize(
    ("before", "move", "after"),
    [
        # Black's king walks to a1, beside White's rights on h1: they are not Black's (a
        # self-play game wrote "Kk" here, and Stockfish 15.1 crashed on that FEN)
        (
            "8/8/4N3/8/P2p3p/1P5P/1k1Q1PP1/3BK2R b K - 1 38",
            "b2a1",
            "8/8/4N3/8/P2p3p/1P5P/3Q1PP1/k2BK2R w K - 2 39",
        ),
        ("4k2r/K7/8/8/8/8/8/8 w k - 0 1", "a7a8", "K3k2r/8/8/8/8/8/8/8 b k - 1 1"),
    ],
)
def test_castling_rights_are_written_for_their_own_colour_only(before, move, after) -> None:
    """A king on the other side's castling rank takes none of that side's rights in the FEN."""
    board = Board(before)
    board.push_uci(move)
    assert board.fen() == after
    assert Board(board.fen()).position.key == board.position.key


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("", "fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "ranks"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "files"),
        ("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "files"),
        ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unknown piece"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1", "2 kings"),
        ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "0 kings"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1", "no rook"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqZ - 0 1", "castling"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "en passant"),
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "en passant"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1", "en passant"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", "fullmove"),
        ("4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1", "not to move is in check"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawn"),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn"),
    ],
)
def test_bad_fen_refused_with_reason(fen: str, reason: str) -> None:
    board = Board()
    board.push_uci("e2e4")
    before = (board.fen(), board.position.key, len(board.move_stack))
    with pytest.raises(InvalidFenError, match=reason):
        board.set_fen(fen)
    assert (board.fen(), board.position.key, len(board.move_stack)) == before


def test_non_string_fen() -> None:
    with pytest.raises(ValueError):
        Board(12345)  # type: ignore[arg-type]


def test_optional_counters_and_ep_normalisation() -> None:
    assert Board("4k3/8/8/8/8/8/8/4K3 w - -").fen() == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    # e3 is a possible e.p. square, but no black pawn can take: it is dropped (X-FEN)
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert Board(fen).fen().split()[3] == "-"
    fen = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3"
    assert Board(fen).fen() == fen


def test_chess960_castling_fields() -> None:
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    board = Board(fen, chess960=True)
    assert board.fen().split()[2] == "KQkq"
    shredder = "rk2r3/8/8/8/8/8/8/RK2R3 w AEae - 0 1"
    assert Board(shredder, chess960=True).fen().split()[2] == "KQkq"
    inner = "r1k1r2r/8/8/8/8/8/8/R1K1R2R w EAea - 0 1"
    assert Board(inner, chess960=True).fen().split()[2] == "EQeq"


def test_a_side_without_king_only_where_the_start_position_has_none() -> None:
    import dataclasses

    from ferz.core.rules import chess

    start = "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"
    horde = dataclasses.replace(
        chess(), name="hordelike", start_fen=start, double_step_ranks=frozenset({0, 1})
    )
    assert Board(rules=horde).fen() == start
    with pytest.raises(InvalidFenError, match="white has 1 kings, expected 0"):
        Board("rnbqkbnr/pppppppp/8/8/8/8/8/K7 w kq - 0 1", rules=horde)
    with pytest.raises(InvalidFenError, match="white has 0 kings, expected 1"):
        Board("4k3/8/8/8/8/8/8/8 w - - 0 1")


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        # the black general on e7, out of its palace
        (
            "rnba1abnr/9/1c5c1/p1p1k1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "black king on e7 is outside",
        ),
        # a white advisor (fers) on e5, out of the palace
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/4A4/P1P1P1P1P/1C5C1/9/RNB1KABNR w - - 0 1",
            "white fers on e5 is outside",
        ),
        # a white elephant on c6, across the river
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/2B6/9/P1P1P1P1P/1C5C1/9/RN1AKABNR w - - 0 1",
            "white elephant on c6 is outside",
        ),
    ],
)
def test_a_confined_piece_outside_its_region_is_refused(fen: str, message: str) -> None:
    board = Board(variant="xiangqi")
    with pytest.raises(InvalidFenError, match=message):
        board.set_fen(fen)
    assert board.fen() == Board(variant="xiangqi").fen()  # unchanged
    # inside its region the same piece is fine: an elephant on c5, its own side of the river
    Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/2B6/P1P1P1P1P/1C5C1/9/RN1AKABNR w - - 0 1", "xiangqi")


def test_a_pocket_holds_no_more_of_a_piece_than_the_hash_counts() -> None:
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{}] w KQkq - 0 1"
    board = Board(start.format("P" * 63), "crazyhouse")
    assert board.fen() == start.format("P" * 63)
    with pytest.raises(InvalidFenError, match="more than 63 'n' in hand"):
        board.set_fen(start.format("n" * 64))
    assert board.fen() == start.format("P" * 63)  # unchanged
