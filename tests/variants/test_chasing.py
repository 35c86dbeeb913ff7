"""Xiangqi's chasing rule (`chasingRule = axf`): a side that chases one enemy piece at every
move of a repetition cycle loses, judged as Fairy-Stockfish (pyffish 0.0.90) judges it.

Cycles are two reversible move pairs played twice (a threefold repetition); the oracle's
`is_optional_game_end` gives the value for the side to move, ferz's `Board.outcome`.
"""

from __future__ import annotations

import random

import pytest

from ferz import variants
from ferz.board import Board
from ferz.core import endrules
from ferz.core.chase import Chases, cycle_value
from ferz.variants.ini import DefinitionError
from tests.variants.oracle import pyffish

pytestmark = pytest.mark.variant

# (FEN, one cycle, value for the side to move after two cycles): classic chases by a rook, a
# horse and a cannon, discovered attacks over a leg or a screen, and chases that do not count
# (the chased piece is defended, both sides chase, the attackers are of one kind, or an
# advisor attacks outside its palace).
CASES = [
    ("4k4/9/n7R/9/9/9/9/9/9/3K5 b - - 0 1", "a8b6 i8i6 b6a8 i6i8", 1),
    ("r3k4/9/9/9/P8/9/9/9/9/3K5 w - - 0 1", "a6b6 a10b10 b6a6 b10a10", 1),
    ("3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1", "d1c3 d4c4 c3d1 c4d4", 1),
    ("5k3/9/9/9/9/1C7/1r7/9/1C7/4K4 w - - 0 1", "b5c5 b4c4 c5b5 c4b4", 1),
    ("4k4/9/9/9/9/4r4/2NR2N2/9/9/3K5 w - - 0 1", "d4f4 e10e9 f4d4 e9e10", -1),
    ("4k4/9/9/9/9/4n4/2NR2N2/9/9/3K5 w - - 0 1", "d4f4 e10e9 f4d4 e9e10", 0),
    ("9/4c4/3k5/3r5/9/9/4C4/9/4K4/3R5 w - - 0 1", "e4d4 d7e7 d4e4 e7d7", 0),
    ("4ka3/c2R1R2c/4b4/9/9/9/9/9/9/4K4 w - - 0 1", "f9f7 f10e9 f7f9 e9f10", 0),
    (
        "2b1ka3/r8/8b/4p3p/2p6/8P/2P1c3R/2N1B4/4A4/3K1AB2 w - - 0 21",
        "e2d3 a9e9 d3e2 e9a9",
        0,
    ),
]


def _value(board: Board) -> int | None:
    """ferz's result for the side to move: 1 win, 0 draw, -1 loss, None if not over."""
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return None
    if outcome.winner is None:
        return 0
    return 1 if outcome.winner == (board.position.side == 0) else -1


def _oracle(fen: str, moves: list[str]) -> int | None:
    """pyffish's result for the side to move after `moves`."""
    over, value = pyffish().is_optional_game_end("xiangqi", fen, moves)
    if not over:
        return None
    return 0 if value == 0 else (1 if value > 0 else -1)


def _play(fen: str, moves: list[str]) -> Board:
    board = Board(fen, variant="xiangqi")
    for move in moves:
        board.push_uci(move)
    return board


@pytest.mark.parametrize(("fen", "cycle", "value"), CASES)
def test_chases_are_judged_as_fsf_does(fen: str, cycle: str, value: int) -> None:
    """Known chases and non-chases: ferz, the oracle and the expected value agree; judging
    the cycle (its moves taken back and replayed) leaves the board as it was."""
    moves = cycle.split() * 2
    assert _oracle(fen, moves) == value
    board = _play(fen, moves)
    before = board.fen(), board.position.key, board.position.ply
    assert _value(board) == value
    assert (board.fen(), board.position.key, board.position.ply) == before
    board.pop()
    assert board.fen() == _play(fen, moves[:-1]).fen()


def test_a_cycle_shorter_than_threefold_is_not_over() -> None:
    """Nor can the chaser claim a draw for the repetition its next move would make."""
    fen, cycle, _ = CASES[0]
    board = _play(fen, cycle.split() + cycle.split()[:3])
    assert board.outcome(claim_draw=True) is None


def test_perpetual_check_comes_before_the_chase() -> None:
    """Checks at every move decide first; a chase only matters without them."""
    pos = Board(variant="xiangqi").position  # Red (White) to move
    black, both = 2, 3  # colour bit sets
    assert endrules.repetition_value(pos, black, 1) == 1  # Black checked throughout: Red wins
    assert endrules.repetition_value(pos, 0, both) == 0  # both chased: a draw
    assert endrules.repetition_value(pos, 0, black) == 1
    assert endrules.repetition_value(pos, 0, 1) == -1


def test_only_xiangqi_chases() -> None:
    """Manchu and minixiangqi (as in FSF) keep repetitions drawn; a definition may ask."""
    assert variants.get("xiangqi").chasing_rule
    assert not variants.get("manchu").chasing_rule
    assert not variants.get("minixiangqi").chasing_rule
    fen = "4k4/9/n7M/9/9/9/9/9/9/3K5 b - - 0 1"
    board = Board(fen, variant="manchu")
    for move in ["a8b6", "i8i6", "b6a8", "i6i8"] * 2:
        board.push_uci(move)
    assert (
        _value(board) == 0 == pyffish().is_optional_game_end("manchu", fen, board_moves(board))[1]
    )
    assert variants.parse_text("[chasers:minixiangqi]\nchasingRule = axf\n")["chasers"].chasing_rule
    with pytest.raises(DefinitionError, match="chasingRule"):
        variants.parse_text("[bad:xiangqi]\nchasingRule = asian\n")


def board_moves(board: Board) -> list[str]:
    """The UCI moves played on a board."""
    return [move.uci() for move in board.move_stack]


def _split(move: str) -> tuple[str, str]:
    """The two squares of a UCI move (ranks may have two digits)."""
    for i in range(2, len(move)):
        if move[i].isalpha():
            return move[:i], move[i:]
    raise ValueError(move)


def _reverse(move: str) -> str:
    a, b = _split(move)
    return b + a


def _random_position(rng: random.Random) -> Board:
    """A position after random play that prefers captures (open, with loose pieces)."""
    while True:
        board = Board(variant="xiangqi")
        for _ in range(rng.randrange(20, 120)):
            legal = board.legal_moves
            if not legal or board.outcome() is not None:
                break
            captures = [m for m in legal if board.piece_at(_split(m.uci())[1])]
            board.push(rng.choice(captures if captures and rng.random() < 0.8 else legal))
        if board.outcome() is None:
            return Board(board.fen(), variant="xiangqi")


def _chased_after(board: Board, chases: Chases, move: str) -> set[int]:
    played = board.push_uci(move)
    return chases.chased(board.position, played.code)


def _cycles(board: Board, chases: Chases, rng: random.Random, cap: int) -> list[list[str]]:
    """Cycles m1 m2 m1' m2' in which the first side attacks something at both its moves
    (so that chases are common), and every move can be reversed."""
    out = []
    quiet = [m.uci() for m in board.legal_moves if not board.piece_at(_split(m.uci())[1])]
    rng.shuffle(quiet)
    for m1 in quiet:
        if not _chased_after(board, chases, m1) or board.outcome() is not None:
            board.pop()
            continue
        replies = [m.uci() for m in board.legal_moves if not board.piece_at(_split(m.uci())[1])]
        rng.shuffle(replies)
        for m2 in replies[:20]:
            board.push_uci(m2)
            back = _reverse(m1)
            if back in board_moves_legal(board):
                if _chased_after(board, chases, back) and _reverse(m2) in board_moves_legal(board):
                    out.append([m1, m2, back, _reverse(m2)])
                board.pop()
            board.pop()
            if len(out) >= cap:
                break
        board.pop()
        if len(out) >= cap:
            break
    return out


def board_moves_legal(board: Board) -> set[str]:
    return {move.uci() for move in board.legal_moves}


def _differential(seed: int, positions: int) -> tuple[int, int]:
    rng = random.Random(seed)
    chases = Chases(variants.get("xiangqi"))
    total = lost = 0
    for _ in range(positions):
        board = _random_position(rng)
        fen = board.fen()
        for cycle in _cycles(board, chases, rng, 3):
            moves = cycle * 2
            theirs = _oracle(fen, moves)
            assert _value(_play(fen, moves)) == theirs, (fen, moves)
            total += 1
            lost += theirs == -1
    return total, lost


def test_random_cycles_agree_with_fsf() -> None:
    """Cycles from random positions, many of them chases: the same result as the oracle."""
    total, chased = _differential(seed=11, positions=120)
    assert total >= 30 and chased >= 5


@pytest.mark.slow
def test_many_random_cycles_agree_with_fsf() -> None:
    total, chased = _differential(seed=12, positions=1500)
    assert total >= 300 and chased >= 60


def test_the_search_judges_a_cycle_as_the_game_does() -> None:
    """In the tree a position that repeats once is judged over the one cycle back to it (as
    FSF's search does); on known cases and random cycles that equals the game's verdict after
    the threefold repetition."""
    rng = random.Random(11)
    chases = Chases(variants.get("xiangqi"))
    cases = [(fen, cycle.split()) for fen, cycle, _ in CASES]
    for _ in range(120):
        board = _random_position(rng)
        cases += [(board.fen(), cycle) for cycle in _cycles(board, chases, rng, 3)]
    lone = 0
    for fen, cycle in cases:
        tree = cycle_value(_play(fen, cycle).position, chases)
        assert tree == _value(_play(fen, cycle * 2)), (fen, cycle)
        lone += tree != 0
    assert len(cases) >= 30 and lone >= 10


def test_search_avoids_a_losing_chase() -> None:
    """White's rook chased the knight at each move; going back to i8 would repeat the start by
    a chase at every move, which loses. The search scores that as lost and plays otherwise, for
    a win (with xiangqi's network it finds a mate in 3 at depth 4)."""
    from ferz.engine import Engine, Limits

    fen, cycle, _ = CASES[0]
    results = {}
    for searchmoves in (("i6i8",), ()):
        engine = Engine(variant="xiangqi")
        engine.set_position(fen, cycle.split()[:3])
        infos: list = []
        best: list = []
        engine.go(
            Limits(depth=4, searchmoves=searchmoves),
            on_info=infos.append,
            on_bestmove=lambda move, _ponder, out=best: out.append(move),
        )
        assert engine.wait(30)
        last = [info for info in infos if info.depth][-1]
        results[searchmoves] = (best[0], last.score_cp, last.score_mate)
    assert results["i6i8",][2] is not None and results["i6i8",][2] <= 0  # mated: a loss
    best, cp, mate = results[()]
    assert best != "i6i8" and (mate is None and cp > 0 or mate is not None and mate > 0)  # wins
