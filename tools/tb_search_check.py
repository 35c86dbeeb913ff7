"""Check ferz's own tables of a variant against ferz's search on random positions of each.

    python tools/tb_search_check.py VARIANT FOLDER [--positions 1000] [--depth 10] [MATERIAL ...]

For each table (or those named), random positions (seeded) are searched to a fixed depth
without tables and compared with the table's own value (no counting rule applied: a count
only turns wins into draws, so a mate the search proves must still be the table's). Where
the search proves a mate, the table must agree: the same winner, and a distance to mate no
longer than the search's (the table's is the shortest forced one; with xiangqi's repetition
rules, which the tables leave out, the search may prove a sooner win, listed as such); where
the table says draw, the search must prove no mate. Prints one line per table and every
disagreement; exit status 1 if any.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ferz.board import Board  # noqa: E402
from ferz.engine import Engine, Limits  # noqa: E402
from ferz.tablebase import INVALID, Spec, open_tablebase, plies, read_header  # noqa: E402


def fen_of(board: Board, table, squares: list[int], stm: int) -> str:
    """The FEN of a table's slot squares (mailbox) with `stm` to move."""
    rules = board.rules
    grid = {sq: table.codes[j] for j, sq in enumerate(squares)}
    rows = []
    for rank in range(rules.ranks - 1, -1, -1):
        row, empty = "", 0
        for file in range(rules.files):
            code = grid.get(rules.square(file, rank))
            if code is None:
                empty += 1
                continue
            letter = rules.pieces[(code >> 1) - 1].letter
            row += (str(empty) if empty else "") + (letter.lower() if code & 1 else letter)
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" b" if stm else " w") + " - - 0 1"


def check_table(
    variant: str, path: Path, tables, spec: Spec, positions: int, depth: int, rng: random.Random
) -> tuple[int, int, int]:
    """(positions searched, mates proved, disagreements) of one table."""
    head, _ = read_header(path, values=False)
    material = str(head["material"])
    table = tables._table(material)  # noqa: SLF001 (the loaded table: its indices)
    if table is None:
        raise SystemExit(f"{path}: cannot be read")
    engine = Engine()
    engine.options.set("UCI_Variant", variant)
    searched = proved = bad = shorter = 0
    rules_cycles = tables.rules.perpetual_check_illegal or tables.rules.chasing_rule
    tries = 0
    while searched < positions and tries < 50 * positions:
        tries += 1
        idx = rng.randrange(table.size)
        if table.val[idx] == INVALID:
            continue
        fen = fen_of(Board(variant=variant), table, table.squares_of(idx), idx & 1)
        try:
            board = Board(fen, variant=variant)
        except ValueError:
            continue  # a position the FEN rules refuse (none should be)
        if board.outcome() is not None:
            continue
        value = table.probe(board.position)  # the table itself (no counting rule applied)
        dtm = plies(value)
        searched += 1
        info = engine.analyse(board, Limits(depth=depth))[-1]
        if info.score_mate is None:
            continue
        proved += 1
        mate = info.score_mate
        moves = (dtm + 1) // 2 if dtm > 0 else -((-dtm) // 2)
        if abs(value) < 2000 or (mate > 0) != (dtm > 0):
            bad += 1  # another result
            print(f"  {fen}: tables {dtm} plies, search mate {mate}")
        elif abs(moves) > abs(mate):
            # the same result, sooner: only a repetition rule can do that (xiangqi's perpetual
            # check loses, which the tables leave out: they score cycles as draws)
            shorter += 1
            if not rules_cycles:
                bad += 1
            print(f"  {fen}: tables {dtm} plies, search mate {mate} (sooner)")
    if shorter:
        print(f"  {shorter} mates sooner by the search (a repetition rule)")
    return searched, proved, bad


def main() -> int:
    """Check the tables; 1 if any disagrees with a proof of the search."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("folder")
    parser.add_argument("materials", nargs="*")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_intermixed_args()
    rng = random.Random(args.seed)
    tables = open_tablebase(args.folder, args.variant)
    spec = Spec(tables.rules)
    paths = sorted(Path(args.folder).glob("*.fzt"))
    if args.materials:
        paths = [p for p in paths if p.stem in args.materials]
    total = bad_total = 0
    for path in paths:
        start = time.perf_counter()
        searched, proved, bad = check_table(
            args.variant, path, tables, spec, args.positions, args.depth, rng
        )
        total, bad_total = total + searched, bad_total + bad
        print(
            f"{path.stem}: {searched} positions, {proved} mates proved by the search, "
            f"{bad} disagreements ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    print(f"all: {total} positions, {bad_total} disagreements")
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main())
