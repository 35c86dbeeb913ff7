"""SAN moves read in compiled code: a parsed move token matched against the position's moves.

ferz.pgn's reader parses a SAN token once (piece letter, target, origin hints, promotion,
capture mark; castling) and gives it here as ints. `Matcher.play` generates the position's
pseudo-legal moves into the matcher's own buffer (no list, no Python int per move), keeps those
of the named piece to the target square, tries them for legality only where more than one is
left, plays the one the hints choose and returns it with what its SAN needs, packed in one int:

    bits  0-26  the move (the core's code)
    bits 27-28  the origin the SAN must name: 0 none, 1 its file, 2 its rank, 3 both
    bit  29     it captures (the target is occupied, or e.p.)
    bits 30-31  0, 1 it gives check, 2 it mates
    bits 32-39  the moving piece's type (board code >> 1)

or a negative number where the token does not name exactly one legal move of this reading
(NONE, AMBIGUOUS) or the position has too many moves (OVERFLOW): the reader then asks the
Board's parser, which accepts every other spelling and words the error. Piece letters and
promotions are given as character codes (0 for a pawn, no promotion); a type's letter is
`letters[type]` (0 for pawns), a promotion's `promo_letters[type]`.
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core import attacks, movegen
from cython.cimports.ferz.core.defs import (
    CASTLE,
    EP,
    GEN_ALL,
    GEN_CAPTURES,
    MAXMOVES,
    MAXP,
    PROMO,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.position import Position

if not cython.compiled:  # the constants of san.pxd, for the uncompiled fallback
    SAN_NONE = -1
    SAN_AMBIGUOUS = -2
    SAN_OVERFLOW = -3


@cython.cclass
class Matcher:
    """A move matcher for one variant's positions (its square and letter tables)."""

    def __init__(
        self,
        files: list[int],
        ranks: list[int],
        letters: list[int],
        promo_letters: list[int],
    ) -> None:
        """files[sq], ranks[sq]: a square's file and rank (from 0; -1 off the board);
        letters[type], promo_letters[type]: the SAN letter's character code of a piece type
        moving (0 for pawns) and promoted to."""
        self.buf = array("i", [0]) * MAXMOVES
        self.file_of = array("i", files)
        self.rank_of = array("i", ranks)
        self.letter = array("i", letters)
        self.promo_letter = array("i", promo_letters)
        self.ntypes = len(letters)

    def play(
        self,
        pos: Position,
        letter: cython.int,
        to: cython.int,
        file: cython.int,
        rank: cython.int,
        promo: cython.int,
        takes: cython.bint,
    ) -> cython.longlong:
        """Play the move a SAN token names: piece letter (0: pawn), target square (-1, -2:
        castling king- or queenside), origin file and rank (-1: not given), promotion letter
        (0: none), whether it is written as a capture (then only captures are looked at); the
        packed result or a negative code (nothing played)."""
        buf: cython.int[::1] = self.buf
        board: cython.int[::1] = pos.board
        n: cython.int
        i: cython.int
        k: cython.int = 0
        m: cython.int
        fr: cython.int
        t: cython.int
        move: cython.int = 0
        found: cython.int = 0
        legal: cython.int = 0
        disamb: cython.int = 0
        same_file: cython.bint = False
        same_rank: cython.bint = False
        if to < 0:
            return self.castle(pos, to == -1)
        if to >= pos.nsq:
            return SAN_NONE
        pos.overflow = 0
        n = self._gen(pos, letter, takes)
        if pos.overflow:
            pos.overflow = 0
            return SAN_OVERFLOW
        for i in range(n):  # the moves to the target
            m = buf[i]
            if move_to(m) == to:
                buf[k] = m
                k += 1
        if k > 1:  # of the named piece, castling aside
            n = k
            k = 0
            for i in range(n):
                m = buf[i]
                t = board[move_from(m)] >> 1
                if t < self.ntypes and self.letter[t] == letter and move_kind(m) != CASTLE:
                    buf[k] = m
                    k += 1
            if k == 1:
                return self._single(pos, buf[0], letter, to, file, rank, promo)
            # several: the legal ones, and the one the hints choose
            for i in range(k):
                m = buf[i]
                if not pos.make(m):
                    continue
                pos.unmake()
                buf[legal] = m
                legal += 1
                if self._fits(m, file, rank, promo):
                    if found:  # the hints leave two moves
                        return SAN_AMBIGUOUS
                    move = m
                    found = 1
            if not found or move_from(move) == to:
                return SAN_NONE
            fr = move_from(move)
            for i in range(legal):  # the other pieces that could go there
                m = buf[i]
                if move_from(m) == fr:
                    continue
                disamb = 1
                if self.file_of[move_from(m)] == self.file_of[fr]:
                    same_file = True
                if self.rank_of[move_from(m)] == self.rank_of[fr]:
                    same_rank = True
            if disamb:
                disamb = 3 if same_file and same_rank else 2 if same_file else 1
            return self._make(pos, move, disamb)
        if k == 1:
            return self._single(pos, buf[0], letter, to, file, rank, promo)
        return SAN_NONE

    def _gen(self, pos: Position, letter: cython.int, takes: cython.bint) -> cython.int:
        """The pseudo-legal moves (only captures if `takes`) into the buffer, their number:
        where the variant's rules add or remove no move beyond each piece's own (chess and
        most variants), those of the pieces with the token's letter only; else all."""
        buf: cython.int[::1] = self.buf
        us: cython.int = pos.side
        n: cython.int = 0
        i: cython.int
        fr: cython.int
        p: cython.int
        t: cython.int
        if (
            pos.end_rules.any
            or pos.move_rules.gen_filter
            or pos.promo_rules.sit_promo
            or pos.move_rules.full_gen
            or pos.drop_rules.drops
            or pos.move_rules.king_pass
            or pos.gate_rules.any
        ):
            return movegen.gen(pos, buf, 0, takes)
        pos.cap_end = MAXMOVES
        if pos.states[pos.ply].noted_key != pos.key:  # make's legality fast path trusts it (as gen)
            pos.note_check(attacks.in_check(pos))
        for i in range(pos.pcount[us]):
            fr = pos.plist[us * MAXP + i]
            p = pos.board[fr]
            t = p >> 1
            if t < self.ntypes and self.letter[t] == letter:
                n = movegen.gen_piece(pos, buf, n, fr, p, GEN_CAPTURES if takes else GEN_ALL)
        return n

    def _fits(
        self, m: cython.int, file: cython.int, rank: cython.int, promo: cython.int
    ) -> cython.bint:
        """Whether a move agrees with the token's origin hints and promotion."""
        fr: cython.int = move_from(m)
        t: cython.int
        if file >= 0 and self.file_of[fr] != file:
            return False
        if rank >= 0 and self.rank_of[fr] != rank:
            return False
        if (move_kind(m) == PROMO) != (promo != 0):
            return False
        if promo:
            t = move_promo(m)
            if t >= self.ntypes or self.promo_letter[t] != promo:
                return False
        return True

    def _single(
        self,
        pos: Position,
        m: cython.int,
        letter: cython.int,
        to: cython.int,
        file: cython.int,
        rank: cython.int,
        promo: cython.int,
    ) -> cython.longlong:
        """The one move of the named piece to the target: played if the token fits it."""
        fr: cython.int = move_from(m)
        t: cython.int = pos.board[fr] >> 1
        if (
            t >= self.ntypes
            or self.letter[t] != letter
            or move_kind(m) == CASTLE
            or fr == to
            or not self._fits(m, file, rank, promo)
        ):
            return SAN_NONE
        return self._make(pos, m, 0)

    def _make(self, pos: Position, m: cython.int, disamb: cython.int) -> cython.longlong:
        """Play a move (SAN_NONE if it is illegal) and pack it with its SAN's facts."""
        to: cython.int = move_to(m)
        t: cython.longlong = pos.board[move_from(m)] >> 1
        capture: cython.longlong = pos.board[to] >= 2 or move_kind(m) == EP
        if not pos.make(m):
            return SAN_NONE
        return (
            m
            | (disamb << 27)
            | (capture << 29)
            | (cython.cast(cython.longlong, self._check(pos)) << 30)
            | (t << 32)
        )

    def _check(self, pos: Position) -> cython.int:
        """After a move: 0, 1 check, 2 mate (in check with no legal move)."""
        buf: cython.int[::1] = self.buf
        n: cython.int
        i: cython.int
        check: cython.bint = attacks.in_check(pos)
        pos.note_check(check)  # the next move's generation need not look again
        if not check:
            return 0
        pos.overflow = 0
        n = movegen.gen(pos, buf, 0, False)
        pos.overflow = 0
        for i in range(n):
            if pos.make(buf[i]):
                pos.unmake()
                return 1
        return 2

    def castle(self, pos: Position, kingside: cython.bint) -> cython.longlong:
        """Play the first legal castling move of that side (the king to a higher file, or a
        lower one), packed as play's; SAN_NONE if there is none."""
        buf: cython.int[::1] = self.buf
        n: cython.int
        i: cython.int
        m: cython.int
        packed: cython.longlong
        pos.overflow = 0
        n = movegen.gen(pos, buf, 0, False)
        if pos.overflow:
            pos.overflow = 0
            return SAN_OVERFLOW
        for i in range(n):
            m = buf[i]
            if (
                move_kind(m) == CASTLE
                and not move_promo(m)
                and (self.file_of[move_to(m)] > self.file_of[move_from(m)]) == kingside
            ):
                packed = self._make(pos, m, 0)
                if packed >= 0:
                    return packed
        return SAN_NONE
