"""Differential tests against python-chess on positions reached by random play (chess, Chess960)."""

from __future__ import annotations

import random

import pytest

from ferz.board import Board, Outcome

chess = pytest.importorskip("chess", reason="python-chess is the oracle (pip install chess)")

#: positions checked in the default run (half chess, half Chess960; 100 000 with -m slow)
POSITIONS = 5_000


def _outcome(outcome: chess.Outcome | None) -> Outcome | None:
    """python-chess's outcome in ferz's terms."""
    if outcome is None:
        return None
    return Outcome(outcome.termination.name.lower(), outcome.winner)


def _compare(ours: Board, theirs: chess.Board, with_san: bool) -> bool:
    """Assert that both boards agree on everything observable; whether the game is over."""
    assert ours.fen() == theirs.fen(en_passant="xfen")
    our_moves = {m.uci(): m for m in ours.legal_moves}
    their_moves = {m.uci(): m for m in theirs.legal_moves}
    assert our_moves.keys() == their_moves.keys(), theirs.fen()
    assert ours.is_check() == theirs.is_check()
    our_outcome, their_outcome = ours.outcome(), theirs.outcome()
    if their_outcome is None:
        assert our_outcome is None, theirs.fen()
    else:
        assert our_outcome is not None, theirs.fen()
        assert our_outcome.termination == their_outcome.termination.name.lower()
        assert our_outcome.winner == their_outcome.winner
    their_fifty = theirs.can_claim_fifty_moves()
    assert ours.can_claim_fifty_moves() == their_fifty, theirs.fen()
    # The threefold claim plays every legal move, the oracle's slowest call: asked once here
    # (can_claim_draw and outcome(claim_draw=True) each asked it: a third of the test's time).
    their_threefold = not their_fifty and theirs.can_claim_threefold_repetition()
    assert ours.can_claim_draw() == (their_fifty or their_threefold), theirs.fen()
    # python-chess's outcome(claim_draw=True): the game's end, else the fifty-move claim, else
    # the threefold claim
    claimed = their_outcome
    if claimed is None and their_fifty:
        claimed = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    elif claimed is None and their_threefold:
        claimed = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    assert ours.outcome(claim_draw=True) == _outcome(claimed)
    if with_san:
        for text, move in our_moves.items():
            san = theirs.san(their_moves[text])
            assert ours.san(move) == san, theirs.fen()
            assert ours.parse_san(san) == move
    return their_outcome is not None


def _random_play(seed: int, positions: int, chess960: bool) -> int:
    """Play random games, comparing every position; returns how many were compared."""
    rng = random.Random(seed)
    seen = 0
    while seen < positions:
        if chess960:
            theirs = chess.Board.from_chess960_pos(rng.randrange(960))
            theirs.chess960 = True
        else:
            theirs = chess.Board()
        ours = Board(theirs.fen(), chess960=chess960)
        for ply in range(300):
            over = _compare(ours, theirs, with_san=seen % 4 == 0)
            seen += 1
            if over or seen >= positions:
                break
            moves = list(theirs.legal_moves)
            # prefer captures and promotions a little, to reach endgames and promotions
            tactical = [m for m in moves if theirs.is_capture(m) or m.promotion]
            move = rng.choice(tactical if tactical and rng.random() < 0.4 else moves)
            ours.push_uci(move.uci())
            theirs.push(move)
            if ply % 37 == 36:  # take back now and then: pop must restore everything
                ours.pop()
                theirs.pop()
                _compare(ours, theirs, with_san=False)
                ours.push_uci(move.uci())
                theirs.push(move)
    return seen


def test_random_play_chess() -> None:
    assert _random_play(1, POSITIONS // 2, chess960=False) == POSITIONS // 2


def test_random_play_chess960() -> None:
    assert _random_play(2, POSITIONS // 2, chess960=True) == POSITIONS // 2


@pytest.mark.slow
def test_random_play_many() -> None:
    assert _random_play(3, 50_000, chess960=False) == 50_000
    assert _random_play(4, 50_000, chess960=True) == 50_000


def test_special_positions() -> None:
    """Positions that break move generators: pinned e.p., castling through check, promotions."""
    fens = [
        "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",  # e.p. capture would expose the king
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",  # e.p. with the rank pin
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2r w Qkq - 0 1",
        "1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
        "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
        "2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        "8/8/8/8/8/8/2k5/K7 w - - 0 1",
        "7k/5Q2/8/8/8/8/8/K7 b - - 0 1",
        "8/8/8/8/8/8/8/KBk5 w - - 0 1",
        # a pin along a diagonal whose mailbox difference equals that of another line
        # (5 files left, 5 ranks down = 6 files right, 6 ranks down on 8 files)
        "r2q1rk1/pP1p2pp/Q4n2/b1p1p3/Np6/1b3NBn/BPPP1PPP/1R2K2R b K - 2 3",
    ]
    for fen in fens:
        _compare(Board(fen), chess.Board(fen), with_san=True)
    chess960 = [
        "1rk1r3/8/8/8/8/8/8/1RK1R3 w BEbe - 0 1",
        "rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1",
        # in check from a rook the castling rook would block: castling stays illegal
        "brk4n/p1pn3p/6p1/2N5/7q/1B1P4/PP4PP/BRK2rQN w Qq - 0 12",
    ]
    for fen in chess960:
        theirs = chess.Board(fen, chess960=True)
        _compare(Board(fen, chess960=True), theirs, with_san=True)
