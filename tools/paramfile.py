"""Read and rewrite the tuned block of ferz/params.py (between its BEGIN/END TUNED markers).

The tuner (tools/tune.py) fits KNOWN_VALUES, TERMS, KING_DANGER and PST; this module writes them
back as readable Python source, so that a tuning run ends in an ordinary diff of params.py.
"""

from __future__ import annotations

import re
from pathlib import Path

PARAMS = Path(__file__).resolve().parent.parent / "ferz" / "params.py"
BEGIN = "# BEGIN TUNED"
END = "# END TUNED"
BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)


def _pairs(pairs: list[tuple[int, int]], indent: str, per_line: int) -> str:
    """A list of (mg, eg) pairs, `per_line` to a line."""
    lines = []
    for i in range(0, len(pairs), per_line):
        chunk = ", ".join(f"({mg}, {eg})" for mg, eg in pairs[i : i + per_line])
        lines.append(f"{indent}    {chunk},")
    return "[\n" + "\n".join(lines) + f"\n{indent}]"


def _squares(values: list[int], indent: str) -> str:
    """64 square values, one rank (a..h) to a line, rank 1 first."""
    lines = [
        f"{indent}    " + ", ".join(f"{v:4d}" for v in values[r * 8 : r * 8 + 8]) + ","
        for r in range(8)
    ]
    return "[\n" + "\n".join(lines) + f"\n{indent}]"


# The comments written above each dictionary of the block.
TERMS_HEADER = [
    "# Evaluation terms, (middlegame, endgame) in centipawns per unit of the term; tables are",
    "# indexed by a count (mobility: squares reached) or a rank (0 = own first rank, scaled to",
    "# 8 ranks on other boards).",
]
DANGER_HEADER = [
    "# King danger: a sum of these weights times their counts; the middlegame penalty is",
    "# danger^2 / 4096 and the endgame penalty danger * danger_eg / 256 (danger > 0 only).",
]
PST_HEADER = [
    "# Square tables of chess-like movements on 8 x 8 boards (other boards derive theirs from",
    "# mobility): centipawns added to the piece value, a1..h1 first, from White's side.",
]


def format_block(
    values: dict[str, tuple[int, int]],
    terms: dict[str, object],
    danger: dict[str, int],
    pst: dict[str, dict[str, list[int]]],
) -> str:
    """Python source of the tuned block."""
    out = [BEGIN + " (tools/tune.py rewrites everything down to END TUNED)"]
    out.append("# Piece values of chess-like movements, found by movement, never by variant name.")
    out.append("KNOWN_VALUES: dict[str, tuple[int, int]] = {")
    out += [f'    "{name}": ({mg}, {eg}),' for name, (mg, eg) in values.items()]
    out.append("}")
    out.append("")
    out += TERMS_HEADER
    out.append("TERMS: dict[str, tuple[int, int] | list[tuple[int, int]]] = {")
    for name, value in terms.items():
        if isinstance(value, list):
            per_line = 7 if len(value) > 8 else 8
            out.append(f'    "{name}": {_pairs(value, "    ", per_line)},')
        else:
            mg, eg = value
            out.append(f'    "{name}": ({mg}, {eg}),')
    out.append("}")
    out.append("")
    out += DANGER_HEADER
    out.append("KING_DANGER: dict[str, int] = {")
    out += [f'    "{name}": {v},' for name, v in danger.items()]
    out.append("}")
    out.append("")
    out += PST_HEADER
    out.append("PST: dict[str, dict[str, list[int]]] = {")
    for name, phases in pst.items():
        out.append(f'    "{name}": {{')
        for phase in ("mg", "eg"):
            out.append(f'        "{phase}": {_squares(phases[phase], "        ")},')
        out.append("    },")
    out.append("}")
    out.append(END)
    return "\n".join(out)


def rewrite(
    values: dict[str, tuple[int, int]],
    terms: dict[str, object],
    danger: dict[str, int],
    pst: dict[str, dict[str, list[int]]],
    path: Path = PARAMS,
) -> None:
    """Replace the tuned block of params.py with these values."""
    text = path.read_text()
    if not BLOCK.search(text):
        raise ValueError(f"{path}: no {BEGIN} ... {END} block")
    block = format_block(values, terms, danger, pst)
    path.write_text(BLOCK.sub(lambda _: block, text, count=1))
