"""Attack probes: whether a square is attacked, by which piece, and whether a move checks.

Functions of a Position (declared in attacks.pxd): the tables of core/tables.py walked outwards
from a square (any piece the rules allow) or piece by piece (variants whose pieces are all
plain leapers and riders, `chk_all`). Ints and typed memoryviews only, callable without the GIL.
"""

import cython
from cython.cimports.ferz.core.defs import (
    CASTLE,
    DROP,
    EMPTY,
    EP,
    F_CAPT,
    F_LEG,
    LINE_REACH,
    LINE_SPAN,
    MAXP,
    PROBE_DIAG,
    PROBE_HOP,
    PROBE_LEG,
    PROMO,
    WALL,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from cython.cimports.ferz.core.position import Position


def attacked(pos: Position, sq: cython.int, by: cython.int) -> cython.bint:
    """Whether colour `by` attacks square sq."""
    if pos.move_rules.chk_all:
        return attacker(pos, sq, by, 0) >= 0
    return probe_attacker(pos, sq, by, 0) >= 0


def attacker(pos: Position, sq: cython.int, by: cython.int, least: cython.bint) -> cython.int:
    """Square of a piece of colour `by` attacking sq (with `least`, of the least valuable
    one by piece code order of `lvalue`), or -1; piece by piece through the direct-check
    table, for variants where every piece is simple (chk_all). Squares emptied by SEE
    (board EMPTY, still in the piece list) attack nothing."""
    i: cython.int
    s: cython.int
    p: cython.int
    best: cython.int = -1
    best_value: cython.int = 1 << 30
    fx: cython.int = pos.sq_file[sq] + LINE_REACH
    fy: cython.int = pos.sq_rank[sq] + LINE_REACH
    for i in range(pos.pcount[by]):
        s = pos.plist[by * MAXP + i]
        if hit(pos, s, sq, fx, fy) < 0:
            continue
        if not least:
            return s
        p = pos.board[s]
        if pos.lvalue[p] < best_value:
            best_value = pos.lvalue[p]
            best = s
    return best


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.nogil
def hit(pos: Position, s: cython.int, sq: cython.int, fx: cython.int, fy: cython.int) -> cython.int:
    """Where pieces are simple (chk_all): the direct-check table's index for the piece on s
    and square sq (file fx, rank fy, both + LINE_REACH) if that piece attacks sq (a leap or
    step, chk_kind 1, or a rider's open line, chk_kind 2 with its step chk_vec), else -1."""
    j: cython.int = pos.board[s] * LINE_SPAN * LINE_SPAN + (fx - pos.sq_file[s]) * LINE_SPAN
    kind: cython.int
    u: cython.int
    t: cython.int
    j += fy - pos.sq_rank[s]
    kind = pos.chk_kind[j]
    if kind == 0:
        return -1
    if kind == 2:
        u = pos.chk_vec[j]
        t = s + u
        while t != sq and pos.board[t] == EMPTY:
            t += u
        if t != sq:
            return -1
    return j


def parry_squares(pos: Position) -> cython.bint:
    """Whether the side to move is in check where pieces are simple (chk_all), with the
    squares where a piece other than the royal one can parry it marked (blk_mark ==
    blk_stamp): the one checker's square (a capture) and, for a rider, the squares between
    it and the royal piece (a block); none for two checkers. Where pieces are simple a move
    that ends elsewhere (e.p. aside) leaves the checker and its line as they were, and a
    drop (on an empty square) parries only by blocking. False where moves are not narrowed:
    not in check, or rules under which a move can parry a check otherwise."""
    us: cython.int = pos.side
    k: cython.int = pos.royal[us]
    them: cython.int = us ^ 1
    fx: cython.int
    fy: cython.int
    i: cython.int
    j: cython.int
    s: cython.int
    t: cython.int
    u: cython.int
    found: cython.int = 0
    if k < 0 or not pos.move_rules.chk_all or pos.move_rules.blast or pos.move_rules.flying:
        return False
    if pos.states[pos.ply].noted_key != pos.key:
        pos.note_check(in_check(pos))
    if not pos.states[pos.ply].noted_check:
        return False
    if pos.blk_stamp >= 1 << 30:  # (a stamp per check: start again long before it wraps)
        for i in range(pos.nsq):
            pos.blk_mark[i] = 0
        pos.blk_stamp = 0
    pos.blk_stamp += 1
    fx = pos.sq_file[k] + LINE_REACH
    fy = pos.sq_rank[k] + LINE_REACH
    for i in range(pos.pcount[them]):
        s = pos.plist[them * MAXP + i]
        j = hit(pos, s, k, fx, fy)
        if j < 0:
            continue
        found += 1
        if found > 1:
            pos.blk_stamp += 1  # two checkers: only the royal piece's moves can parry
            return True
        pos.blk_mark[s] = pos.blk_stamp
        if pos.chk_kind[j] == 2:
            u = pos.chk_vec[j]
            t = s + u
            while t != k:
                pos.blk_mark[t] = pos.blk_stamp
                t += u
    return found > 0


def probe_attacker(pos: Position, sq: cython.int, by: cython.int, least: cython.bint) -> cython.int:
    """attacker() through the attack probes (any piece the rules allow): walks them
    outwards from sq, so pieces lifted off the board by SEE reveal those behind them."""
    return probe(pos, sq, by, least, False, -1)


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
@cython.nogil
def probe(
    pos: Position,
    sq: cython.int,
    by: cython.int,
    least: cython.bint,
    anywhere: cython.bint,
    only: cython.int,
) -> cython.int:
    """probe_attacker's walk; with `anywhere` a piece also attacks squares its kind may not
    stand on and from ranks it may not step sideways from (a river or palace ignored, as the
    chasing rule's pins and discoveries count them), with `only` >= 0 only the piece on that
    square counts (the one question of reaches())."""
    i: cython.int
    v: cython.int
    t: cython.int
    k: cython.int
    q: cython.int
    rng: cython.int
    kind: cython.int
    screen: cython.int = 0
    mask: cython.ulonglong
    one: cython.ulonglong = 1
    best: cython.int = -1
    best_value: cython.int = 1 << 30
    for i in range(pos.pr_start[by], pos.pr_start[by + 1]):
        v = pos.pr_vec[i]
        kind = pos.pr_kind[i]
        rng = pos.pr_range[i]
        t = sq - v
        if kind >= PROBE_LEG:  # (one test for the rare kinds: lame leapers, palace diagonals)
            if kind == PROBE_DIAG:
                t = diag_attacker(pos, sq, i, by)
                if t < 0:
                    continue
                q = pos.board[t]
            else:
                q = pos.board[t]
                if not (
                    q > WALL
                    and (q & 1) == by
                    and pos.pr_near[i] & (one << (q >> 1))
                    and pos.board[t + pos.pr_leg[i]] == EMPTY
                    and pos.board[t + pos.pr_leg2[i]] == EMPTY
                ):
                    continue
        else:
            k = 1
            while pos.board[t] == EMPTY and k < rng:
                t -= v
                k += 1
            if kind == PROBE_HOP:
                if pos.board[t] <= WALL or k >= rng:
                    continue
                screen = pos.board[t]
                t -= v
                k += 1
                while pos.board[t] == EMPTY and k < rng:
                    t -= v
                    k += 1
                if pos.jcannon[pos.board[t] >> 1] and kin(pos.board[t], screen, pos.board[sq]):
                    continue  # a janggi cannon hops over no cannon and takes none
            q = pos.board[t]
            if q <= WALL or (q & 1) != by:
                continue
            mask = pos.pr_near[i] if k == 1 else pos.pr_far[i]
            if not mask & (one << (q >> 1)):
                continue
        if only >= 0 and t != only:
            continue
        if not pos.region[q * pos.nsq + sq] and not anywhere:
            continue
        if pos.pr_minr[i] != 0 and not anywhere and not stands(pos, t, by, pos.pr_minr[i]):
            continue
        if not least:
            return t
        if pos.lvalue[q] < best_value:
            best_value = pos.lvalue[q]
            best = t
    return best


def kin(q: cython.int, screen: cython.int, target: cython.int) -> cython.bint:
    """Janggi cannon q: whether its screen or its target is a piece of its own type (it may
    neither hop over nor capture a cannon)."""
    return (screen >> 1) == (q >> 1) or (target > WALL and (target >> 1) == (q >> 1))


def diag_attacker(pos: Position, sq: cython.int, i: cython.int, by: cython.int) -> cython.int:
    """The square of a piece of `by` attacking sq through probe i, a palace-diagonal atom
    (a step, a ride or, with the probe's leg set, a hop), or -1: sq, the squares passed and
    the attacker's square must all lie on the diagonal lines."""
    v: cython.int = pos.pr_vec[i]
    rng: cython.int = pos.pr_range[i]
    hop: cython.bint = pos.pr_leg[i] != 0
    t: cython.int = sq - v
    k: cython.int = 1
    q: cython.int
    screen: cython.int = 0
    mask: cython.ulonglong
    one: cython.ulonglong = 1
    if not pos.diag_ok[sq] or not pos.diag_ok[t]:
        return -1
    while pos.board[t] == EMPTY and k < rng:
        t -= v
        k += 1
        if not pos.diag_ok[t]:
            return -1
    if hop:
        if pos.board[t] <= WALL or k >= rng:
            return -1
        screen = pos.board[t]
        t -= v
        k += 1
        if not pos.diag_ok[t]:
            return -1
        while pos.board[t] == EMPTY and k < rng:
            t -= v
            k += 1
            if not pos.diag_ok[t]:
                return -1
    q = pos.board[t]
    if q <= WALL or (q & 1) != by:
        return -1
    mask = pos.pr_near[i] if k == 1 else pos.pr_far[i]
    if not mask & (one << (q >> 1)):
        return -1
    if hop and pos.jcannon[q >> 1] and kin(q, screen, pos.board[sq]):
        return -1
    return t


def kings_see(pos: Position) -> cython.bint:
    """Bikjang: the two royals on one file or rank with nothing between them."""
    a: cython.int = pos.royal[0]
    b: cython.int = pos.royal[1]
    step: cython.int
    s: cython.int
    if a < 0 or b < 0:
        return False
    if pos.sq_file[a] == pos.sq_file[b]:
        step = pos.stride
    elif pos.sq_rank[a] == pos.sq_rank[b]:
        step = 1
    else:
        return False
    s = min(a, b) + step
    while s < max(a, b):
        if pos.board[s] != EMPTY:
            return False
        s += step
    return True


def shak(pos: Position) -> cython.int:
    """Shatar: the checks on the side to move's king as bits, 1 in check, 2 by a shak piece
    (knight, rook, bers), 4 by a piece other than a knight; through the direct-check table
    (the build allows the rule only where every piece is plain: chk_all)."""
    k: cython.int = pos.royal[pos.side]
    by: cython.int = pos.side ^ 1
    i: cython.int
    s: cython.int
    p: cython.int
    flags: cython.int = 0
    if k < 0:
        return 0
    for i in range(pos.pcount[by]):
        s = pos.plist[by * MAXP + i]
        if hit(pos, s, k, pos.sq_file[k] + LINE_REACH, pos.sq_rank[k] + LINE_REACH) < 0:
            continue
        p = pos.board[s]
        flags |= 1
        if pos.shak_type[p >> 1]:
            flags |= 2
        if (p >> 1) != pos.end_rules.mate_knight:
            flags |= 4
    return flags


def stands(pos: Position, sq: cython.int, color: cython.int, cond: cython.int) -> cython.bint:
    """A probe's condition on the attacker's square: -1 = in its double-step region
    (initial moves), n > 0 = on relative rank n or beyond (xiangqi soldier)."""
    if cond < 0:
        return pos.dbl_zone[color * pos.nsq + sq] != 0
    return pos.rel_rank[color * pos.nsq + sq] >= cond


def in_check(pos: Position) -> cython.bint:
    """Whether the side to move's royal piece is attacked (in atomic not while it touches
    the enemy king: no capture can take it then)."""
    k: cython.int = pos.royal[pos.side]
    if k < 0 or not attacked(pos, k, pos.side ^ 1):
        return False
    return not pos.move_rules.blast or not touching(pos, k, pos.royal[pos.side ^ 1])


def touching(pos: Position, a: cython.int, b: cython.int) -> cython.bint:
    """Whether squares a and b (b may be -1: none) are next to each other."""
    if b < 0:
        return False
    return abs(pos.sq_file[a] - pos.sq_file[b]) <= 1 and abs(pos.sq_rank[a] - pos.sq_rank[b]) <= 1


def blast_legal(pos: Position, us: cython.int) -> cython.bint:
    """Atomic legality after a move by `us`: its own king must survive the explosion;
    exploding the enemy king is always legal; else the king may not stand attacked
    unless it touches the enemy king."""
    k: cython.int = pos.royal[us]
    o: cython.int = pos.royal[us ^ 1]
    if k < 0:
        return False
    if o < 0:
        return True
    return touching(pos, k, o) or not attacked(pos, k, us ^ 1)


def castle_attacked(pos: Position, sq: cython.int, by: cython.int, king: cython.int) -> cython.bint:
    """Atomic castling: whether `by` attacks sq on the king's path, with the king lifted
    off its square, a square next to the enemy king being safe."""
    p: cython.int = pos.board[king]
    a: cython.bint
    if touching(pos, sq, pos.royal[by]):
        return False
    pos.board[king] = EMPTY
    a = attacked(pos, sq, by)
    pos.board[king] = p
    return a


def kings_facing(pos: Position) -> cython.bint:
    """Flying general: the two royals on one file with nothing between them."""
    a: cython.int = pos.royal[0]
    b: cython.int = pos.royal[1]
    s: cython.int
    if a < 0 or b < 0 or (a - b) % pos.stride != 0:
        return False
    s = min(a, b) + pos.stride
    while s < max(a, b):
        if pos.board[s] != EMPTY:
            return False
        s += pos.stride
    return True


def discovered(pos: Position, king: cython.int, fr: cython.int, by: cython.int) -> cython.bint:
    """Whether a rider of `by` attacks the king through the vacated square fr."""
    fx: cython.int = pos.sq_file[fr] - pos.sq_file[king] + LINE_REACH
    fy: cython.int = pos.sq_rank[fr] - pos.sq_rank[king] + LINE_REACH
    u: cython.int = pos.line_dir[fx * LINE_SPAN + fy]
    t: cython.int
    q: cython.int
    one: cython.ulonglong = 1
    if u == 0:
        return False
    t = king + u
    while pos.board[t] == EMPTY:
        t += u
    q = pos.board[t]
    return (
        q > WALL
        and (q & 1) == by
        and (pos.ray_mask[by * 2 * pos.nsq - u + pos.nsq] & (one << (q >> 1))) != 0
    )


def checks(pos: Position, m: cython.int) -> cython.bint:
    """Whether m, if legal, checks the opponent; found without playing it where the
    rules allow (the fast-legality variants), else as gives_check. The answer for an
    illegal move is unspecified: the search asks before make, which rejects those."""
    kind: cython.int = move_kind(m)
    fr: cython.int = move_from(m)
    to: cython.int = move_to(m)
    us: cython.int = pos.side
    k: cython.int = pos.royal[us ^ 1]
    p: cython.int
    i: cython.int
    u: cython.int
    t: cython.int
    q: cython.int
    one: cython.ulonglong = 1
    if not pos.move_rules.fast_legal or kind == CASTLE or kind == EP:  # noqa: SIM109 - C ints
        return gives_check(pos, m)
    if k < 0:
        return False
    if kind == DROP:
        p = 2 * (move_promo(m) or fr) + us  # (dropPromoted: the promoted side up)
    elif kind == PROMO:
        p = 2 * move_promo(m) + us
    else:
        p = pos.board[fr]
        if move_promo(m):  # seirawanGating: a piece from hand enters on fr
            return gives_check(pos, m)
    if pos.chk_slow[p]:
        return gives_check(pos, m)
    # 1. The moved (dropped, promoted) piece attacks the king from its new square.
    i = (
        p * LINE_SPAN * LINE_SPAN
        + (pos.sq_file[k] - pos.sq_file[to] + LINE_REACH) * LINE_SPAN
        + pos.sq_rank[k]
        - pos.sq_rank[to]
        + LINE_REACH
    )
    if pos.chk_kind[i] == 1:
        return True
    if pos.chk_kind[i] == 2:
        u = pos.chk_vec[i]
        t = to + u
        while t != k and (t == fr or pos.board[t] == EMPTY):
            t += u
        if t == k:
            return True
    if kind == DROP:
        return False
    # 2. A rider behind the vacated square: walk from the king through fr (to blocks).
    u = pos.line_dir[
        (pos.sq_file[fr] - pos.sq_file[k] + LINE_REACH) * LINE_SPAN
        + pos.sq_rank[fr]
        - pos.sq_rank[k]
        + LINE_REACH
    ]
    if u == 0:
        return False
    t = k + u
    while t != to and (t == fr or pos.board[t] == EMPTY):
        t += u
    if t == to:
        return False
    q = pos.board[t]
    return (
        q > WALL
        and (q & 1) == us
        and (pos.ray_mask[us * 2 * pos.nsq - u + pos.nsq] & (one << (q >> 1))) != 0
    )


def gives_check(pos: Position, m: cython.int) -> cython.bint:
    """Whether a legal move checks the opponent (False for an illegal one)."""
    result: cython.bint
    if not pos.make(m):
        return False
    result = in_check(pos)
    pos.unmake()
    return result


def attackers(pos: Position, sq: cython.int, by: cython.int, anywhere: cython.bint = False) -> list:
    """Squares of every piece of colour `by` that attacks sq (for Board.attackers and the
    chasing rule; not hot); `anywhere` as probe() takes it.

    Each attacker found by the probes is recoloured for the next probe, so that it still
    blocks (or screens, for hoppers) but no longer counts; the board is restored before
    returning."""
    found: list = []
    s: cython.int
    while True:
        s = probe(pos, sq, by, False, anywhere, -1)
        if s < 0:
            break
        found.append(s)
        pos.board[s] ^= 1
    for s in found:
        pos.board[s] ^= 1
    return found


def reaches(pos: Position, fr: cython.int, sq: cython.int, anywhere: cython.bint = False) -> bool:
    """Whether the piece on fr attacks square sq (whatever stands there); `anywhere` as
    probe() takes it (for the chasing rule; not hot)."""
    p: cython.int = pos.board[fr]
    if p <= WALL:
        return False
    return probe(pos, sq, p & 1, False, anywhere, fr) >= 0


def targets(
    pos: Position, fr: cython.int, color: cython.int, anywhere: cython.bint = False
) -> list:
    """Squares of colour `color`'s pieces (either colour's: a defender's own pieces too) that
    the piece on fr attacks; pieces lifted off the board (EMPTY, still listed) are none
    (for the chasing rule; not hot)."""
    p: cython.int = pos.board[fr]
    i: cython.int
    s: cython.int
    q: cython.int
    found: list = []
    if p <= WALL:
        return found
    for i in range(pos.pcount[color]):
        s = pos.plist[color * MAXP + i]
        q = pos.board[s]
        if q > WALL and (q & 1) == color and probe(pos, s, p & 1, False, anywhere, fr) >= 0:
            found.append(s)
    return found


def blocked_leg(pos: Position, fr: cython.int, sq: cython.int) -> cython.int:
    """The square whose piece alone keeps the lame leaper on fr from capturing on sq (a
    xiangqi horse's leg, an elephant's eye), else -1 (for the chasing rule's pins; not hot)."""
    p: cython.int = pos.board[fr]
    a: cython.int
    leg: cython.int
    leg2: cython.int
    if p <= WALL:
        return -1
    for a in range(pos.a_start[p], pos.a_end[p]):
        if (pos.a_flags[a] & (F_LEG | F_CAPT)) != F_LEG | F_CAPT or fr + pos.a_vec[a] != sq:
            continue
        leg = fr + pos.a_leg[a]
        leg2 = fr + pos.a_leg2[a]
        if pos.board[leg] > WALL and (leg2 == leg or pos.board[leg2] == EMPTY):
            return leg
        if pos.board[leg2] > WALL and pos.board[leg] == EMPTY:
            return leg2
    return -1
