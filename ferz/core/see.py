"""Static exchange evaluation: the material outcome of the captures on one square.

The attackers are found with the position's own attack probes (compiled from the variant's
pieces), so riders, hoppers and lame leapers of any variant are handled. Where captures explode
(`blastOnCapture`, atomic) there is no exchange: a capture removes the capturer, its victim and
every piece but pawns next to the target, so its value is that balance (an enemy royal piece
in the blast wins, `ROYAL_VALUE`), and a quiet move is worth what the opponent's best capture
of the moved piece would blow up.
"""

from __future__ import annotations

import cython
from cython.cimports.ferz.core import attacks
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DROP,
    EMPTY,
    EP,
    PROMO,
    WALL,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.evaluate import ROYAL_VALUE, Evaluator
from cython.cimports.ferz.core.position import Position

if not cython.compiled:
    from ferz.core.evaluate import ROYAL_VALUE


def captured_value(pos: Position, ev: Evaluator, m: cython.int) -> cython.int:
    """Value of what m captures, plus the promotion gain (0 for a quiet move); where captures
    explode, the balance of the explosion."""
    kind: cython.int = move_kind(m)
    gain: cython.int = 0
    victim: cython.int
    if kind == CASTLE or kind == DROP:  # noqa: SIM109 - C comparisons, no tuple
        return 0
    if pos.move_rules.blast:
        if kind == EP or (pos.board[move_to(m)] != EMPTY and move_to(m) != move_from(m)):
            return _blast(pos, ev, m)
        if move_promo(m):
            return ev.value[move_promo(m)] - ev.value[pos.board[move_from(m)] >> 1]
        return 0
    if kind == EP:
        # the captured pawn is of the mover's own pawn type
        gain = ev.value[pos.board[move_from(m)] >> 1]
    elif move_to(m) != move_from(m):  # sittuyin promotes in place: no victim there
        victim = pos.board[move_to(m)]
        if victim != EMPTY:
            gain = ev.value[victim >> 1]
    if kind == PROMO:  # (a gating move's promotion field is the piece it gates)
        gain += ev.value[move_promo(m)] - ev.value[pos.board[move_from(m)] >> 1]
    return gain


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _blast(pos: Position, ev: Evaluator, m: cython.int) -> cython.int:
    """Material balance for the mover of the capture m where captures explode: the victim and
    the enemy pieces blown up, minus the capturer and the mover's own pieces blown up (pawns
    survive next to the target; royal pieces count ROYAL_VALUE)."""
    fr: cython.int = move_from(m)
    to: cython.int = move_to(m)
    us: cython.int = pos.board[fr] & 1
    victim: cython.int = to
    balance: cython.int
    i: cython.int
    sq: cython.int
    q: cython.int
    if move_kind(m) == EP:
        victim = to - pos.stride if us == 0 else to + pos.stride
    balance = ev.value[pos.board[victim] >> 1] - ev.value[pos.board[fr] >> 1]
    for i in range(9):
        sq = to + pos.blast_vec[i]
        q = pos.board[sq]
        if sq == to or sq == fr or sq == victim or q <= WALL or pos.is_pawn[q >> 1]:  # noqa: SIM109
            continue
        if (q & 1) == us:
            balance -= ev.value[q >> 1]
        else:
            balance += ev.value[q >> 1]
    return balance


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _blast_threat(pos: Position, ev: Evaluator, m: cython.int) -> cython.int:
    """Where captures explode: what the opponent's capture of the piece that the quiet move m
    puts on its target would win (0 if it has none that spares its own royal piece). The
    capturer is its least valuable attacker; royal pieces do not capture (they would blow up)."""
    fr: cython.int = move_from(m)
    to: cython.int = move_to(m)
    mover: cython.int = pos.board[fr]
    them: cython.int = (mover & 1) ^ 1
    placed: cython.int = mover
    a: cython.int
    i: cython.int
    sq: cython.int
    q: cython.int
    gain: cython.int = 0
    if move_promo(m):
        placed = 2 * move_promo(m) + (mover & 1)
    pos.board[fr] = EMPTY
    pos.board[to] = placed
    a = _least_attacker(pos, to, them)
    if a >= 0 and ev.value[pos.board[a] >> 1] < ROYAL_VALUE:
        gain = ev.value[placed >> 1] - ev.value[pos.board[a] >> 1]
        for i in range(9):
            sq = to + pos.blast_vec[i]
            q = pos.board[sq]
            if sq == to or sq == a or q <= WALL or pos.is_pawn[q >> 1]:  # noqa: SIM109
                continue
            if (q & 1) == them:
                if ev.value[q >> 1] >= ROYAL_VALUE:
                    gain = 0  # it would blow up its own royal piece: no such capture
                    break
                gain -= ev.value[q >> 1]
            else:
                gain += ev.value[q >> 1]
    pos.board[to] = EMPTY
    pos.board[fr] = mover
    return gain if gain > 0 else 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _mover_value(pos: Position, ev: Evaluator, m: cython.int) -> cython.int:
    """Value of the piece standing on the target square after m."""
    if move_kind(m) == PROMO:
        return ev.value[move_promo(m)]
    return ev.value[pos.board[move_from(m)] >> 1]


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _least_attacker(pos: Position, sq: cython.int, by: cython.int) -> cython.int:
    """Square of the least valuable piece of colour `by` attacking sq (by `pos.lvalue`), or -1.

    Both ways of finding it look outwards from sq over the board as it stands, so pieces
    lifted off the board during an exchange reveal the attackers behind them.
    """
    if pos.move_rules.chk_all:
        return attacks.attacker(pos, sq, by, True)
    return attacks.probe_attacker(pos, sq, by, True)


def see(pos: Position, ev: Evaluator, m: cython.int, buf: cython.int[::1]) -> cython.int:
    """Material balance of m followed by the best sequence of recaptures on its square.

    Attackers are lifted off the board as they capture (and put back at the end), which reveals
    x-ray attackers behind them. Pins are ignored, as usual for SEE; a royal piece may only
    capture last.
    """
    gain = cython.declare(cython.int[40])  # at most 40 captures in a row
    lifted = cython.declare(cython.int[40])
    pieces = cython.declare(cython.int[40])
    sq: cython.int = move_to(m)
    fr: cython.int = move_from(m)
    d: cython.int = 0
    n: cython.int = 0
    a: cython.int
    side: cython.int
    on_square: cython.int
    if move_kind(m) == CASTLE or move_kind(m) == DROP:  # noqa: SIM109 - C comparisons
        return 0
    if pos.move_rules.blast:
        if move_kind(m) == EP or (pos.board[sq] != EMPTY and sq != fr):
            return _blast(pos, ev, m)
        return captured_value(pos, ev, m) - _blast_threat(pos, ev, m)
    gain[0] = captured_value(pos, ev, m)
    on_square = _mover_value(pos, ev, m)
    side = (pos.board[fr] & 1) ^ 1
    lifted[0] = fr
    pieces[0] = pos.board[fr]
    pos.board[fr] = EMPTY
    n = 1
    while d < 38:
        a = _least_attacker(pos, sq, side)
        if a < 0:
            break
        if ev.value[pos.board[a] >> 1] >= ROYAL_VALUE and (_least_attacker(pos, sq, side ^ 1) >= 0):
            break  # the royal piece cannot capture into an attacked square
        d += 1
        # Every capture is recorded, even one that cannot pay: the back-up below lets each side
        # stop where it stands best, so the result is the exchange's exact value, not only its
        # sign (see_ge compares it with thresholds other than 0).
        gain[d] = on_square - gain[d - 1]
        on_square = ev.value[pos.board[a] >> 1]
        lifted[n] = a
        pieces[n] = pos.board[a]
        pos.board[a] = EMPTY
        n += 1
        side ^= 1
    while n > 0:
        n -= 1
        pos.board[lifted[n]] = pieces[n]
    while d > 0:
        d -= 1
        if -gain[d] < gain[d + 1]:
            gain[d] = -gain[d + 1]
    return gain[0]


def see_ge(
    pos: Position, ev: Evaluator, m: cython.int, threshold: cython.int, buf: cython.int[::1]
) -> cython.bint:
    """Whether the exchange started by m wins at least `threshold` centipawns."""
    if pos.move_rules.blast:
        return see(pos, ev, m, buf) >= threshold
    gain: cython.int = captured_value(pos, ev, m)
    if gain - threshold < 0:
        return False
    if gain - _mover_value(pos, ev, m) - threshold >= 0:
        return True  # even losing the mover leaves us above the threshold
    return see(pos, ev, m, buf) >= threshold
