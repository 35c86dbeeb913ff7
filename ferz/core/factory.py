"""One way to set up a searching position of a variant: Position, Evaluator, TT and Search.

The engine, the bench, the tools and the tests build their positions here. Plain Python:
nothing here is hot.
"""

from __future__ import annotations

from collections.abc import Iterable

from .evaluate import Evaluator
from .position import Position
from .rules import Rules
from .search import Search
from .tt import TT


def position(
    rules: Rules, fen: str | None = None, ev: Evaluator | None = None, moves: Iterable[int] = ()
) -> Position:
    """A position of these rules at `fen` (None: the start) after `moves` (legal ints), with
    the tables of `ev` installed (None: a hand-made Evaluator of the rules)."""
    pos = Position(rules)
    (Evaluator(rules) if ev is None else ev).install(pos)
    pos.set_fen(rules.start_fen if fen is None else fen)
    for m in moves:
        if not pos.make(m):
            raise ValueError(f"illegal move {m} in {pos.fen()}")
    return pos


def search(
    rules: Rules,
    fen: str | None = None,
    ev: Evaluator | None = None,
    tt: TT | None = None,
    moves: Iterable[int] = (),
) -> Search:
    """A Search of `position(rules, fen, ev, moves)` sharing `tt` (None: its own 1 MB)."""
    ev = Evaluator(rules) if ev is None else ev
    return Search(position(rules, fen, ev, moves), TT(1) if tt is None else tt, ev)
