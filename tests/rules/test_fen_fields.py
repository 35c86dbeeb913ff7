"""FEN's numeric fields are range-checked: every number either round-trips or is refused with
InvalidFenError naming the field, never an OverflowError from the core; every front end says
the same."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ferz.board import Board, InvalidFenError
from ferz.core.fen import MAX_COUNT_LIMIT, MAX_COUNTER
from tests.conftest import ROOT

PLACEMENT = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
HUGE = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2000000000"
MESSAGE = "fullmove number: 2000000000 is out of range (1 to 1000000)"

# Numbers as a FEN field might carry them: small, near the limits, past 2^31 and 2^63, signs,
# non-ASCII digits, other notations (an empty field is an absent one, so not among them).
NUMBERS = st.one_of(
    st.integers(min_value=-5, max_value=2_000_000).map(str),
    st.sampled_from(
        [str(2**31 - 1), str(2**31), str(2**32), str(2**63), "9" * 40, "00", "+1", "-0"]
    ),
    st.sampled_from(["1e3", "²", "٣", "१", "0x10", "1_000", "-", "w"]),
)


def _parsed(fen: str, variant: str = "chess") -> Board | None:
    """The board for fen, or None when it is refused with InvalidFenError (anything else fails
    the test)."""
    try:
        return Board(fen, variant=variant)
    except InvalidFenError:
        return None


@settings(max_examples=300, deadline=None)
@given(half=NUMBERS, full=NUMBERS)
def test_move_counters(half: str, full: str) -> None:
    """Counters in range round-trip; any other text is refused."""
    board = _parsed(f"{PLACEMENT} {half} {full}")
    valid_half = half.isascii() and half.isdigit() and int(half) <= MAX_COUNTER
    valid_full = full.isascii() and full.isdigit() and 1 <= int(full) <= MAX_COUNTER
    assert (board is not None) == (valid_half and valid_full)
    if board is not None:
        assert board.halfmove_clock == int(half) and board.fullmove_number == int(full)
        assert board.fen().endswith(f" {int(half)} {int(full)}")
        board.push_san("e4")  # play goes on from any accepted counter
        assert board.fullmove_number == int(full)


@settings(max_examples=200, deadline=None)
@given(limit=NUMBERS, ply=NUMBERS)
def test_counting_rule_fields(limit: str, ply: str) -> None:
    """Makruk's counting limit and count (Fairy-Stockfish writes them in the e.p. and halfmove
    fields) are range-checked like the move counters."""
    board = _parsed(f"8/8/4k3/8/8/3K4/8/R7 w - {limit} {ply} 40", "makruk")
    if limit.isascii() and limit.isdigit() and 1 <= int(limit) <= MAX_COUNT_LIMIT:
        assert (board is not None) == (ply.isascii() and ply.isdigit() and int(ply) <= MAX_COUNTER)
    if board is not None:
        board.legal_moves  # noqa: B018 (the position is usable)


@settings(max_examples=200, deadline=None)
@given(run=NUMBERS, checks=st.text(alphabet="0123456789+٣²-", max_size=6))
def test_placement_runs_and_check_counters(run: str, checks: str) -> None:
    """Digit runs in the placement and 3check's counters: refused cleanly when wrong."""
    board = _parsed(f"rnbqkbnr/pppppppp/{run}/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert (board is not None) == (run == "8")
    board = _parsed(f"{PLACEMENT} {checks} 0 1", "3check")
    if board is not None:
        board.legal_moves  # noqa: B018


def _run(args: list[str], commands: str = "") -> subprocess.CompletedProcess:
    """`python -m ferz ARGS` with the commands on standard input."""
    return subprocess.run(
        [sys.executable, "-m", "ferz", *args],
        input=commands,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_every_front_end_refuses_huge_counters_alike() -> None:
    """The CLI, UCI, xboard and Board refuse a fullmove number of 2e9 with the same message, and
    the protocols keep their position and go on."""
    with pytest.raises(InvalidFenError, match=re.escape(MESSAGE)):
        Board(HUGE)
    cli = _run(["perft", "1", "--fen", HUGE])
    assert cli.returncode == 2 and MESSAGE in cli.stderr and "Traceback" not in cli.stderr
    uci = _run(["uci"], f"position fen {HUGE}\ngo perft 1\nquit\n")
    assert MESSAGE in uci.stdout and "Nodes searched: 20" in uci.stdout
    xboard = _run([], f"xboard\nprotover 2\nnew\nforce\nsetboard {HUGE}\nperft 1\nquit\n")
    assert MESSAGE in xboard.stdout and "Nodes searched: 20" in xboard.stdout
    for out in (uci, xboard):
        assert out.returncode == 0 and "Traceback" not in out.stderr
