"""Game policy shared by the front ends that play whole games: when the engine resigns and when
it accepts a draw offer, judged from its own scores."""

from __future__ import annotations

from dataclasses import dataclass

from .engine import Info

#: Scores at or below this for RESIGN_MOVES own moves in a row make the engine resign.
RESIGN_CP = -1200
RESIGN_MOVES = 4
#: A draw offer is accepted when the engine's last score is at least this bad for it.
ACCEPT_DRAW_CP = -80
#: A mate score counts as this many centipawns.


@dataclass
class Policy:
    """Follows the engine's score move by move in one game (reset for a new game)."""

    bad_moves: int = 0  # own moves in a row scored at or below RESIGN_CP
    last_cp: int | None = None  # the score of the engine's latest move, its own view

    def reset(self) -> None:
        """A new game: forget the scores."""
        self.bad_moves, self.last_cp = 0, None

    def observe(self, info: Info | None) -> None:
        """Record the final report of the engine's move (nothing when it gave no score)."""
        if info is None:
            return
        if info.score is None:
            return
        cp = info.score.to_cp()  # (mated now, mate 0, is the lowest)
        self.last_cp = cp
        self.bad_moves = self.bad_moves + 1 if cp <= RESIGN_CP else 0

    def resigns(self) -> bool:
        """Whether the game is hopeless: RESIGN_MOVES bad scores in a row."""
        return self.bad_moves >= RESIGN_MOVES

    def accepts_draw(self) -> bool:
        """Whether to accept a draw offer now: the engine stands worse."""
        return self.last_cp is not None and self.last_cp <= ACCEPT_DRAW_CP
