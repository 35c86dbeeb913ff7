"""Variant game ends that do not come from the move generator: extinction (shatranj's bared
king) and capture-the-flag, plus the value of having no legal move.

Values are for the side to move, as in Fairy-Stockfish: +1 win, 0 draw, -1 loss. Board.outcome
and the search ask here first (`immediate_end`), then look at the legal moves
(`no_moves_value`).
"""

from __future__ import annotations

from ferz.core.rules import Rules

VALUE = {"win": 1, "draw": 0, "loss": -1}


def _counts(rules: Rules, pos) -> list[dict[str, int]]:
    """Pieces per colour and letter, pieces in hand included."""
    out: list[dict[str, int]] = [{}, {}]
    for code in range(2, 2 * len(rules.pieces) + 2):
        letter = rules.pieces[(code >> 1) - 1].letter
        n = pos.count[code] + pos.hand[code]
        if n:
            side = out[code & 1]
            side[letter] = side.get(letter, 0) + n
    return out


def _extinct(rules: Rules, counts: list[dict[str, int]], color: int, extra: int) -> bool:
    """Whether `color` is down to the extinction count of a listed type (or of all pieces, "*")
    while the opponent keeps at least the required number (plus `extra`)."""
    groups = [None] if rules.extinction_letters == "*" else list(rules.extinction_letters)
    mine, theirs = counts[color], counts[color ^ 1]
    for letter in groups:
        have = sum(mine.values()) if letter is None else mine.get(letter, 0)
        other = sum(theirs.values()) if letter is None else theirs.get(letter, 0)
        if have <= rules.extinction_count and other >= rules.extinction_opponent_count + extra:
            return True
    return False


def immediate_end(rules: Rules, pos) -> int | None:
    """The value for the side to move if a variant rule has ended the game, else None.

    `pos` is a core Position (its `side`, `count`, `hand`, `board` are read)."""
    stm = pos.side
    if rules.extinction_value:
        counts = _counts(rules, pos)
        value = VALUE[rules.extinction_value]
        # the side that just moved first; a claim gives the side to move one more chance
        if _extinct(rules, counts, stm ^ 1, 0):
            return -value
        if _extinct(rules, counts, stm, 1 if rules.extinction_claim else 0):
            return value
    if rules.flag_regions[0] or rules.flag_regions[1]:
        for color in (stm ^ 1, stm):
            if _flag_reached(rules, pos, color):
                return 1 if color == stm else -1
    return None


def _flag_reached(rules: Rules, pos, color: int) -> bool:
    """Whether a flag piece of `color` stands in its flag region."""
    letter, region = rules.flag_letters[color], rules.flag_regions[color]
    for file, rank in region:
        code = pos.board[rules.square(file, rank)]
        if code < 2 or code & 1 != color:
            continue
        if letter == "*" or rules.pieces[(code >> 1) - 1].letter == letter:
            return True
    return False


def no_moves_value(rules: Rules, in_check: bool, pawn_drop: bool = False) -> int:
    """Value for the side to move when it has no legal move: checkmate or stalemate.

    `pawn_drop`: the check came from a pawn drop under shogiPawnDropMateIllegal (the core's
    `Position.last_pawn_drop()`); such a mate is illegal, so the mated side wins (as in FSF)."""
    if in_check and pawn_drop and rules.pawn_drop_mate_illegal:
        return 1
    return VALUE[rules.checkmate_value if in_check else rules.stalemate_value]
