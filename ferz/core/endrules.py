"""Game ends by variant rules: extinction, flags, check counting, the counting rules (makruk,
ASEAN, Cambodian), sittuyin's promotions-only draw and the shogi pawn-drop mate; and the value
of having no legal move or of a repetition. The one home of these rules: the search, Board
and the web app all ask here.

Functions of a Position (declared in endrules.pxd); ints and typed memoryviews only, callable
without the GIL. `end_value` tells the move generator and the search that a rule has ended the
game; make() keeps the counting rule's count with `update_count`.
"""

import cython
from cython.cimports.ferz.core import attacks, movegen
from cython.cimports.ferz.core.defs import (
    DROP,
    GEN_ALL,
    MAXP,
    NO_END,
    NORMAL,
    PROMO,
    WALL,
    move_from,
    move_kind,
    move_to,
)
from cython.cimports.ferz.core.position import Position


def count_limit(pos: Position, c: cython.int) -> cython.int:
    """Counting: the limit in moves when colour c counts now, or 0 for none. No count
    while c's opponent has only its king. Makruk: none while a pawn stands; board's honour
    (64) while c has more than its king. Cambodian: none while c has more than three men;
    board's honour (63) while it has two or three (pawns too); then, with no pawn on the
    board, pieces' honour one move shorter than makruk's. Pieces' honour by what the
    opponent has, for a bare king (ASEAN: 16 with a rook, 44 with a khon, 64 with a knight,
    else no count; makruk: 8 or 16 with rooks, 22 or 44 with khons, 32 with two knights,
    else 64)."""
    o: cython.int = c ^ 1
    if pos.pcount[o] <= 1:
        return 0
    if pos.end_rules.counting == 3 and pos.pcount[c] > 1:
        return 63 if pos.pcount[c] <= 3 else 0  # Cambodian board's honour
    if pawns_left(pos):
        return 0
    if pos.pcount[c] > 1:
        return 0 if pos.end_rules.counting == 2 else 64  # board's honour (makruk only)
    rooks: cython.int = (
        pos.count[2 * pos.end_rules.cnt_rook + o] if pos.end_rules.cnt_rook > 0 else 0
    )
    khons: cython.int = (
        pos.count[2 * pos.end_rules.cnt_khon + o] if pos.end_rules.cnt_khon > 0 else 0
    )
    knights: cython.int = (
        pos.count[2 * pos.end_rules.cnt_knight + o] if pos.end_rules.cnt_knight > 0 else 0
    )
    # cambodian limits are one move shorter than makruk's
    short: cython.int = 1 if pos.end_rules.counting == 3 else 0
    if pos.end_rules.counting == 2:
        return 16 if rooks else 44 if khons else 64 if knights else 0
    if rooks:
        return (8 if rooks > 1 else 16) - short
    if khons > 1:
        return 22 - short
    if knights > 1:
        return 32 - short
    return (44 if khons else 64) - short


def update_count(
    pos: Position, mover: cython.int, capt: cython.int, kind: cython.int
) -> cython.void:
    """Counting after a move of `mover` (capt: the piece taken, or 0). A running count goes
    on; a count starts when none runs and the side to move may count, and starts again
    when a capture or promotion leaves that side a bare king. In makruk and Cambodian a
    bare king that takes the last pawn starts its own count at once; ASEAN counts always
    start at 0."""
    stm: cython.int = mover ^ 1
    limit: cython.int
    total: cython.int = pos.pcount[0] + pos.pcount[1]
    if pos.cnt_limit:
        pos.cnt_ply += 1
    if pos.end_rules.counting != 2 and capt and pos.is_pawn[capt >> 1] and pos.pcount[mover] == 1:
        limit = 0 if pawns_left(pos) else count_limit(pos, mover)
        if limit:
            pos.cnt_limit = 2 * limit
            pos.cnt_ply = 2 * total - 1
    if pos.cnt_limit == 0 or ((capt or kind == PROMO) and pos.pcount[stm] == 1):
        limit = count_limit(pos, stm)
        if limit:
            pos.cnt_limit = 2 * limit
            pos.cnt_ply = 0 if pos.end_rules.counting == 2 or pos.pcount[stm] > 1 else 2 * total


def pawns_left(pos: Position) -> cython.bint:
    """Whether any pawn (of either colour) stands on the board."""
    t: cython.int
    for t in range(1, pos.npc >> 1):
        if pos.is_pawn[t] and (pos.count[2 * t] or pos.count[2 * t + 1]):
            return True
    return False


def promotions_only(pos: Position) -> cython.bint:
    """Sittuyin's draw (sittuyinPromotion): the side to move has only its king and one
    pawn, is not in check, and every legal move it has is a promotion."""
    us: cython.int = pos.side
    pawns: cython.int = 0
    i: cython.int
    n: cython.int
    m: cython.int
    legal: cython.bint = False
    if not pos.promo_rules.sit_promo or pos.pcount[us] != 2:
        return False
    for i in range(2):
        if pos.is_pawn[pos.board[pos.plist[us * MAXP + i]] >> 1]:
            pawns += 1
    if pawns != 1 or attacks.in_check(pos):
        return False
    n = movegen.gen(pos, pos.scratch, 0, False)
    for i in range(n):
        m = pos.scratch[i]
        if pos.make(m):
            pos.unmake()
            if move_kind(m) != PROMO:
                return False
            legal = True
    return legal


def counting_over(pos: Position) -> bool:
    """Whether the count (makruk, ASEAN) has run out: a draw, unless the side to move is
    mated."""
    return pos.cnt_limit > 0 and pos.cnt_ply > pos.cnt_limit


def end_value(pos: Position) -> cython.int:
    """Value for the side to move (1 win, 0 draw, -1 loss) if a variant rule (extinction,
    flag) has ended the game, else NO_END. The side that just moved is judged first; with
    an extinction claim the side to move keeps one move to recover (shatranj)."""
    us: cython.int = pos.side
    if pos.end_rules.ext_on:
        if extinct(pos, us ^ 1, 0):
            return -pos.end_rules.ext_value
        if extinct(pos, us, pos.end_rules.ext_claim):
            return pos.end_rules.ext_value
    if pos.end_rules.flag_on:
        if pos.end_rules.flag_move:
            # racing kings: a king on its flag rank wins once the opponent has had its
            # move; both there after Black's answer is a draw. Another flag piece (jesonmor)
            # wins if it still stands there after the opponent's answer.
            if flag_reached(pos, us):
                return (
                    0
                    if us == 0 and pos.end_rules.flag_move == 1 and flag_reached(pos, us ^ 1)
                    else 1
                )
            if pos.end_rules.flag_move == 1 and flag_reached(pos, us ^ 1):
                return NO_END if us == 1 and flag_in_reach(pos, us) else -1
        else:
            if flag_reached(pos, us ^ 1):
                return -1
            if flag_reached(pos, us):
                return 1
    if pos.end_rules.check_count and pos.checks_left[us ^ 1] == 0:
        return -1  # the side that just moved has given its last check
    if pos.end_rules.jang:
        return janggi_end(pos)
    return NO_END


def reply_first(pos: Position) -> cython.bint:
    """Whether end_value's verdict is extinctionClaim's early one: the side to move is bared and
    cannot bare back (FSF ends the game now; XBoard first lets the bared side reply)."""
    us: cython.int = pos.side
    if not pos.end_rules.ext_on or not pos.end_rules.ext_claim or extinct(pos, us ^ 1, 0):
        return False
    return extinct(pos, us, pos.end_rules.ext_claim)


def is_pass(m: cython.int) -> cython.bint:
    """Whether m is a pass (kingPass: the king 'moves' to its own square)."""
    return m != 0 and move_kind(m) == NORMAL and move_from(m) == move_to(m)


def janggi_end(pos: Position) -> cython.int:
    """Janggi: the kings facing each other in two positions in a row (bikjang) or two passes
    in a row end the game, by the material count where the rules have one, else drawn (as
    Fairy-Stockfish, never right after setting up the position or a null move)."""
    ply: cython.int = pos.ply
    if ply < 1 or pos.states[ply - 1].move == 0:
        return NO_END
    if pos.end_rules.bik_rule and pos.states[ply].kings_facing and pos.states[ply - 1].kings_facing:
        return material_result(pos)
    if ply >= 2 and is_pass(pos.states[ply - 1].move) and is_pass(pos.states[ply - 2].move):
        return material_result(pos)
    return NO_END


def material_result(pos: Position) -> cython.int:
    """materialCounting's verdict for the side to move (1, 0, -1): janggi's weighted count
    with one point to Black, the second player (no draws), or the plain number of pieces; 0
    without a material count."""
    t: cython.int
    total: cython.int = 0
    white: cython.int
    if pos.end_rules.mat_count == 0:
        return 0
    if pos.end_rules.mat_count == 2:
        total = pos.pcount[0] - pos.pcount[1]
        white = 1 if total > 0 else (-1 if total < 0 else 0)
    else:
        for t in range(1, pos.npc >> 1):
            total += pos.mat_w[t] * (pos.count[2 * t] - pos.count[2 * t + 1])
        white = 1 if total - 1 > 0 else -1  # Black, the second player, gets one point
    return white if pos.side == 0 else -white


def extinct(pos: Position, c: cython.int, extra: cython.int) -> cython.bint:
    """Whether colour c is down to the extinction count while the opponent is not."""
    j: cython.int
    t: cython.int
    have: cython.int
    other: cython.int
    if pos.end_rules.ext_all:
        have = pos.pcount[c]
        other = pos.pcount[c ^ 1]
        if pos.drop_rules.drops:
            for t in range(1, pos.npc >> 1):
                have += pos.hand[2 * t + c]
                other += pos.hand[2 * t + (c ^ 1)]
        return have <= pos.end_rules.ext_count and other >= pos.end_rules.ext_opp + extra
    for j in range(pos.end_rules.n_ext):
        t = pos.ext_types[j]
        have = pos.count[2 * t + c] + pos.hand[2 * t + c]
        other = pos.count[2 * t + (c ^ 1)] + pos.hand[2 * t + (c ^ 1)]
        if have <= pos.end_rules.ext_count and other >= pos.end_rules.ext_opp + extra:
            return True
    return False


def flag_reached(pos: Position, c: cython.int) -> cython.bint:
    """Whether a flag piece of colour c stands in its flag region."""
    i: cython.int
    p: cython.int
    for i in range(pos.flag_start[c], pos.flag_start[c + 1]):
        p = pos.board[pos.flag_sq[i]]
        if p > WALL and (p & 1) == c and (pos.flag_type[c] == 0 or (p >> 1) == pos.flag_type[c]):
            return True
    return False


def flag_in_reach(pos: Position, c: cython.int) -> cython.bint:
    """flagMove: whether colour c, not in check, has a legal king move onto its flag
    region (Black may still answer White's arrival there)."""
    k: cython.int = pos.royal[c]
    n: cython.int
    i: cython.int
    m: cython.int
    saved: cython.int = pos.cap_end
    if k < 0 or attacks.in_check(pos):
        return False
    pos.cap_end = len(pos.flag_buf)  # gen_piece stops at its end
    n = movegen.gen_piece(pos, pos.flag_buf, 0, k, pos.board[k], GEN_ALL)
    pos.cap_end = saved
    for i in range(n):
        m = pos.flag_buf[i]
        if pos.flag_zone[c * pos.nsq + move_to(m)] and pos.make(m):
            pos.unmake()
            return True
    return False


def pawn_drop_check(pos: Position) -> cython.bint:
    """Whether the last move dropped a shogi pawn under the pawn-drop-mate rule (the side to
    move, if it then has no legal move, wins instead of being mated)."""
    m: cython.int
    if pos.end_rules.dropmate_type == 0 or pos.ply == 0:
        return False
    m = pos.states[pos.ply - 1].move
    return m != 0 and move_kind(m) == DROP and move_from(m) == pos.end_rules.dropmate_type


def shatar_value(pos: Position) -> cython.int:
    """shatarMateRule, for the side to move when it is mated: a mate by knights alone wins for
    it (1); else the mate loses (-1) if a check of the unbroken series of checks that led to
    it was a shak, and is a draw (0) if none was (FSF's reading: the series ends at the set-up
    position or a null move)."""
    j: cython.int = pos.ply
    if not pos.states[j].shak & 4:
        return 1
    while pos.states[j].shak & 1:
        if pos.states[j].shak & 2:
            return -1
        if j < 2 or pos.states[j - 1].move == 0 or pos.states[j - 2].move == 0:
            break
        j -= 2
    return 0


def no_moves_value(pos: Position, in_check: cython.bint) -> cython.int:
    """The value for the side to move without a legal move (1 won, 0 drawn, -1 lost): the
    variant's checkmate value (shatar's by the checks that led to it; a win after a forbidden
    pawn-drop mate) or its stalemate value (under stalematePieceCount, the side with fewer
    pieces on the board gets it, the other its opposite, equal counts draw)."""
    balance: cython.int
    if in_check:
        if pawn_drop_check(pos):
            return 1
        if pos.end_rules.shatar:
            return shatar_value(pos)
        return pos.end_rules.mate_value
    if pos.end_rules.stale_pieces:
        balance = pos.pcount[pos.side] - pos.pcount[pos.side ^ 1]
        if balance == 0:
            return 0
        return pos.end_rules.stale_value if balance < 0 else -pos.end_rules.stale_value
    return pos.end_rules.stale_value


def repetition_value(pos: Position, checkers: cython.int, chasers: cython.int) -> cython.int:
    """The value for the side to move of an n-fold repetition. `checkers` and `chasers` are
    the colours (bit 1 White, bit 2 Black) that gave check in every position of the cycle, or
    chased an enemy piece at every move of it: under perpetualCheckIllegal a lone perpetual
    checker loses (both: a draw), then under the chasing rule a lone chaser; else the
    variant's nFoldValue (nFoldValueAbsolute: White's value), as in Fairy-Stockfish."""
    if pos.end_rules.perpetual_rule and checkers:
        if checkers == 3:
            return 0
        return -1 if checkers == 1 << pos.side else 1
    if pos.end_rules.chase_rule and chasers:
        if chasers == 3:
            return 0
        return -1 if chasers == 1 << pos.side else 1
    if pos.end_rules.nfold_white and pos.side == 1:
        return -pos.end_rules.nfold_value
    return pos.end_rules.nfold_value
