"""A picture of a position as SVG, for any board shape and piece set (Jupyter shows it through
`Board._repr_svg_`).

Every piece is drawn as its FEN letter in a disc of its colour (a promoted shogi piece as
`+P`), so that any variant defined as data gets a readable picture without artwork of its own
and without depending on the fonts' chess figures (which renderers draw inconsistently).
"""

from __future__ import annotations

import re
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import Board

SQUARE = 45  # px per square
MARGIN = 20  # px for the coordinates
LIGHT, DARK, HIGHLIGHT = "#f0d9b5", "#b58863", "#cdd26a"


def board_svg(board: Board, flipped: bool = False, lastmove: str | None = None) -> str:
    """The board as a standalone SVG document; `lastmove` (UCI) highlights its two squares."""
    rules = board.rules
    files, ranks = rules.files, rules.ranks
    width, height = files * SQUARE + 2 * MARGIN, ranks * SQUARE + 2 * MARGIN
    marked = _squares_of(lastmove) if lastmove else set()
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="DejaVu Sans, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="#302e2b"/>',
    ]
    for rank in range(ranks):
        for file in range(files):
            x, y = _corner(file, rank, files, ranks, flipped)
            name = rules.square_name(rules.square(file, rank))
            fill = HIGHLIGHT if name in marked else (LIGHT if (file + rank) % 2 else DARK)
            out.append(f'<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>')
    for name, letter in board.pieces().items():
        sq = rules.parse_square(name)
        x, y = _corner(rules.file_of(sq), rules.rank_of(sq), files, ranks, flipped)
        out.append(_piece(letter, x, y))
    out.extend(_coordinates(rules, files, ranks, flipped))
    out.append("</svg>")
    return "\n".join(out)


def _corner(file: int, rank: int, files: int, ranks: int, flipped: bool) -> tuple[int, int]:
    """Top-left pixel of a square (White at the bottom unless flipped)."""
    col = files - 1 - file if flipped else file
    row = rank if flipped else ranks - 1 - rank
    return MARGIN + col * SQUARE, MARGIN + row * SQUARE


def _squares_of(move: str) -> set[str]:
    """The square names in a UCI move (`e2e4`, `a9a10`, `P@e5`, `e7e8q`)."""
    return set(re.findall(r"[a-p](?:1[0-6]|[1-9])", move))


def _piece(letter: str, x: int, y: int) -> str:
    """One piece: its letter (upper case) in a disc of its colour."""
    white = letter.lstrip("+").isupper()
    cx, cy = x + SQUARE // 2, y + SQUARE // 2
    fill, ink = ("#fafafa", "#1a1a1a") if white else ("#1a1a1a", "#fafafa")
    text = escape(letter.upper())
    size = 18 if len(text) > 1 else 24
    return (
        f'<circle cx="{cx}" cy="{cy}" r="{SQUARE * 0.42:.1f}" fill="{fill}" stroke="#555"/>'
        f'<text x="{cx}" y="{cy + size // 3}" font-size="{size}" text-anchor="middle" '
        f'font-weight="bold" fill="{ink}">{text}</text>'
    )


def _coordinates(rules, files: int, ranks: int, flipped: bool) -> list[str]:
    """File letters under the board and rank numbers beside it, as the variant names them."""
    out = []
    for file in range(files):
        x, _ = _corner(file, 0, files, ranks, flipped)
        label = rules.square_name(rules.square(file, 0)).rstrip("0123456789")
        out.append(
            f'<text x="{x + SQUARE // 2}" y="{ranks * SQUARE + MARGIN + 15}" font-size="12" '
            f'text-anchor="middle" fill="#ddd">{label}</text>'
        )
    for rank in range(ranks):
        _, y = _corner(0, rank, files, ranks, flipped)
        label = rules.square_name(rules.square(0, rank))[1:]
        out.append(
            f'<text x="{MARGIN // 2}" y="{y + SQUARE // 2 + 4}" font-size="12" '
            f'text-anchor="middle" fill="#ddd">{label}</text>'
        )
    return out
