"""Board.attackers, is_attacked_by, pin, is_pinned and transform in variants: fairy pieces (the
cannon, the lame horse, the flying general), drops and boards other than 8x8. Chess and
Chess960 are checked against python-chess in tests/rules/test_board_api.py."""

from __future__ import annotations

import random

import pytest

from ferz.board import Board, InvalidFenError
from ferz.core.defs import DROP, EP, move_from, move_kind, move_to

pytestmark = pytest.mark.variant

# Variants whose every capture is an attack and every attack a capture: the move generator's
# captures are a second oracle for the attack probes.
VARIANTS = ["chess", "xiangqi", "shogi", "capablanca", "grand", "makruk", "crazyhouse", "gardner"]
# Atomic is not among these: a capture elsewhere may explode the pinner, so a pinned piece may
# leave its line there.
PIN_VARIANTS = [*VARIANTS, "minixiangqi", "manchu", "shako", "knightmate", "sittuyin"]


def _walk(name: str, seed: int, positions: int):
    """Boards along seeded random games of a variant."""
    rng = random.Random(seed)
    made = 0
    while made < positions:
        board = Board(variant=name)
        for _ in range(rng.randrange(4, 60)):
            moves = board.legal_moves
            if not moves or made >= positions:
                break
            yield board
            made += 1
            board.push(rng.choice(moves))


def _colours() -> tuple[bool, bool]:
    """White and Black, as Board's methods name them."""
    return True, False


@pytest.mark.parametrize("name", VARIANTS)
def test_attackers_are_the_pieces_that_can_capture(name: str) -> None:
    """On every square holding an enemy piece, the squares that attack it are the squares of
    the pseudo-legal captures onto it (the move generator, not the probes; out of check: in
    check it lists only the moves that may parry it); is_attacked_by agrees with attackers on
    every square."""
    for board in _walk(name, 3, 60):
        pos = board.position
        us = board.turn
        if not board.is_check():
            captures: dict[str, set[str]] = {}
            for code in pos.pseudo_moves():
                if move_kind(code) in (DROP, EP):
                    continue
                target = pos.board[move_to(code)]
                if target >= 2 and (target & 1) != pos.side:
                    to = board.rules.square_name(move_to(code))
                    captures.setdefault(to, set()).add(board.rules.square_name(move_from(code)))
            for square, letter in board.pieces().items():
                if letter.isupper() != us:
                    assert board.attackers(us, square) == captures.get(square, set()), (
                        board.fen(),
                        square,
                    )
        for square in board.squares():
            for color in _colours():
                found = board.attackers(color, square)
                assert board.is_attacked_by(color, square) == bool(found), (board.fen(), square)


@pytest.mark.parametrize("name", PIN_VARIANTS)
def test_a_pinned_piece_moves_only_along_its_pin(name: str) -> None:
    """Every legal move of a pinned piece of the side to move ends inside its pin mask, and a
    piece that may leave its line legally is not pinned (pin() is exact, not a guess)."""
    for board in _walk(name, 5, 60):
        if board.is_check():
            continue
        for square, letter in board.pieces().items():
            if letter.isupper() != board.turn:
                continue
            mask = board.pin(board.turn, square)
            assert board.is_pinned(board.turn, square) == (mask != board.squares())
            for move in _from(board, square):
                assert board.rules.square_name(move_to(move.code)) in mask, (board.fen(), move)


XIANGQI_CANNON = "3k5/9/4c4/9/9/9/4R4/4N4/9/4K4 w - - 0 1"


def test_xiangqi_cannon_pins_both_pieces_between() -> None:
    """A cannon with two pieces between it and the general pins each of them along the file;
    an empty square there is not pinned (a third piece would not let the cannon through)."""
    board = Board(XIANGQI_CANNON, variant="xiangqi")
    file_e = frozenset(f"e{r}" for r in range(1, 11))
    assert board.pin(True, "e4") == file_e and board.pin(True, "e3") == file_e
    assert not board.is_pinned(True, "e5") and not board.is_pinned(True, "e2")
    assert board.attackers(False, "e3") == {"e8"}  # over the chariot on e4
    assert board.attackers(False, "e4") == frozenset() and not board.is_attacked_by(False, "e1")
    assert all(board.rules.square_name(move_to(m.code)).startswith("e") for m in _from(board, "e4"))


def test_xiangqi_screen_alone_is_not_pinned() -> None:
    """With one piece between cannon and general the general is in check; the screen is not
    pinned (taking it away takes the check away)."""
    board = Board("3k5/9/4c4/9/9/9/9/4N4/9/4K4 w - - 0 1", variant="xiangqi")
    assert board.is_check() and board.attackers(False, "e1") == {"e8"}
    assert not board.is_pinned(True, "e3")


def test_xiangqi_horse_leg_is_pinned() -> None:
    """A chariot on the leg of a horse that would check the general is pinned: its squares are
    the general, the leg and the horse (not a line), and it may only take the horse."""
    board = Board("3k5/9/9/9/9/9/9/5n3/5R3/4K4 w - - 0 1", variant="xiangqi")
    assert not board.is_check()
    assert board.pin(True, "f2") == {"e1", "f2", "f3"}
    assert [m.text for m in _from(board, "f2")] == ["f2f3"]
    board.set_fen("3k5/9/9/9/9/9/9/5n3/9/4K4 w - - 0 1")
    assert board.attackers(False, "e1") == {"f3"} and board.is_check()


def test_xiangqi_flying_general_pins_along_the_file() -> None:
    """A piece alone between the two generals is pinned along their file by the enemy general
    (moving it away would leave the generals facing)."""
    board = Board("4k4/9/9/9/4N4/9/9/9/9/4K4 w - - 0 1", variant="xiangqi")
    assert board.pin(True, "e6") == frozenset(f"e{r}" for r in range(1, 11))
    assert board.is_pinned(False, "e6")  # the same piece shields the black general too
    assert {m.text[2:] for m in _from(board, "e6")} <= {f"e{r}" for r in range(1, 11)}


def test_shogi_drops_attack_nothing_and_pins_on_9x9() -> None:
    """Pieces in hand attack nothing; a lance pins along its file on a 9x9 board."""
    board = Board("4k4/9/9/9/9/4l4/9/4G4/4K4[Pp] w - - 0 1", variant="shogi")
    assert board.attackers(False, "e1") == frozenset()  # the gold on e2 shields the king
    assert board.attackers(False, "e2") == {"e4"}
    assert board.pin(True, "e2") == frozenset(f"e{r}" for r in range(1, 10))
    assert board.attackers(True, "e3") == {"e2"}  # the gold steps forward
    assert not board.is_attacked_by(True, "e6")  # the pawn in hand could be dropped on e5
    assert len(board.squares()) == 81


def test_bad_arguments_are_refused() -> None:
    """A colour that is not a bool, a square not on the board: ValueError, nothing changed."""
    board = Board()
    for call in (board.attackers, board.is_attacked_by, board.pin, board.is_pinned):
        with pytest.raises(ValueError):
            call(1, "e4")
        with pytest.raises(ValueError):
            call(True, "i9")
        with pytest.raises(ValueError):
            call(True, 28)
    assert board.fen() == Board().fen()


def test_transform_applies_where_the_board_allows() -> None:
    """Flips and shifts on any board shape; the diagonal flips only on a square board; a
    result that is no position of the variant raises InvalidFenError."""
    xiangqi = Board(variant="xiangqi")
    flipped = xiangqi.transform("flip_horizontal")
    assert flipped.fen() == xiangqi.fen()  # the start position is symmetric
    with pytest.raises(ValueError, match="square board"):
        xiangqi.transform("flip_diagonal")
    with pytest.raises(InvalidFenError, match="cannot stand on"):
        xiangqi.transform("flip_vertical")  # elephants cross the river, generals leave palaces
    with pytest.raises(InvalidFenError, match="0 kings"):
        Board().transform("shift_down")  # White's king falls off the board
    with pytest.raises(InvalidFenError, match="pawn on a1"):
        Board("4k3/8/8/8/8/8/P3K3/8 w - - 0 1").transform("shift_down")
    shogi = Board("4k4/9/9/9/9/9/9/9/4K4[Pp] w - - 0 1", variant="shogi")
    assert shogi.transform("flip_diagonal").pieces() == {"a5": "K", "i5": "k"}
    assert shogi.transform("flip_diagonal").pockets() == shogi.pockets()
    grand = Board(variant="grand")  # 10x10: the a-file's pieces fall off
    expected = {chr(ord(sq[0]) - 1) + sq[1:]: p for sq, p in grand.pieces().items() if sq[0] > "a"}
    assert grand.transform("shift_left").pieces() == expected
    with pytest.raises(ValueError, match="unknown transformation"):
        Board().transform("rotate")
    board = Board()
    board.push_san("e4")
    mirrored = board.transform("flip_horizontal")
    assert mirrored.fen() == "rnbkqbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBKQBNR b - - 0 1"
    assert board.move_stack and not mirrored.move_stack
    board = Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    assert board.transform("flip_horizontal").fen().split()[2:4] == ["-", "c6"]
    assert board.transform("flip_vertical").fen().split()[2:4] == ["-", "-"]
    board = Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    assert board.transform("flip_horizontal").fen().split()[2] == "KQkq"  # king d1, rooks a1 h1
    assert Board(board.fen()).transform("flip_horizontal").fen().split()[2] == "-"


def _from(board: Board, square: str):
    """The legal moves of the piece on a square."""
    return [
        m
        for m in board.legal_moves
        if move_kind(m.code) != DROP and board.rules.square_name(move_from(m.code)) == square
    ]
