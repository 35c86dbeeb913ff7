"""Perft: count the leaf nodes of the legal move tree (the move generator's correctness test)."""

from array import array

import cython
from cython.cimports.ferz.core import movegen
from cython.cimports.ferz.core.defs import MAXMOVES
from cython.cimports.ferz.core.position import Position


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _perft(
    pos: Position, depth: cython.int, buf: cython.int[::1], base: cython.int
) -> cython.longlong:
    """Leaf count below pos; buf[base:] holds this ply's moves."""
    n: cython.int = movegen.gen(pos, buf, base, False)
    i: cython.int
    total: cython.longlong = 0
    for i in range(base, n):
        if pos.make(buf[i]):
            if depth > 1:
                total += _perft(pos, depth - 1, buf, n)
            else:
                total += 1
            pos.unmake()
    return total


def perft(pos: Position, depth: int) -> int:
    """Number of leaf nodes of the legal move tree of the given depth."""
    if depth <= 0:
        return 1
    buf = array("i", [0]) * (MAXMOVES * (depth + 1))
    view: cython.int[::1] = buf
    d: cython.int = depth
    result: cython.longlong
    with cython.nogil:
        result = _perft(pos, d, view, 0)
    return result
