"""The chasing rule's judge (core/chase.py) against the answers of the judge it replaced, and
the attack probes it asks (core/attacks.py: attackers, reaches, targets, blocked_leg).

tests/data/chase-cases.json holds, for xiangqi and janggi positions (built ones with cannon
screens, blocked horse legs, elephants, pins and the flying general, and positions after random
play), every move tried and the squares it chases, as the old judge (ferz/variants/chase.py,
which walked its own rays in Python, at commit 3661cdf) gave them. Where a janggi row carries a
third value, the old judge said that instead: it moved janggi's cannons over cannons and its
pieces along palace diagonals from anywhere; the core's probes follow janggi's rules (the
chasing rule is off in janggi, so no game result depended on those answers).
"""

from __future__ import annotations

import json

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core import attacks, factory
from ferz.core.chase import Chases, cycle_value
from tests.conftest import ROOT

CASES = json.loads((ROOT / "tests" / "data" / "chase-cases.json").read_text())


def _names(board: Board, squares) -> str:
    """Square names, sorted and joined by spaces."""
    rules = board.rules
    return " ".join(sorted(f"{chr(97 + rules.file_of(s))}{rules.rank_of(s) + 1}" for s in squares))


def _square(board: Board, name: str) -> int:
    """A mailbox square from its name."""
    return board.rules.parse_square(name)


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_every_move_chases_what_the_old_judge_said(variant: str) -> None:
    """Each move of the recorded positions chases the recorded squares, and leaves the
    position as it was."""
    chases = Chases(variants.get(variant))
    differ = []
    for fen, rows in CASES[variant]:
        board = Board(fen, variant=variant)
        for uci, want, *_old in rows:
            played = board.push_uci(uci)
            key, text = board.position.key, board.position.fen()
            got = _names(board, chases.chased(board.position, played.code))
            assert (board.position.key, board.position.fen()) == (key, text)
            board.pop()
            if got != want:
                differ.append((fen, uci, want, got))
    assert not differ, differ[:5]


def test_the_recorded_cases_are_varied() -> None:
    """The data covers many chases, and the janggi rows the old judge got wrong are few."""
    xiangqi = [row for _, rows in CASES["xiangqi"] for row in rows]
    janggi = [row for _, rows in CASES["janggi"] for row in rows]
    assert len(xiangqi) >= 1000 and sum(1 for row in xiangqi if row[1]) >= 100
    assert all(len(row) == 2 for row in xiangqi)  # xiangqi: the old answers, all of them
    assert len(janggi) >= 500 and sum(1 for row in janggi if len(row) == 3) <= 30


def test_a_cycle_is_judged_and_the_position_kept() -> None:
    """A rook chasing an undefended horse through the cycle loses; the judge takes the cycle
    back and replays it, leaving the position as it found it."""
    board = Board("4k4/9/n7R/9/9/9/9/9/9/3K5 b - - 0 1", variant="xiangqi")
    for move in ["a8b6", "i8i6", "b6a8", "i6i8"]:
        board.push_uci(move)
    pos = board.position
    before = (pos.fen(), pos.key, pos.ply)
    assert cycle_value(pos, Chases(board.rules)) == 1  # Black to move: White chased
    assert (pos.fen(), pos.key, pos.ply) == before


def test_attack_probes_for_one_piece() -> None:
    """reaches and targets ask about the piece on one square: a cannon over its screen, a
    horse whose leg is blocked, a soldier that has not crossed the river."""
    board = Board("3k5/9/9/4c4/9/4P4/4R4/2n6/2P1A4/4K4 w - - 0 1", variant="xiangqi")
    pos = board.position
    sq = {name: _square(board, name) for name in ("e7", "e4", "e5", "c3", "c2", "e2", "d1")}
    assert attacks.reaches(pos, sq["e7"], sq["e4"])  # the cannon over the soldier on e5
    assert not attacks.reaches(pos, sq["e7"], sq["e5"])  # no capture without a screen
    assert _names(board, attacks.targets(pos, sq["e7"], 0)) == "e4"
    assert _names(board, attacks.targets(pos, sq["c3"], 0)) == "e2 e4"  # c2 blocks d1
    assert attacks.blocked_leg(pos, sq["c3"], sq["d1"]) == sq["c2"]
    assert attacks.blocked_leg(pos, sq["c3"], sq["e2"]) == -1  # its leg d3 is empty
    assert sorted(attacks.attackers(pos, sq["e5"], 0)) == sorted([sq["e4"]])


def test_anywhere_ignores_the_river_and_the_palace() -> None:
    """`anywhere`: a soldier that has not crossed the river attacks sideways too, as the
    chasing rule counts a pinned defender's attacks."""
    board = Board("3k5/9/9/9/9/9/3PP4/9/9/4K4 w - - 0 1", variant="xiangqi")
    pos = board.position
    d4, e4 = _square(board, "d4"), _square(board, "e4")
    assert not attacks.reaches(pos, d4, e4)
    assert attacks.reaches(pos, d4, e4, True)
    assert attacks.attackers(pos, e4, 0) == [] and attacks.attackers(pos, e4, 0, True) == [d4]


@pytest.mark.parametrize(("variant", "judged"), [("xiangqi", 1), ("chess", 0), ("janggi", 0)])
def test_every_search_of_a_chasing_variant_judges_its_repetitions(variant: str, judged: int):
    """The search takes the chasing rule from the rules themselves: a search made by the
    factory, as one made by the engine, judges repetitions where the variant chases."""
    search = factory.search(variants.get(variant))
    assert search.chasing == judged and (search.chase_judge is not None) == bool(judged)
