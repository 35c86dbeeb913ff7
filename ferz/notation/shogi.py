"""Western (Hodges) notation of shogi moves, e.g. `P-7f`, `Bx2b+`, `S*4e`, `G6h-5h`.

Squares are a file number (from Sente's right: 1 to 9) and a rank letter (a at Gote's side).
A move is the piece (`+B` for a promoted bishop), `-` for a move or `x` for a capture, the
target square, then `+` when the piece promotes or `=` when it could promote and does not. A
drop is the piece, `*` and the square. When more than one piece of a kind can reach the
square, the origin square follows the piece (`G6h-5h`). Sente is ferz's White. Examples: the
Hodges notation of Fairy-Stockfish (its tests) and the Wikipedia article "Shogi notation".
"""

from __future__ import annotations

import re

from ..board import Board, IllegalMoveError, Move
from .coords import split, squares


def square(board: Board, name: str) -> str:
    """A ferz square name (`c3`) as a Hodges square (`7g` on 9x9)."""

    file, rank = split(name)
    return f"{board.files - file}{chr(ord('a') + board.ranks - 1 - rank)}"


def text(
    board: Board, move: Move, disambiguate: bool | None = None, legal: list[Move] | None = None
) -> str:
    """A legal move of `board` in Hodges notation (`disambiguate`: force or forbid the origin
    square; by default only when another piece of the kind can reach the target; `legal`: the
    board's legal moves, when the caller has them)."""

    legal = board.legal_moves if legal is None else legal
    origin, target = squares(board, move)
    uci = move.uci()
    if origin is None:
        return f"{uci.split('@')[0].upper()}*{square(board, target)}"
    piece = (board.piece_at(origin) or "").upper()
    sign = "x" if board.is_capture(move) else "-"
    promotes = uci.endswith("+")
    suffix = "+" if promotes else ""
    if not promotes and any(m.uci() == uci + "+" for m in legal):
        suffix = "="
    if disambiguate is None:
        disambiguate = any(
            other_origin != origin
            and other_target == target
            and (board.piece_at(other_origin) or "").upper() == piece
            for other_origin, other_target in (squares(board, m) for m in legal)
            if other_origin is not None
        )
    where = square(board, origin) if disambiguate else ""
    return f"{piece}{where}{sign}{square(board, target)}{suffix}"


_FORM = re.compile(r"(\+?[a-z])(\d+[a-z])?([-x*])(\d+[a-z])([+=]?)")


def parse(board: Board, text_: str) -> Move:
    """The legal move a Hodges text spells (the origin square may always be given);
    IllegalMoveError otherwise."""

    wanted = text_.strip().lower()  # letters cannot be confused: pieces and ranks differ
    form = _FORM.fullmatch(wanted)
    legal = board.legal_moves
    found: dict[str, Move] = {}
    if form is not None:
        target = form.group(4)
        for move in legal:  # only the moves to that square are written out and compared
            if square(board, squares(board, move)[1]) != target:
                continue
            spelled = (text(board, move, legal=legal), text(board, move, True, legal))
            if wanted in (spelled[0].lower(), spelled[1].lower()):
                found[move.uci()] = move
    if len(found) != 1:
        raise IllegalMoveError(f"no legal move reads {text_!r} in Hodges notation in {board.fen()}")
    return next(iter(found.values()))
