"""The compiled SAN matcher (ferz/core/san.py) under ferz.pgn's fast reader: a parsed token
matched against the position's moves, played, and packed with its SAN's facts; the codes for
no move, several moves and an illegal one; castling both ways (Chess960 too), e.p.,
promotions, checks and mates, a variant's own pieces and ranks past 9."""

from __future__ import annotations

import io

import pytest

from ferz import pgn
from ferz.board import Board


def reader(fen: str, variant: str = "chess", chess960: bool = False) -> pgn._FastLine:
    """A fast reader set up at a position."""
    line = pgn._FastLine(Board(variant=variant, chess960=chess960))
    line.start(fen)
    return line


NONE, AMBIGUOUS = -1, -2  # san.pxd's SAN_NONE, SAN_AMBIGUOUS (compiled, not module names)


def match(line: pgn._FastLine, token: str) -> int:
    """The matcher's packed result for a token at the reader's position (the move is taken
    back where one was played)."""
    parsed = line._parse(token)
    assert parsed is not None, token
    packed = line.matcher.play(line.pos, *parsed)
    if packed >= 0:
        line.pos.unmake()
    return packed


def errors(text: str) -> pgn.Game:
    """A game read from a handle (its errors recorded, not raised)."""
    game = pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def facts(packed: int) -> tuple[int, bool, int]:
    """(origin the SAN names: 0 none, 1 file, 2 rank, 3 both; capture; 0, 1 check, 2 mate)."""
    return packed >> 27 & 3, bool(packed >> 29 & 1), packed >> 30 & 3


def sans(fen: str, moves: str, variant: str = "chess") -> list[str]:
    """The SAN the reader writes for a game's moves from a position."""
    tags = f'[Variant "{variant}"]\n[FEN "{fen}"]\n' if variant != "chess" else f'[FEN "{fen}"]\n'
    game = pgn.read_game(f"{tags}\n{moves} *\n")
    assert not game.errors, game.errors
    return [node.san for node in game.mainline()]


def test_disambiguation_by_file_rank_or_both() -> None:
    # knights on b1 and f1 (files differ: the file), on c2 and c6 (the rank), on c2, c6 and
    # e2 to d4 (a file and a rank shared: both)
    line = reader("k7/8/8/8/8/8/8/KN3N2 w - - 0 1")
    assert facts(match(line, "Nbd2")) == (1, False, 0)
    line = reader("k7/8/2N5/8/8/8/2N5/K7 w - - 0 1")
    assert facts(match(line, "N2d4")) == (2, False, 0)
    assert facts(match(line, "Nc2d4")) == (2, False, 0)
    line = reader("k7/8/2N5/8/8/8/2N1N3/K7 w - - 0 1")
    assert facts(match(line, "Nc2d4")) == (3, False, 0)
    # a capture mark on a quiet move: only captures are looked at, the Board's parser reads it
    assert match(line, "Nc2xd4") == NONE
    assert sans("k7/8/2N5/8/8/8/2N1N3/K7 w - - 0 1", "1. Nc2xd4") == ["Nc2d4"]
    assert sans("k7/8/2N5/8/8/8/2N1N3/K7 w - - 0 1", "1. Nc2d4 Kb7 2. Ne2c3 Kb6") == [
        "Nc2d4",
        "Kb7",
        "Nc3",
        "Kb6",
    ]


def test_several_moves_and_no_move_are_told_apart() -> None:
    line = reader("k7/8/8/8/8/8/8/KN3N2 w - - 0 1")
    assert match(line, "Nd2") == AMBIGUOUS  # two knights: the hints must choose
    assert match(line, "Nd3") == NONE  # no knight goes there
    assert match(line, "Bd3") == NONE  # no bishop at all
    assert match(line, "Ncd2") == NONE  # no knight on the c-file
    assert match(line, "N3d2") == NONE
    assert line.pos.fen() == "k7/8/8/8/8/8/8/KN3N2 w - - 0 1"  # nothing was played
    game = errors('[FEN "k7/8/8/8/8/8/8/KN3N2 w - - 0 1"]\n\n1. Nd2 *\n')
    assert game.errors and "illegal move 'Nd2'" in game.errors[0]
    assert game.mainline_moves() == []


def test_a_pinned_piece_is_not_a_second_candidate() -> None:
    # the e2 knight is pinned by the rook on e8: Nc3 is the b1 knight's, with no hint
    fen = "k3r3/8/8/8/8/8/4N3/1N2K3 w - - 0 1"
    assert facts(match(reader(fen), "Nc3")) == (0, False, 0)
    assert facts(match(reader(fen), "Nbc3")) == (0, False, 0)
    assert sans(fen, "1. Nbc3") == ["Nc3"]
    assert match(reader(fen), "Nec3") == NONE


def test_an_illegal_move_plays_nothing() -> None:
    fen = "k3r3/8/8/8/8/8/4N3/4K3 w - - 0 1"
    line = reader(fen)
    assert match(line, "Nc3") == NONE  # the only knight is pinned
    assert match(line, "Ke2") == NONE  # onto its own piece
    assert match(line, "Kd1") >= 0
    assert line.pos.fen() == fen
    game = errors(f'[FEN "{fen}"]\n\n1. Nc3 *\n')
    assert game.errors and "illegal move 'Nc3'" in game.errors[0]


def test_promotions_need_their_letter() -> None:
    line = reader("1r5k/2P5/8/8/8/8/8/K7 w - - 0 1")
    for token, capture in [("c8=Q", False), ("c8=N", False), ("cxb8=R", True), ("cxb8Q", True)]:
        packed = match(line, token)
        assert packed >= 0 and facts(packed)[1] == capture, token
    assert match(line, "c8") == NONE  # a promotion without its piece
    assert match(line, "c8=K") == NONE
    assert match(line, "cxb8") == NONE
    assert sans("1r5k/2P5/8/8/8/8/8/K7 w - - 0 1", "1. cxb8=Q+") == ["cxb8=Q+"]
    assert sans("1r5k/2P5/8/8/8/8/8/K7 w - - 0 1", "1. c8=R") == ["c8=R+"]


def test_castling_both_ways() -> None:
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    assert pgn.read_game(f'[FEN "{fen}"]\n\n1. O-O O-O-O *\n').mainline_moves() == [
        "e1g1",
        "e8c8",
    ]
    assert sans(fen, "1. O-O-O O-O") == ["O-O-O", "O-O"]
    assert sans(fen, "1. 0-0-0 0-0") == ["O-O-O", "O-O"]
    line = reader(fen.replace(" KQkq ", " - "))
    assert match(line, "O-O") == NONE and match(line, "O-O-O") == NONE
    # through an attacked square: no castling
    line = reader("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1")
    assert match(line, "O-O") == NONE and match(line, "O-O-O") >= 0
    # castling with check, and mate
    assert sans("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "1. O-O+") == ["O-O+"]


def test_chess960_castling_both_ways() -> None:
    # the king on c1 between rooks on b1 and h1: O-O takes it to g1, O-O-O leaves it on c1
    fen = "1rk4r/8/8/8/8/8/8/1RK4R w KQkq - 0 1"
    game = pgn.read_game(f'[Variant "Chess960"]\n[FEN "{fen}"]\n\n1. O-O O-O-O *\n')
    assert not game.errors, game.errors
    assert game.mainline_moves() == ["c1h1", "c8b8"]  # UCI: the king takes its rook
    assert [n.san for n in game.mainline()] == ["O-O", "O-O-O"]
    line = reader(fen, chess960=True)
    kingside, queenside = match(line, "O-O"), match(line, "O-O-O")
    assert kingside >= 0 and queenside >= 0 and kingside != queenside
    # black's O-O would pass f8, which the rook on f1 attacks
    game = errors(f'[Variant "Chess960"]\n[FEN "{fen}"]\n\n1. O-O O-O *\n')
    assert game.errors and "illegal move 'O-O'" in game.errors[0]
    assert game.mainline_moves() == ["c1h1"]


def test_en_passant() -> None:
    fen = "k7/8/8/3Pp3/8/8/8/K7 w - e6 0 1"
    line = reader(fen)
    packed = match(line, "dxe6")
    assert packed >= 0 and facts(packed) == (0, True, 0)  # a capture onto an empty square
    assert sans(fen, "1. dxe6") == ["dxe6"]
    assert pgn.read_game(f'[FEN "{fen}"]\n\n1. dxe6 *\n').mainline_moves() == ["d5e6"]
    assert match(reader(fen.replace(" e6 ", " - ")), "dxe6") == NONE


def test_check_and_mate_marks() -> None:
    fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
    line = reader(fen)
    assert facts(match(line, "Ra8"))[2] == 2
    assert facts(match(line, "Ra7"))[2] == 0
    assert sans(fen, "1. Ra8") == ["Ra8#"]
    assert sans("6k1/6pp/8/8/8/8/8/R5K1 w - - 0 1", "1. Ra8+") == ["Ra8+"]


def test_the_packed_move_is_the_cores() -> None:
    board = Board()
    line = reader(board.fen())
    packed = match(line, "Nf3")
    (move,) = [m for m in board.legal_moves if m.text == "g1f3"]
    assert packed & 0x7FFFFFF == move.code
    assert packed >> 32 == board.position.board[move.code & 511] >> 1


def test_a_variants_pieces_and_ranks_past_nine() -> None:
    # capablanca: the archbishop (A) and the chancellor (C), promotions to either
    fen = "k9/4P5/10/10/10/10/10/A3K4C w - - 0 1"
    assert sans(fen, "1. e8=A Kb7 2. Cj8", "capablanca") == ["e8=A", "Kb7", "Cj8"]
    assert sans(fen, "1. e8C", "capablanca") == ["e8=C+"]
    assert sans(fen, "1. Ah8 Kb7 2. Cj8", "capablanca") == ["Ah8", "Kb7", "Cj8"]
    # grand: ten ranks; rooks on a1 and a10 name their rank, '10' in two digits
    fen = "R9/10/10/10/10/4k5/10/10/10/R4K4 w - - 0 1"
    line = reader(fen, "grand")
    assert facts(match(line, "R10a5")) == (2, False, 1)
    assert facts(match(line, "R1a2")) == (2, False, 0)
    assert match(line, "Ra5") == AMBIGUOUS
    assert sans(fen, "1. Ra10a5+ Kd6 2. R1a2", "grand") == ["R10a5+", "Kd6", "R1a2"]
    game = pgn.read_game('[Variant "Grand"]\n\n1. e5 e6 2. Nc4 *\n')
    assert not game.errors, game.errors
    assert game.mainline_moves() == ["e3e5", "e8e6", "b2c4"]


@pytest.mark.parametrize("token", ["Ng1f3", "g1f3", "Ng1-f3", "Nf3!", "Nf3+"])
def test_other_spellings_reach_the_same_move(token: str) -> None:
    game = pgn.read_game(f"1. {token} *\n")
    assert not game.errors, (token, game.errors)
    assert game.mainline_moves() == ["g1f3"]
    assert [n.san for n in game.mainline()] == ["Nf3"]
