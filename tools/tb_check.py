"""Check ferz's own chess tables against Syzygy: every position of each table, WDL for WDL.

    python tools/tb_check.py FOLDER_OF_FZT SYZYGY_FOLDER [--sample N] [MATERIAL ...]

For each ``.fzt`` table of variant chess in the first folder (or the materials named), every
position (or N random ones) is probed through ferz.syzygy (libfathom, or python-chess's
reader) and the results compared: ferz's win must be Syzygy's win or cursed win, its loss a
loss or blessed loss, its draw a draw (the fifty-move rule is not in ferz's tables). Prints
one line per table and the mismatches (FEN, both values); exit status 1 if any.

    python tools/tb_check.py FOLDER_OF_FZT - --dm tests/data/tablebase/endgame-dm-4.epd

compares the distances to mate of an EPD suite (`dm`, in moves) with the tables instead.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ferz.board import rules_for  # noqa: E402
from ferz.syzygy import open_tablebase as open_syzygy  # noqa: E402
from ferz.tablebase import INVALID, MINWIN, Spec, read_header, read_values  # noqa: E402

ROLES = "KQRBNP"


def check(path: Path, syzygy, spec: Spec, sample: int, show: int) -> tuple[int, int]:
    """(positions compared, mismatches) of one table."""
    rules = spec.rules
    head, _ = read_header(path, values=False)
    table = spec.table(str(head["material"]))
    read_values(path, rules, table)
    values = np.frombuffer(bytes(table.val), dtype=np.int16)
    indices = np.nonzero(values != INVALID)[0]
    if sample and sample < len(indices):
        indices = np.array(sorted(random.Random(1).sample(list(indices), sample)))
    k = table.k
    radix = [table.nsqs[j] for j in range(k)]
    # slot squares (0..63) of every index, and the role bit and colour of each slot
    sq64 = np.zeros((k, len(indices)), dtype=np.int64)
    rest = indices >> 1
    for j in range(k):
        mailbox = np.array([table.sqs[j * table.nsq + i] for i in range(radix[j])])
        board64 = np.array([rules.rank_of(s) * 8 + rules.file_of(s) for s in mailbox])
        sq64[j] = board64[rest % radix[j]]
        rest = rest // radix[j]
    roles = [ROLES.index(rules.pieces[(table.codes[j] >> 1) - 1].letter) for j in range(k)]
    colours = [table.codes[j] & 1 for j in range(k)]
    # the eight bitboards of every position (white, black, kings .. pawns), as Python ints
    boards = np.zeros((8, len(indices)), dtype=np.uint64)
    for j in range(k):
        bit = np.left_shift(np.uint64(1), sq64[j].astype(np.uint64))
        boards[colours[j]] |= bit
        boards[2 + roles[j]] |= bit
    columns = [boards[i].tolist() for i in range(8)]
    turns = ((indices & 1) == 0).tolist()
    ours_all = values[indices].tolist()
    probe = syzygy.probe_bits
    lib = getattr(syzygy._ready(), "lib", None)  # Fathom directly: 20 times faster
    compared = mismatches = 0
    for n in range(len(indices)):
        men = [columns[i][n] for i in range(8)]
        if lib is not None:
            raw = lib.tb_probe_wdl_impl(*men, 0, turns[n])
            wdl = None if raw == 0xFFFFFFFF else raw - 2
        else:
            wdl = probe(*men, 0, turns[n])
        ours = ours_all[n]
        mine = 1 if ours >= MINWIN else -1 if ours <= -MINWIN else 0
        theirs = None if wdl is None else (wdl > 0) - (wdl < 0)
        compared += 1
        if mine != theirs:
            mismatches += 1
            if mismatches <= show:
                idx = int(indices[n])
                board = fen_of(rules, table, [int(sq64[j, n]) for j in range(k)], idx & 1)
                print(f"  {board}: ferz {ours} (wdl {mine}), syzygy {wdl}")
    return compared, mismatches


def fen_of(rules, table, squares: list[int], stm: int) -> str:
    """The FEN of slot squares (0..63) with `stm` to move."""
    grid = [["" for _ in range(8)] for _ in range(8)]
    for j, sq in enumerate(squares):
        letter = rules.pieces[(table.codes[j] >> 1) - 1].letter
        grid[sq // 8][sq % 8] = letter if table.codes[j] & 1 == 0 else letter.lower()
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            if grid[rank][file]:
                row += (str(empty) if empty else "") + grid[rank][file]
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" b" if stm else " w") + " - - 0 1"


def check_dm(folder: Path, epd: Path) -> int:
    """Compare probe_dtm with an EPD's `dm` (moves to mate, Gaviota's sign) where a table
    holds the position; 1 if any differs."""
    import re

    from ferz.board import Board
    from ferz.tablebase import open_tablebase

    compared = bad = 0
    with open_tablebase(folder) as tables:
        for line in epd.read_text().splitlines():
            found = re.match(r"(\S+ [wb] \S+ \S+) dm (-?\d+);", line)
            if not found:
                continue
            dtm = tables.get_dtm(Board(found.group(1) + " 0 1"))
            if dtm is None:
                continue
            moves = (dtm + 1) // 2 if dtm > 0 else -((-dtm) // 2)
            compared += 1
            if moves != int(found.group(2)):
                bad += 1
                print(f"  {line}: ferz {moves} moves ({dtm} plies)")
    print(f"{epd.name}: {compared} positions, {bad} mismatches")
    return 1 if bad else 0


def main() -> int:
    """Compare the tables; 1 if any position disagrees."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("syzygy")
    parser.add_argument("materials", nargs="*")
    parser.add_argument("--sample", type=int, default=0, help="random positions per table")
    parser.add_argument("--show", type=int, default=5, help="mismatches printed per table")
    parser.add_argument("--dm", help="an EPD of distances to mate (dm, moves) to compare too")
    args = parser.parse_intermixed_args()
    if args.dm:
        return check_dm(Path(args.folder), Path(args.dm))
    spec = Spec(rules_for("chess"))
    paths = sorted(Path(args.folder).glob("*.fzt"))
    if args.materials:
        paths = [p for p in paths if p.stem in args.materials]
    total = bad = 0
    with open_syzygy(args.syzygy) as syzygy:
        for path in paths:
            start = time.perf_counter()
            compared, mismatches = check(path, syzygy, spec, args.sample, args.show)
            total, bad = total + compared, bad + mismatches
            print(
                f"{path.stem}: {compared} positions, {mismatches} mismatches "
                f"({time.perf_counter() - start:.1f} s)",
                flush=True,
            )
    print(f"all: {total} positions, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
