# SPDX-License-Identifier: GPL-3.0-or-later
"""Fairy-Max as a legality oracle: it has no perft and no move list, so a move is legal for it
when, in force mode, it does not answer `Illegal move` (then `undo` takes it back).

`compare(game, ...)` walks a position's every from/to pair (and every promotion letter) through
both engines and returns the moves on which they disagree, in ferz's coordinates.
"""

from __future__ import annotations

import random
import subprocess

from ferz.board import Board
from ferz.match.xboard import shift_ranks

FAIRY_OPTION = "fairy/"
MAKRUK_RULES = {"Ai-wok", "Cambodian"}  # games Fairy-Max reaches through 'Makruk rules'


class FairyMax:
    """One fairymax process in force mode."""

    def __init__(self, path: str, ini: str) -> None:
        self.proc = subprocess.Popen(
            [path, ini], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.count = 0
        self.ranks = 8
        self.send("xboard\nprotover 2")
        self.until("feature done=1")

    def send(self, text: str) -> None:
        """Write lines to fairymax."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def until(self, word: str) -> list[str]:
        """Lines up to the one that starts with `word`."""
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"fairymax ended before {word!r}: {lines[-5:]}")
            if line.startswith(word):
                return lines
            lines.append(line.strip())

    def sync(self) -> list[str]:
        """Everything fairymax said since the last sync."""
        self.count += 1
        self.send(f"ping {self.count}")
        return self.until(f"pong {self.count}")

    def start(self, name: str, ranks: int, moves: list[str]) -> None:
        """A new game of a Fairy-Max game name, with moves (ferz's coordinates) played."""
        self.ranks = ranks
        self.send("new\nforce")
        if name.startswith(FAIRY_OPTION):
            self.send(f"option Variant fairy selects={name[len(FAIRY_OPTION) :]}\nvariant fairy")
        elif name in MAKRUK_RULES:
            self.send(f"option Makruk rules={name}\nvariant makruk")
        else:
            self.send(f"variant {name}")
        self.send("force")
        for move in moves:
            if not self.try_move(move, keep=True):
                raise RuntimeError(f"fairymax refuses {move} after {moves}")
        self.sync()

    def try_move(self, move: str, keep: bool = False) -> bool:
        """Whether fairymax takes a move (ferz's coordinates); taken back unless `keep`."""
        text = shift_ranks(move, -1) if self.ranks == 10 else move
        self.send(text)
        legal = not any(line.startswith("Illegal move") for line in self.sync())
        if legal and not keep:
            self.send("undo")
        return legal

    def close(self) -> None:
        """Quit fairymax."""
        try:
            self.send("quit")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def candidates(board: Board) -> list[str]:
    """Every from/to pair of the side to move (not onto its own pieces), a pawn's moves into
    the promotion zone spelled with every piece letter, and ferz's own legal moves."""
    rules = board.rules
    own = board.turn
    pawns = {p.letter.lower() for p in rules.pieces if p.pawn}
    letters = sorted({p.letter.lower() for p in rules.pieces} - pawns)
    zone = set(rules.promotion_ranks)
    if not own:
        zone = {board.ranks - 1 - r for r in zone}
    squares = [f"{chr(97 + f)}{r + 1}" for r in range(board.ranks) for f in range(board.files)]
    mine = [s for s in squares if (p := board.piece_at(s)) is not None and p.isupper() == own]
    out = {board.uci(m) for m in board.legal_moves}
    for a in mine:
        pawn = board.piece_at(a).lower() in pawns
        for b in squares:
            target = board.piece_at(b)
            if a == b or (target is not None and target.isupper() == own):
                continue
            if pawn and int(b[1:]) - 1 in zone:
                out.update(a + b + letter for letter in letters)
            else:
                out.add(a + b)
    return sorted(out)


def differences(peer: FairyMax, board: Board, game: str, line: list[str]) -> tuple[set, set]:
    """(moves only ferz takes, moves only fairymax takes) after `line` from the start of Fairy-
    Max's `game` (ferz's board stands there).

    `undo` replays the game through fairymax's search, whose hash table remembers earlier
    tries; so each move on which the first pass disagrees is asked again from a fresh start."""
    ferz = {board.uci(m) for m in board.legal_moves}
    peer.start(game, board.ranks, line)
    fmax = {move for move in candidates(board) if peer.try_move(move)}
    for move in ferz ^ fmax:
        peer.start(game, board.ranks, line)
        if peer.try_move(move, keep=True):
            fmax.add(move)
        else:
            fmax.discard(move)
    return ferz - fmax, fmax - ferz


def random_line(board: Board, plies: int, rng: random.Random) -> list[str]:
    """A random legal line from the board's position (it stops at the game's end)."""
    line = []
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.outcome() is not None:
            break
        move = rng.choice(moves)
        line.append(board.uci(move))
        board.push(move)
    return line
