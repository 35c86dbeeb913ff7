"""The filters of both datagen drivers: which positions a recipe keeps, by their flags."""

from __future__ import annotations

import re
from typing import Protocol

from .fileformat import FLAG_CAPTURE, FLAG_CHECK, FLAG_GIVES_CHECK, FLAG_PROMOTION, FLAG_TAIL

_MOVE = re.compile(r"^[a-p]\d{1,2}[a-p]\d{1,2}")


class Keeps(Protocol):
    """The settings of a recipe that the filters read."""

    keep_checks: bool
    keep_tactical: bool
    keep_tails: bool


def promotes(uci: str) -> bool:
    """Whether a UCI move says more than its two squares (a promotion, or a gating piece)."""
    stem = _MOVE.match(uci)
    return bool(stem) and stem.group(0) != uci


def keep(flags: int, recipe: Keeps) -> bool:
    """Whether a position with these flags passes the recipe's filters."""
    if flags & FLAG_CHECK and not recipe.keep_checks:
        return False
    tactical = FLAG_CAPTURE | FLAG_PROMOTION | FLAG_GIVES_CHECK
    if flags & tactical and not recipe.keep_tactical:
        return False
    return not (flags & FLAG_TAIL and not recipe.keep_tails)
