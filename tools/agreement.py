#!/usr/bin/env python3
# ferz - a chess and chess-variant engine
# Copyright (C) 2026 the ferz authors
# SPDX-License-Identifier: GPL-3.0-or-later
"""How far two annotations of the same games agree: `ferz analyse` run with two engines.

    python tools/agreement.py sf.pgn ferz.pgn [--misses]

The first file is the reference (Stockfish's annotation, say), the second the one judged. It
prints, one `Key: value` line each:

- Recall: of the moves the reference marks ?? (blunder), the share the other marks ? or ??
  (the target of `ferz analyse` in docs/match.md), and how many of them it marks ??;
- Precision: of the moves the other marks ? or ??, the share the reference marks ? or ??;
- Marks: the count of ?!, ? and ?? in each file;
- ACPL and Accuracy: the mean over games and sides of the summary tags (WhiteACPL, ...).

`--misses` lists the reference's blunders that the other leaves unmarked or marks ?!, with
both files' evaluations before and after the move. The two files must hold the same games
(the same main lines, in the same order); anything else is an error (exit code 2).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ferz import pgn  # noqa: E402

SERIOUS = {pgn.NAG_MISTAKE, pgn.NAG_BLUNDER}
MARKS = ((pgn.NAG_DUBIOUS, "?!"), (pgn.NAG_MISTAKE, "?"), (pgn.NAG_BLUNDER, "??"))
EVAL = re.compile(r"\[%eval ([^,\]\s]+)")


@dataclass(frozen=True)
class Mark:
    """One main-line move of an annotated game: where it is, its NAGs, the [%eval] after it."""

    game: int
    ply: int
    san: str
    move: str
    nags: frozenset[int]
    evaluation: str


@dataclass(frozen=True)
class Agreement:
    """The counts that compare two annotations."""

    moves: int
    blunders: int  # the reference's ??
    found: int  # of them, marked ? or ?? by the other
    found_blunders: int  # of them, marked ?? by the other
    serious: int  # the other's ? and ??
    confirmed: int  # of them, marked ? or ?? by the reference
    counts: dict[str, tuple[int, int]]  # mark -> (reference, other)
    misses: list[tuple[Mark, Mark, str, str]]  # reference, other, their evals before the move


def marks(games: list[pgn.Game]) -> list[Mark]:
    """Every main-line move of the games."""
    out = []
    for number, game in enumerate(games, 1):
        for ply, node in enumerate(game.mainline()):
            found = EVAL.search(node.comment)
            nags = frozenset(node.nags)
            evaluation = found.group(1) if found else "-"
            out.append(Mark(number, ply, node.san or "", node.move or "", nags, evaluation))
    return out


def compare(reference: list[pgn.Game], other: list[pgn.Game]) -> Agreement:
    """Compare the marks of two annotations of the same games; ValueError if they differ."""
    if len(reference) != len(other):
        raise ValueError(f"the files hold {len(reference)} and {len(other)} games")
    for number, (first, second) in enumerate(zip(reference, other, strict=True), 1):
        if first.mainline_moves() != second.mainline_moves():
            raise ValueError(f"game {number}: the main lines differ")
    ref, oth = marks(reference), marks(other)
    blunders = [i for i, mark in enumerate(ref) if pgn.NAG_BLUNDER in mark.nags]
    found = [i for i in blunders if oth[i].nags & SERIOUS]
    serious = [i for i, mark in enumerate(oth) if mark.nags & SERIOUS]
    misses = []
    for i in blunders:
        if not oth[i].nags & SERIOUS:
            first = ref[i - 1].evaluation if ref[i].ply else "-"
            second = oth[i - 1].evaluation if oth[i].ply else "-"
            misses.append((ref[i], oth[i], first, second))
    counts = {
        text: (sum(nag in m.nags for m in ref), sum(nag in m.nags for m in oth))
        for nag, text in MARKS
    }
    return Agreement(
        moves=len(ref),
        blunders=len(blunders),
        found=len(found),
        found_blunders=sum(pgn.NAG_BLUNDER in oth[i].nags for i in found),
        serious=len(serious),
        confirmed=sum(bool(ref[i].nags & SERIOUS) for i in serious),
        counts=counts,
        misses=misses,
    )


def summary_means(games: list[pgn.Game]) -> tuple[float, float] | None:
    """The mean ACPL and accuracy over the games' summary tags (both sides); None without tags."""
    acpl, accuracy = [], []
    for game in games:
        for side in ("White", "Black"):
            try:
                acpl.append(float(game.headers[f"{side}ACPL"]))
                accuracy.append(float(game.headers[f"{side}Accuracy"]))
            except (KeyError, ValueError):
                continue
    if not acpl:
        return None
    return sum(acpl) / len(acpl), sum(accuracy) / len(accuracy)


def _share(part: int, whole: int) -> str:
    """`part of whole (x %)`."""
    return f"{part} of {whole} ({100 * part / whole:.1f} %)" if whole else f"{part} of 0"


def report(agreement: Agreement, means: tuple[object, object], misses: bool = False) -> str:
    """The comparison as `Key: value` lines (and the misses, one a line)."""
    lines = [
        f"Moves: {agreement.moves}",
        f"Recall: {_share(agreement.found, agreement.blunders)} of the reference's ?? "
        f"marked ? or ?? ({agreement.found_blunders} ??)",
        f"Precision: {_share(agreement.confirmed, agreement.serious)} of the other's ? and ?? "
        "marked ? or ?? by the reference",
        "Marks: "
        + ", ".join(f"{text} {ref} / {oth}" for text, (ref, oth) in agreement.counts.items())
        + " (reference / other)",
    ]
    for key, index, form in (("ACPL", 0, "{:.1f}"), ("Accuracy", 1, "{:.1f} %")):
        values = [form.format(m[index]) if m else "-" for m in means]  # type: ignore[index]
        lines.append(f"{key}: {values[0]} / {values[1]} (reference / other, mean of sides)")
    if misses:
        for ref, oth, ref_before, oth_before in agreement.misses:
            mark = "".join(text for nag, text in MARKS if nag in oth.nags) or "-"
            lines.append(
                f"  game {ref.game} ply {ref.ply} {ref.san}: reference {ref_before} -> "
                f"{ref.evaluation}, other {oth_before} -> {oth.evaluation} {mark}"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Compare two annotated PGN files; 2 for bad input."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", help="the reference annotation (e.g. Stockfish's)")
    parser.add_argument("other", help="the annotation judged (e.g. ferz's)")
    parser.add_argument("--misses", action="store_true", help="list the reference's missed ??")
    args = parser.parse_args(argv)
    try:
        reference, other = pgn.read_file(args.reference), pgn.read_file(args.other)
        agreement = compare(reference, other)
    except ValueError as error:  # PgnError and unreadable files included
        print(f"agreement: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(
        report(agreement, (summary_means(reference), summary_means(other)), args.misses)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
