"""Time controls and the referee's clocks.

A time control is written as cutechess writes it: `[MOVES/]BASE[+INC]`, BASE in seconds or
as minutes:seconds, INC in seconds (`1+0.01`, `40/60`, `2:30+1`). The referee measures each
move from the moment it sends `go` to the moment the move arrives; an engine whose clock goes
below minus the margin loses on time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .engines import MoveLimits

_TC = re.compile(r"^(?:(\d+)/)?(\d+(?::\d+(?:\.\d*)?)?|\d*\.\d+)(?:\+(\d+(?:\.\d*)?|\.\d+))?$")


@dataclass(frozen=True)
class TimeControl:
    """Moves per period (0: the whole game), base and increment in milliseconds."""

    moves: int
    base_ms: int
    inc_ms: int

    def __str__(self) -> str:
        """The PGN TimeControl tag's form: [moves/]seconds[+increment]."""
        text = f"{self.base_ms / 1000:g}"
        if self.moves:
            text = f"{self.moves}/{text}"
        return f"{text}+{self.inc_ms / 1000:g}" if self.inc_ms else text


def parse_tc(text: str) -> TimeControl:
    """A TimeControl from `[MOVES/]BASE[+INC]`; ValueError with an example otherwise."""
    found = _TC.match(text.strip())
    if found is None:
        raise ValueError(
            f"bad time control {text!r}: expected [MOVES/]BASE[+INC] in seconds "
            "(e.g. 10+0.1, 40/60, 2:30+1)"
        )
    moves, base, inc = found.groups()
    if ":" in base:
        minutes, seconds = base.split(":", 1)
        base_s = int(minutes) * 60 + float(seconds)
    else:
        base_s = float(base)
    if base_s <= 0:
        raise ValueError(f"bad time control {text!r}: the base time must be positive")
    if moves is not None and int(moves) <= 0:
        raise ValueError(f"bad time control {text!r}: moves per period must be positive")
    return TimeControl(int(moves or 0), round(base_s * 1000), round(float(inc or 0) * 1000))


@dataclass(frozen=True)
class MatchLimits:
    """What each move may use: a time control, or a fixed time, node count or depth."""

    tc: TimeControl | None = None
    movetime_ms: int | None = None
    nodes: int | None = None
    depth: int | None = None
    margin_ms: int = 100  # how far over its time an engine may go before it loses

    def describe(self) -> str:
        """The budget in words for the summary and the PGN TimeControl tag."""
        parts = []
        if self.tc is not None:
            parts.append(str(self.tc))
        if self.movetime_ms is not None:
            parts.append(f"{self.movetime_ms / 1000:g}/move")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        return ", ".join(parts) or "-"

    def check(self) -> None:
        """ValueError unless exactly one kind of budget is set (nodes and depth may combine)."""
        if self.tc is None and self.movetime_ms is None and self.nodes is None and not self.depth:
            raise ValueError("no limit: give --tc, --movetime, --nodes or --depth")
        if self.tc is not None and self.movetime_ms is not None:
            raise ValueError("give --tc or --movetime, not both")
        for name, value in (("movetime", self.movetime_ms), ("nodes", self.nodes)):
            if value is not None and value <= 0:
                raise ValueError(f"--{name} must be positive")
        if self.depth is not None and self.depth <= 0:
            raise ValueError("--depth must be positive")
        if self.margin_ms < 0:
            raise ValueError("--timemargin must not be negative")


class Clocks:
    """Both sides' remaining time, kept by the referee."""

    def __init__(self, budget: MatchLimits) -> None:
        self.budget = budget
        tc = budget.tc
        self.left = [tc.base_ms, tc.base_ms] if tc else [0, 0]  # ms, White then Black
        self.moves_made = [0, 0]

    def limits(self, white: bool) -> MoveLimits:
        """The go limits for the side to move."""
        budget, tc = self.budget, self.budget.tc
        limits = MoveLimits(movetime=budget.movetime_ms, nodes=budget.nodes, depth=budget.depth)
        if tc is not None:
            limits.wtime, limits.btime = self.left[0], self.left[1]
            limits.winc = limits.binc = tc.inc_ms
            if tc.moves:
                side = 0 if white else 1
                limits.movestogo = tc.moves - self.moves_made[side] % tc.moves
        return limits

    def spend(self, white: bool, elapsed: float) -> str | None:
        """Charge a move's time to its side; a message if the side lost on time, else None."""
        budget, tc = self.budget, self.budget.tc
        used = round(elapsed * 1000)
        side = 0 if white else 1
        if budget.movetime_ms is not None and used > budget.movetime_ms + budget.margin_ms:
            return f"used {used} ms for a {budget.movetime_ms} ms move"
        if tc is None:
            return None
        self.left[side] -= used
        if self.left[side] < -budget.margin_ms:
            return f"lost on time ({self.left[side]} ms left after {used} ms)"
        self.left[side] = max(self.left[side], 0) + tc.inc_ms
        self.moves_made[side] += 1
        if tc.moves and self.moves_made[side] % tc.moves == 0:
            self.left[side] += tc.base_ms
        return None

    def seconds(self, white: bool) -> float:
        """The side's remaining time in seconds (for the stall deadline)."""
        return self.left[0 if white else 1] / 1000
