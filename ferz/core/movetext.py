"""A game's main line read in compiled code: its movetext scanned and each SAN move played.

ferz.pgn's main-line reader (`pgn.stream_mainlines`, for `ferz book build`) gives a game's
movetext here whole: `walk` skips move numbers, comments, NAGs, suffixes and variations,
parses each main-line SAN move (`Nbd7`, `exd8=Q+`, `O-O`) into the matcher's ints, plays it
with san.Matcher on one core position and writes its code to a buffer the caller owns; it
stops reading moves after `max_ply` of them and then looks for the result only. It reads the
common spellings only and gives up (-1, the position as it was) on anything else: another
spelling, an illegal or ambiguous move, a stray character, text after the result, a variation
left open, a character outside ASCII; the reader then reads that game the slow way, which
accepts what it can and words the errors. Where it does not give up it finds what the reader
finds, move for move.
"""

from __future__ import annotations

import cython
from cython.cimports.ferz.core.position import Position
from cython.cimports.ferz.core.san import Matcher

#: walk's result codes (bits 16 and up of what it returns): no result token, then RESULTS
RESULT_TOKENS = ("", "1-0", "0-1", "1/2-1/2", "*")
#: the file and rank ranges of the square table walk takes: table[file * RANKS + rank]
#: (written out as numbers below: module-level typed names are Python objects in Cython)
FILES, RANKS = 16, 100


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _space(c: cython.int) -> cython.bint:
    """Whether a character is white space as the reader's regular expressions see it (ASCII)."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _delimiter(c: cython.int) -> cython.bint:
    """Whether a character ends a word token (space or one of `{}()[]$;!?`)."""
    return _space(c) or c in (123, 125, 40, 41, 91, 93, 36, 59, 33, 63)


@cython.cfunc
@cython.exceptval(check=False)
def _result(text: str, i: cython.Py_ssize_t, j: cython.Py_ssize_t) -> cython.int:
    """The result code of the token text[i:j] (1 `1-0`, 2 `0-1`, 3 `1/2-1/2`, 4 `*`), 0 if
    it is none."""
    n: cython.Py_ssize_t = j - i
    if n == 1:
        return 4 if ord(text[i]) == 42 else 0
    if n == 3 and ord(text[i + 1]) == 45:
        if ord(text[i]) == 49 and ord(text[i + 2]) == 48:
            return 1
        if ord(text[i]) == 48 and ord(text[i + 2]) == 49:
            return 2
        return 0
    if n == 7 and text[i : i + 7] == "1/2-1/2":
        return 3
    return 0


@cython.cfunc
@cython.exceptval(check=False)
def _digits(text: str, i: cython.Py_ssize_t, j: cython.Py_ssize_t) -> cython.int:
    """The number text[i:j] spells: one or two digits, the first not 0; -1 otherwise."""
    n: cython.Py_ssize_t = j - i
    a: cython.int
    b: cython.int
    if n < 1 or n > 2:
        return -1
    a = ord(text[i]) - 48
    if a < 1 or a > 9:
        return -1
    if n == 1:
        return a
    b = ord(text[i + 1]) - 48
    if b < 0 or b > 9:
        return -1
    return 10 * a + b


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _play(
    matcher: Matcher,
    pos: Position,
    text: str,
    i: cython.Py_ssize_t,
    j: cython.Py_ssize_t,
    squares: cython.int[::1],
) -> cython.longlong:
    """Play the SAN move text[i:j] (a word token): the matcher's packed result, or -1 where
    it is not spelt as [piece] [file] [rank] [x] square [=promotion] [+#] or O-O, O-O-O."""
    e: cython.Py_ssize_t = j
    p: cython.Py_ssize_t = i
    d: cython.Py_ssize_t
    q: cython.Py_ssize_t
    c: cython.int
    letter: cython.int = 0
    promo: cython.int = 0
    file: cython.int = -1
    rank: cython.int = -1
    target: cython.int
    to: cython.int
    takes: cython.bint = False
    while e > i and ord(text[e - 1]) in (43, 35):  # check and mate marks
        e -= 1
    c = ord(text[p])
    if c == 79 and e - i == 3 and text[i:e] == "O-O":
        return matcher.castle(pos, True)
    if c == 79 and e - i == 5 and text[i:e] == "O-O-O":
        return matcher.castle(pos, False)
    if 65 <= c <= 90:
        letter = c
        p += 1
    if e - p >= 2 and ord(text[e - 2]) == 61:  # =Q
        promo = ord(text[e - 1])
        if promo < 65 or promo > 90:
            return -1
        e -= 2
    d = e
    while d > p and 48 <= ord(text[d - 1]) <= 57:
        d -= 1
    target = _digits(text, d, e)
    if target < 0 or d - 1 < p:
        return -1
    c = ord(text[d - 1]) - 97
    if c < 0 or c >= 16 or target > 100:
        return -1
    to = squares[c * 100 + target - 1]
    if to < 0:
        return -1
    q = d - 1  # what is left before the target: [file] [rank] [x]
    if q > p and ord(text[q - 1]) == 120:
        takes = True
        q -= 1
    if p < q:
        c = ord(text[p]) - 97
        if 0 <= c < 16:
            file = c
            p += 1
    if p < q:
        rank = _digits(text, p, q)
        if rank < 0:
            return -1
        rank -= 1
        p = q
    if p != q:
        return -1
    return matcher.play(pos, letter, to, file, rank, promo, takes)


def walk(
    matcher: Matcher,
    pos: Position,
    text: str,
    max_ply: cython.int,
    squares: cython.int[::1],
    codes: cython.int[::1],
) -> cython.int:
    """Read a game's movetext on `pos` (its start position): the main line's first `max_ply`
    moves' codes into `codes` (its length the most a game may have), then the result; the
    moves are taken back after. `squares[file * RANKS + rank]`: the square (-1 off the
    board). Gives `moves | result << 16` (result: the index in RESULT_TOKENS), or -1 where
    the reader must read the game itself."""
    size: cython.Py_ssize_t = len(text)
    cap: cython.Py_ssize_t = len(codes)
    i: cython.Py_ssize_t = 0
    j: cython.Py_ssize_t
    c: cython.int
    n: cython.int = 0
    k: cython.int
    depth: cython.int = 0  # parentheses open: a variation passed by
    dead: cython.bint = max_ply <= 0  # enough moves: the result is sought
    result: cython.int = 0
    ok: cython.bint = True
    packed: cython.longlong
    while i < size:
        c = ord(text[i])
        if _space(c):
            i += 1
        elif c == 123:  # {comment}, to its end or the text's
            i += 1
            while i < size and ord(text[i]) != 125:
                i += 1
            i += 1
        elif c == 59:  # ; a comment to the end of the line
            while i < size and ord(text[i]) != 10:
                i += 1
        elif c >= 128:
            ok = False
            break
        elif c == 40:
            depth += 1
            i += 1
        elif c == 41:
            if depth:
                depth -= 1
            elif not dead:
                ok = False  # ')' without '('
                break
            i += 1
        elif c == 36:  # $NAG
            i += 1
            while i < size and 48 <= ord(text[i]) <= 57:
                i += 1
        elif c == 33 or c == 63:  # suffix annotations
            i += 1
        elif c == 91 or c == 93 or c == 125:
            if not depth and not dead:
                ok = False  # stray
                break
            i += 1
        else:
            if 48 <= c <= 57:  # a move number (dots after the digits, spaces between)?
                j = i
                while j < size and 48 <= ord(text[j]) <= 57:
                    j += 1
                while j < size and _space(ord(text[j])):
                    j += 1
                if j < size and ord(text[j]) == 46:
                    while j < size and ord(text[j]) == 46:
                        j += 1
                    i = j
                    continue
            j = i
            while j < size and not _delimiter(ord(text[j])):
                if ord(text[j]) >= 128:
                    ok = False
                    break
                j += 1
            if not ok:
                break
            k = _result(text, i, j)
            if k:
                if depth:
                    i = j  # a variation's result: passed by
                    continue
                result = k
                while j < size:  # the next game's text must not follow
                    if not _space(ord(text[j])):
                        ok = False
                        break
                    j += 1
                break
            if depth or dead:
                i = j
                continue
            if not (65 <= c <= 90 or 97 <= c <= 122) or n >= cap:
                ok = False
                break
            packed = _play(matcher, pos, text, i, j, squares)
            if packed < 0:
                ok = False
                break
            codes[n] = packed & 0x7FFFFFF
            n += 1
            if n >= max_ply:
                dead = True
            i = j
    if ok and depth and not dead:
        ok = False  # a variation left open
    k = n
    while k > 0:  # back to the start
        pos.unmake()
        k -= 1
    return n | result << 16 if ok else -1
