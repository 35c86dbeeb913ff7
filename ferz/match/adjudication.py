"""Ending a game before the rules do: agreed scores (resign, draw) and a move limit.

Scores are taken from both engines' reports, in White's centipawns, one per move each. A game
is given to a side when both engines' last `resign_moves` scores are at least `resign_score`
for it; it is drawn when, after move `draw_movenumber`, both engines' last `draw_moves`
scores lie within `draw_score` of zero; and it is drawn when it reaches `max_moves` full
moves. A value of 0 turns each rule off.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Adjudication:
    """Thresholds of the three rules (0 turns a rule off)."""

    resign_score: int = 0
    resign_moves: int = 3
    draw_score: int = 10
    draw_moves: int = 8
    draw_movenumber: int = 0
    max_moves: int = 0

    def check(self) -> None:
        """ValueError for a negative or meaningless threshold."""
        for name in ("resign_score", "resign_moves", "draw_score", "draw_moves"):
            if getattr(self, name) < 0:
                raise ValueError(f"--{name.replace('_', '-')} must not be negative")
        if self.draw_movenumber < 0 or self.max_moves < 0:
            raise ValueError("--draw-movenumber and --max-moves must not be negative")

    def decide(
        self, white_scores: list[int | None], black_scores: list[int | None], plies: int
    ) -> tuple[str, str] | None:
        """(result, reason) if a rule ends the game now, else None; scores in White's view,
        one list per engine (White's and Black's reports), `plies` played so far."""
        if self.max_moves and plies >= 2 * self.max_moves:
            return "1/2-1/2", f"move limit ({self.max_moves} moves)"
        n = self.resign_moves
        if self.resign_score and n and min(len(white_scores), len(black_scores)) >= n:
            last = white_scores[-n:] + black_scores[-n:]
            if all(score is not None and score >= self.resign_score for score in last):
                return "1-0", f"both engines see White ahead by {self.resign_score} cp or more"
            if all(score is not None and score <= -self.resign_score for score in last):
                return "0-1", f"both engines see Black ahead by {self.resign_score} cp or more"
        n = self.draw_moves
        if (
            self.draw_movenumber
            and n
            and plies >= 2 * self.draw_movenumber
            and min(len(white_scores), len(black_scores)) >= n
        ):
            last = white_scores[-n:] + black_scores[-n:]
            if all(score is not None and abs(score) <= self.draw_score for score in last):
                return "1/2-1/2", f"both engines score within {self.draw_score} cp of a draw"
        return None
