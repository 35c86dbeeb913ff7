"""The board as text, for the terminal and the protocols' `d` command: files and ranks labelled,
the last move's squares marked, Unicode figures or ASCII letters, pieces in hand below."""

from __future__ import annotations

import re
from typing import Any

GLYPHS = dict(zip("KQRBNPkqrbnp", "♔♕♖♗♘♙♚♛♜♝♞♟", strict=True))
EMPTY = "·"
SQUARE = re.compile(r"([a-z])(\d+)")


def _symbol(piece: Any) -> str:
    """A piece's letter (upper case for White)."""
    symbol = getattr(piece, "symbol", None)
    return str(symbol() if callable(symbol) else piece)


def _squares(move: str | None) -> set[str]:
    """The squares a UCI move touches (for highlighting)."""
    return {f + r for f, r in SQUARE.findall(move or "")}


def render(board: Any, last: str | None = None, flip: bool = False, ascii: bool = False) -> str:
    """The board as text: ranks and files labelled, the last move's squares in brackets."""
    files, ranks = int(getattr(board, "files", 8)), int(getattr(board, "ranks", 8))
    marked = _squares(last)
    file_order = range(files - 1, -1, -1) if flip else range(files)
    rank_order = range(ranks) if flip else range(ranks - 1, -1, -1)
    width = len(str(ranks))
    letters = " ".join(f" {chr(97 + f)}" for f in file_order)
    lines = [" " * (width + 1) + letters]
    for r in rank_order:
        cells = []
        for f in file_order:
            name = f"{chr(97 + f)}{r + 1}"
            piece = board.piece_at(name)
            text = ("." if ascii else EMPTY) if piece is None else _symbol(piece)
            if not ascii:
                text = GLYPHS.get(text, text)
            if name in marked:
                cells.append(f"[{text}]")
            else:
                cells.append(f" {text} ")
        label = str(r + 1).rjust(width)
        lines.append(f"{label} {''.join(cells)} {label}")
    lines.append(lines[0])
    hand = _hand(board, ascii)
    if hand:
        lines.append(hand)
    return "\n".join(lines)


def _hand(board: Any, ascii: bool) -> str:
    """The pieces in hand (drop variants), e.g. `In hand: ♙♙♘ | ♟`; empty when none."""
    pockets = getattr(board, "pockets", None)
    counts = pockets() if callable(pockets) else {}
    if not counts:
        return ""

    def side(white: bool) -> str:
        letters = [k for k in counts if k.isupper() == white]
        text = "".join((k if ascii else GLYPHS.get(k, k)) * counts[k] for k in sorted(letters))
        return text or "-"

    return f"In hand: White {side(True)} | Black {side(False)}"


def white_to_move(board: Any) -> bool:
    """Whether White is to move (`turn` is True for White, as in python-chess)."""
    turn = board.turn
    if isinstance(turn, bool):
        return turn
    if isinstance(turn, int):
        return turn == 0  # a colour number: 0 is White
    return str(turn).lower() in ("w", "white")
