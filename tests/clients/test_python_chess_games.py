"""python-chess as the client: games over UCI on its own variant boards (every move checked
against python-chess's legal moves, every game end against its outcome), scores of positions
a variant rule has already decided, depth reporting, `go movetime` and clock play."""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("chess", reason="needs python-chess (pip install chess)")
import chess  # noqa: E402
import chess.engine  # noqa: E402
import chess.variant  # noqa: E402

from tests.clients.common import COMMAND, ENV, ROOT  # noqa: E402
from tests.programs import find  # noqa: E402

pytestmark = pytest.mark.e2e

Engine = chess.engine.SimpleEngine
Limit = chess.engine.Limit

#: Every board python-chess has that ferz plays (its UCI_Variant name is python-chess's).
BOARDS: dict[str, Callable[[], chess.Board]] = {
    "chess": chess.Board,
    "chess960": lambda: chess.Board.from_chess960_pos(301),
    "crazyhouse": chess.variant.CrazyhouseBoard,
    "atomic": chess.variant.AtomicBoard,
    "3check": chess.variant.ThreeCheckBoard,
    "kingofthehill": chess.variant.KingOfTheHillBoard,
    "antichess": chess.variant.AntichessBoard,
    "horde": chess.variant.HordeBoard,
    "racingkings": chess.variant.RacingKingsBoard,
}

#: Game ends that the engine itself must see (claimable draws, fivefold repetition and the
#: 75-move rule are the GUI's business: an engine may still offer a move there).
RULE_ENDS = {
    chess.Termination.CHECKMATE,
    chess.Termination.STALEMATE,
    chess.Termination.VARIANT_WIN,
    chess.Termination.VARIANT_LOSS,
    chess.Termination.VARIANT_DRAW,
}


def open_ferz() -> chess.engine.SimpleEngine:
    """ferz over UCI, started as python-chess starts any engine."""
    return Engine.popen_uci(COMMAND, timeout=30, cwd=ROOT, env=ENV)


@pytest.fixture
def ferz(engine_log: list[logging.LogRecord]) -> Iterator[chess.engine.SimpleEngine]:
    """A ferz process for one test; python-chess's engine logger must stay silent."""
    engine = open_ferz()
    try:
        yield engine
    finally:
        engine.quit()


def check_score(score: chess.engine.Score, winner: bool | None, turn: bool, what: str) -> None:
    """The side to move's score of a finished game agrees with its result: 0 for a draw, a
    mate score for a decided game (mate 0 as Fairy-Stockfish writes it, or a mate score with
    the winner's sign), never the `cp 0` of a stalemate."""
    if winner is None:
        assert score == chess.engine.Cp(0), f"{what}: a draw scored {score}"
        return
    side = "the side to move" if winner == turn else "the opponent"
    assert score.is_mate(), f"{what}: won by {side}, scored {score}"
    mate = score.mate()
    assert mate == 0 or (mate > 0) == (winner == turn), f"{what}: the wrong side wins: {score}"


def check_end(engine: chess.engine.SimpleEngine, board: chess.Board, what: str) -> None:
    """At a game end by the rules ferz has no move and a score that agrees with the result."""
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None
    if outcome.termination not in RULE_ENDS:
        return
    result = engine.play(board, Limit(depth=2), info=chess.engine.INFO_SCORE)
    assert result.move is None, f"{what}: ferz plays on after {outcome}: {result.move}"
    assert "score" in result.info, f"{what}: no score after {outcome}"
    check_score(result.info["score"].relative, outcome.winner, board.turn, f"{what} {outcome}")


def play_game(
    engine: chess.engine.SimpleEngine,
    board: chess.Board,
    limits: tuple[chess.engine.Limit, chess.engine.Limit],
    max_plies: int,
    what: str,
) -> chess.Board:
    """ferz plays both sides (limits for White, Black) until the game ends or max_plies:
    every move legal on python-chess's board, and the end checked by check_end."""
    while len(board.move_stack) < max_plies:
        if board.is_game_over(claim_draw=True):
            check_end(engine, board, what)
            break
        result = engine.play(board, limits[0 if board.turn else 1], info=chess.engine.INFO_ALL)
        assert result.move is not None, f"{what}: no move in {board.fen()} (not over)"
        assert result.move in board.legal_moves, f"{what}: illegal {result.move} in {board.fen()}"
        board.push(result.move)
    return board


# ---------------------------------------------------------------- games


@pytest.mark.variant
@pytest.mark.parametrize("variant", list(BOARDS))
def test_game_on_python_chess_board(ferz: chess.engine.SimpleEngine, variant: str) -> None:
    """An uneven game (3000 nodes against 100, so that most end by a rule within 200 plies)
    in each variant: every move legal, the end seen by ferz."""
    board = play_game(ferz, BOARDS[variant](), (Limit(nodes=3000), Limit(nodes=100)), 200, variant)
    assert len(board.move_stack) >= 10 or board.is_game_over(), board.move_stack


@pytest.mark.slow
@pytest.mark.variant
@pytest.mark.parametrize("variant", list(BOARDS))
def test_games_on_python_chess_board_with_clocks(
    ferz: chess.engine.SimpleEngine, variant: str
) -> None:
    """Four games a variant at 2 s + 0.05 s from both colours' uneven openings: legal moves,
    checked ends, no flag."""
    for game in range(4):
        board = BOARDS[variant]()
        first = sorted(board.legal_moves, key=board.uci)[game * 3 % board.legal_moves.count()]
        board.push(first)
        clock_game(ferz, board, 2.0, 0.05, 300, f"{variant} game {game}")


# ---------------------------------------------------------------- decided positions

#: Positions already decided by a rule, as python-chess's boards have them.
DECIDED = {
    "kingofthehill: the king on the hill": (
        chess.variant.KingOfTheHillBoard,
        "rnbq1bnr/pppppppp/8/3k4/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
    ),
    "racingkings: a king on the 8th rank": (
        chess.variant.RacingKingsBoard,
        "5K2/8/8/8/8/8/k1bnNB1R/r7 w - - 0 1",
    ),
    "atomic: an exploded king": (
        chess.variant.AtomicBoard,
        "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQ - 0 1",
    ),
    "antichess: no pieces left": (chess.variant.AntichessBoard, "8/8/8/8/8/8/8/R7 b - - 0 1"),
    "antichess: stalemated": (chess.variant.AntichessBoard, "8/8/8/8/8/p7/P7/8 b - - 0 1"),
    "horde: no white pawns": (
        chess.variant.HordeBoard,
        "rnbqkbnr/pppppppp/8/8/8/8/8/8 w kq - 0 1",
    ),
    "3check: the third check given": (
        chess.variant.ThreeCheckBoard,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0+3 0 1",
    ),
    "racingkings: both kings home (draw)": (
        chess.variant.RacingKingsBoard,
        "k4K2/8/8/8/8/8/8/8 w - - 0 1",
    ),
    "chess: checkmate": (chess.Board, "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"),
    "chess: stalemate": (chess.Board, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
    "crazyhouse: checkmate": (chess.variant.CrazyhouseBoard, "7k/6Q1/6K1/8/8/8/8/8[] b - - 0 1"),
}


@pytest.mark.variant
@pytest.mark.parametrize("case", list(DECIDED))
def test_decided_position_is_scored_by_its_rule(ferz: chess.engine.SimpleEngine, case: str) -> None:
    """A position a rule has decided: no move and a score that agrees with the result (a win
    or loss as a mate score, never the cp 0 of a stalemate)."""
    make, fen = DECIDED[case]
    board = make(fen)
    assert board.outcome() is not None and board.outcome().termination in RULE_ENDS
    check_end(ferz, board, case)


@pytest.mark.variant
@pytest.mark.programs("fairy-stockfish")
def test_decided_positions_score_as_fairy_stockfish(ferz: chess.engine.SimpleEngine) -> None:
    """The score python-chess reads from ferz for each decided position is Fairy-Stockfish's
    (Debian's 11.1, which has no atomic), or a mate for the side to move where that side won
    (FSF writes `mate 0` there too, which python-chess reads as a loss)."""
    fsf = Engine.popen_uci(find("fairy-stockfish"), timeout=30)
    names = fsf.options["UCI_Variant"].var
    try:
        for case, (make, fen) in DECIDED.items():
            board = make(fen)
            if type(board).uci_variant not in names:
                continue
            theirs = fsf.analyse(board, Limit(depth=2))["score"].relative
            ours = ferz.analyse(board, Limit(depth=2))["score"].relative
            winner = board.outcome().winner
            if ours != theirs:
                assert winner == board.turn and ours.is_mate() and ours.mate() > 0, (
                    f"{case}: ferz {ours}, Fairy-Stockfish {theirs}"
                )
    finally:
        fsf.quit()


# ---------------------------------------------------------------- depth reporting

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"


def test_go_depth_12_on_a_mate_in_one_reports_every_depth(
    ferz: chess.engine.SimpleEngine,
) -> None:
    """`go depth 12` on a mate in 1: the reported depths rise 1, 2, ... 12 (not depth 1 over
    and over once the mate is found), with the mate score."""
    board = chess.Board(MATE_IN_ONE)
    depths, lines = [], []
    with ferz.analysis(board, Limit(depth=12)) as analysis:
        for info in analysis:
            if "depth" in info and "pv" in info:
                depths.append(info["depth"])
                lines.append((info["depth"], info.get("seldepth"), info["score"], info["pv"]))
    assert depths and depths[-1] == 12, depths
    assert depths == sorted(set(depths)), depths  # rising, no line repeated at one depth
    assert analysis.info["score"].relative == chess.engine.Mate(1)
    assert len(lines) == len(set(map(repr, lines))), lines


def test_analysis_waiting_for_depth_12_finishes(ferz: chess.engine.SimpleEngine) -> None:
    """An infinite analysis that waits for `depth >= 12` on a mate in 1 (a common client loop)
    gets there within a few seconds; a watchdog stops it after 20 s."""
    board = chess.Board(MATE_IN_ONE)
    start = time.monotonic()
    reached = 0
    with ferz.analysis(board) as analysis:
        watchdog = threading.Timer(20, analysis.stop)
        watchdog.start()
        try:
            for info in analysis:
                reached = max(reached, info.get("depth", 0))
                if reached >= 12:
                    break
        finally:
            watchdog.cancel()
    took = time.monotonic() - start
    assert reached >= 12, f"depth {reached} after {took:.1f} s"
    assert took < 5, f"depth 12 after {took:.1f} s"


# ---------------------------------------------------------------- time


def test_go_movetime_100_is_used_within_ten_percent(ferz: chess.engine.SimpleEngine) -> None:
    """`Limit(time=0.1)` (`go movetime 100`): the move arrives 90-115 ms after it was asked
    for, measured by the client, median of 9 (UCI: "search exactly x mseconds")."""
    board = chess.Board()
    ferz.play(board, Limit(depth=1))  # the first search pays for imports and tables
    took = []
    for i in range(9):
        if i % 3 == 1:
            board.push(next(iter(board.legal_moves)))
        start = time.monotonic()
        ferz.play(board, Limit(time=0.1))
        took.append((time.monotonic() - start) * 1000)
    median = statistics.median(took)
    assert 90 <= median <= 115, [round(t) for t in took]


def clock_game(
    engine: chess.engine.SimpleEngine,
    board: chess.Board,
    base: float,
    inc: float,
    max_plies: int,
    what: str,
) -> chess.Board:
    """ferz plays both sides on clocks the test keeps (base + inc, seconds, as a GUI keeps
    them: the time from asking to the move): no clock may fall to zero; moves and the end
    checked as in play_game."""
    clocks = {chess.WHITE: base, chess.BLACK: base}
    while len(board.move_stack) < max_plies:
        if board.is_game_over(claim_draw=True):
            check_end(engine, board, what)
            break
        limit = Limit(
            white_clock=clocks[chess.WHITE],
            black_clock=clocks[chess.BLACK],
            white_inc=inc,
            black_inc=inc,
        )
        start = time.monotonic()
        result = engine.play(board, limit)
        clocks[board.turn] -= time.monotonic() - start
        side = "White" if board.turn else "Black"
        assert clocks[board.turn] > 0, f"{what}: {side} lost on time at ply {len(board.move_stack)}"
        clocks[board.turn] += inc
        assert result.move in board.legal_moves, f"{what}: illegal {result.move} in {board.fen()}"
        board.push(result.move)
    return board


@pytest.mark.parametrize(
    "opening",
    # one game in the default run (the same clock handling whatever the opening); the other
    # two, and the twenty games below, with -m slow
    [
        "e2e4",
        pytest.param("d2d4", marks=pytest.mark.slow),
        pytest.param("g1f3", marks=pytest.mark.slow),
    ],
)
def test_no_time_forfeit_at_one_second_plus_increment(
    ferz: chess.engine.SimpleEngine, opening: str
) -> None:
    """A game at 1 s + 0.01 s (python-chess's white_clock/white_inc) up to 160 plies: the
    clocks the client keeps never run out."""
    board = chess.Board()
    board.push_uci(opening)
    clock_game(ferz, board, 1.0, 0.01, 160, f"1+0.01 after {opening}")


@pytest.mark.slow
def test_no_time_forfeit_in_twenty_games_at_one_second_plus_increment(
    ferz: chess.engine.SimpleEngine,
) -> None:
    """Twenty whole games at 1 s + 0.01 s from different first moves: never a flag."""
    first_moves = sorted(chess.Board().legal_moves, key=chess.Board().uci)
    for game in range(20):
        board = chess.Board()
        board.push(first_moves[game])
        clock_game(ferz, board, 1.0, 0.01, 400, f"game {game} after {first_moves[game]}")
