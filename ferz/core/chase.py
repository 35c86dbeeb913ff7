"""Xiangqi's chasing rule (`chasingRule = axf`): a side that repeats the position while
chasing an enemy piece at every move of the cycle loses, as Fairy-Stockfish judges it.

A move *chases* the enemy pieces it newly attacks (directly, by discovery, or by pinning
their defender) that no enemy piece defends, and an enemy rook attacked by a horse or cannon
(or a rook, cannon or horse attacked by an elephant or advisor) even if defended. Kings and
soldiers that have not crossed the river are never chased; attacks between pieces of one
kind are mutual and do not count, unless the attacked piece is pinned.

The rule is written for xiangqi's piece kinds (rook, horse, cannon, elephant, fers, king,
soldier): `Rules.chase_letters` names the variant's piece of each kind. Every attack
question goes to the core's probes (core/attacks.py: attackers, reaches, targets), asked of
the Position itself; where the rule asks about another occupancy (a piece's square vacated,
the board before the move) the pieces are lifted off its board, or the move taken back, for
the question. This module keeps the rule: which attacks count, the pins, and the cycle.
It runs only when a position repeats (the search caches its verdicts, `Search.chase_value`);
the board (`Board.outcome`) and the search ask it. Squares are the core's mailbox squares.
"""

from __future__ import annotations

from ferz.core import attacks
from ferz.core.defs import EMPTY, MAXP, WALL, move_from, move_to
from ferz.core.rules import Rules

# the kinds the rule names, in the order of Rules.chase_letters
ROLES = ("rook", "horse", "cannon", "elephant", "fers", "king", "soldier")


class Chases:
    """Which enemy pieces a move chases, for one variant's pieces and board."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        stride = rules.stride
        types = {piece.letter: t for t, piece in enumerate(rules.pieces, start=1)}
        self.role = [""] * (len(rules.pieces) + 1)
        for role, letter in zip(ROLES, rules.chase_letters, strict=True):
            if letter:
                self.role[types[letter]] = role
        # the relative rank from which each type may capture sideways (a soldier across the
        # river; 0: from anywhere)
        self.crossing = [0] + [
            min((a.min_rank for a in piece.atoms if a.capture and a.min_rank), default=0)
            for piece in rules.pieces
        ]
        self.wazir = (1, -1, stride, -stride)
        self.fers = (stride + 1, stride - 1, 1 - stride, -1 - stride)
        squares = range(rules.nsq)
        self.file = [rules.file_of(sq) if rules.on_board(sq) else -1 for sq in squares]
        self.rank = [rules.rank_of(sq) if rules.on_board(sq) else -1 for sq in squares]
        self.lines: dict[tuple[int, int], list[int] | None] = {}  # _between's answers

    # ------------------------------------------------------------------ geometry

    def _crossed(self, code: int, sq: int) -> bool:
        """Whether the piece `code` on sq stands where it may capture sideways (a soldier
        across the river; any other piece)."""
        rank = self.rank[sq] if code & 1 == 0 else self.rules.ranks - 1 - self.rank[sq]
        return rank >= self.crossing[code >> 1]

    def _aligned(self, a: int, b: int) -> bool:
        """Whether squares a and b share a rank or a file."""
        return self.rank[a] == self.rank[b] or self.file[a] == self.file[b]

    def _between(self, a: int, b: int) -> list[int] | None:
        """The squares strictly between a and b on a rank or file, else None."""
        line = self.lines.get((a, b), 0)
        if line == 0:
            if self.rank[a] == self.rank[b]:
                line = list(range(a + 1, b)) if b > a else list(range(a - 1, b, -1))
            elif self.file[a] == self.file[b]:
                stride = self.rules.stride
                line = (
                    list(range(a + stride, b, stride))
                    if b > a
                    else list(range(a - stride, b, -stride))
                )
            else:
                line = None
            self.lines[a, b] = line
        return line

    def _open(self, board, a: int, b: int) -> bool:
        """Whether a and b share a rank or file with nothing between them (the flying
        general's line)."""
        between = self._between(a, b)
        return between is not None and all(board[x] == EMPTY for x in between)

    @staticmethod
    def _pieces(pos, c: int) -> list[int]:
        """The squares of colour c's pieces."""
        plist = pos.plist
        return [plist[i] for i in range(c * MAXP, c * MAXP + pos.pcount[c])]

    def blockers(self, pos, c: int) -> set[int]:
        """Pieces of either colour whose removal would expose colour c's king to a rook,
        cannon or lame leaper of the other colour (FSF's blockers_for_king)."""
        ksq = pos.royal[c]
        if ksq < 0:
            return set()
        board = pos.board
        snipers: list[tuple[int, str]] = []
        sliding: set[int] = set()
        for s2 in self._pieces(pos, c ^ 1):
            role = self.role[board[s2] >> 1]
            if role in ("rook", "cannon"):
                if self._between(ksq, s2) is None or attacks.reaches(pos, s2, ksq):
                    continue
                snipers.append((s2, role))
                if role == "rook":
                    sliding.add(s2)
            elif role in ("horse", "elephant"):
                leg = attacks.blocked_leg(pos, s2, ksq)
                if leg >= 0:
                    snipers.append((leg, "leg"))
                    sliding.add(s2)
        found: set[int] = set()
        for s2, kind in snipers:
            if kind == "leg":
                if s2 not in sliding:
                    found.add(s2)
                continue
            between = self._between(ksq, s2) or []
            pieces = [
                x for x in between if board[x] > WALL and (kind == "cannon" or x not in sliding)
            ]
            if len(pieces) == 1 or (kind == "cannon" and len(pieces) == 2):
                found.update(pieces)
        return found

    # ------------------------------------------------------------------ one move

    def chased(self, pos, move: int) -> set[int]:
        """Squares of the side to move's pieces that the last move, `move`, chased (FSF's
        chased()); pos is the position after it. The move is taken back and played again
        for the questions about the board before it."""
        fr, to = move_from(move), move_to(move)
        board = pos.board
        code = board[to]
        if code <= WALL:
            return set()
        mover = code & 1
        us = mover ^ 1  # the side whose pieces are chased
        role = self.role
        found: set[int] = set()
        blockers = self.blockers(pos, us)
        pins = set(blockers)
        their_king, our_king = pos.royal[mover], pos.royal[us]
        flying = self.rules.flying_general
        ours = self._pieces(pos, us)
        if flying and their_king >= 0:
            on_file = [s for s in ours if self.file[s] == self.file[their_king]]
            others = {s for s in on_file if role[board[s] >> 1] != "king"}
            if our_king in on_file and len(others) <= 1:
                pins |= others

        def add(att_sq: int, att_type: int, hits: set[int]) -> None:
            """Count the attacks `hits` of the piece on att_sq that the rule calls chases."""
            if not hits - found:
                return
            hits = {
                s
                for s in hits
                if role[board[s] >> 1] != "king"
                and not (role[board[s] >> 1] == "soldier" and not self._crossed(board[s], s))
            }
            kind = role[att_type]
            if kind in ("horse", "cannon"):
                found.update(s for s in hits if role[board[s] >> 1] == "rook")
            if kind in ("elephant", "fers"):
                found.update(s for s in hits if role[board[s] >> 1] in ("rook", "cannon", "horse"))
            if kind == "horse" and any(board[att_sq + v] > WALL for v in self.fers):
                for s in [s for s in hits if board[s] >> 1 == att_type]:
                    if attacks.reaches(pos, s, att_sq):
                        hits.discard(s)
            else:
                hits = {s for s in hits if board[s] >> 1 != att_type or s in pins}
            if not hits:
                return
            lifted = board[att_sq]
            board[att_sq] = EMPTY  # its defenders may stand behind it
            try:
                for s in hits:
                    roots = set(attacks.attackers(pos, s, us)) - pins
                    if not roots or (
                        flying
                        and our_king >= 0
                        and their_king >= 0
                        and roots == {our_king}
                        and self._open(board, their_king, s)
                    ):
                        found.add(s)
            finally:
                board[att_sq] = lifted

        # Direct attacks of the moved piece.
        t = code >> 1
        if role[t] not in ("king", "soldier"):
            direct = set(attacks.targets(pos, to, us))
            if role[t] in ("rook", "cannon"):  # only the new ones: off the line it moved on
                if self.rank[fr] == self.rank[to]:
                    direct = {s for s in direct if self.rank[s] != self.rank[fr]}
                elif self.file[fr] == self.file[to]:
                    direct = {s for s in direct if self.file[s] != self.file[fr]}
            add(to, t, direct)

        # Attacks discovered by the move: pieces whose leg, eye, line or screen it changed.
        now: dict[int, list[int]] = {}
        for s in self._pieces(pos, mover):
            kind = role[board[s] >> 1]
            if (
                (kind == "horse" and s - fr in self.wazir)  # the move freed a leg
                or (kind == "elephant" and s - fr in self.fers)  # or an eye
                or (kind in ("cannon", "rook") and s != fr and self._aligned(s, fr))  # or a line
                or (kind == "cannon" and s != to and self._aligned(s, to))  # or made a screen
            ):
                hits = attacks.targets(pos, s, us, True)
                if hits:
                    now[s] = hits
        their_blockers = self.blockers(pos, mover)

        # The board before the move: the pins then, and what the candidates attacked then.
        pos.unmake()
        try:
            before = self.blockers(pos, us)
            then: dict[int, set[int]] = {}
            for s, hits in now.items():
                held = board[s]
                board[s] = code if s == to else held  # the moved piece on its new square
                try:
                    then[s] = {x for x in hits if attacks.reaches(pos, s, x, True)}
                finally:
                    board[s] = held
        finally:
            pos.make(move)
        for s, hits in now.items():
            add(s, board[s] >> 1, set(hits) - then[s])

        # Defenders newly pinned (fake roots) and discovered-check threats.
        for s in blockers - before:
            if board[s] & 1 == us:
                for s2 in attacks.targets(pos, s, us, True):
                    kind2 = role[board[s2] >> 1]
                    if kind2 == "king" or (kind2 == "soldier" and not self._crossed(board[s2], s2)):
                        continue
                    if set(attacks.attackers(pos, s2, mover)) - their_blockers:
                        found.add(s2)
            else:
                hits = set(attacks.targets(pos, s, us))
                near = {x for x in hits if our_king >= 0 and attacks.reaches(pos, our_king, x)}
                found |= hits - near
                if not hits & near:
                    continue
                lifted = board[s], board[our_king]
                board[s] = board[our_king] = EMPTY  # could the king take it back?
                try:
                    for s2 in hits & near:
                        if set(attacks.attackers(pos, s2, mover)) - {s}:
                            found.add(s2)
                finally:
                    board[s], board[our_king] = lifted
        return found


def persistent(chased: list[set[int]], moves: list[int]) -> set[int]:
    """Of the two sides of a repetition cycle, those that chased one piece through every one
    of their moves: 0 for the side that made the last move, 1 for the other. `chased[k]`
    holds the squares moves[k] chased; a chased piece is followed back through the chased
    side's moves in between."""
    out = set()
    for side, last in ((0, len(moves) - 1), (1, len(moves) - 2)):
        if last < 0:
            continue
        squares = set(chased[last])
        index = last - 2
        while index >= 0 and squares:
            reply = moves[index + 1]  # the chased side's move in between
            fr, to = move_from(reply), move_to(reply)
            squares = {fr if s == to else s for s in squares} & chased[index]
            index -= 2
        if squares:
            out.add(side)
    return out


def cycle_value(position, chases: Chases) -> int:
    """For a core Position that repeats an earlier one since the last irreversible move: +1
    if only the opponent chased through the cycle (the side to move wins), -1 if only the
    side to move did, 0 otherwise (FSF's chasing rule as its search applies it). The cycle's
    moves and the move into its first position are taken back and replayed; the position is
    left as it was."""
    first = position.last_repetition()
    if first < 0:
        return 0
    if first >= 1 and position.move_at(first - 1) != 0:
        first -= 1  # the move into the first occurrence counts too
    moves = []
    while position.ply > first:
        moves.append(position.move_at(position.ply - 1))
        position.unmake()
    moves.reverse()
    chased = []
    for move in moves:
        position.make(move)
        chased.append(chases.chased(position, move))
    who = persistent(chased, moves)
    if len(who) != 1:
        return 0
    return 1 if who == {0} else -1
