"""Game policy: resignation after a run of hopeless scores, draw offers accepted when worse."""

from __future__ import annotations

from ferz.engine import Info
from ferz.policy import ACCEPT_DRAW_CP, RESIGN_CP, RESIGN_MOVES, Policy


def test_resigns_after_a_run_of_hopeless_scores_only() -> None:
    """RESIGN_MOVES bad scores in a row resign; one better score starts the count again; mates
    count as hopeless; reports without a score change nothing."""
    policy = Policy()
    for _ in range(RESIGN_MOVES - 1):
        policy.observe(Info(score_cp=RESIGN_CP - 1))
    policy.observe(Info(score_cp=0))
    assert not policy.resigns()
    for _ in range(RESIGN_MOVES - 1):
        policy.observe(Info(score_cp=RESIGN_CP))
    policy.observe(Info(string="no score"))
    policy.observe(None)
    assert not policy.resigns()
    policy.observe(Info(score_mate=-3))
    assert policy.resigns()
    policy.reset()
    assert not policy.resigns() and not policy.accepts_draw()


def test_accepts_a_draw_when_standing_worse() -> None:
    """The latest score decides; a winning mate never accepts."""
    policy = Policy()
    policy.observe(Info(score_cp=ACCEPT_DRAW_CP))
    assert policy.accepts_draw()
    policy.observe(Info(score_cp=ACCEPT_DRAW_CP + 1))
    assert not policy.accepts_draw()
    policy.observe(Info(score_mate=2))
    assert not policy.accepts_draw()
