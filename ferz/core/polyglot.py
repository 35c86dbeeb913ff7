"""Polyglot book counts in compiled code: the records of games' plies, sorted and summed.

`ferz book build` (ferz.book) keeps one record a ply: the Polyglot key of the position before
the move (an unsigned 64-bit int) and `raw << 2 | score` (the move in Polyglot's 15 bits; the
game's score for the mover: 2 a win, 1 a draw or an unknown result, 0 a loss), in two flat
arrays. `records` writes a game's records, `sort` orders them by key (stable: a key's records
stay in the games' order), `aggregate` sums each (key, move) as `polyglot make-book` does,
halving a position's counts in the order the games came, and writes the kept moves as the
book's 16-byte big-endian entries, the heaviest first. No Python object per ply or per
position: a book from millions of games takes the arrays' memory only.
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core.defs import MAXP, PROMO
from cython.cimports.ferz.core.position import Position

# Random64's parts (castling, e.p., the side) and the number of Polyglot moves (15 bits),
# written out where used below: module-level typed names are Python objects in Cython
CASTLE_OFFSET, EP_OFFSET, TURN_OFFSET, RAWS = 768, 772, 780, 32768


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _key(
    pos: Position,
    random: cython.ulonglong[::1],
    pieces: cython.int[::1],
    squares: cython.int[::1],
    files: cython.int[::1],
) -> cython.ulonglong:
    """The Polyglot hash of a position of standard chess, over its piece lists."""
    h: cython.ulonglong = 0
    side: cython.int
    first: cython.int
    i: cython.int
    sq: cython.int
    right: cython.int
    for side in range(2):
        first = side * MAXP
        for i in range(first, first + pos.pcount[side]):
            sq = pos.plist[i]
            h ^= random[pieces[pos.board[sq]] + squares[sq]]
    for right in range(4):  # white short, white long, black short, black long
        if pos.castling & (1 << right):
            h ^= random[768 + right]
    if pos.ep:  # the core keeps e.p. only when a pawn can take: the Polyglot rule
        h ^= random[772 + files[pos.ep]]
    if pos.side == 0:
        h ^= random[780]
    return h


def records(
    pos: Position,
    codes: cython.int[::1],
    n: cython.int,
    won: cython.int,
    tables: tuple,
    keys: cython.ulonglong[::1],
    vals: cython.uint[::1],
    at: cython.Py_ssize_t,
) -> cython.int:
    """Play a game's first n moves (core codes) from `pos` and write a record for each at
    keys[at:], vals[at:]; `won`: the side that won (0 White, 1 Black), -1 for a draw or an
    unknown result; `tables`: (Random64, piece code -> 64 * Polyglot kind, square -> Polyglot
    square, square -> file, piece type -> Polyglot promotion) as arrays. The moves are taken
    back after; the number of records, or -1 where a move is illegal (none kept)."""
    random: cython.ulonglong[::1] = tables[0]
    pieces: cython.int[::1] = tables[1]
    squares: cython.int[::1] = tables[2]
    files: cython.int[::1] = tables[3]
    promos: cython.int[::1] = tables[4]
    i: cython.int
    m: cython.int
    raw: cython.uint
    score: cython.uint
    played: cython.int = 0
    for i in range(n):
        m = codes[i]
        raw = squares[(m >> 9) & 511] | squares[m & 511] << 6
        if (m >> 24) & 7 == PROMO:
            raw |= promos[(m >> 18) & 63] << 12
        score = 1 if won < 0 else 2 if won == pos.side else 0
        keys[at + i] = _key(pos, random, pieces, squares, files)
        vals[at + i] = raw << 2 | score
        if not pos.make(m):
            break
        played += 1
    i = played
    while i > 0:  # back to the start
        pos.unmake()
        i -= 1
    return n if played == n else -1


def sort(
    keys: cython.ulonglong[::1],
    vals: cython.uint[::1],
    n: cython.Py_ssize_t,
) -> None:
    """Order the first n records by key, stably (an LSD radix sort, 16 bits a pass; the
    passes where every key has the same digit are left out)."""
    if n < 2:
        return
    keys2: cython.ulonglong[::1] = array("Q", bytes(8 * n))
    vals2: cython.uint[::1] = array("I", bytes(4 * n))
    counts: cython.Py_ssize_t[::1] = array("q", bytes(8 * 4 * 65536))
    src_k: cython.ulonglong[::1] = keys
    src_v: cython.uint[::1] = vals
    dst_k: cython.ulonglong[::1] = keys2
    dst_v: cython.uint[::1] = vals2
    tmp_k: cython.ulonglong[::1]
    tmp_v: cython.uint[::1]
    i: cython.Py_ssize_t
    d: cython.int
    shift: cython.int
    digit: cython.Py_ssize_t
    total: cython.Py_ssize_t
    c: cython.Py_ssize_t
    swapped: cython.bint = False
    for i in range(n):  # the four digits' histograms in one pass
        for d in range(4):
            counts[d * 65536 + ((keys[i] >> (16 * d)) & 0xFFFF)] += 1
    for d in range(4):
        shift = 16 * d
        if counts[d * 65536 + ((keys[0] >> shift) & 0xFFFF)] == n:
            continue  # one digit for all: the order stands
        total = 0
        for digit in range(65536):  # each digit's first place
            c = counts[d * 65536 + digit]
            counts[d * 65536 + digit] = total
            total += c
        for i in range(n):
            digit = d * 65536 + ((src_k[i] >> shift) & 0xFFFF)
            dst_k[counts[digit]] = src_k[i]
            dst_v[counts[digit]] = src_v[i]
            counts[digit] += 1
        tmp_k, tmp_v = src_k, src_v
        src_k, src_v = dst_k, dst_v
        dst_k, dst_v = tmp_k, tmp_v
        swapped = not swapped
    if swapped:  # the order is in the spare arrays
        for i in range(n):
            keys[i] = keys2[i]
            vals[i] = vals2[i]


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _before(a: cython.int, b: cython.int) -> cython.bint:
    """Whether kept entry a (weight << 16 | raw) comes before b: heavier, or as heavy and a
    lower move."""
    if (a >> 16) != (b >> 16):
        return (a >> 16) > (b >> 16)
    return (a & 0xFFFF) < (b & 0xFFFF)


def aggregate(
    keys: cython.ulonglong[::1],
    vals: cython.uint[::1],
    n: cython.Py_ssize_t,
    min_games: cython.int,
    uniform: cython.bint,
    halve_at: cython.int,
    out: cython.uchar[::1],
    state: cython.longlong[::1],
) -> cython.Py_ssize_t:
    """Book entries from sorted records: from record state[0] on, each key's moves summed in
    the records' order (a move's games reaching `halve_at` halves, rounding up, the games and
    score of every move of that position met so far), those with at least `min_games` games
    and a score written to `out` (weight the score, or 1 if `uniform`), 16 bytes each, a
    key's heaviest first (then by move). Stops before a key whose entries might not fit;
    state[0] is then where to go on; state[1] and state[2] count the entries and the keys
    written. The bytes written."""
    games: cython.int[::1] = array("i", bytes(4 * 32768))
    score: cython.int[::1] = array("i", bytes(4 * 32768))
    seen: cython.int[::1] = array("i", bytes(4 * 32768))  # a key's moves, first met first
    kept: cython.int[::1] = array("i", bytes(4 * 32768))  # weight << 16 | raw of those kept
    cap: cython.Py_ssize_t = len(out)
    i: cython.Py_ssize_t = state[0]
    j: cython.Py_ssize_t
    w: cython.Py_ssize_t = 0
    key: cython.ulonglong
    raw: cython.int
    nseen: cython.int
    nkept: cython.int
    k: cython.int
    t: cython.int
    x: cython.int
    weight: cython.int
    b: cython.int
    while i < n:
        key = keys[i]
        j = i
        while j < n and keys[j] == key:
            j += 1
        if w + 16 * (j - i) > cap and w + 16 * 32768 > cap:
            break  # the key's entries might not fit: the caller writes out and comes back
        nseen = 0
        for k in range(i, j):
            raw = vals[k] >> 2
            if games[raw] == 0:
                seen[nseen] = raw
                nseen += 1
            games[raw] += 1
            score[raw] += vals[k] & 3
            if games[raw] >= halve_at:
                for t in range(nseen):
                    x = seen[t]
                    games[x] = (games[x] + 1) // 2
                    score[x] = (score[x] + 1) // 2
        nkept = 0
        for t in range(nseen):
            raw = seen[t]
            if games[raw] >= min_games and score[raw] > 0:
                weight = 1 if uniform else score[raw]
                # heaviest first, then by move: insertion into the kept list
                x = weight << 16 | raw
                k = nkept
                while k > 0 and _before(x, kept[k - 1]):
                    kept[k] = kept[k - 1]
                    k -= 1
                kept[k] = x
                nkept += 1
            games[raw] = 0
            score[raw] = 0
        for t in range(nkept):
            for b in range(8):
                out[w + b] = (key >> (56 - 8 * b)) & 0xFF
            x = kept[t]
            out[w + 8] = (x >> 8) & 0x7F
            out[w + 9] = x & 0xFF
            out[w + 10] = (x >> 24) & 0xFF
            out[w + 11] = (x >> 16) & 0xFF
            for b in range(12, 16):
                out[w + b] = 0
            w += 16
        state[1] += nkept
        if nkept:
            state[2] += 1
        i = j
    state[0] = i
    return w
