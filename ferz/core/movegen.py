"""Move generation: the pseudo-legal moves of a position, whole, by stage or of one piece.

Functions of a Position (declared in movegen.pxd) that write moves into an int buffer and
return its new length; they touch only ints and typed memoryviews, so the search calls them
without the GIL. Legality is make()'s business (core/position.py).
"""

import cython
from cython.cimports.ferz.core import attacks, endrules
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DOUBLE,
    DROP,
    EMPTY,
    EP,
    F_CAPT,
    F_DIAG,
    F_HOP,
    F_INITIAL,
    F_LEG,
    F_MOVE,
    F_RANK,
    GEN_ALL,
    GEN_CAPTURES,
    GEN_QUIETS,
    MAXMOVES,
    MAXP,
    NO_END,
    NORMAL,
    PROMO,
    WALL,
    encode,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.position import Position


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.nogil
def emit(pos: Position, out: cython.int[::1], n: cython.int, m: cython.int) -> cython.int:
    """Store a move unless this position's list is full (MAXMOVES, or the buffer's end):
    a definition with more moves than that cannot overrun memory; `overflow` records it."""
    if n >= pos.cap_end:
        pos.overflow = 1
        return n
    out[n] = m
    return n + 1


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.nogil
def add(
    pos: Position,
    out: cython.int[::1],
    n: cython.int,
    fr: cython.int,
    to: cython.int,
    p: cython.int,
    mode: cython.int,
) -> cython.int:
    """Append a move with its promotions (mode GEN_ALL); GEN_CAPTURES (a quiet target):
    only the promotions; GEN_QUIETS: only the move that does not promote.

    A pawn promotes to each type under its promotion limit; where promotion is optional
    it may also stay a pawn, except on a square it could never leave (immobility rule)."""
    t: cython.int = p >> 1
    c: cython.int = p & 1
    j: cython.int
    q: cython.int
    if pos.is_pawn[t] and pos.promo_zone[c * pos.nsq + to] and pos.promo_rules.n_promo:
        if mode != GEN_QUIETS:
            for j in range(pos.promo_rules.n_promo):
                q = pos.promo_list[c * pos.promo_rules.n_promo + j]
                if q == 0 or (pos.promo_limit[q] and pos.count[2 * q + c] >= pos.promo_limit[q]):
                    continue
                n = emit(pos, out, n, encode(fr, to, q, PROMO))
        if pos.promo_rules.mand_promo:
            return n
    elif pos.promo_rules.toggle:
        return add_toggle(pos, out, n, fr, to, p, mode)
    elif pos.promoted[t] and (pos.promo_zone[c * pos.nsq + to] or pos.promo_zone[c * pos.nsq + fr]):
        if mode != GEN_QUIETS:
            n = emit(pos, out, n, encode(fr, to, pos.promoted[t], PROMO))
        if pos.promo_rules.mand_piece_promo:
            return n
    if mode == GEN_CAPTURES or (pos.move_rules.immobile and pos.dead[p * pos.nsq + to]):
        return n
    return emit(pos, out, n, encode(fr, to, 0, NORMAL))


def add_toggle(
    pos: Position,
    out: cython.int[::1],
    n: cython.int,
    fr: cython.int,
    to: cython.int,
    p: cython.int,
    mode: cython.int,
) -> cython.int:
    """add() for kyoto and micro shogi (pieceDemotion, piecePromotionOnCapture): a piece
    moving in its zone may turn over, a base piece into its promoted form, a promoted one
    (with pieceDemotion) back into its base; with piecePromotionOnCapture only by capturing;
    compulsory with mandatoryPiecePromotion. A turn on an empty square is a quiet move."""
    t: cython.int = p >> 1
    c: cython.int = p & 1
    q: cython.int = pos.promoted[t]
    if q == 0 and pos.promo_rules.demote and pos.demoted[t] != t:
        q = pos.demoted[t]
    if (
        q
        and (pos.promo_zone[c * pos.nsq + to] or pos.promo_zone[c * pos.nsq + fr])
        and (not pos.promo_rules.promo_capt or pos.board[to] != EMPTY)
    ):
        n = emit(pos, out, n, encode(fr, to, q, PROMO))
        if pos.promo_rules.mand_piece_promo:
            return n
    if mode == GEN_CAPTURES or (pos.move_rules.immobile and pos.dead[p * pos.nsq + to]):
        return n
    return emit(pos, out, n, encode(fr, to, 0, NORMAL))


def gen(
    pos: Position, out: cython.int[::1], n: cython.int, captures_only: cython.bint
) -> cython.int:
    """Append pseudo-legal moves (or only captures, e.p. and promotions) to out[n:], which
    must have room for MAXMOVES moves; more than that are dropped and set `overflow`."""
    us: cython.int = pos.side
    first: cython.int = n
    i: cython.int
    fr: cython.int
    narrow: cython.bint = False
    if pos.end_rules.any and endrules.end_value(pos) != NO_END:
        return n  # the game is over by a variant rule: no moves (as Fairy-Stockfish)
    pos.cap_end = n + MAXMOVES  # callers give room for MAXMOVES moves after n
    if pos.states[pos.ply].noted_key != pos.key:
        pos.note_check(attacks.in_check(pos))
    for i in range(pos.pcount[us]):
        fr = pos.plist[us * MAXP + i]
        n = gen_piece(pos, out, n, fr, pos.board[fr], GEN_CAPTURES if captures_only else GEN_ALL)
    # in check: only moves that parry it
    if pos.states[pos.ply].noted_check and attacks.parry_squares(pos):
        narrow = True
        n = keep_parries(pos, out, first, n)
    if pos.promo_rules.sit_promo:
        n = gen_sittuyin(pos, out, n)
    if not captures_only:
        if pos.castling & (3 << (2 * us)):
            n = gen_castling(pos, out, n)
        if pos.drop_rules.drops:
            n = gen_drops(pos, out, n, narrow)
        # janggi: the king passes (legal if no check)
        if pos.move_rules.king_pass and pos.royal[us] >= 0:
            n = emit(pos, out, n, encode(pos.royal[us], pos.royal[us], 0, NORMAL))
    if pos.move_rules.gen_filter:  # one test for the rules that narrow the list (chess has none)
        if pos.move_rules.must_capture and not captures_only:
            n = only_captures(pos, out, first, n)
        if pos.move_rules.makpong:
            n = makpong_moves(pos, out, first, n)
        if pos.drop_rules.must_drop:
            n = keep_drops(pos, out, first, n, captures_only)
    return n


def gen_quiets(pos: Position, out: cython.int[::1], n: cython.int, first: cython.int) -> cython.int:
    """Append the pseudo-legal moves that gen(captures_only=True) leaves out: quiet moves
    that do not promote, castling and drops. After gen(out, first, True) the two lists
    hold the moves of gen(out, first, False) (room for MAXMOVES from `first`), in the
    variants without `full_gen` rules (mustCapture, mustDrop, sittuyin promotions, game
    ends by variant rules), which need the full list."""
    us: cython.int = pos.side
    start: cython.int = n
    i: cython.int
    fr: cython.int
    narrow: cython.bint = False
    pos.cap_end = first + MAXMOVES
    if pos.states[pos.ply].noted_key != pos.key:
        pos.note_check(attacks.in_check(pos))
    for i in range(pos.pcount[us]):
        fr = pos.plist[us * MAXP + i]
        n = gen_piece(pos, out, n, fr, pos.board[fr], GEN_QUIETS)
    if pos.states[pos.ply].noted_check and attacks.parry_squares(pos):
        narrow = True
        n = keep_parries(pos, out, start, n)
    if pos.castling & (3 << (2 * us)):
        n = gen_castling(pos, out, n)
    if pos.drop_rules.drops:
        n = gen_drops(pos, out, n, narrow)
    if pos.move_rules.king_pass and pos.royal[us] >= 0:
        n = emit(pos, out, n, encode(pos.royal[us], pos.royal[us], 0, NORMAL))
    return n


def keep_parries(
    pos: Position, out: cython.int[::1], first: cython.int, n: cython.int
) -> cython.int:
    """In check, with the squares that parry it marked (attacks.parry_squares): keep of the
    board moves out[first:n] those of the royal piece, e.p. captures (the pawn taken may be
    the checker) and the moves that end on a marked square; the others leave the royal
    piece attacked (make() would find them illegal one by one)."""
    k: cython.int = first
    i: cython.int
    m: cython.int
    royal: cython.int = pos.royal[pos.side]
    for i in range(first, n):
        m = out[i]
        if pos.blk_mark[move_to(m)] == pos.blk_stamp or move_from(m) == royal or move_kind(m) == EP:
            out[k] = m
            k += 1
    return k


def gen_sittuyin(pos: Position, out: cython.int[::1], n: cython.int) -> cython.int:
    """Sittuyin promotions: while the side has no piece of a promotion type (its limit), a
    pawn in the promotion region (any pawn, if it is the last) turns into that piece where
    it stands or on an empty square the piece attacks from there, provided the new piece
    attacks no enemy piece (that it gives no check is left to make)."""
    us: cython.int = pos.side
    nsq: cython.int = pos.nsq
    pawns: cython.int = 0
    i: cython.int
    j: cython.int
    a: cython.int
    fr: cython.int
    to: cython.int
    q: cython.int
    pc: cython.int
    k: cython.int
    for i in range(pos.pcount[us]):
        if pos.is_pawn[pos.board[pos.plist[us * MAXP + i]] >> 1]:
            pawns += 1
    if pawns == 0:
        return n
    for j in range(pos.promo_rules.n_sit):
        q = pos.sit_types[j]
        pc = 2 * q + us
        if pos.promo_limit[q] and pos.count[pc] >= pos.promo_limit[q]:
            continue
        for i in range(pos.pcount[us]):
            fr = pos.plist[us * MAXP + i]
            if not pos.is_pawn[pos.board[fr] >> 1]:
                continue
            if pawns > 1 and not pos.sit_zone[us * nsq + fr]:
                continue
            if pos.region[pc * nsq + fr] and not hits_enemy(pos, pc, fr, fr):
                n = emit(pos, out, n, encode(fr, fr, q, PROMO))
            for a in range(pos.a_start[pc], pos.a_end[pc]):
                if not pos.a_flags[a] & F_CAPT:
                    continue
                to = fr + pos.a_vec[a]
                k = 1
                while pos.board[to] == EMPTY:
                    if pos.region[pc * nsq + to] and not hits_enemy(pos, pc, to, fr):
                        n = emit(pos, out, n, encode(fr, to, q, PROMO))
                    if k >= pos.a_range[a]:
                        break
                    to += pos.a_vec[a]
                    k += 1
    return n


def hits_enemy(pos: Position, p: cython.int, sq: cython.int, empty_sq: cython.int) -> cython.bint:
    """Whether piece p standing on sq attacks an enemy piece, square empty_sq counting as
    empty (simple atoms only: the build refuses others for sittuyin promotions)."""
    them: cython.int = (p & 1) ^ 1
    a: cython.int
    t: cython.int
    k: cython.int
    q: cython.int
    for a in range(pos.a_start[p], pos.a_end[p]):
        if not pos.a_flags[a] & F_CAPT:
            continue
        t = sq + pos.a_vec[a]
        k = 1
        while True:
            q = EMPTY if t == empty_sq else pos.board[t]
            if q != EMPTY:
                if q != WALL and (q & 1) == them:
                    return True
                break
            if k >= pos.a_range[a]:
                break
            t += pos.a_vec[a]
            k += 1
    return False


def keep_drops(
    pos: Position,
    out: cython.int[::1],
    first: cython.int,
    n: cython.int,
    captures_only: cython.bint,
) -> cython.int:
    """mustDrop: while the side has a piece in hand and some drop is legal, only drops are
    legal (Fairy-Stockfish's rule); with captures_only, no move then."""
    us: cython.int = pos.side
    p: cython.int
    i: cython.int
    k: cython.int
    end: cython.int
    start: cython.int = first
    held: cython.bint = False
    legal: cython.bint = False
    for p in range(2 + us, pos.npc, 2):
        if pos.hand[p] > 0 and (
            pos.drop_rules.must_drop_type == 0 or (p >> 1) == pos.drop_rules.must_drop_type
        ):
            held = True  # (mustDropType: only that piece in hand forces a drop)
    if not held:
        return n
    end = n
    if captures_only:
        start = n
        end = gen_drops(pos, out, n, attacks.parry_squares(pos))
    for i in range(start, end):
        if move_kind(out[i]) == DROP and pos.make(out[i]):
            pos.unmake()
            legal = True
            break
    if not legal:
        return n
    if captures_only:
        return first
    k = first
    for i in range(first, n):
        if move_kind(out[i]) == DROP:
            out[k] = out[i]
            k += 1
    return k


def gen_piece(
    pos: Position,
    out: cython.int[::1],
    n: cython.int,
    fr: cython.int,
    p: cython.int,
    mode: cython.int,
) -> cython.int:
    """Append the pseudo-legal moves of piece p standing on fr: all (GEN_ALL), the
    captures, e.p. and promotions (GEN_CAPTURES) or the rest (GEN_QUIETS)."""
    us: cython.int = p & 1
    them: cython.int = us ^ 1
    nsq: cython.int = pos.nsq
    ep: cython.int = pos.ep
    captures: cython.bint = mode != GEN_QUIETS
    quiets: cython.bint  # this atom's moves to empty squares are wanted
    a: cython.int
    to: cython.int
    q: cython.int
    v: cython.int
    fl: cython.int
    rng: cython.int
    k: cython.int
    start: cython.int = n  # this piece's moves begin here (seirawanGating copies them)
    # quiet moves are wanted unless only captures are, and then still if it may promote
    want_q: cython.bint = mode != GEN_CAPTURES or pos.can_promote[p >> 1] != 0
    # a piece whose every move is one move (no promotion, no turning over, no square it
    # could never leave): its moves skip add()'s tests (most moves in chess)
    plain: cython.bint = not (
        pos.is_pawn[p >> 1]
        or pos.promo_rules.toggle
        or pos.promoted[p >> 1]
        or pos.move_rules.immobile
    )
    for a in range(pos.a_start[p], pos.a_end[p]):
        v = pos.a_vec[a]
        fl = pos.a_flags[a]
        rng = pos.a_range[a]
        if fl & (F_INITIAL | F_RANK | F_LEG):
            if fl & F_INITIAL and not pos.dbl_zone[us * nsq + fr]:
                continue
            if fl & F_RANK and pos.rel_rank[us * nsq + fr] < pos.a_minr[a]:
                continue
            if fl & F_LEG and (
                pos.board[fr + pos.a_leg[a]] != EMPTY or pos.board[fr + pos.a_leg2[a]] != EMPTY
            ):
                continue
        quiets = fl & F_MOVE and want_q
        if not quiets and not (captures and fl & F_CAPT):
            continue
        to = fr + v
        k = 1
        if fl & (F_HOP | F_DIAG):
            if fl & F_DIAG:  # (one test for the rare kinds: hoppers and palace diagonals)
                n = gen_diagonal(pos, out, n, fr, p, a, mode, quiets)
                continue
            # cannon: slide to a screen, then move on (quietly if allowed) to a capture
            while pos.board[to] == EMPTY and k < rng:
                to += v
                k += 1
            if pos.board[to] <= WALL:
                continue
            if pos.jcannon[p >> 1] and (pos.board[to] >> 1) == (p >> 1):
                continue  # a janggi cannon does not hop over a cannon
            to += v
            k += 1
            while k <= rng:
                q = pos.board[to]
                if q == EMPTY:
                    if quiets and pos.region[p * nsq + to]:
                        n = add(pos, out, n, fr, to, p, mode)
                    to += v
                    k += 1
                    continue
                if q != WALL and (q & 1) == them and fl & F_CAPT and captures:
                    if pos.region[p * nsq + to] and not (
                        pos.jcannon[p >> 1] and (q >> 1) == (p >> 1)
                    ):
                        n = add(pos, out, n, fr, to, p, GEN_ALL)
                break
            continue
        while True:
            q = pos.board[to]
            if q == EMPTY:
                if quiets:
                    if pos.region[p * nsq + to]:
                        if plain:
                            if mode != GEN_CAPTURES:
                                n = emit(pos, out, n, encode(fr, to, 0, NORMAL))
                        elif (
                            fl & F_INITIAL
                            and pos.is_pawn[p >> 1]
                            and not pos.promo_zone[us * nsq + to]
                        ):
                            if mode != GEN_CAPTURES:
                                n = emit(pos, out, n, encode(fr, to, 0, DOUBLE))
                        else:  # (a double step into the zone promotes, as in FSF)
                            n = add(pos, out, n, fr, to, p, mode)
                elif to == ep and fl & F_CAPT and pos.is_pawn[p >> 1] and captures:
                    n = emit(pos, out, n, encode(fr, to, 0, EP))
                if k >= rng:
                    break
                to += v
                k += 1
                continue
            if q != WALL and (q & 1) == them and fl & F_CAPT and captures:
                if pos.region[p * nsq + to]:
                    if plain:
                        n = emit(pos, out, n, encode(fr, to, 0, NORMAL))
                    else:
                        n = add(pos, out, n, fr, to, p, GEN_ALL)
            break
    if pos.gates and pos.gates & pos.gate_bit[us * nsq + fr]:
        if pos.gate_rules.seirawan:
            n = gen_gated(pos, out, n, start, fr, p)
        elif mode != GEN_CAPTURES:
            n = gen_leaps(pos, out, n, fr, p)
    return n


# --- gating and two-board games (vargate)


def gen_gated(
    pos: Position,
    out: cython.int[::1],
    n: cython.int,
    start: cython.int,
    fr: cython.int,
    p: cython.int,
) -> cython.int:
    """seirawanGating: each normal move of piece p from its open gate fr (out[start:n]) once
    more for every type in hand that may be dropped on fr, which enters there (the type in
    the move's promotion field). Pawns do not gate (Fairy-Stockfish 11.1)."""
    us: cython.int = p & 1
    end: cython.int = n
    i: cython.int
    q: cython.int
    if pos.is_pawn[p >> 1]:
        return n
    for q in range(2 + us, pos.npc, 2):
        if pos.hand[q] <= 0 or not pos.drop_zone[q * pos.nsq + fr]:
            continue
        for i in range(start, end):
            if move_kind(out[i]) == NORMAL:
                n = emit(pos, out, n, out[i] | ((q >> 1) << 18))
    return n


def gen_gated_castle(
    pos: Position, out: cython.int[::1], n: cython.int, kf: cython.int, rf: cython.int
) -> cython.int:
    """seirawanGating: castling with a piece from hand entering on the king's square or (bit
    27 of the move) on the rook's, where that gate is open and the type may be dropped."""
    us: cython.int = pos.side
    nsq: cython.int = pos.nsq
    q: cython.int
    for q in range(2 + us, pos.npc, 2):
        if pos.hand[q] <= 0:
            continue
        if pos.gates & pos.gate_bit[us * nsq + kf] and pos.drop_zone[q * nsq + kf]:
            n = emit(pos, out, n, encode(kf, rf, q >> 1, CASTLE))
        if pos.gates & pos.gate_bit[us * nsq + rf] and pos.drop_zone[q * nsq + rf]:
            n = emit(pos, out, n, encode(kf, rf, q >> 1, CASTLE) | (1 << 27))
    return n


def gen_diagonal(
    pos: Position,
    out: cython.int[::1],
    n: cython.int,
    fr: cython.int,
    p: cython.int,
    a: cython.int,
    mode: cython.int,
    quiets: cython.bint,
) -> cython.int:
    """The moves of atom a of piece p on fr along the palace diagonals (diagonalLines): from
    a square of the lines, stepping, riding or (a janggi cannon) hopping over one screen, on
    squares of the lines only."""
    them: cython.int = (p & 1) ^ 1
    nsq: cython.int = pos.nsq
    v: cython.int = pos.a_vec[a]
    fl: cython.int = pos.a_flags[a]
    rng: cython.int = pos.a_range[a]
    captures: cython.bint = mode != GEN_QUIETS and (fl & F_CAPT) != 0
    to: cython.int = fr + v
    k: cython.int = 1
    q: cython.int
    if not pos.diag_ok[fr]:
        return n
    if fl & F_HOP:
        while pos.diag_ok[to] and pos.board[to] == EMPTY and k < rng:
            to += v
            k += 1
        if not pos.diag_ok[to] or pos.board[to] <= WALL or k >= rng:
            return n
        if pos.jcannon[p >> 1] and (pos.board[to] >> 1) == (p >> 1):
            return n
        to += v
        k += 1
    while pos.diag_ok[to]:
        q = pos.board[to]
        if q == EMPTY:
            if quiets and pos.region[p * nsq + to]:
                n = add(pos, out, n, fr, to, p, mode)
        else:
            if (q & 1) == them and captures and pos.region[p * nsq + to]:
                if not (fl & F_HOP and pos.jcannon[p >> 1] and (q >> 1) == (p >> 1)):
                    n = add(pos, out, n, fr, to, p, GEN_ALL)
            break
        if k >= rng:
            break
        to += v
        k += 1
    return n


def gen_leaps(
    pos: Position, out: cython.int[::1], n: cython.int, fr: cython.int, p: cython.int
) -> cython.int:
    """cambodianMoves from a gate square: the king's leap to either square a knight's
    move away on the next rank (not out of check), the met's jump two squares ahead;
    both only onto empty squares."""
    us: cython.int = p & 1
    fwd: cython.int = pos.stride if us == 0 else -pos.stride
    to: cython.int
    dx: cython.int
    check: cython.bint
    if pos.is_royal[p >> 1]:
        if us == pos.side and pos.states[pos.ply].noted_key == pos.key:
            check = pos.states[pos.ply].noted_check != 0
        else:
            check = attacks.attacked(pos, fr, us ^ 1)
        if check:
            return n
        for dx in range(-2, 3, 4):
            to = fr + fwd + dx
            if pos.board[to] == EMPTY and pos.region[p * pos.nsq + to]:
                n = add(pos, out, n, fr, to, p, GEN_ALL)
    elif (p >> 1) == pos.gate_rules.cambodian_fers:
        to = fr + 2 * fwd
        if pos.board[to] == EMPTY and pos.region[p * pos.nsq + to]:
            n = add(pos, out, n, fr, to, p, GEN_ALL)
    return n


def only_captures(
    pos: Position, out: cython.int[::1], first: cython.int, n: cython.int
) -> cython.int:
    """mustCapture: if any move of out[first:n] is a legal capture, keep only the captures
    (with a royal piece a capture must also be legal to count, as in losers)."""
    i: cython.int
    k: cython.int = first
    m: cython.int
    kind: cython.int
    found: cython.bint = False
    royal: cython.bint = pos.royal[pos.side] >= 0
    for i in range(first, n):
        m = out[i]
        kind = move_kind(m)
        if kind == EP or (kind != DROP and kind != CASTLE and pos.board[move_to(m)] > WALL):
            if not royal:
                found = True
                break
            if pos.make(m):
                pos.unmake()
                found = True
                break
    if not found:
        return n
    for i in range(first, n):
        m = out[i]
        kind = move_kind(m)
        if kind == EP or (kind != DROP and kind != CASTLE and pos.board[move_to(m)] > WALL):
            out[k] = m
            k += 1
    return k


def makpong_moves(
    pos: Position, out: cython.int[::1], first: cython.int, n: cython.int
) -> cython.int:
    """makpongRule: a royal piece in check may move only to capture the one piece checking
    it (so not at all under a double check); the other moves of out[first:n] stay."""
    us: cython.int = pos.side
    k: cython.int = pos.royal[us]
    i: cython.int
    j: cython.int = first
    m: cython.int
    to: cython.int
    victim: cython.int
    other: cython.bint
    if k < 0 or not attacks.in_check(pos):
        return n
    for i in range(first, n):
        m = out[i]
        if move_from(m) == k and move_kind(m) != DROP and move_kind(m) != CASTLE:
            to = move_to(m)
            victim = pos.board[to]
            if victim <= WALL or (victim & 1) == us:
                continue
            pos.board[to] = WALL  # the victim blocks lines but attacks nothing
            other = attacks.attacked(pos, k, us ^ 1)
            pos.board[to] = victim
            if other:
                continue
        out[j] = m
        j += 1
    return j


def gen_castling(pos: Position, out: cython.int[::1], n: cython.int) -> cython.int:
    """Append castling moves whose squares are free and whose king path is not attacked."""
    us: cython.int = pos.side
    them: cython.int = us ^ 1
    r: cython.int
    kf: cython.int
    rf: cython.int
    kt: cython.int
    rt: cython.int
    lo: cython.int
    hi: cython.int
    s: cython.int
    step: cython.int
    ok: cython.bint
    for r in range(2 * us, 2 * us + 2):
        if not pos.castling & (1 << r):
            continue
        kf, rf = pos.c_king_from[r], pos.c_rook_from[r]
        kt, rt = pos.c_king_to[r], pos.c_rook_to[r]
        lo = min(min(kf, rf), min(kt, rt))
        hi = max(max(kf, rf), max(kt, rt))
        ok = True
        for s in range(lo, hi + 1):
            if s != kf and s != rf and pos.board[s] != EMPTY:
                ok = False
                break
        if not ok:
            continue
        if not pos.is_royal[pos.board[kf] >> 1]:
            # a non-royal king (giveaway's commoner) castles through attacked squares
            n = emit(pos, out, n, encode(kf, rf, 0, CASTLE))
            continue
        # the king may not start in, pass through or (checked by make) land on an attacked
        # square; test the start square even when the king stays there (Chess960)
        if (
            attacks.castle_attacked(pos, kf, them, kf)
            if pos.move_rules.blast
            else attacks.attacked(pos, kf, them)
        ):
            return n
        step = 1 if kt > kf else -1
        s = kf + step if kt != kf else kt
        while s != kt:
            if (
                attacks.castle_attacked(pos, s, them, kf)
                if pos.move_rules.blast
                else attacks.attacked(pos, s, them)
            ):
                ok = False
                break
            s += step
        if ok:
            n = emit(pos, out, n, encode(kf, rf, 0, CASTLE))
            if pos.gate_rules.seirawan and pos.gates:
                n = gen_gated_castle(pos, out, n, kf, rf)
    return n


def gen_drops(
    pos: Position, out: cython.int[::1], n: cython.int, narrow: cython.bint
) -> cython.int:
    """Append drops of pieces in hand on empty squares where that piece may be dropped
    (region, drop region, pawn ranks, immobility) and not on a file it may not double; with
    `narrow` (attacks.parry_squares just returned True) only on the squares it marked."""
    us: cython.int = pos.side
    p: cython.int
    i: cython.int
    sq: cython.int
    nodbl: cython.int = 0
    bishop: cython.int = 0
    free_dark: cython.int = 0
    free_light: cython.int = 0
    have_dark: cython.bint = False
    have_light: cython.bint = False
    dark: cython.bint
    fd: cython.int
    fl: cython.int
    turned: cython.int
    if pos.drop_rules.opp_bishop and pos.hand[2 * pos.drop_rules.opp_bishop + us] > 0:
        # dropOppositeColoredBishop: the bishops still in hand need free squares of a
        # colour each that no own bishop holds
        bishop = 2 * pos.drop_rules.opp_bishop + us
        for i in range(pos.pcount[us]):
            sq = pos.plist[us * MAXP + i]
            if pos.board[sq] == bishop:
                if (pos.sq_file[sq] + pos.sq_rank[sq]) & 1:
                    have_light = True
                else:
                    have_dark = True
        for i in range(pos.nplay):
            sq = pos.sq_list[i]
            if pos.board[sq] == EMPTY and pos.drop_zone[bishop * pos.nsq + sq]:
                if (pos.sq_file[sq] + pos.sq_rank[sq]) & 1:
                    free_light += 1
                else:
                    free_dark += 1
    if pos.drop_rules.nodbl_type and pos.hand[2 * pos.drop_rules.nodbl_type + us] > 0:
        nodbl = 2 * pos.drop_rules.nodbl_type + us
        for i in range(pos.files):
            pos.file_count[i] = 0
        for i in range(pos.pcount[us]):
            sq = pos.plist[us * MAXP + i]
            if pos.board[sq] == nodbl:
                pos.file_count[pos.file_idx[sq]] += 1
    for p in range(2 + us, pos.npc, 2):
        if pos.hand[p] <= 0:
            continue
        turned = pos.promoted[p >> 1] if pos.drop_rules.drop_promo else 0  # dropPromoted: +L@b1 too
        for i in range(pos.nplay):
            sq = pos.sq_list[i]
            if pos.board[sq] != EMPTY or not pos.drop_zone[p * pos.nsq + sq]:
                continue
            if narrow and pos.blk_mark[sq] != pos.blk_stamp:
                continue
            if p == nodbl and pos.file_count[pos.file_idx[sq]] >= pos.drop_rules.nodbl_count:
                continue
            if bishop:
                dark = ((pos.sq_file[sq] + pos.sq_rank[sq]) & 1) == 0
                if p == bishop:
                    if have_dark if dark else have_light:
                        continue
                else:
                    fd, fl = free_dark, free_light
                    if pos.drop_zone[bishop * pos.nsq + sq]:
                        if dark:
                            fd -= 1
                        else:
                            fl -= 1
                    if (not have_dark and fd > 0) + (not have_light and fl > 0) < pos.hand[bishop]:
                        continue
            if turned:
                n = emit(pos, out, n, encode(p >> 1, sq, turned, DROP))
            n = emit(pos, out, n, encode(p >> 1, sq, 0, DROP))
    return n


def is_pseudo_legal(pos: Position, m: cython.int) -> cython.bint:
    """Whether m is among the pseudo-legal moves (validates TT moves before generation):
    an ordinary move is looked for among its piece's moves only."""
    fr: cython.int = move_from(m)
    p: cython.int
    n: cython.int
    i: cython.int
    kind: cython.int = move_kind(m)
    if kind == DROP and not (pos.move_rules.full_gen or pos.drop_rules.opp_bishop):
        return is_drop(pos, m)
    if kind == CASTLE or kind == DROP or pos.move_rules.full_gen:  # noqa: SIM109
        n = gen(pos, pos.scratch, 0, False)
    else:
        p = pos.board[fr]
        if p <= WALL or (p & 1) != pos.side:
            return False
        pos.cap_end = MAXMOVES
        n = gen_piece(pos, pos.scratch, 0, fr, p, GEN_ALL)
    for i in range(n):
        if pos.scratch[i] == m:
            return True
    return False


@cython.cfunc
@cython.exceptval(check=False)
@cython.nogil
def is_drop(pos: Position, m: cython.int) -> cython.bint:
    """Whether gen_drops() would list the drop m, decided without generating: drops are
    frequent TT moves and killers in drop games, and a full generation cost 6 % of a shogi
    search. Not for dropOppositeColoredBishop or the full_gen rules (they generate)."""
    t: cython.int = move_from(m)
    sq: cython.int = move_to(m)
    promo: cython.int = move_promo(m)
    p: cython.int = 2 * t + pos.side
    i: cython.int
    at: cython.int
    k: cython.int = 0
    if m != encode(t, sq, promo, DROP) or t < 1 or p >= pos.npc or sq >= pos.nsq:
        return False
    if pos.hand[p] <= 0 or pos.board[sq] != EMPTY or not pos.drop_zone[p * pos.nsq + sq]:
        return False
    if promo and not (pos.drop_rules.drop_promo and promo == pos.promoted[t]):
        return False
    if p == 2 * pos.drop_rules.nodbl_type + pos.side and pos.drop_rules.nodbl_type:
        for i in range(pos.pcount[pos.side]):  # no more than nodbl_count of it on a file
            at = pos.plist[pos.side * MAXP + i]
            if pos.board[at] == p and pos.file_idx[at] == pos.file_idx[sq]:
                k += 1
        if k >= pos.drop_rules.nodbl_count:
            return False
    return not attacks.parry_squares(pos) or pos.blk_mark[sq] == pos.blk_stamp


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.nogil
def _castle_attacked(
    pos: Position, sq: cython.int, by: cython.int, king: cython.int
) -> cython.bint:
    """Whether `by` attacks a square of the king's castling path (atomic: its own test)."""
    if pos.move_rules.blast:
        return attacks.castle_attacked(pos, sq, by, king)
    return attacks.attacked(pos, sq, by)
