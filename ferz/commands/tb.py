"""`ferz tb`: build ferz's own endgame tables for a variant, probe them, list them."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from .. import data
from ..board import Board, rules_for
from ..core.rules import Rules
from ..notation import move_text
from ..tablebase import (
    MAX_PIECES,
    MINWIN,
    RULE,
    UNSURE,
    TablebaseError,
    build,
    by_rule,
    material_name,
    open_tablebase,
    plies,
    read_header,
    refusal,
    royal_letter,
    rule_text,
)

DESCRIPTION = """\
ferz's own endgame tables: exact results (win, draw or loss with the distance to mate) of
every position with few pieces, for chess and every variant without pieces in hand, built by
retrograde analysis over ferz's move generator and the variant's own rules. The engine reads
them through the FerzTbPath option (docs/tablebases.md)."""

EXAMPLES = """\
examples:
  ferz tb build --variant xiangqi KRvK KCvKA       # and every table they lead to
  ferz tb build --variant makruk --pieces 3        # every 3-piece table
  ferz tb probe --variant xiangqi "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1"   # bundled tables
  ferz tb list tables/xiangqi"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-commands of `ferz tb`."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    make = sub.add_parser("build", help="build tables (and the smaller ones they lead to)")
    make.add_argument("materials", nargs="*", help="materials such as KRvK (White v Black)")
    make.add_argument("--variant", default="chess")
    make.add_argument("--pieces", type=int, help="every material with this many pieces")
    make.add_argument("--dir", help="the folder (default: tables/VARIANT)")
    make.add_argument("--force", action="store_true", help="rebuild tables already there")
    probe = sub.add_parser("probe", help="the tables' verdict on a position and its moves")
    probe.add_argument("fen")
    probe.add_argument("--variant", default="chess")
    probe.add_argument(
        "--dir", help="the folder (default: tables/VARIANT, else the tables bundled with ferz)"
    )
    show = sub.add_parser("list", help="the tables of a folder")
    show.add_argument("dir")


def main(args: argparse.Namespace) -> int:
    """Run the action."""
    if args.action == "list":
        return list_tables(Path(args.dir))
    folder = Path(args.dir or Path("tables") / args.variant)
    if args.action == "build":
        return build_tables(args.variant, args.materials, args.pieces, folder, args.force)
    if not args.dir and not folder.is_dir():
        folder = data.tables(rules_for(args.variant).name) or folder  # the bundled tables
    return probe(args.variant, args.fen, folder)


def all_materials(variant: str, pieces: int) -> list[str]:
    """Every material of `pieces` pieces, kings included (one each where the variant has
    them), pawns and the types that only promotion makes counted too."""
    rules = rules_for(variant)
    why = refusal(rules)
    if why:
        raise TablebaseError(f"no tables for {variant}: {why}")
    if not 2 <= pieces <= MAX_PIECES:
        raise TablebaseError(f"--pieces: 2 to {MAX_PIECES}")
    king = royal_letter(rules)
    others = [t for t, p in enumerate(rules.pieces, 1) if not p.royal]
    base = [2 * rules.piece_index(king), 2 * rules.piece_index(king) + 1] if king else []
    out = set()
    for combo in itertools.combinations_with_replacement(
        [2 * t + c for t in others for c in (0, 1)], pieces - len(base)
    ):
        out.add(material_name(rules, base + list(combo)))
    return sorted(out, key=lambda name: (len(name), name))


def build_tables(
    variant: str, materials: list[str], pieces: int | None, folder: Path, force: bool
) -> int:
    """Build the tables asked for; one line per table on stderr."""
    names = list(materials)
    if pieces:
        names += all_materials(variant, pieces)
    if not names:
        raise TablebaseError("name the materials (KRvK ...) or give --pieces N")

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    for name in names:
        build(variant, name, folder, log=log, force=force)
    print(f"tables in {folder}")
    return 0


def probe(variant: str, fen: str, folder: Path) -> int:
    """Print the verdict of a position and of each legal move."""
    board = Board(fen, variant=variant)
    with open_tablebase(folder, variant) as tables:
        value = tables.probe_value(board, unsure=True)
        if value is None:
            raise TablebaseError(f"no table in {folder} holds {board.fen()}")
        print(verdict(board, value))
        for move, after in tables.root_moves(board):
            print(f"  {move_text(board, move):8} {verdict_after(after, board.rules)}")
    return 0


def verdict(board: Board, value: int) -> str:
    """'White wins, mate in 8 (15 plies)' and the like, for a table value."""
    side, other = ("White", "Black") if board.turn else ("Black", "White")
    dtm = plies(value)
    if value <= -MINWIN and dtm == 0:
        return f"{other} has won (the game is over)"
    if value == UNSURE:
        return f"no exact value: a draw unless {rule_text(board.rules)} decides it"
    if dtm == 0:
        return "draw"
    if by_rule(value):
        return f"{side if dtm > 0 else other} wins: {rule_text(board.rules)} loses"
    if dtm > 0:
        return f"{side} wins, mate in {(dtm + 1) // 2} ({dtm} plies)"
    return f"{other} wins, mate in {(-dtm) // 2} ({-dtm} plies)"


def verdict_after(plies: int, rules: Rules | None = None) -> str:
    """A move's result for the mover."""
    if abs(plies) >= RULE:
        what = rule_text(rules) if rules is not None else "a perpetual check"
        return f"wins ({what} loses)" if plies > 0 else f"loses ({what})"
    if plies > 0:
        return f"wins, mate in {(plies + 1) // 2}"
    if plies < 0:
        return f"loses, mated in {(-plies) // 2}"
    return "draws"


def list_tables(folder: Path) -> int:
    """One line per table of a folder: material, variant, positions, longest mate, bytes."""
    if not folder.is_dir():
        raise TablebaseError(f"no such folder: {folder}")
    for path in sorted(folder.glob("*.fzt")):
        try:
            head, _ = read_header(path, values=False)
        except TablebaseError as error:
            print(f"{path.name}: {error}")
            continue
        print(
            f"{head.get('material')}  {head.get('variant')}  {head.get('positions')} positions"
            f"  longest mate {head.get('longest')} plies  {path.stat().st_size} bytes"
        )
    return 0
