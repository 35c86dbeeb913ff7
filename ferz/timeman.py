"""Time management: how long to think on this move, from the clock and the search limits."""

from __future__ import annotations

from dataclasses import dataclass

from .params import TIME, values

#: With a fixed movetime, the most of it (%) kept back for the measured lag: the GUI chose the
#: time, so the bestmove should come at it, not a Move Overhead earlier.
MOVETIME_GUARD_PERCENT = 10


@dataclass(frozen=True)
class Budget:
    """Thinking time for one move in ms: stop starting iterations after `soft`, abort at `hard`.

    None means no time limit (depth, nodes, mate, infinite or ponder searches).
    """

    soft: float | None
    hard: float | None


def allocate(
    side: int,
    *,
    wtime: int | None = None,
    btime: int | None = None,
    winc: int | None = None,
    binc: int | None = None,
    movestogo: int | None = None,
    movetime: int | None = None,
    infinite: bool = False,
    overhead: int = TIME["move_overhead"],
    lag: float = 0.0,
    drops: bool = False,
) -> Budget:
    """The time budget of the side to move (0 white, 1 black); never more than the clock holds.

    `overhead`: the Move Overhead, kept back from a clock only. `lag`: how late (ms) the engine's
    bestmove came after its hard limit lately, kept back from both.
    `drops`: a game with drops, which reads ferz.params.DROPS' time values before TIME's.
    """
    t = values(TIME, drops)
    if infinite:
        return Budget(None, None)
    if movetime is not None:
        # UCI's "search exactly movetime ms": the GUI chose the time, so the Move Overhead (a
        # clock's safety margin) does not apply, as in Stockfish. Only the measured lag is taken
        # off, so that the bestmove rather than the stop lands on movetime; at most a tenth.
        guard = min(max(0.0, lag), movetime * MOVETIME_GUARD_PERCENT / 100)
        spend = max(1.0, movetime - guard)
        return Budget(spend, spend)
    overhead += int(lag)
    clock = wtime if side == 0 else btime
    if clock is None:
        return Budget(None, None)
    inc = (winc if side == 0 else binc) or 0
    mtg = movestogo if movestogo and movestogo > 0 else t["moves_to_go"]
    mtg = min(mtg, t["moves_to_go"])
    # What is safely ours: the clock minus the overhead of every move still to play.
    usable = max(0.0, clock - overhead * min(mtg, 5))
    soft = (usable / mtg + inc * 3 / 4) * t["optimum_percent"] / 100
    hard = soft * t["maximum_percent"] / 100
    cap = usable * t["maximum_share"] / 100 if mtg > 1 else usable * 0.8
    # On a short clock a loaded machine can answer late by more than the overhead: the hard
    # limit then shrinks towards the soft one, and never takes more than a small share of
    # what the clock holds after this move's overhead (an increment cannot be banked early).
    left = max(0.0, clock - overhead)
    if mtg > 1:
        cap = min(cap, left * t["clock_share"] / 100)
        if clock < t["short_clock"]:
            hard = min(hard, soft * 2)
    hard = min(hard, cap, left)
    soft = min(soft, hard)
    # a few ms to find any move at all, but no more than the share the clock allows
    floor = float(min(t["min_think"], max(1.0, left * t["clock_share"] / 100)))
    return Budget(max(floor, soft), max(floor, hard))


class Stability:
    """How much of the soft limit a search should use, from how its iterations went: less
    while the best move stays the same, more right after it changed or when the score falls."""

    def __init__(self, drops: bool = False) -> None:
        self.t = values(TIME, drops)  # (DROPS' values in a game with drops)
        self.best: int | None = None
        self.score: int | None = None
        self.stable = 0

    def scale(self, best: int, score: int, depth: int) -> float:
        """The factor for the soft limit after an iteration that chose `best` with `score`."""
        if best == self.best:
            self.stable += 1
        else:
            self.stable = 0
        drop = 0 if self.score is None else max(0, min(self.score - score, 100))
        self.best, self.score = best, score
        if depth < 4:
            return 1.0
        t = self.t
        steady = (
            t["unstable_percent"]
            if self.stable == 0
            else max(t["stable_min_percent"], 100 - t["stable_step_percent"] * (self.stable - 1))
        )
        return steady / 100 * (1 + drop * t["score_drop_percent"] / 10000)
