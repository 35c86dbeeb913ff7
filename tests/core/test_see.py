"""Static exchange evaluation (core/see.py): the material balance of the exchanges on a square."""

from __future__ import annotations

import pytest

from ferz.core import see
from tests.core.conftest import buffer, setup


def _see(fen: str, uci: str, variant: str = "chess") -> tuple[int, object]:
    """SEE of one move, with the setup (for piece values)."""
    s = setup(fen, variant)
    return see.see(s.pos, s.ev, s.code(uci), buffer()), s


def test_an_undefended_piece_is_won_whole() -> None:
    value, s = _see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5")
    assert value == s.value("N")


def test_a_defended_pawn_for_a_pawn_is_even() -> None:
    value, _ = _see("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5")
    assert value == 0


def test_the_queen_for_a_defended_pawn_loses_the_difference() -> None:
    value, s = _see("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5")
    assert value == s.value("P") - s.value("Q")


def test_a_rook_behind_a_rook_counts_x_ray() -> None:
    """Rxd5 Rxd5 Rxd5: the second white rook stands behind the first on the file."""
    value, s = _see("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5")
    assert value == s.value("P")
    alone, _ = _see("3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5")
    assert alone == s.value("P") - s.value("R")


def test_the_least_valuable_attacker_recaptures_first() -> None:
    """Nxe5 is met by dxe5, not by the queen (which the rook would take): the knight is lost
    for a pawn, where the queen first would have made the capture win a pawn."""
    value, s = _see("4k2q/8/3p4/4p3/8/5N2/4R3/4K3 w - - 0 1", "f3e5")
    assert value == s.value("P") - s.value("N")


def test_a_cannon_needs_its_screen() -> None:
    """Xiangqi: the cannon on b3 takes the horse on b10 over the cannon on b8, and the chariot
    on a10 takes back; without the screen there is no capture to count."""
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    value, s = _see(fen, "b3b10", "xiangqi")
    assert value == s.value("N") - s.value("C")


@pytest.mark.parametrize(
    "fen",
    [
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ],
)
def test_see_ge_agrees_with_see(fen: str) -> None:
    """see_ge(m, t) says whether see(m) >= t, for every capture and a range of thresholds."""
    s = setup(fen)
    captures = [m for m in s.pos.pseudo_moves(captures_only=True)]
    assert captures
    for m in captures:
        value = see.see(s.pos, s.ev, m, buffer())
        for threshold in (-1200, -500, -1, 0, 1, 80, 300, value, value + 1):
            assert see.see_ge(s.pos, s.ev, m, threshold, buffer()) == (value >= threshold)


def test_an_explosion_is_worth_its_blast() -> None:
    """Atomic: a capture is worth what its blast takes, less the capturer and own pieces."""
    value, s = _see("4k3/8/8/2nbr3/3Q4/8/8/4K3 w - - 0 1", "d4d5", "atomic")
    gain = s.value("B") + s.value("N") + s.value("R")
    assert value == gain - s.value("Q")
