"""Fairy-Stockfish as an oracle: pyffish (pinned 0.0.90) in-process, and Debian's CLI for perft."""

from __future__ import annotations

import re
import subprocess
import threading
from pathlib import Path

import pytest

from ferz.match.engines import EngineError, Process
from tests.programs import find, need, need_module

PYFFISH_VERSION = (0, 0, 90)  # the oracle the tests were written against; others are skipped
FSF_BINARY = find("fairy-stockfish") or "/usr/games/fairy-stockfish"
FSF_NAME = {"chess960": "fischerandom"}  # ferz name -> Fairy-Stockfish name


def fsf_name(name: str) -> str:
    """Fairy-Stockfish's name of a built-in ferz variant."""
    return FSF_NAME.get(name, name)


def pyffish():
    """The pinned pyffish module, or skip the test with the reason."""
    sf = need_module("pyffish", "pyffish==0.0.90")
    if tuple(sf.version()) != PYFFISH_VERSION:
        pytest.skip(f"pyffish {sf.version()} is not the pinned oracle {PYFFISH_VERSION}")
    return sf


def _castling_rooks(board: str, castling: str) -> frozenset[tuple[str, int]]:
    """Castling rights as (colour, rook file), from KQkq, X-FEN or Shredder-FEN letters."""
    rows = board.split("/")
    out = set()
    for char in castling.replace("-", ""):
        white = char.isupper()
        row = _expand(rows[-1] if white else rows[0])
        king = next((i for i, x in enumerate(row) if x == ("K" if white else "k")), None)
        rook = "R" if white else "r"
        if char.upper() == "K" and king is not None:
            files = [i for i in range(len(row) - 1, king, -1) if row[i] == rook]
        elif char.upper() == "Q" and king is not None:
            files = [i for i in range(king) if row[i] == rook]
        else:
            files = [ord(char.lower()) - ord("a")]
        out.add(("w" if white else "b", files[0] if files else -1))
    return frozenset(out)


def _expand(row: str) -> list[str]:
    """One FEN rank as a list of cells ('' for empty), multi-digit runs and +X pieces included."""
    cells: list[str] = []
    i = 0
    while i < len(row):
        if row[i].isdigit():
            j = i
            while j < len(row) and row[j].isdigit():
                j += 1
            cells += [""] * int(row[i:j])
            i = j
        elif row[i] == "+":
            cells.append(row[i : i + 2])
            i += 2
        elif row[i] == "~":
            i += 1
        else:
            cells.append(row[i])
            i += 1
    return cells


def normal_fen(fen: str) -> tuple:
    """The comparable parts of a FEN: board, pocket as a sorted multiset, side, castling, and
    check counters."""
    fields = fen.split()
    board = fields[0]
    pocket = ""
    if "[" in board:
        board, pocket = board[:-1].split("[", 1)
    pocket = "".join(sorted(pocket.replace("-", "")))
    board = board.replace("~", "")  # crazyhouse promotion markers are compared via moves
    rest = fields[1:]
    # check counters (3check, `3+3` after the e.p. field) are compared on their own
    checks = next((x for x in rest if "+" in x), "")
    rest = [x for x in rest if "+" not in x]
    side = rest[0] if rest else "w"
    castling, ep = "-", "-"
    if len(rest) >= 3 and not rest[1].isdigit():
        castling, ep = rest[1], rest[2]
    # the e.p. field is left out: FSF 2023 sets it after moves that cannot be answered e.p.
    # (and makruk puts its counter there); e.p. captures themselves are compared as moves
    del ep
    return board, pocket, side, _castling_rooks(board, castling), checks


class FairyStockfish:
    """A running `fairy-stockfish` process speaking UCI, for perft counts (through ferz's
    engine-process driver, ferz.match.engines.Process)."""

    TIMEOUT = 600.0  # seconds for one answer (a deep perft of a large variant is slow)

    def __init__(self, binary: str = FSF_BINARY) -> None:
        self.engine = Process()
        self.engine.spawn([binary], stderr=subprocess.DEVNULL)
        self.lock = threading.Lock()
        self.engine.send("uci")
        self._until("uciok")

    def _until(self, prefix: str) -> list[str]:
        """Read lines up to and including the first starting with prefix."""
        try:
            return self.engine.expect(prefix, self.TIMEOUT)
        except EngineError as error:
            raise RuntimeError(f"fairy-stockfish: {error}") from None

    def load(self, path: Path) -> None:
        """Load a variants.ini file (VariantPath)."""
        self.engine.send(f"setoption name VariantPath value {path}")

    def perft(self, variant: str, fen: str, moves: list[str], depth: int) -> int:
        """Leaf count of `go perft` (answered asynchronously: wait for Nodes searched)."""
        with self.lock:
            self.engine.send(f"setoption name UCI_Variant value {variant}")
            self.engine.send("isready")
            self._until("readyok")
            tail = f" moves {' '.join(moves)}" if moves else ""
            self.engine.send(f"position fen {fen}{tail}")
            self.engine.send(f"go perft {depth}")
            line = self._until("Nodes searched")[-1]
            match = re.search(r"Nodes searched:\s*(\d+)", line)
            assert match, line
            return int(match.group(1))

    def close(self) -> None:
        """Stop the process."""
        self.engine.quit(5.0)


def fairy_stockfish() -> FairyStockfish:
    """A started Debian fairy-stockfish, or skip the test with the reason."""
    need("fairy-stockfish")
    return FairyStockfish()
