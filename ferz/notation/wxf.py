"""WXF notation of xiangqi moves (World Xiangqi Federation), e.g. `C2=5`, `H8+7`, `R1+1`.

A move is written as the piece letter (K A E H R C P), the file it stands on, the direction
(`+` forward, `-` backward, `=` along the rank) and then, for a move along the file, the number
of ranks, else the file it goes to. Files are numbered 1 to 9 from each player's right. Two
pieces of a kind on one file are told apart by `+` (the front one) and `-` (the rear one) in
place of the file (`H++7`, `P-+1`). Pawns three or more to a file, or two to a file on two
files, are numbered from the front (1, 2, 3...) and written without the letter, the number
followed by the file (`15=6`, `26=5`). Advisors and elephants keep their file: the direction
already tells which one moves. Check is not marked. The conventions and worked examples are
those of Fairy-Stockfish's WXF output (its tests), which pychess-variants shows its players.
"""

from __future__ import annotations

from ..board import Board, IllegalMoveError, Move
from .coords import split, squares

#: WXF letters by the ferz name of the piece
LETTERS = {
    "king": "K",
    "fers": "A",
    "elephant": "E",
    "horse": "H",
    "rook": "R",
    "cannon": "C",
    "soldier": "P",
}


def _letter(board: Board, piece: str) -> str:
    """The WXF letter of a FEN piece letter (a piece WXF does not name keeps its FEN letter)."""
    name = board.rules.pieces[board.rules.piece_index(piece.upper()) - 1].name
    return LETTERS.get(name, piece.upper().lstrip("+"))


def text(board: Board, move: Move, placed: dict[str, str] | None = None) -> str:
    """A legal move of `board` in WXF notation (`placed`: board.pieces(), when the caller has
    it)."""

    origin, target = squares(board, move)
    if origin is None:  # no xiangqi variant drops; say it plainly rather than guess
        return board.san(move)
    piece = board.piece_at(origin) or ""
    red = piece.isupper()
    files = board.files
    (f0, r0), (f1, r1) = split(origin), split(target)

    def number(file: int) -> int:
        """A file's number from the mover's right."""
        return files - file if red else file + 1

    ahead = (r1 > r0) == red
    if r0 == r1:
        tail = f"={number(f1)}"
    elif f0 == f1:
        tail = f"{'+' if ahead else '-'}{abs(r1 - r0)}"
    else:
        tail = f"{'+' if ahead else '-'}{number(f1)}"
    letter = _letter(board, piece)
    placed = board.pieces() if placed is None else placed
    same = [sq for sq, p in placed.items() if p == piece]
    on_file = sorted(
        (split(sq)[1] for sq in same if split(sq)[0] == f0), reverse=red
    )  # front first
    if len(on_file) < 2 or letter in ("A", "E"):
        return f"{letter}{number(f0)}{tail}"
    index = on_file.index(r0)
    if letter == "P":
        crowded = [
            f for f in {split(sq)[0] for sq in same} if sum(split(sq)[0] == f for sq in same) >= 2
        ]
        if len(on_file) >= 3 or len(crowded) >= 2:
            return f"{index + 1}{number(f0)}{tail}"
    if len(on_file) == 2:
        return f"{letter}{'+-'[index]}{tail}"
    return f"{index + 1}{number(f0)}{tail}"  # three of a kind on a file: numbered like pawns


def normal(text_: str) -> str:
    """WXF text as written here: upper-case letters, `.` for a sideways move read as `=`."""
    return text_.strip().upper().replace(".", "=")


def parse(board: Board, text_: str) -> Move:
    """The legal move a WXF text spells; IllegalMoveError otherwise."""
    wanted = normal(text_)
    placed = board.pieces()
    found = [move for move in board.legal_moves if text(board, move, placed) == wanted]
    if len(found) != 1:
        raise IllegalMoveError(f"no legal move reads {text_!r} in WXF in {board.fen()}")
    return found[0]
