"""FEN text for test positions built square by square."""

from __future__ import annotations


def placement(grid: list[list[str]]) -> str:
    """The FEN board field of grid[rank][file] (rank 0 first, "" for an empty square)."""
    rows = []
    for cells in reversed(grid):
        row, empty = "", 0
        for cell in cells:
            if cell:
                row += (str(empty) if empty else "") + cell
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)
