"""Shared set-up of the core's direct tests: a position of a variant with its evaluator's tables."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from ferz.board import Board
from ferz.core import factory
from ferz.core.defs import CASTLE, DROP, EMPTY, EP, MAXMOVES, move_from, move_kind, move_to
from ferz.core.evaluate import Evaluator
from ferz.core.position import Position
from ferz.variants import get


@dataclass
class Setup:
    """A position, its evaluator and a Board of the same position to name moves by."""

    pos: Position
    ev: Evaluator
    board: Board

    def code(self, uci: str) -> int:
        """A move's code by its UCI name."""
        return self.board.parse_uci(uci).code

    def uci(self, code: int) -> str:
        """A move code's UCI name (pseudo-legal moves too)."""
        return self.board._uci_text(code)

    def is_capture(self, code: int) -> bool:
        """Whether a (pseudo-legal) move takes a piece (en passant too; a drop or castling
        never: castling is written as the king taking its own rook)."""
        to = move_to(code)
        if move_kind(code) in (CASTLE, DROP):
            return False
        return move_kind(code) == EP or (self.pos.board[to] != EMPTY and to != move_from(code))

    def value(self, letter: str) -> int:
        """The evaluator's value of a piece by its letter."""
        return self.ev.value[self.pos.rules.piece_index(letter)]


def setup(fen: str, variant: str = "chess") -> Setup:
    """A position of `variant` from `fen` with the hand-made evaluation's tables installed."""
    rules = get(variant)
    ev = Evaluator(rules)
    return Setup(factory.position(rules, fen, ev), ev, Board(fen, variant=variant))


def buffer() -> array:
    """A scratch list as long as a move list (SEE's swap list)."""
    return array("i", bytes(4 * MAXMOVES))
