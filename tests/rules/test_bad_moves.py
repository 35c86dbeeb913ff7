"""Illegal and garbled moves are refused with ValueError and change nothing (with a fuzzer)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ferz.board import AmbiguousMoveError, Board, IllegalMoveError, InvalidFenError

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize(
    "text",
    ["", "e2", "e2e5", "e7e5", "z9z9", "e2e4q", "e1g1x", "P@e4", "a1a1", "0000", "e2e4 e7e5"],
)
def test_bad_uci_refused(text: str) -> None:
    board = Board()
    with pytest.raises(IllegalMoveError):
        board.push_uci(text)
    assert board.fen() == Board().fen() and not board.move_stack


@pytest.mark.parametrize("text", ["", "Ke2", "Nf4", "e5", "exd5", "O-O", "Qh5#", "Z", "e8=Q", "N"])
def test_bad_san_refused(text: str) -> None:
    board = Board()
    with pytest.raises(IllegalMoveError):
        board.push_san(text)
    assert board.fen() == Board().fen()


def test_ambiguous_san() -> None:
    board = Board("4k3/8/8/8/8/8/8/2N1K1N1 w - - 0 1")
    with pytest.raises(AmbiguousMoveError):
        board.parse_san("Ne2")
    assert board.parse_san("Nge2").uci() == "g1e2"
    assert board.parse_san("Nce2?!").uci() == "c1e2"


def test_san_forms() -> None:
    board = Board(KIWIPETE)
    assert board.push_san("O-O").uci() == "e1g1"
    board = Board(KIWIPETE)
    assert board.push_san("0-0-0").uci() == "e1c1"
    board = Board("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    assert board.parse_san("b8=N").uci() == "b7b8n"
    assert board.parse_san("b8Q").uci() == "b7b8q"
    assert board.san(board.parse_uci("b7b8q")) == "b8=Q+"


def test_castling_spellings() -> None:
    board = Board(KIWIPETE)
    assert board.parse_uci("e1h1") == board.parse_uci("e1g1")
    board960 = Board(KIWIPETE, chess960=True)
    assert board960.parse_uci("e1h1").uci() == "e1h1"


def test_move_from_other_board_refused() -> None:
    board = Board()
    move = Board(KIWIPETE).parse_uci("e1g1")
    with pytest.raises(IllegalMoveError):
        board.push(move)
    with pytest.raises(IllegalMoveError):
        board.push("e2e4")  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_fuzz_moves(text: str) -> None:
    board = Board(KIWIPETE)
    before = (board.fen(), board.position.key)
    for parse in (board.push_uci, board.push_san):
        try:
            parse(text)
        except IllegalMoveError:
            assert (board.fen(), board.position.key) == before
        else:
            board.pop()
            assert (board.fen(), board.position.key) == before


FEN_ALPHABET = st.sampled_from(list("rnbqkpRNBQKP12345678/ -wbKQkqacdeh0123456789+[]~@"))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=80), st.lists(FEN_ALPHABET, max_size=90).map("".join)))
def test_fuzz_fen(text: str) -> None:
    board = Board()
    board.push_uci("d2d4")
    before = (board.fen(), board.position.key, len(board.move_stack))
    try:
        board.set_fen(text)
    except InvalidFenError:
        assert (board.fen(), board.position.key, len(board.move_stack)) == before
    else:
        assert Board(board.fen()).fen() == board.fen()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 7), st.integers(0, 7), st.integers(0, 7), st.integers(0, 7))
def test_fuzz_valid_shaped_fens(a: int, b: int, c: int, d: int) -> None:
    """Kings and a rook anywhere: accepted positions round-trip, rejected ones say why."""
    squares = {(a, b): "K", (c, d): "k", ((a + c) % 8, (b * d) % 8): "R"}
    if len(squares) < 3:
        return
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            piece = squares.get((file, rank))
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    fen = "/".join(rows) + " w - - 0 1"
    try:
        board = Board(fen)
    except InvalidFenError as error:
        assert "kings" in str(error) or "check" in str(error)
    else:
        assert Board(board.fen()).position.key == board.position.key
