"""Strength levels: each internal skill's node budget, push and depth cap, the UCI_Elo <-> skill
map, and `Skill Level`'s equal Elo steps through it."""

from __future__ import annotations

from collections import namedtuple
from itertools import pairwise

import pytest

from ferz import timeman
from ferz.engine import (
    ELO_MAX,
    ELO_MIN,
    LEVEL_ELO,
    SKILL_ELO,
    Engine,
    elo_of_skill,
    level_elo,
    skill_depth,
    skill_lines,
    skill_nodes,
    skill_noise,
    skill_of,
    skill_of_elo,
    skill_of_level,
)
from tests.search.helpers import scored, think

SKILLS = range(20)  # the internal scale's integers; 20 is full strength
LEVELS = range(20)  # the `Skill Level`s that limit strength (20 is full strength)
FRACTIONS = [k / 8 for k in range(160)]  # 0 .. 19.875: what UCI_Elo can ask for
# ferz's search speed on the 2-core reference machine (`ferz bench`: 630 k nodes/s, 0.60x
# Stockfish 15.1's bench) in nodes per ms, and the blitz controls (base s, increment s)
REF_NODES_PER_MS = 630
BLITZ = [(10, 0.1), (60, 0.6), (180, 0), (180, 2), (300, 0), (300, 3)]
MARGIN = 3  # skill 19's budget is at most a third of what the clock allows ...
LEVEL_MARGIN = 1.8  # ... and every Skill Level's 1 / 1.8 (the top ones lie on the bridge)


def clock_nodes(base_s: float, inc_s: float) -> float:
    """Nodes that the soft limit of a full clock buys at the reference speed."""
    budget = timeman.allocate(
        0,
        wtime=int(base_s * 1000),
        btime=int(base_s * 1000),
        winc=int(inc_s * 1000),
        binc=int(inc_s * 1000),
    )
    return budget.soft * REF_NODES_PER_MS


def test_budgets_rise_by_one_ratio():
    """Each skill searches more nodes than the one below, by the same ratio."""
    budgets = [skill_nodes(skill) for skill in SKILLS]
    ratios = [b / a for a, b in pairwise(budgets)]
    assert all(r > 1.2 for r in ratios)
    assert max(ratios) - min(ratios) < 0.05
    assert all(skill_nodes(a) <= skill_nodes(b) for a, b in pairwise(FRACTIONS))


@pytest.mark.parametrize(("base", "inc"), BLITZ)
def test_every_level_is_limited_by_its_budget_not_the_clock(base, inc):
    """At blitz controls the clock buys at least three times skill 19's budget and 1.8 times
    every Skill Level's; the fractional skills between 19 and 20 (the bridge to full strength)
    stay within it."""
    allowed = clock_nodes(base, inc)
    assert skill_nodes(19) * MARGIN <= allowed
    assert all(skill_nodes(skill_of_level(k)) * LEVEL_MARGIN <= allowed for k in LEVELS)
    assert skill_nodes(FRACTIONS[-1]) <= allowed


def test_push_and_lines_shrink_to_nothing_at_level_19():
    """The random push narrows skill by skill and is gone at 19, where one line is searched;
    the depth cap never falls as the skill rises."""
    noise = [skill_noise(skill) for skill in SKILLS]
    assert all(a > b for a, b in pairwise(noise))
    assert noise[-1] == 0 and noise[0] > 100
    lines = [skill_lines(skill) for skill in SKILLS]
    assert all(a >= b for a, b in pairwise(lines))
    assert lines[0] == 4 and lines[-1] == 1 and all(n >= 2 for n in lines[:-1])
    depths = [skill_depth(skill) for skill in SKILLS]
    assert depths[0] == 1 and all(a <= b for a, b in pairwise(depths))


def test_elo_map_rises_and_inverts():
    """The calibrated Elo rises over 0..20 and skill_of_elo inverts it; the option's range is
    its ends (ELO_MAX is full strength) and what lies beyond is clamped."""
    elos = [elo_of_skill(s) for s in [*FRACTIONS, 20.0]]
    assert all(a < b for a, b in pairwise(elos))
    for s in FRACTIONS:
        assert skill_of_elo(elo_of_skill(s)) == pytest.approx(s, abs=1e-6)
    assert skill_of_elo(ELO_MIN) == pytest.approx(0, abs=0.05)
    assert elo_of_skill(0) == ELO_MIN and elo_of_skill(20) == ELO_MAX
    assert skill_of_elo(ELO_MIN - 500) == 0 and skill_of_elo(ELO_MAX + 500) == 20


def test_calibration_points_are_ordered():
    """SKILL_ELO runs from skill 0 at ELO_MIN to full strength (20) at ELO_MAX, rising in
    both columns, so that the map between them is one-to-one."""
    assert SKILL_ELO[0] == (0, ELO_MIN) and SKILL_ELO[-1] == (20, ELO_MAX)
    assert all(s0 < s1 and e0 < e1 for (s0, e0), (s1, e1) in pairwise(SKILL_ELO))


def test_skill_levels_are_equal_elo_steps():
    """Skill Level k plays at the skill whose calibrated Elo is ELO_MIN + k * LEVEL_ELO: equal
    steps from level 0 (skill 0) to level 20 (full strength), rising with k, and on the same
    scale as UCI_Elo."""
    assert LEVEL_ELO * 20 == ELO_MAX - ELO_MIN
    skills = [skill_of_level(k) for k in range(21)]
    assert skills[0] == 0 and skills[20] == 20
    assert all(a < b for a, b in pairwise(skills))
    for k, skill in enumerate(skills):
        assert elo_of_skill(skill) == pytest.approx(ELO_MIN + k * LEVEL_ELO, abs=0.5)
        assert level_elo(k) == pytest.approx(ELO_MIN + k * LEVEL_ELO)
    steps = [elo_of_skill(b) - elo_of_skill(a) for a, b in pairwise(skills)]
    assert max(steps) - min(steps) < 1
    engine = Engine()
    for k in (0, 7, 13, 19):
        engine.set_option("UCI_LimitStrength", False)
        engine.set_option("Skill Level", k)
        by_level = skill_of(engine.options)
        engine.set_option("UCI_LimitStrength", True)
        engine.set_option("UCI_Elo", round(level_elo(k)))
        assert skill_of(engine.options) == pytest.approx(by_level, abs=1e-9)


def test_options_choose_the_level():
    """Skill Level and UCI_Elo give the skill; 20 and ELO_MAX are full strength; values
    outside the options' ranges are refused and change nothing."""
    engine = Engine()
    assert skill_of(engine.options) is None
    engine.set_option("Skill Level", 0)
    assert skill_of(engine.options) == 0
    engine.set_option("Skill Level", 7)
    assert skill_of(engine.options) == pytest.approx(skill_of_level(7))
    assert 0 < skill_of(engine.options) < 19
    engine.set_option("UCI_LimitStrength", True)  # UCI_Elo takes over from Skill Level
    engine.set_option("UCI_Elo", ELO_MAX)
    assert skill_of(engine.options) is None
    engine.set_option("UCI_Elo", ELO_MIN)
    assert skill_of(engine.options) == pytest.approx(skill_of_elo(ELO_MIN))
    for name, bad in (
        ("UCI_Elo", ELO_MIN - 1),
        ("UCI_Elo", ELO_MAX + 1),
        ("Skill Level", 21),
        ("Skill Level", -1),
    ):
        before = engine.options.get(name)
        with pytest.raises(ValueError):
            engine.set_option(name, bad)
        assert engine.options.get(name) == before


Line = namedtuple("Line", "score pv")


def test_pick_stays_within_the_push():
    """A skill chooses only among lines within its push of the best, and at 19 the best."""
    engine = Engine()
    lines = [Line(50, [1]), Line(20, [2]), Line(-40, [3]), Line(-400, [4])]
    assert {engine._skill_pick(lines, 19) for _ in range(50)} == {1}
    picks = {engine._skill_pick(lines, 10) for _ in range(400)}  # push 90 cp, 3 lines
    assert picks == {1, 2}
    picks = {engine._skill_pick(lines, 0) for _ in range(400)}  # push 190 cp, 4 lines
    assert picks == {1, 2, 3}


def test_level_search_finishes_depth_one_then_keeps_its_budget(engine: Engine):
    """The weakest level still completes depth 1 (a move chosen by search, not a fallback),
    and a level stops at its node budget while its clock would allow far more."""
    fen = "r1b1k2r/pp1n1ppp/2p1pn2/q2p4/1bPP4/2N1PN2/PPQB1PPP/R3KB1R w KQkq - 0 1"
    engine.set_option("Skill Level", 0)
    best, infos = think(engine, fen, wtime=60000, btime=60000)
    assert best and [i.depth for i in scored(infos)].count(1) >= 4  # four lines at depth 1
    engine.set_option("Skill Level", 12)
    skill = skill_of_level(12)
    _, infos = think(engine, fen, wtime=600000, btime=600000)
    assert max(i.nodes for i in scored(infos)) <= skill_nodes(skill) + 64
    assert max(i.depth for i in scored(infos)) < skill_depth(skill)
    engine.set_option("Skill Level", 20)
    _, infos = think(engine, fen, nodes=skill_nodes(skill) * 3)
    assert max(i.nodes for i in scored(infos)) > skill_nodes(skill)
