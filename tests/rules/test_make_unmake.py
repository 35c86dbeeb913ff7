"""make/unmake and null move restore everything; the incremental hash equals a fresh one."""

from __future__ import annotations

import random
from array import array

from ferz.board import Board
from ferz.core.attacks import in_check
from ferz.core.position import Position
from tests.conftest import read_perft_epd

FENS = [fen for fen, _ in read_perft_epd("perftsuite.epd")]


def _state(pos: Position) -> tuple:
    """Everything make/unmake must restore."""
    squares = pos.rules.squares()
    pieces = sorted(pos.plist[c * 64 + i] for c in (0, 1) for i in range(pos.pcount[c]))
    return (
        tuple(pos.board[sq] for sq in squares),
        tuple(pieces),
        tuple(pos.royal),
        tuple(pos.count),
        tuple(pos.hand),
        pos.side,
        pos.key,
        pos.castling,
        pos.ep,
        pos.halfmove,
        pos.ply,
        pos.mg,
        pos.eg,
        pos.phase,
        pos.fen(),
    )


def _with_tables(board: Board, seed: int) -> Position:
    """The board's position with random evaluation tables, to check incremental mg/eg/phase."""
    pos = board.position
    rng = random.Random(seed)
    size = pos.npc * pos.nsq
    pos.set_tables(
        array("i", [rng.randint(-99, 99) for _ in range(size)]),
        array("i", [rng.randint(-99, 99) for _ in range(size)]),
        array("i", [rng.randint(0, 4) for _ in range(pos.npc)]),
    )
    return pos


def test_make_unmake_restores_everything() -> None:
    rng = random.Random(7)
    checked = 0
    for index, fen in enumerate(FENS):
        board = Board(fen)
        pos = _with_tables(board, index)
        for _ in range(12):
            moves = pos.legal_moves()
            if not moves:
                break
            before = _state(pos)
            for m in moves:
                assert pos.make(m)
                after = (pos.key, pos.mg, pos.eg, pos.phase)
                pos.refresh()  # from scratch
                assert (pos.key, pos.mg, pos.eg, pos.phase) == after, (fen, m)
                pos.unmake()
                assert _state(pos) == before, (fen, m)
                checked += 1
            pos.make(rng.choice(moves))
    assert checked > 5000


def test_null_move_restores_everything() -> None:
    for fen in FENS[:40]:
        pos = Board(fen).position
        if in_check(pos):
            continue
        before = _state(pos)
        pos.make_null()
        assert pos.side != before[5]
        assert pos.ep == 0
        key = pos.key
        pos.refresh()
        assert pos.key == key
        pos.unmake_null()
        assert _state(pos) == before


def test_illegal_pseudo_move_is_refused_and_undone() -> None:
    board = Board("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1")
    pos = board.position
    before = _state(pos)
    pseudo = set(pos.pseudo_moves())
    legal = set(pos.legal_moves())
    assert legal < pseudo
    for m in pseudo - legal:
        assert not pos.make(m)
        assert _state(pos) == before


def test_repetition_detected_in_core_and_board() -> None:
    board = Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(uci)
    assert board.position.is_repetition()
    assert board.repetitions() == 3
    assert board.can_claim_draw()
    assert board.outcome(claim_draw=True).termination == "threefold_repetition"
    board.push_uci("e2e4")
    assert not board.position.is_repetition()


def test_pop_without_moves() -> None:
    board = Board()
    try:
        board.pop()
    except IndexError:
        pass
    else:
        raise AssertionError("pop on an empty stack must raise")
    assert board.fen() == Board().fen()
