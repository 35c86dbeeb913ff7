"""Scores as engines report them: centipawns, or a mate in a number of moves.

One `Score` type is shared by the engine's reports (`Info.score`), the protocols, the match
driver, `ferz analyse` and the web app, and one constant, `MATE_CP`, stands for a mate where a
single number is needed (sorting, averaging, a PGN's ``%eval``): a mate in n moves is
``MATE_CP - n`` centipawns, being mated in n ``-(MATE_CP - n)``. The search's own mate values
(core/tt.pxd's ``MATE``, in plies) stay inside the core; the engine converts at its boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

MATE_CP = 100000
#: scores this close to MATE_CP are mates: no evaluation comes near, no mate is this long
MATE_RANGE = 1000


@dataclass(frozen=True)
class Score:
    """A score from one side's point of view: `cp` centipawns, or `mate` in that many moves
    (negative: mated; 0: mated now, as at a checkmate on the board). Exactly one is set."""

    cp: int | None = None
    mate: int | None = None

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError("a score is centipawns or a mate, exactly one of them")

    @classmethod
    def of(cls, cp: int | None, mate: int | None) -> Score | None:
        """The score of a report's two fields (a mate wins over centipawns), None for none."""
        if mate is not None:
            return cls(mate=mate)
        return None if cp is None else cls(cp=cp)

    @classmethod
    def from_cp(cls, value: int) -> Score:
        """A score from one number, mates read back from +-(MATE_CP - n)."""
        if abs(value) >= MATE_CP - MATE_RANGE:
            moves = MATE_CP - abs(value)
            return cls(mate=moves if value > 0 else -moves)
        return cls(cp=value)

    def is_mate(self) -> bool:
        """Whether this is a mate score."""
        return self.mate is not None

    def to_cp(self) -> int:
        """One number: centipawns, mates as +-(MATE_CP - n) (mated now: -MATE_CP)."""
        if self.mate is None:
            return int(self.cp or 0)
        if self.mate > 0:
            return MATE_CP - self.mate
        return -(MATE_CP + self.mate)

    def uci(self) -> str:
        """The UCI words: ``cp 25`` or ``mate -3``."""
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"

    def __neg__(self) -> Score:
        """The same score from the other side (mated now stays 0 moves)."""
        if self.mate is not None:
            return Score(mate=-self.mate)
        return Score(cp=-int(self.cp or 0))

    def __str__(self) -> str:
        """As GUIs show it: ``+0.25``, ``-1.00``, ``#3``, ``#-2``."""
        if self.mate is not None:
            return f"#{self.mate}"
        return f"{int(self.cp or 0) / 100:+.2f}"
