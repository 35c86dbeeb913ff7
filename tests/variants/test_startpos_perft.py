"""Start-position perft of every built-in variant against Fairy-Stockfish 11.1's counts.

The counts (tests/data/startpos-perft.jsonl) were measured with Debian's fairy-stockfish
11.1 (largeboards build). Names collide between engines, so each test also pins the start FEN.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ferz import variants
from ferz.core.perft import perft
from ferz.core.position import Position
from tests.variants.oracle import fsf_name, normal_fen

pytestmark = pytest.mark.variant

DATA = Path(__file__).parents[1] / "data" / "startpos-perft.jsonl"
ROWS = {row["variant"]: row for row in map(json.loads, DATA.read_text().splitlines())}
PURE = os.environ.get("FERZ_PURE", "") not in ("", "0")
QUICK_CAP = 20_000 if PURE else 400_000  # nodes per variant in the default run
SLOW_CAP = 40_000_000  # nodes per variant under -m slow

# Built-in variants whose start-position perft differs from FSF: (name, reason). Empty when all
# agree; a variant listed here must still fail, so that the list cannot go stale.
KNOWN_DIFFERENT: dict[str, str] = {}


def _row(name: str) -> dict:
    """The oracle row of a built-in variant."""
    return ROWS[fsf_name(name)]


@pytest.mark.parametrize("name", variants.builtins())
def test_start_fen_is_the_oracles(name: str) -> None:
    rules = variants.get(name)
    if rules.seirawan_gating:
        # FSF 11.1 lists every gate (`KQABCDEFGH`), later FSF and ferz leave out the gates
        # that K and Q imply (`KQBCDFG`): the same position
        ours, theirs = Position(rules), Position(rules)
        ours.set_fen(rules.start_fen)
        theirs.set_fen(_row(name)["fen"])
        assert ours.fen() == theirs.fen() == rules.start_fen
        return
    assert normal_fen(rules.start_fen) == normal_fen(_row(name)["fen"])
    pos = Position(rules)
    pos.set_fen(rules.start_fen)
    assert normal_fen(pos.fen()) == normal_fen(_row(name)["fen"])


def _check(name: str, cap: int) -> None:
    """Perft at every oracle depth whose count is at most cap."""
    rows = {int(d): n for d, n in _row(name)["perft"].items()}
    pos = Position(variants.get(name))
    pos.set_fen(variants.get(name).start_fen)
    depths = [d for d, n in sorted(rows.items()) if n <= cap]
    assert depths, f"{name}: no depth under {cap} nodes"
    got = {d: perft(pos, d) for d in depths}
    want = {d: rows[d] for d in depths}
    if name in KNOWN_DIFFERENT:
        assert got != want, f"{name} now agrees with FSF: drop it from KNOWN_DIFFERENT"
        pytest.xfail(KNOWN_DIFFERENT[name])
    assert got == want
    assert pos.fen() == variants.get(name).start_fen or normal_fen(pos.fen()) == normal_fen(
        _row(name)["fen"]
    )  # perft undid every move


@pytest.mark.parametrize("name", variants.builtins())
def test_start_perft(name: str) -> None:
    _check(name, QUICK_CAP)


@pytest.mark.slow
@pytest.mark.parametrize("name", variants.builtins())
def test_start_perft_deep(name: str) -> None:
    _check(name, SLOW_CAP)
