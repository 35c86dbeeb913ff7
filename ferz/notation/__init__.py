"""Move notation as each game's players write it: WXF for xiangqi, Western (Hodges) for shogi,
SAN for everything else.

    from ferz import notation
    notation.style(board.rules)          # "wxf", "hodges" or "san"
    notation.move_text(board, move)      # "C2=5", "P-7f", "Nf3"
    notation.parse(board, "H2+3")        # the legal Move it spells (IllegalMoveError if none)

The family of a variant is read from its pieces: a flying general, soldiers or horses make a
xiangqi game (WXF when every piece is one of xiangqi's own); shogi pawns or `+` promotions make
a shogi game. PGN keeps the native notation
in the movetext and names it in a `Notation` tag (see ferz.pgn).
"""

from __future__ import annotations

from ..board import Board, IllegalMoveError, Move
from ..core.rules import Rules
from . import shogi, wxf

STYLES = ("san", "wxf", "hodges")
#: the value of the PGN `Notation` tag for each native style
TAG_NAMES = {"wxf": "WXF", "hodges": "Hodges"}


def family(rules: Rules) -> str:
    """The board family of a variant: "xiangqi", "shogi" or "chess"."""
    names = {p.name for p in rules.pieces}
    if rules.flying_general or names & {"soldier", "horse"}:
        return "xiangqi"
    if "shogiPawn" in names or any((p.promoted or "").startswith("+") for p in rules.pieces):
        return "shogi"
    return "chess"


def style(rules: Rules) -> str:
    """The notation its players use for a variant: "wxf", "hodges" or "san".

    WXF only names xiangqi's own pieces: Manchu's banner moves both along lines and as a
    horse, so `M7+6` could be either; such a variant keeps SAN (as pychess-variants does).
    """
    kind = family(rules)
    if kind == "xiangqi" and all(p.name in wxf.LETTERS for p in rules.pieces):
        return "wxf"
    if kind == "shogi":
        return "hodges"
    return "san"


def board_style(board: Board) -> str:
    """The notation of a board's variant ("san" for a board without ferz rules, such as a
    python-chess board)."""
    rules = getattr(board, "rules", None)
    return style(rules) if isinstance(rules, Rules) else "san"


def move_text(board: Board, move: Move, notation: str | None = None) -> str:
    """A legal move of `board` in `notation` (by default the variant's own style)."""
    notation = notation or board_style(board)
    if notation == "wxf":
        return wxf.text(board, move)
    if notation == "hodges":
        return shogi.text(board, move)
    return board.san(move)


def line_text(board: Board, moves: list[Move], notation: str | None = None) -> list[str]:
    """Each move of a line played from `board` in `notation`; the board is left as it was."""
    out: list[str] = []
    played = 0
    try:
        for move in moves:
            out.append(move_text(board, move, notation))
            board.push(move)
            played += 1
    finally:
        for _ in range(played):
            board.pop()
    return out


def parse(board: Board, text: str, notation: str | None = None) -> Move:
    """The legal move `text` spells in `notation` (by default the variant's own style);
    IllegalMoveError when no legal move or more than one reads so."""
    notation = notation or board_style(board)
    if notation == "wxf":
        return wxf.parse(board, text)
    if notation == "hodges":
        return shogi.parse(board, text)
    return board.parse_san(text)


__all__ = [
    "STYLES",
    "TAG_NAMES",
    "IllegalMoveError",
    "board_style",
    "family",
    "line_text",
    "move_text",
    "parse",
    "style",
]
