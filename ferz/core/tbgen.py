"""ferz's own endgame tables: retrograde analysis over the core's move generator.

A table holds every position of one material (as 'KRvK') with either side to move: a win or a
loss with its distance to mate in plies, or a draw, by the variant's own rules (its mate and
stalemate values, bare king, flags, flying general). Its index is the side to move and, per
piece (a slot), the number of the piece's square among those the piece can ever stand on
(ferz.tablebase.spec); with mirror-symmetric rules the first slot keeps to the left half.

Building is the counting retrograde analysis:
1. Every index is set up once on the board: no position (two pieces on one square, the side
   not to move in check), a game over by a rule, or the number of its legal moves that stay
   in the table; moves that capture or promote lead to smaller tables (built before), and the
   best of them is kept.
2. Layer by layer, d = 0, 1, ...: a position lost in d plies makes each predecessor won in
   d + 1 (unless it wins sooner); a position won in d takes one from each predecessor's count,
   and a predecessor whose count reaches 0 with nothing better outside the table is lost in
   the longest of its distances. Predecessors come from un-moves: each square from which the
   piece could reach its square on an empty board, checked by making the move with the core.
3. What is still open is a draw: the side to move can keep out of every lost position.
4. Where a perpetual check loses (xiangqi's rule), the open positions whose side to move can
   only keep the draw by checking at every move, while the other side can always answer
   without checking and keep it so, are lost (the greatest such set: Builder.perpetual);
   step 2 then goes on from them at distance TB_RULE, and step 4 again, until nothing changes.
5. Where a perpetual chase loses too (xiangqi's chasing rule, judged by ferz.core.chase), the
   same for chases, one enemy piece at a time: the side to move can only keep the draw by
   chasing that piece at every move, the other side can always answer without checking or
   chasing anything and keep it so (Builder.perpetual, with steps 4 and 2).
6. Where a repetition can decide, a draw is exact only where each side can keep it without
   ever checking or chasing (Builder.exactness); every other draw is TB_UNSURE.

Values: TB_WIN - d is a win in d plies, d - TB_WIN a loss in d plies, 0 and TB_DRAWN draws
(TB_UNSURE: a draw unless a repetition rule decides otherwise, step 6); a distance of TB_RULE
or more is a win by the perpetual-check or chasing rule, TB_RULE plus the plies until the
loser must check or chase forever (not a distance to mate).
"""

from __future__ import annotations

from array import array

import cython
from cython.cimports.ferz.core import attacks, endrules, movegen
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DOUBLE,
    EMPTY,
    EP,
    GEN_ALL,
    GEN_QUIETS,
    MAXMOVES,
    MAXP,
    NO_END,
    NORMAL,
    PROMO,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.position import Position

from ferz.core.attacks import attackers as attackers_of  # (a def: the chasing rule's probe)

if not cython.compiled:  # the constants of tbgen.pxd, for the uncompiled fallback
    TB_MAXK = 8
    TB_WIN = 32000
    TB_WINMIN = 2000
    TB_DRAWN = 1
    TB_INVALID = -32768
    TB_NONE = -32767
    TB_RULE = 10000
    TB_UNSURE = 2


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def negate(v: cython.int) -> cython.int:
    """The value for the side that moved of a position worth v to its side to move."""
    if v >= TB_WINMIN:
        return 1 - v  # won in d there: lost in d + 1 here
    if v <= -TB_WINMIN:
        return -v - 1
    return 0


@cython.cfunc
@cython.inline
def leaves(pos: Position, m: cython.int) -> cython.bint:
    """Whether a move leaves the table's material: a capture (e.p. too) or a promotion."""
    kind: cython.int = move_kind(m)
    return (
        kind == EP  # noqa: SIM109 - C ints
        or kind == PROMO
        or move_promo(m) != 0
        or (kind != CASTLE and pos.board[move_to(m)] != EMPTY)
    )


def flip(v: int) -> int:
    """negate() for Python: the value one ply earlier, for the other side."""
    return negate(v)


def ints(values: list[int] | int) -> array:
    """An int array of these values (or of that many zeros)."""
    return array("i", bytes(4 * values)) if isinstance(values, int) else array("i", values)


@cython.final
@cython.cclass
class Table:
    """The values of one material: the index (slots, squares, mirror) and the values."""

    def __init__(
        self,
        name: str,
        codes: list[int],
        squares: list[list[int]],
        nsq: int,
        files: int,
        npc: int,
        mirror: bool,
        mir: list[int],
        fl: list[int],
    ) -> None:
        k = len(codes)
        if not 1 <= k <= TB_MAXK:
            raise ValueError(f"{name}: a table has 1 to {TB_MAXK} pieces")
        self.name = name
        self.k, self.nsq, self.files = k, nsq, files
        self.mid = (files - 1) // 2
        self.mirror = 1 if mirror else 0
        self.codes = ints(codes)
        self.count = ints(npc)
        for c in codes:
            self.count[c] += 1
        self.nsqs = ints([len(s) for s in squares])
        self.sqs = ints(k * nsq)
        self.sqidx = ints([-1] * (k * nsq))
        for j, s in enumerate(squares):
            for i, q in enumerate(s):
                self.sqs[j * nsq + i] = q
                self.sqidx[j * nsq + q] = i
        self.mir, self.fl = ints(mir), ints(fl)
        self.mul = array("q", [0] * k)
        size = 1
        for j in range(k):
            self.mul[j] = size
            size *= len(squares[j])
        self.size = 2 * size
        self.val = array("h", bytes(2 * self.size))
        self.w, self.used = ints(k), ints(k)

    def index_of(self, sq: cython.int[::1], stm: cython.int) -> cython.longlong:
        """The index of these slot squares with `stm` to move, or -1 (a square not indexed)."""
        idx: cython.longlong = 0
        i: cython.int
        j: cython.int
        for j in range(self.k):
            i = self.sqidx[j * self.nsq + sq[j]]
            if i < 0:
                return -1
            idx += i * self.mul[j]
        return 2 * idx + stm

    def decode(self, idx: cython.longlong, sq: cython.int[::1]) -> cython.void:
        """The slot squares of an index (the side to move is idx & 1)."""
        r: cython.longlong = idx >> 1
        j: cython.int
        n: cython.int
        for j in range(self.k):
            n = self.nsqs[j]
            sq[j] = self.sqs[j * self.nsq + r % n]
            r //= n

    def canonical(self, sq: cython.int[::1]) -> cython.bint:
        """Mirror the squares if the first slot stands on the right half; whether it did."""
        j: cython.int
        if not self.mirror or self.fl[sq[0]] <= self.mid:
            return False
        for j in range(self.k):
            sq[j] = self.mir[sq[j]]
        return True

    def locate(self, pos: Position) -> cython.longlong:
        """The index of a position of this material, or -1 (another material)."""
        c: cython.int
        i: cython.int
        j: cython.int
        s: cython.int
        p: cython.int
        found: cython.bint
        if pos.pcount[0] + pos.pcount[1] != self.k:
            return -1
        for j in range(self.k):
            self.used[j] = 0
        for c in range(2):
            for i in range(pos.pcount[c]):
                s = pos.plist[c * MAXP + i]
                p = pos.board[s]
                found = False
                for j in range(self.k):
                    if not self.used[j] and self.codes[j] == p:
                        self.used[j] = 1
                        self.w[j] = s
                        found = True
                        break
                if not found:
                    return -1
        self.canonical(self.w)
        return self.index_of(self.w, pos.side)

    def probe(self, pos: Position) -> int:
        """The value of a position of this material (TB_NONE: not one of its positions)."""
        idx: cython.longlong = self.locate(pos)
        if idx < 0:
            return TB_NONE
        return self.val[idx]

    def squares_of(self, idx: int) -> list[int]:
        """The slot squares of an index."""
        sq = ints(self.k)
        self.decode(idx, sq)
        return list(sq)


@cython.final
@cython.cclass
class Builder:
    """One table's retrograde analysis on an empty position of the variant."""

    def __init__(
        self,
        table: Table,
        pos: Position,
        tables: dict[bytes, Table],
        rev: list[list[list[int]]],
        ep_rule: bool,
    ) -> None:
        k, nsq = table.k, table.nsq
        self.t, self.pos, self.tables = table, pos, tables
        self.cnt = array("B", bytes(table.size))
        self.lmax = array("h", bytes(2 * table.size))
        self.buf = ints(3 * MAXMOVES)
        self.sq, self.cur, self.pre, self.msq = ints(k), ints(k), ints(k), ints(k)
        self.placed = 0
        self.ep_rule = 1 if ep_rule else 0
        self.unmoves = 0
        # un-move origins per (slot, square): rev[j][s] lists the squares the piece of slot j
        # could come from to s
        self.rev_start = ints(k * nsq + 1)
        flat: list[int] = []
        for j in range(k):
            for s in range(nsq):
                self.rev_start[j * nsq + s] = len(flat)
                flat.extend(rev[j][s])
        self.rev_start[k * nsq] = len(flat)
        self.rev_sq = ints(flat or [0])
        # the position: no counting (the tables ignore it: see ferz.tablebase), no network
        pos.end_rules.counting = 0
        pos.cnt_limit = 0
        pos.nn = 0

    def place(self, sq: cython.int[::1], stm: cython.int) -> cython.void:
        """Set the board to these slot squares with `stm` to move (key and check noted)."""
        pos: Position = self.pos
        t: Table = self.t
        j: cython.int
        key: cython.ulonglong = 0
        if self.placed:
            for j in range(t.k):
                pos.lift(self.cur[j])
        for j in range(t.k):
            pos.put(t.codes[j], sq[j])
            self.cur[j] = sq[j]
            key ^= pos.z_piece[t.codes[j] * pos.nsq + sq[j]]
        self.placed = 1
        pos.side = stm
        pos.ep = 0
        pos.halfmove = 0
        pos.key = key ^ pos.z_side if stm else key
        pos.note_check(attacks.in_check(pos))

    def exit_value(self) -> cython.int:
        """The value for the side to move of the position on the board, which is of another
        material (after a capture or a promotion): from that material's table."""
        pos: Position = self.pos
        key = material_key(pos)
        table = self.tables.get(key)
        if table is None:
            raise LookupError(f"no table for the material {key!r} after {self.t.name}")
        v: cython.int = table.probe(pos)
        if v == TB_NONE or v == TB_INVALID:  # noqa: SIM109 - C ints
            raise LookupError(f"{table.name} does not hold {pos.fen()}")
        return v

    def ep_best(self) -> cython.int:
        """The best value for the side to move of its legal e.p. captures, or TB_NONE."""
        pos: Position = self.pos
        base: cython.int = 2 * MAXMOVES
        n: cython.int = movegen.gen(pos, self.buf, base, True)
        i: cython.int
        m: cython.int
        v: cython.int
        best: cython.int = TB_NONE
        for i in range(base, n):
            m = self.buf[i]
            if move_kind(m) != EP or not pos.make(m):
                continue
            v = negate(self.exit_value())
            pos.unmake()
            if best == TB_NONE or v > best:
                best = v
        return best

    def init_one(self, idx: cython.longlong) -> cython.void:
        """Step 1 for one index: its value if it is settled now, else its count."""
        t: Table = self.t
        pos: Position = self.pos
        stm: cython.int = idx & 1
        a: cython.int
        b: cython.int
        i: cython.int
        m: cython.int
        n: cython.int
        kind: cython.int
        v: cython.int
        e: cython.int
        legal: cython.int = 0
        inside: cython.int = 0
        best: cython.int = TB_NONE
        exit_move: cython.bint
        t.decode(idx, self.sq)
        for a in range(t.k):
            for b in range(a):
                if self.sq[a] == self.sq[b]:
                    t.val[idx] = TB_INVALID
                    return
        self.place(self.sq, stm)
        if pos.royal[stm ^ 1] >= 0 and attacks.attacked(pos, pos.royal[stm ^ 1], stm):
            t.val[idx] = TB_INVALID
            return
        if pos.move_rules.flying and attacks.kings_facing(pos):
            t.val[idx] = TB_INVALID
            return
        e = endrules.end_value(pos)
        if e != NO_END:
            t.val[idx] = TB_WIN if e > 0 else (-TB_WIN if e < 0 else TB_DRAWN)
            return
        n = movegen.gen(pos, self.buf, 0, False)
        for i in range(n):
            m = self.buf[i]
            kind = move_kind(m)
            exit_move = leaves(pos, m)
            if not pos.make(m):
                continue
            legal += 1
            v = TB_NONE
            if exit_move:
                v = negate(self.exit_value())
            elif kind == DOUBLE and pos.ep != 0 and self.ep_rule:
                e = self.ep_best()
                if e != TB_NONE and e >= TB_WINMIN:
                    v = negate(e)  # the opponent wins by taking e.p.: this move is lost
                else:
                    inside += 1
            else:
                inside += 1
            pos.unmake()
            if v != TB_NONE and (best == TB_NONE or v > best):
                best = v
        if legal == 0:
            e = endrules.no_moves_value(pos, attacks.in_check(pos))
            t.val[idx] = TB_WIN if e > 0 else (-TB_WIN if e < 0 else TB_DRAWN)
            return
        if inside > 255:
            raise OverflowError(f"{t.name}: more than 255 moves in one position")
        if best != TB_NONE and best >= TB_WINMIN:
            t.val[idx] = best  # won by leaving the table (the retrograde may find faster)
        elif inside == 0:
            t.val[idx] = best if best <= -TB_WINMIN else TB_DRAWN
        else:
            self.cnt[idx] = inside
            if best == TB_NONE:
                self.lmax[idx] = 0
            elif best <= -TB_WINMIN:
                self.lmax[idx] = best + TB_WIN  # lost in that many plies at the least
            else:
                self.lmax[idx] = -1  # a draw outside the table: never lost

    def unmoves_of(
        self, sq: cython.int[::1], stm: cython.int, d: cython.int, loss: cython.bint
    ) -> cython.int:
        """Step 2 for one position of layer d (lost if `loss`, else won), on the board as
        these squares: update its predecessors; the largest distance set."""
        t: Table = self.t
        pos: Position = self.pos
        nsq: cython.int = t.nsq
        y: cython.int = stm ^ 1
        j: cython.int
        i: cython.int
        r: cython.int
        s: cython.int
        f: cython.int
        n: cython.int
        m: cython.int
        mm: cython.int
        code: cython.int
        e: cython.int
        pv: cython.int
        ok: cython.bint
        pidx: cython.longlong
        top: cython.int = 0
        key: cython.ulonglong
        self.place(sq, stm)
        key = pos.key
        for j in range(t.k):
            code = t.codes[j]
            if (code & 1) != y:
                continue
            s = sq[j]
            for r in range(self.rev_start[j * nsq + s], self.rev_start[j * nsq + s + 1]):
                f = self.rev_sq[r]
                if pos.board[f] != EMPTY:
                    continue
                for i in range(t.k):
                    self.pre[i] = sq[i]
                self.pre[j] = f
                if t.mirror and t.fl[self.pre[0]] > t.mid:
                    continue  # not canonical: its mirror image is the stored predecessor
                pidx = t.index_of(self.pre, y)
                if pidx < 0:
                    continue
                pv = t.val[pidx]
                if loss:
                    if not (pv == 0 or (pv >= TB_WINMIN and pv < TB_WIN - d - 1)):
                        continue
                elif pv != 0 or self.lmax[pidx] < 0:
                    continue
                # the predecessor on the board: is f -> s a legal move there?
                pos.lift(s)
                pos.put(code, f)
                self.cur[j] = f
                pos.side = y
                pos.key = (
                    key ^ pos.z_side ^ pos.z_piece[code * nsq + s] ^ pos.z_piece[code * nsq + f]
                )
                pos.note_check(attacks.in_check(pos))
                pos.cap_end = MAXMOVES  # gen_piece's room in buf (gen sets its own)
                n = movegen.gen_piece(pos, self.buf, 0, f, code, GEN_QUIETS)
                m = -1
                for i in range(n):
                    mm = self.buf[i]
                    if (
                        move_from(mm) == f
                        and move_to(mm) == s
                        and move_promo(mm) == 0
                        and (move_kind(mm) == NORMAL or move_kind(mm) == DOUBLE)
                    ):
                        m = mm
                        break
                ok = False
                if m >= 0 and pos.make(m):
                    ok = True
                    if move_kind(m) == DOUBLE and pos.ep != 0 and self.ep_rule:
                        e = self.ep_best()
                        if e != TB_NONE and (e >= TB_WINMIN or (loss and e > -TB_WINMIN)):
                            # an e.p. capture that wins was counted in step 1; one that draws
                            # keeps this move from winning for the predecessor
                            ok = False
                    pos.unmake()
                pos.lift(f)
                pos.put(code, s)
                self.cur[j] = s
                pos.side = stm
                pos.key = key
                pos.note_check(attacks.in_check(pos))
                if not ok:
                    continue
                self.unmoves += 1
                if loss:
                    t.val[pidx] = TB_WIN - d - 1
                    top = d + 1
                else:
                    self.cnt[pidx] -= 1
                    if self.lmax[pidx] < d + 1:
                        self.lmax[pidx] = d + 1
                    if self.cnt[pidx] == 0:
                        t.val[pidx] = self.lmax[pidx] - TB_WIN
                        if self.lmax[pidx] > top:
                            top = self.lmax[pidx]
        return top

    def run(self, progress: object = None) -> int:
        """Build the table (steps 1 to 3); the longest distance to mate in plies."""
        t: Table = self.t
        size: cython.longlong = t.size
        idx: cython.longlong
        v: cython.int
        top: cython.int = 0
        for idx in range(size):
            self.init_one(idx)
            v = t.val[idx]
            if v >= TB_WINMIN and TB_WIN - v > top:
                top = TB_WIN - v
            elif v <= -TB_WINMIN and v != TB_INVALID and v + TB_WIN > top:
                top = v + TB_WIN
        top = self.layers(0, top, progress)
        self.leave()
        return top

    def leave(self) -> None:
        """Leave the workbench empty for the next table."""
        j: cython.int
        if self.placed:
            for j in range(self.t.k):
                self.pos.lift(self.cur[j])
            self.placed = 0

    def layers(self, d: cython.int, top: cython.int, progress: object) -> cython.int:
        """Step 2 from distance d: each layer's positions update their predecessors, until
        the layer past the longest distance set; that distance."""
        t: Table = self.t
        idx: cython.longlong
        v: cython.int
        j: cython.int
        stm: cython.int
        while d <= top:
            for idx in range(t.size):
                v = t.val[idx]
                if v == d - TB_WIN or v == TB_WIN - d:
                    stm = idx & 1
                    t.decode(idx, self.sq)
                    top = max(top, self.unmoves_of(self.sq, stm, d, v < 0))
                    if t.mirror and t.files - 1 - t.fl[self.sq[0]] > t.mid:
                        for j in range(t.k):
                            self.msq[j] = t.mir[self.sq[j]]
                        top = max(top, self.unmoves_of(self.msq, stm, d, v < 0))
            if progress is not None:
                progress(d, top)
            d += 1
        return top

    def successor(self) -> cython.longlong:
        """The index of the position on the board (after a move inside the table)."""
        return self.t.locate(self.pos)

    def perpetual(self, top: int, progress: object = None, chases: object = None) -> int:
        """Steps 4 and 5 (after run), for rules where a perpetual check loses and, with
        `chases` (a ferz.core.chase.Chases), a perpetual chase; the longest distance.

        Step 4, checks: an open position p is lost for its side to move X when X keeps the
        draw only by checking: every move that does not lose is a check into an open position
        q, where the other side Y has an answer that does not check and leads to another such
        position. The set is the greatest one (positions are taken out of the candidates
        until every one left has its answers), so that Y, never checking, can keep X
        checking forever; the repetition that follows loses for X. A Y that must check back
        somewhere keeps the draw: both sides checking is a draw by the rule.

        Step 5, chases (one set per enemy piece, `slot`): the same with "chases the piece of
        that slot" for "checks" (the moves may check too), and Y's answers must neither check
        nor chase anything: in every cycle that follows, X chased that one piece at each of
        its moves and Y nothing, which the game's judge (ferz.core.chase) scores as X's loss.
        A move that chases one piece and then another never makes such a set: the judge asks
        for one piece chased through the whole cycle (the intersection of what each move
        chased, the piece followed through Y's moves).

        Step 2 then goes on from these losses at distance TB_RULE (or past the longest
        distance already set), and the steps are done again on what is still open. The chase
        verdict also counts X's move into the first position of the cycle: where X could
        enter a position of a chase loop (Y to move) by a move that does not chase the loop's
        piece, X might come back to it and repeat it with that move in the cycle, a draw by
        the judge; a position whose loss relies on such a move is not claimed (the round is
        undone and the position kept out of every later loss: left drawn)."""
        t: Table = self.t
        idx: cython.longlong
        i: cython.longlong
        entries: dict = {}  # the chase loops' positions, Y to move: the slots chased into them
        while True:
            # 1. The candidates, each with the open positions its forced moves lead to.
            checks: dict[int, list[int]] = {}
            chasing: dict = {}  # (idx, slot) -> the open positions its chases lead to
            for idx in range(t.size):
                if t.val[idx] != 0 or self.lmax[idx] < 0:
                    continue  # settled, or a draw by leaving the table
                t.decode(idx, self.sq)
                if t.mirror and t.fl[self.sq[0]] > t.mid:
                    continue  # (not canonical: never probed)
                found = self.forced_checks(idx)
                if found is not None:
                    checks[idx] = found
                if chases is not None:
                    for j, qs in self.forced_chases(idx, chases).items():
                        chasing[idx, j] = qs
            # 2. The greatest sets.
            lost = self.greatest_checks(checks)
            chased = self.greatest_chases(chasing, chases) if chasing else set()
            if not lost and not chased:
                self.leave()
                return top
            now = dict(entries)
            for key in chased:
                for q in chasing[key]:
                    now.setdefault(q, set()).add(key[1])
            old_val = array("h", t.val)
            old_cnt = array("B", self.cnt)
            old_lmax = array("h", self.lmax)
            base = max(TB_RULE, top + 1)
            for idx in lost | {key[0] for key in chased}:
                t.val[idx] = base - TB_WIN
                self.cnt[idx] = 0
            new_top = self.layers(base, base, progress)
            # (mirror images: layers() updates the canonical predecessors of both)
            tainted = []
            if now:
                for i in range(t.size):
                    if (
                        old_val[i] == 0
                        and t.val[i] <= -TB_WINMIN
                        and self.bad_entry(i, now, chases)
                    ):
                        tainted.append(i)
            if not tainted:
                entries = now
                top = new_top
                continue
            for i in range(t.size):  # undo the round
                t.val[i] = old_val[i]
                self.cnt[i] = old_cnt[i]
                self.lmax[i] = old_lmax[i]
            for i in tainted:
                self.lmax[i] = -1  # never lost: left drawn

    def greatest_checks(self, checks: dict) -> set:
        """Step 4's greatest set: out goes a candidate with a check that Y cannot answer
        without checking into the set."""
        lost = set(checks)
        answered: dict[int, bool] = {}
        changed = True
        while changed and lost:
            changed = False
            answered.clear()
            for idx in list(lost):
                for q in checks[idx]:
                    if q not in answered:
                        answered[q] = self.quiet_answer(q, lost)
                    if not answered[q]:
                        lost.discard(idx)
                        changed = True
                        break
        return lost

    def greatest_chases(self, chasing: dict, chases: object) -> set:
        """Step 5's greatest set of (position, slot): out goes a candidate with a chase that
        Y cannot answer, checking nothing and chasing nothing, into the set (the slot's piece
        the same)."""
        lost = set(chasing)
        innocent: dict = {}  # (q, move) -> whether Y's move checks and chases nothing
        answered: dict = {}
        changed = True
        while changed and lost:
            changed = False
            answered.clear()
            for key in list(lost):
                j = key[1]
                for q in chasing[key]:
                    if (q, j) not in answered:
                        answered[q, j] = self.innocent_answer(q, j, lost, chases, innocent)
                    if not answered[q, j]:
                        lost.discard(key)
                        changed = True
                        break
        return lost

    def exactness(self, chases: object, out: object = None) -> int:
        """Step 6 (after perpetual), for rules where a repetition can be lost: every draw
        that a repetition rule might decide otherwise is marked TB_UNSURE; the number marked.

        A side is *safe* at a drawn position when it can keep the draw without ever checking
        or chasing: it has a move that neither checks nor chases anything (ferz.core.chase)
        into a drawn position from which every move of the other side leads to its win or to
        a drawn position where it is safe again, or a move out of the table into its win or
        an exact draw (no cycle goes through a capture). The safe positions are the greatest
        such set. A side that never checks and never chases is neither a perpetual checker
        nor a perpetual chaser in any cycle, so no repetition loses for it. A draw is exact
        when its side to move is safe there and every move of it that does not lose leaves
        the other side safe (or in an exact draw out of the table): then neither side can
        be made to lose. Every other draw is marked."""
        t: Table = self.t
        size: cython.longlong = t.size
        idx: cython.longlong
        q: cython.longlong
        changed: cython.bint = True
        draw = bytearray(size)  # the drawn positions (canonical)
        for idx in range(size):
            if t.val[idx] == 0 or t.val[idx] == TB_DRAWN:  # noqa: SIM109 - C ints
                t.decode(idx, self.sq)
                if not (t.mirror and t.fl[self.sq[0]] > t.mid):
                    draw[idx] = 1
        safe = bytearray(draw)
        # a safe position's safe move, as its successor (-1: for good; -2: none known)
        witness = array("i", [-2]) * size
        while changed:
            changed = False
            kept = bytearray(size)  # per position q: 0 not asked, 1 keeps, 2 does not
            for idx in range(size):
                if not safe[idx]:
                    continue
                q = witness[idx]
                if q == -1 or (q >= 0 and self.keeps(q, safe, kept)):
                    continue
                q = self.safe_move(idx, safe, kept, chases)
                if q == -2:
                    safe[idx] = 0
                    changed = True
                else:
                    witness[idx] = q
        marked: cython.longlong = 0
        if out is not None:
            out.append(safe)  # (for a look at which side is safe where)
        unsure = bytearray(size)  # (marked after: the test reads the values as they were)
        for idx in range(size):
            if draw[idx] and not (safe[idx] and self.leaves_safe(idx, safe)):
                unsure[idx] = 1
                marked += 1
        for idx in range(size):
            if unsure[idx]:
                t.val[idx] = TB_UNSURE
        self.leave()
        return marked

    def moves_here(self, idx: int) -> list:
        """Position idx on the board and its pseudo-legal moves ([] where the game is over
        by a rule)."""
        pos: Position = self.pos
        n: cython.int
        self.t.decode(idx, self.sq)
        self.place(self.sq, idx & 1)
        if endrules.end_value(pos) != NO_END:
            return []
        n = movegen.gen(pos, self.buf, 0, False)
        return [self.buf[k] for k in range(n)]

    def safe_move(self, idx: int, safe: bytearray, kept: bytearray, chases: object) -> int:
        """A move that keeps the side to move at idx safe (see exactness): its successor; -1
        where no move is needed (the game is over), for a win, or for an exit into an exact
        draw; -2 if none."""
        t: Table = self.t
        pos: Position = self.pos
        m: cython.int
        v: cython.int
        q: cython.longlong
        legal: cython.bint = False
        options: list = []
        for m in self.moves_here(idx):
            exit_move = leaves(pos, m)
            if not pos.make(m):
                continue
            legal = True
            if exit_move:
                v = self.exit_value()  # for the other side
                if v <= -TB_WINMIN or v == 0 or v == TB_DRAWN:  # noqa: SIM109 - C ints
                    pos.unmake()
                    return -1
            else:
                q = self.successor()
                v = t.val[q]
                if v <= -TB_WINMIN and v != TB_INVALID:
                    pos.unmake()
                    return -1
                if (v == 0 or v == TB_DRAWN) and not attacks.in_check(pos):  # noqa: SIM109
                    options.append((q, m))
            pos.unmake()
        if not legal:
            return -1  # over: mate or stalemate, valued by the rules
        for q, m in options:
            if not self.keeps(q, safe, kept):
                continue
            self.moves_here(idx)  # (the board back)
            pos.make(m)
            good = self.innocent(m, chases)
            pos.unmake()
            if good:
                return q
        return -2

    def keeps(self, q: int, safe: bytearray, kept: bytearray) -> cython.bint:
        """Whether every move of the side to move at q leaves the other side safe, in its win
        or in an exact draw (cached in kept for the pass)."""
        t: Table = self.t
        pos: Position = self.pos
        m: cython.int
        v: cython.int
        r: cython.longlong
        good: cython.bint = True
        if kept[q]:
            return kept[q] == 1
        for m in self.moves_here(q):
            exit_move = leaves(pos, m)
            if not pos.make(m):
                continue
            if exit_move:
                v = self.exit_value()  # for the side that stays safe
                good = v >= TB_WINMIN or v == 0 or v == TB_DRAWN  # noqa: SIM109 - C ints
            else:
                r = self.successor()
                v = t.val[r]
                good = v >= TB_WINMIN or ((v == 0 or v == TB_DRAWN) and safe[r] != 0)  # noqa: SIM109
            pos.unmake()
            if not good:
                break
        kept[q] = 1 if good else 2
        return good

    def leaves_safe(self, idx: int, safe: bytearray) -> cython.bint:
        """Whether every move of the side to move at idx that does not lose leaves the other
        side safe, or in an exact draw out of the table."""
        t: Table = self.t
        pos: Position = self.pos
        m: cython.int
        v: cython.int
        q: cython.longlong
        good: cython.bint = True
        for m in self.moves_here(idx):
            exit_move = leaves(pos, m)
            if not pos.make(m):
                continue
            if exit_move:
                v = self.exit_value()  # for the other side
                good = v >= TB_WINMIN or v == 0 or v == TB_DRAWN  # noqa: SIM109 - C ints
            else:
                q = self.successor()
                v = t.val[q]
                good = v >= TB_WINMIN or ((v == 0 or v == TB_DRAWN) and safe[q] != 0)  # noqa: SIM109
            pos.unmake()
            if not good:
                return False
        return True

    def square_of(self, j: cython.int) -> cython.int:
        """The square of the piece of slot j (its code unique in the table) on the board."""
        pos: Position = self.pos
        code: cython.int = self.t.codes[j]
        c: cython.int = code & 1
        i: cython.int
        s: cython.int
        for i in range(pos.pcount[c]):
            s = pos.plist[c * MAXP + i]
            if pos.board[s] == code:
                return s
        return -1

    def targets(self, stm: cython.int, chases: object) -> set:
        """The slots whose pieces the side `stm` may chase: the other side's pieces that are
        no king and have a code of their own (two pieces alike: not followed here), if `stm`
        has a piece whose moves can chase (not a king or soldier only)."""
        t: Table = self.t
        role = chases.role
        if not any(
            t.codes[j] & 1 == stm and role[t.codes[j] >> 1] not in ("king", "soldier")
            for j in range(t.k)
        ):
            return set()
        return {
            j
            for j in range(t.k)
            if t.codes[j] & 1 != stm
            and role[t.codes[j] >> 1] != "king"
            and t.count[t.codes[j]] == 1
        }

    def forced_chases(self, idx: int, chases: object) -> dict:
        """The slots of the enemy pieces that every move of position idx's side to move that
        does not lose chases (each an inside move into an open position), each with those
        positions; {} if none."""
        t: Table = self.t
        pos: Position = self.pos
        i: cython.int
        m: cython.int
        n: cython.int
        v: cython.int
        stm: cython.int = idx & 1
        q: cython.longlong
        exit_move: cython.bint
        escape: cython.bint = False
        cand = self.targets(stm, chases)
        if not cand:
            return {}
        t.decode(idx, self.sq)
        self.place(self.sq, stm)
        n = movegen.gen(pos, self.buf, 0, False)
        kept: list = []
        for i in range(n):
            m = self.buf[i]
            exit_move = leaves(pos, m)
            if not pos.make(m):
                continue
            if exit_move:
                escape = negate(self.exit_value()) > -TB_WINMIN
            else:
                q = self.successor()
                v = t.val[q]
                if v >= TB_WINMIN:
                    pass  # lost for the mover
                elif v != 0:
                    escape = True
                else:
                    # a chased piece is one the mover attacks (ferz.core.chase): a sieve
                    cand = {j for j in cand if attackers_of(pos, self.square_of(j), stm, True)}
                    kept.append((m, q))
            pos.unmake()
            if escape or not cand:
                return {}
        if not kept:
            return {}
        for m, _q in kept:
            pos.make(m)
            squares = chases.chased(pos, m)
            cand = {j for j in cand if self.square_of(j) in squares}
            pos.unmake()
            if not cand:
                return {}
        return {j: [q for m, q in kept] for j in cand}

    def innocent_answer(self, q: int, j: int, lost: set, chases: object, cache: dict) -> bool:
        """Whether the side to move at q has a legal move inside the table that neither
        checks nor chases and leads to a position p with (p, j) in `lost`."""
        t: Table = self.t
        pos: Position = self.pos
        i: cython.int
        m: cython.int
        n: cython.int
        good: cython.bint
        t.decode(q, self.sq)
        self.place(self.sq, q & 1)
        n = movegen.gen(pos, self.buf, 0, False)
        for i in range(n):
            m = self.buf[i]
            if leaves(pos, m) or not pos.make(m):
                continue
            good = not attacks.in_check(pos) and (self.successor(), j) in lost
            if good:
                if (q, m) not in cache:
                    cache[q, m] = self.innocent(m, chases)
                good = cache[q, m]
            pos.unmake()
            if good:
                return True
        return False

    def innocent(self, m: int, chases: object) -> bool:
        """Whether the last move, m (it gave no check), chased nothing."""
        pos: Position = self.pos
        them: cython.int = pos.side
        i: cython.int
        s: cython.int
        if chases is None:
            return True  # (no chasing rule)
        for i in range(pos.pcount[them]):
            s = pos.plist[them * MAXP + i]
            if s != pos.royal[them] and attackers_of(pos, s, them ^ 1, True):
                return not chases.chased(pos, m)  # it attacks one: ask the judge
        return True  # (a chased piece is an attacked one)

    def bad_entry(self, idx: int, entries: dict, chases: object) -> bool:
        """Whether the side to move at idx has a move into a chase loop's position that does
        not chase one of the pieces chased into it there (see perpetual)."""
        t: Table = self.t
        pos: Position = self.pos
        i: cython.int
        m: cython.int
        n: cython.int
        stm: cython.int = idx & 1
        q: cython.longlong
        bad: cython.bint
        t.decode(idx, self.sq)
        self.place(self.sq, stm)
        n = movegen.gen(pos, self.buf, 0, False)
        for i in range(n):
            m = self.buf[i]
            if leaves(pos, m) or not pos.make(m):
                continue
            q = self.successor()
            bad = False
            if q in entries:
                near = {j for j in entries[q] if attackers_of(pos, self.square_of(j), stm, True)}
                bad = True
                if near:
                    squares = chases.chased(pos, m)
                    bad = not any(self.square_of(j) in squares for j in near)
            pos.unmake()
            if bad:
                return True
        return False

    def forced_checks(self, idx: int) -> list[int] | None:
        """The open positions that the checks of position idx lead to, if every move of its
        side to move that does not lose is such a check; None otherwise."""
        t: Table = self.t
        pos: Position = self.pos
        i: cython.int
        m: cython.int
        n: cython.int
        v: cython.int
        q: cython.longlong
        check: cython.bint
        exit_move: cython.bint
        self.place(self.sq, idx & 1)
        n = movegen.gen(pos, self.buf, 0, False)
        out: list[int] = []
        escape = False
        for i in range(n):
            m = self.buf[i]
            exit_move = leaves(pos, m)
            if not pos.make(m):
                continue
            check = attacks.in_check(pos)
            if exit_move:
                escape = negate(self.exit_value()) > -TB_WINMIN  # (a draw out of the table)
            else:
                q = self.successor()
                v = t.val[q]
                if v >= TB_WINMIN:
                    pass  # lost for the mover
                elif v != 0 or not check:
                    escape = True  # a draw fixed by a rule, or a quiet move that keeps it
                else:
                    out.append(q)
            pos.unmake()
            if escape:
                return None
        return out if out else None

    def quiet_answer(self, q: int, lost: set) -> bool:
        """Whether the side to move at q has a legal move inside the table that gives no
        check and leads to a position of `lost`."""
        t: Table = self.t
        pos: Position = self.pos
        i: cython.int
        m: cython.int
        n: cython.int
        good: cython.bint
        t.decode(q, self.sq)
        self.place(self.sq, q & 1)
        n = movegen.gen(pos, self.buf, 0, False)
        for i in range(n):
            m = self.buf[i]
            if leaves(pos, m) or not pos.make(m):
                continue
            good = not attacks.in_check(pos) and self.successor() in lost
            pos.unmake()
            if good:
                return True
        return False


def moves_from(pos: Position, code: int, sq: int, target: int, enemy: int) -> list[tuple[int, int]]:
    """(destination, piece code after the move) of every pseudo-legal move of the piece
    `code` on `sq` of an empty position; with `target` >= 0, an `enemy` piece stands there."""
    out = ints(MAXMOVES)
    pos.put(code, sq)
    if target >= 0:
        pos.put(enemy, target)
    pos.side = code & 1
    pos.ep = 0
    pos.key ^= 0x9E3779B97F4A7C15  # another key: the check noted below is this position's
    pos.note_check(False)
    pos.cap_end = MAXMOVES
    n = movegen.gen_piece(pos, out, 0, sq, code, GEN_ALL)
    result = []
    for i in range(n):
        m = out[i]
        promo = move_promo(m)
        result.append((move_to(m), 2 * promo + (code & 1) if promo else code))
    if target >= 0:
        pos.lift(target)
    pos.lift(sq)
    return result


def clear(pos: Position) -> None:
    """Take every piece off the board (no castling, no e.p.): the builders' workbench."""
    sq: cython.int
    for sq in range(pos.nsq):
        if pos.board[sq] > 1:
            pos.lift(sq)
    pos.castling = 0
    pos.ep = 0


def material_key(pos: Position) -> bytes:
    """The piece codes on the board, sorted, as bytes (a table's key: see Builder.exit_value)."""
    codes = ints(TB_MAXK)
    n: cython.int = 0
    c: cython.int
    i: cython.int
    j: cython.int
    p: cython.int
    if pos.pcount[0] + pos.pcount[1] > TB_MAXK:
        return b""
    for c in range(2):
        for i in range(pos.pcount[c]):
            p = pos.board[pos.plist[c * MAXP + i]]
            j = n
            while j > 0 and codes[j - 1] > p:  # insertion: at most eight codes
                codes[j] = codes[j - 1]
                j -= 1
            codes[j] = p
            n += 1
    return bytes([codes[i] for i in range(n)])
