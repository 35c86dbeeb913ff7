"""The move picker (core/movepick.py): every move of a node once, best first, in stages."""

from __future__ import annotations

import pytest

from ferz.core.history import History
from ferz.core.movepick import MovePicker
from tests.core.conftest import Setup, setup

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITIONS = [
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("chess", KIWIPETE),
    ("chess", "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"),
    ("chess", "4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1"),  # in check
    ("crazyhouse", "r1bqkbnr/ppp2ppp/2np4/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[Pp] w KQkq - 0 5"),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
    ("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[-] w - - 0 1"),
]


class Picker:
    """A MovePicker with its History, set up as the search sets up a node at ply 0."""

    def __init__(self, s: Setup) -> None:
        self.s = s
        self.hist = History(s.pos, 8, 16384, 1024, 32)
        self.mp = MovePicker(s.pos, s.ev, self.hist, 8)

    def start(self, ttm: int = 0, prev: int = 0) -> None:
        """Start picking at ply 0 as the search does (staged unless in check or full_gen)."""
        check = bool(self.s.board.is_check())
        self.mp.start(0, ttm, not check and not self.s.pos.move_rules["full_gen"], prev)

    def moves(self, ttm: int = 0, prev: int = 0) -> list[int]:
        """Every move the picker returns, in its order."""
        self.start(ttm, prev)
        out = []
        while m := self.mp.next(0):
            out.append(m)
        return out


@pytest.mark.parametrize(("variant", "fen"), POSITIONS)
def test_every_pseudo_legal_move_comes_once(variant: str, fen: str) -> None:
    s = setup(fen, variant)
    p = Picker(s)
    expected = set(s.pos.pseudo_moves())
    picked = p.moves()
    assert len(picked) == len(set(picked)), "a move returned twice"
    legal = set(s.pos.legal_moves())
    assert legal <= set(picked) <= expected
    # with a TT move, a killer and a counter move known, still each once
    ttm = sorted(legal)[len(legal) // 2]
    quiets = [m for m in legal if not s.is_capture(m)]
    if len(quiets) >= 3:
        p.hist.cutoff_quiet(0, quiets[0], 0)
        p.hist.cutoff_quiet(0, quiets[1], 0)
    again = p.moves(ttm)
    assert again[0] == ttm
    assert len(again) == len(set(again))
    assert set(again) == set(picked)


def test_the_tt_move_comes_first_without_generating() -> None:
    s = setup(KIWIPETE)
    p = Picker(s)
    ttm = s.code("a2a3")
    p.start(ttm)
    assert p.mp.next(0) == ttm


def test_winning_captures_before_killers_before_quiets_before_losing_captures() -> None:
    """Kiwipete: captures that win or break even by SEE (Bxa6, dxe6, gxh3) come first, the
    killer next, then the quiet moves, and captures that lose material (Nxg6, Nxf7, Qxf6)
    after every quiet move."""
    s = setup(KIWIPETE)
    p = Picker(s)
    killer = s.code("a2a3")
    p.hist.cutoff_quiet(0, killer, 0)
    order = [s.uci(m) for m in p.moves()]
    at = order.index
    winning = ["e2a6", "d5e6", "g2h3"]
    losing = ["e5g6", "e5f7", "f3f6"]
    for w in winning:
        assert at(w) < at("a2a3"), f"{w} after the killer: {order}"
    assert all(at("a2a3") < at(q) for q in ("a1b1", "e1f1", "g2g3")), order
    quiet_last = max(at(q) for q in ("a1b1", "a2a4", "b2b3", "e1d1", "g2g3", "g2g4"))
    for lose in losing:
        assert at(lose) > quiet_last, f"{lose} before a quiet move: {order}"


def test_the_counter_move_follows_the_killers() -> None:
    s = setup(KIWIPETE)
    p = Picker(s)
    prev = 12345  # any move code: the counter table is indexed by its squares
    counter = s.code("g2g3")
    p.hist.cutoff_quiet(1, counter, prev)  # recorded at another ply: not a killer here
    order = p.moves(prev=prev)
    first_quiet = next(i for i, m in enumerate(order) if not s.is_capture(m))
    assert order[first_quiet] == counter


def test_quiet_history_orders_the_quiet_moves() -> None:
    s = setup(POSITIONS[0][1])
    p = Picker(s)
    good, bad = s.code("g2g3"), s.code("g1f3")
    p.hist.bonus_quiet(0, good, 4000)
    p.hist.bonus_quiet(0, bad, -4000)
    order = p.moves()
    assert order[0] == good
    assert order[-1] == bad


def test_skip_quiets_leaves_the_captures_only() -> None:
    s = setup(KIWIPETE)
    p = Picker(s)
    p.start()
    first = p.mp.next(0)  # a capture
    p.mp.skip_quiets(0, False)
    rest = [first]
    while m := p.mp.next(0):
        rest.append(m)
    assert all(s.is_capture(m) for m in rest), [s.uci(m) for m in rest]
    captures = {m for m in s.pos.pseudo_moves() if s.is_capture(m)}
    assert set(rest) == captures


def test_skip_quiets_but_checks_keeps_the_quiet_checks() -> None:
    s = setup("6k1/5ppp/8/8/8/8/1Q3PPP/R5K1 w - - 0 1")
    p = Picker(s)
    p.start()
    p.mp.skip_quiets(0, True)
    picked = {s.uci(m) for m in iter(lambda: p.mp.next(0), 0)}
    assert picked == {"a1a8", "b2b8", "b2g7"}  # the checks (Qxg7 is a capture)


def test_in_check_every_reply_is_picked() -> None:
    """In check the whole list is generated and scored at once: every legal reply is there."""
    s = setup(POSITIONS[3][1])
    p = Picker(s)
    picked = p.moves()
    assert set(s.pos.legal_moves()) <= set(picked)
    assert s.code("e1e2") in picked
