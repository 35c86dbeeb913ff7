"""Xiangqi's chasing rule (`chasingRule = axf`): a side that repeats the position while
chasing an enemy piece at every move of the cycle loses, as Fairy-Stockfish judges it.

A move *chases* the enemy pieces it newly attacks (directly, by discovery, or by pinning
their defender) that no enemy piece defends, and an enemy rook attacked by a horse or cannon
(or a rook, cannon or horse attacked by an elephant or advisor) even if defended. Kings and
soldiers that have not crossed the river are never chased; attacks between pieces of one
kind are mutual and do not count, unless the attacked piece is pinned.

Piece roles come from the variant's piece type names (rook, horse, cannon, elephant, fers,
king, soldier), as in FSF, where the rule is written for those types. The board judges
repetitions with it (`Board.outcome`); it is computed only when a position repeats, by
replaying the cycle. Squares are the core's mailbox squares.
"""

from __future__ import annotations

from dataclasses import dataclass

from ferz.core.defs import EMPTY, WALL, move_from, move_to
from ferz.core.rules import Rules

ROLES = ("rook", "horse", "cannon", "elephant", "fers", "king", "soldier")


@dataclass(frozen=True)
class _Atom:
    """A capture step in mailbox form for one colour."""

    vec: int
    range: int  # 0 = unlimited
    hop: bool
    leg: int | None
    min_rank: int


class Chases:
    """Which enemy pieces a move chases, for one variant's pieces and board."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.stride = rules.stride
        self.role = [""] + [p.name if p.name in ROLES else "" for p in rules.pieces]
        self.atoms: dict[tuple[int, int], list[_Atom]] = {}
        self.region: dict[tuple[int, int], set[int] | None] = {}
        for t, piece in enumerate(rules.pieces, start=1):
            for c in (0, 1):
                flip = 1 if c == 0 else -1
                self.atoms[t, c] = [
                    _Atom(
                        a.dy * flip * self.stride + a.dx,
                        a.range,
                        a.hop,
                        None if a.leg is None else a.leg[1] * flip * self.stride + a.leg[0],
                        a.min_rank,
                    )
                    for a in piece.atoms
                    if a.capture
                ]
                self.region[t, c] = (
                    None
                    if piece.region is None
                    else {rules.square(f, r) for f, r in piece.region[c]}
                )
        self.rook_atoms = [_Atom(v, 0, False, None, 0) for v in (1, -1, self.stride, -self.stride)]
        self.wazir = (1, -1, self.stride, -self.stride)
        self.fers = (self.stride + 1, self.stride - 1, 1 - self.stride, -1 - self.stride)

    # ------------------------------------------------------------------ geometry

    def _rel_rank(self, sq: int, c: int) -> int:
        """The rank of sq seen from colour c's side."""
        r = self.rules.rank_of(sq)
        return r if c == 0 else self.rules.ranks - 1 - r

    def _on(self, sq: int) -> bool:
        """Whether sq is a square of the board."""
        return 0 <= sq < self.rules.nsq and self.rules.on_board(sq)

    def _ray(self, sq: int, atom: _Atom, occ: set[int], out: set[int]) -> None:
        """Add the squares one capture atom from sq reaches with occupancy occ."""
        if atom.leg is not None and sq + atom.leg in occ:
            return
        to, steps, screen = sq, 0, False
        while True:
            to += atom.vec
            steps += 1
            if not self._on(to):
                return
            if atom.hop:
                if to in occ:
                    if screen:
                        out.add(to)
                        return
                    screen = True
            else:
                out.add(to)
                if to in occ:
                    return
            if atom.range and steps >= atom.range:
                return

    def attacks(self, t: int, c: int, sq: int, occ: set[int], restrict: bool = True) -> set[int]:
        """Squares a piece of type t and colour c on sq attacks: FSF's attacks_from, which
        keeps to the squares the piece may stand on (an advisor's palace) and lets only a
        soldier across the river step sideways, or with `restrict` off its attacks_bb."""
        out: set[int] = set()
        rel = self._rel_rank(sq, c)
        for atom in self.atoms[t, c]:
            if restrict and atom.min_rank and rel < atom.min_rank:
                continue
            self._ray(sq, atom, occ, out)
        region = self.region[t, c]
        if restrict and region is not None:
            out &= region
        return out

    def _crossed(self, t: int, c: int, sq: int) -> bool:
        """Whether a soldier on sq has crossed the river (it may step sideways)."""
        limits = [a.min_rank for a in self.atoms[t, c] if a.min_rank]
        return not limits or self._rel_rank(sq, c) >= min(limits)

    def attackers(self, board: dict[int, tuple[int, int]], sq: int, occ: set[int], c: int):
        """Squares of colour c's pieces that attack sq with occupancy occ; a piece counts
        only where its kind may stand (palace, own half), as in FSF's attackers_to."""
        found = set()
        for s2, (t, col) in board.items():
            if col != c or s2 not in occ:
                continue
            region = self.region[t, c]
            if region is not None and sq not in region:
                continue
            if sq in self.attacks(t, c, s2, occ):
                found.add(s2)
        return found

    def _between(self, a: int, b: int) -> list[int] | None:
        """The squares strictly between a and b on a rank or file, else None."""
        rules = self.rules
        fa, ra, fb, rb = rules.file_of(a), rules.rank_of(a), rules.file_of(b), rules.rank_of(b)
        if fa != fb and ra != rb:
            return None
        step = (1 if fb > fa else -1) if ra == rb else (self.stride if rb > ra else -self.stride)
        return list(range(a + step, b, step))

    def _line(self, a: int, b: int) -> set[int]:
        """Every square of the rank or file through a and b (empty if they share neither)."""
        rules = self.rules
        if rules.rank_of(a) == rules.rank_of(b):
            return {rules.square(f, rules.rank_of(a)) for f in range(rules.files)}
        if rules.file_of(a) == rules.file_of(b):
            return {rules.square(rules.file_of(a), r) for r in range(rules.ranks)}
        return set()

    def _king(self, board: dict[int, tuple[int, int]], c: int) -> int | None:
        """The square of colour c's king."""
        for sq, (t, col) in board.items():
            if col == c and self.role[t] == "king":
                return sq
        return None

    def blockers(self, board: dict[int, tuple[int, int]], c: int) -> set[int]:
        """Pieces of either colour whose removal would expose colour c's king to a rook,
        cannon or lame leaper of the other colour (FSF's blockers_for_king)."""
        ksq = self._king(board, c)
        if ksq is None:
            return set()
        occ = set(board)
        snipers: list[tuple[int, str]] = []
        sliding: set[int] = set()
        for s2, (t, col) in board.items():
            if col == c:
                continue
            role = self.role[t]
            if role in ("rook", "cannon"):
                if self._between(ksq, s2) is None or ksq in self.attacks(t, col, s2, occ):
                    continue
                snipers.append((s2, role))
                if role == "rook":
                    sliding.add(s2)
            elif role in ("horse", "elephant"):
                for atom in self.atoms[t, col]:
                    if s2 + atom.vec == ksq and atom.leg is not None and s2 + atom.leg in occ:
                        snipers.append((s2 + atom.leg, "leg"))
                        sliding.add(s2)
        found: set[int] = set()
        for s2, kind in snipers:
            if kind == "leg":
                if s2 not in sliding:
                    found.add(s2)
                continue
            between = self._between(ksq, s2) or []
            pieces = [x for x in between if x in occ and (kind == "cannon" or x not in sliding)]
            if len(pieces) == 1 or (kind == "cannon" and len(pieces) == 2):
                found.update(pieces)
        return found

    # ------------------------------------------------------------------ one move

    def chased(
        self,
        before: dict[int, tuple[int, int]],
        after: dict[int, tuple[int, int]],
        move: int,
    ) -> set[int]:
        """Squares of the side to move's pieces that the last move chased (FSF's chased()).

        `before`/`after` map squares to (type, colour) before and after the move."""
        fr, to = move_from(move), move_to(move)
        if to not in after:
            return set()
        mover = after[to][1]
        us = mover ^ 1  # the side whose pieces are chased
        occ = set(after)
        role = self.role
        found: set[int] = set()
        blockers = self.blockers(after, us)
        pins = set(blockers)
        their_king = self._king(after, mover)
        our_king = self._king(after, us)
        flying = self.rules.flying_general
        if flying and their_king is not None:
            on_file = {
                s
                for s, (t, col) in after.items()
                if col == us and self.rules.file_of(s) == self.rules.file_of(their_king)
            }
            others = {s for s in on_file if role[after[s][0]] != "king"}
            if our_king in on_file and len(others) <= 1:
                pins |= others

        def ours(squares: set[int]) -> set[int]:
            return {s for s in squares if s in after and after[s][1] == us}

        def add(att_sq: int, att_type: int, attacks: set[int]) -> None:
            if not attacks - found:
                return
            attacks = {
                s
                for s in attacks
                if role[after[s][0]] != "king"
                and not (role[after[s][0]] == "soldier" and not self._crossed(after[s][0], us, s))
            }
            kind = role[att_type]
            if kind in ("horse", "cannon"):
                found.update(s for s in attacks if role[after[s][0]] == "rook")
            if kind in ("elephant", "fers"):
                found.update(s for s in attacks if role[after[s][0]] in ("rook", "cannon", "horse"))
            if kind == "horse" and any(att_sq + v in occ for v in self.fers):
                for s in [s for s in attacks if after[s][0] == att_type]:
                    if att_sq in self.attacks(after[s][0], us, s, occ):
                        attacks.discard(s)
            else:
                attacks = {s for s in attacks if after[s][0] != att_type or s in pins}
            without = occ - {att_sq}
            for s in attacks:
                roots = self.attackers(after, s, without, us) - pins
                if not roots or (
                    flying
                    and our_king is not None
                    and their_king is not None
                    and roots == {our_king}
                    and s in self._rook_reach(their_king, without)
                ):
                    found.add(s)

        # Direct attacks of the moved piece.
        t = after[to][0]
        if role[t] not in ("king", "soldier"):
            direct = ours(self.attacks(t, mover, to, occ))
            if role[t] in ("rook", "cannon"):
                direct -= self._line(fr, to)
            add(to, t, direct)

        # Attacks discovered by the move: pieces whose leg, eye, line or screen it changed.
        old_occ = (occ if to in before else occ - {to}) | {fr}
        candidates = set()
        for s, (t2, col) in after.items():
            if col != mover:
                continue
            kind = role[t2]
            if (
                (kind == "horse" and s - fr in self.wazir)  # the move freed a leg
                or (kind == "elephant" and s - fr in self.fers)  # or an eye
                or (kind in ("cannon", "rook") and s != fr and self._line(s, fr))  # or a line
                or (kind == "cannon" and s != to and self._line(s, to))  # or made a screen
            ):
                candidates.add(s)
        for s in candidates:
            t2 = after[s][0]
            now = self.attacks(t2, mover, s, occ, restrict=False)
            then = self.attacks(t2, mover, s, old_occ, restrict=False)
            add(s, t2, ours(now - then))

        # Defenders newly pinned (fake roots) and discovered-check threats.
        new_blockers = blockers - self.blockers(before, us)
        their_blockers = self.blockers(after, mover)
        for s in new_blockers:
            t2, col = after[s]
            if col == us:
                for s2 in ours(self.attacks(t2, us, s, occ, restrict=False)):
                    kind2 = role[after[s2][0]]
                    if kind2 == "king" or (
                        kind2 == "soldier" and not self._crossed(after[s2][0], us, s2)
                    ):
                        continue
                    if self.attackers(after, s2, occ, mover) - their_blockers:
                        found.add(s2)
            else:
                hits = ours(self.attacks(t2, mover, s, occ))
                near = set() if our_king is None else self._king_reach(after, our_king, us)
                found |= hits - near
                for s2 in hits & near:
                    if self.attackers(after, s2, occ - {s, our_king}, mover) - {s}:
                        found.add(s2)
        return found

    def _king_reach(self, board: dict[int, tuple[int, int]], ksq: int, c: int) -> set[int]:
        """Squares the king on ksq could step to on an empty board (within its palace)."""
        return self.attacks(board[ksq][0], c, ksq, set())

    def _rook_reach(self, sq: int, occ: set[int]) -> set[int]:
        """Squares a rook on sq would attack with occupancy occ (the flying general's line)."""
        out: set[int] = set()
        for atom in self.rook_atoms:
            self._ray(sq, atom, occ, out)
        return out


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
    boards, moves = [board_map(position)], []
    while position.ply > first:
        moves.append(position.move_at(position.ply - 1))
        position.unmake()
        boards.append(board_map(position))
    boards.reverse()
    moves.reverse()
    for move in moves:
        position.make(move)
    chased = [chases.chased(boards[k], boards[k + 1], m) for k, m in enumerate(moves)]
    who = persistent(chased, moves)
    if len(who) != 1:
        return 0
    return 1 if who == {0} else -1


def board_map(position) -> dict[int, tuple[int, int]]:
    """The pieces of a core Position as {square: (type, colour)}."""
    cells = position.board
    return {
        sq: (code >> 1, code & 1)
        for sq in range(position.nsq)
        if (code := cells[sq]) not in (EMPTY, WALL)
    }
