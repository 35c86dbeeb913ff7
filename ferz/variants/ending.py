"""Variant game ends: extinction (shatranj's bared king) and capture-the-flag, which the core
judges, plus the value of having no legal move.

Values are for the side to move, as in Fairy-Stockfish: +1 win, 0 draw, -1 loss. Board.outcome
asks here first (`immediate_end`), then looks at the legal moves (`no_moves_value`), and on an
n-fold repetition asks `repetition_value`; the search calls the core's `endrules.end_value` and
`endrules.pawn_drop_check` directly.
"""

from __future__ import annotations

from ferz.core import endrules
from ferz.core.defs import NO_END
from ferz.core.rules import Rules

VALUE = {"win": 1, "draw": 0, "loss": -1}


def immediate_end(pos) -> int | None:
    """The value for the side to move if a variant rule has ended the game, else None.

    `pos` is a core Position, which carries its compiled rules (core.endrules.end_value; it also
    makes the move generator return no moves once the game is over, as Fairy-Stockfish does).
    """
    value = endrules.end_value(pos)
    return None if value == NO_END else value


def no_moves_value(rules: Rules, in_check: bool, pawn_drop: bool = False, balance: int = 0) -> int:
    """Value for the side to move when it has no legal move: checkmate or stalemate.

    `pawn_drop`: the check came from a pawn drop under shogiPawnDropMateIllegal (the core's
    `core.endrules.pawn_drop_check`); such a mate is illegal, so the mated side wins (as in FSF).
    `balance`: the side's pieces on the board minus the opponent's, which decides a stalemate
    under stalematePieceCount (fewer: the stalemate value, more: its opposite, equal: draw)."""
    if in_check and pawn_drop and rules.pawn_drop_mate_illegal:
        return 1
    if not in_check and rules.stalemate_piece_count:
        return 0 if balance == 0 else VALUE[rules.stalemate_value] * (1 if balance < 0 else -1)
    return VALUE[rules.checkmate_value if in_check else rules.stalemate_value]


def repetition_value(
    rules: Rules,
    side: int,
    checkers: frozenset[int] = frozenset(),
    chasers: frozenset[int] = frozenset(),
) -> int:
    """Value for the side to move (0 White, 1 Black) when the position has occurred
    `rules.n_fold_rule` times. `checkers` are the colours that gave check in every position
    of the cycle, `chasers` those that chased an enemy piece at every move of it. Under
    perpetualCheckIllegal a lone perpetual checker loses (both: a draw); then, under the
    chasing rule, a lone perpetual chaser loses (both: a draw), as in FSF."""
    if rules.perpetual_check_illegal and checkers:
        return 0 if len(checkers) == 2 else (-1 if side in checkers else 1)
    if rules.chasing_rule and chasers:
        return 0 if len(chasers) == 2 else (-1 if side in chasers else 1)
    value = VALUE[rules.n_fold_value]
    return -value if rules.n_fold_value_absolute and side == 1 else value
