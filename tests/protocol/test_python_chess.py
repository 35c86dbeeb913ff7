"""python-chess as a real client: SimpleEngine over UCI and xboard plays, ponders, analyses."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator

import chess
import chess.engine
import pytest

from tests.programs import find
from tests.protocol.proc import ROOT

STOCKFISH = find("stockfish")
COMMAND = [sys.executable, "-m", "ferz"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def open_uci() -> chess.engine.SimpleEngine:
    return chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=10, cwd=ROOT, env=ENV)


def open_xboard() -> chess.engine.SimpleEngine:
    return chess.engine.SimpleEngine.popen_xboard(
        [*COMMAND, "xboard"], timeout=10, cwd=ROOT, env=ENV
    )


@pytest.fixture
def no_protocol_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail on python-chess's warnings about engine output (unexpected lines, bad PVs)."""
    caplog.set_level(logging.WARNING, logger="chess.engine")
    yield
    # caplog.records here would be the teardown's (none): the test's own are the "call" stage's
    bad = [r.getMessage() for r in caplog.get_records("call") if r.name == "chess.engine"]
    # python-chess ends xboard analysis with `.` and `exit`; the CECP answer to `.` is a
    # `stat01:` status line (XBoard shows it), which python-chess merely does not expect.
    bad = [m for m in bad if "stat01: " not in m]
    assert not bad, bad[:5]


def play_game(
    white: chess.engine.SimpleEngine,
    black: chess.engine.SimpleEngine,
    limit: chess.engine.Limit,
    ponder: bool = False,
    max_plies: int = 160,
) -> chess.Board:
    """Play a game to its end (or max_plies); every move must be legal."""
    board = chess.Board()
    while not board.is_game_over(claim_draw=True) and len(board.move_stack) < max_plies:
        engine = white if board.turn else black
        result = engine.play(board, limit, ponder=ponder, info=chess.engine.INFO_ALL)
        if result.resigned:
            break
        assert result.move is not None and result.move in board.legal_moves
        board.push(result.move)
    return board


@pytest.mark.slow  # a whole clocked game with pondering over both protocols (about 22 s)
def test_uci_against_xboard_with_clock_and_pondering(no_protocol_errors: None) -> None:
    uci, xboard = open_uci(), open_xboard()
    try:
        limit = chess.engine.Limit(white_clock=8, black_clock=8, white_inc=0.05, black_inc=0.05)
        board = play_game(uci, xboard, limit, ponder=True, max_plies=60)
        assert len(board.move_stack) >= 20 or board.is_game_over()
    finally:
        uci.quit()
        xboard.quit()


def test_uci_self_play_movetime_and_limits(no_protocol_errors: None) -> None:
    engine = open_uci()
    try:
        board = play_game(engine, engine, chess.engine.Limit(time=0.03), max_plies=40)
        assert len(board.move_stack) >= 20 or board.is_game_over()
        for limit in (chess.engine.Limit(depth=3), chess.engine.Limit(nodes=500)):
            result = engine.play(board, limit) if not board.is_game_over() else None
            assert result is None or result.move in board.legal_moves
    finally:
        engine.quit()


def test_multipv_analysis_and_infinite_analysis(no_protocol_errors: None) -> None:
    engine = open_uci()
    try:
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        infos = engine.analyse(board, chess.engine.Limit(depth=4), multipv=3)
        assert len(infos) == 3
        firsts = {info["pv"][0] for info in infos}
        assert len(firsts) == 3 and all(m in board.legal_moves for m in firsts)
        assert all("score" in info for info in infos)
        with engine.analysis(board) as analysis:
            for info in analysis:
                if info.get("depth", 0) >= 3:
                    break
        assert analysis.info.get("pv")
        # The engine is still usable after the analysis was stopped.
        assert engine.play(board, chess.engine.Limit(time=0.05)).move in board.legal_moves
    finally:
        engine.quit()


def test_xboard_analysis_and_fixed_depth(no_protocol_errors: None) -> None:
    engine = open_xboard()
    try:
        board = chess.Board()
        info = engine.analyse(board, chess.engine.Limit(time=0.3))
        assert info.get("pv") and info["pv"][0] in board.legal_moves
        result = engine.play(board, chess.engine.Limit(depth=3))
        assert result.move in board.legal_moves
        result = engine.play(board, chess.engine.Limit(nodes=1000))
        assert result.move in board.legal_moves
    finally:
        engine.quit()


@pytest.mark.programs("stockfish")
def test_against_stockfish(no_protocol_errors: None) -> None:
    ours = open_uci()
    theirs = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    theirs.configure({"Skill Level": 0})
    try:
        board = play_game(theirs, ours, chess.engine.Limit(time=0.02), ponder=True, max_plies=80)
        assert len(board.move_stack) >= 10
    finally:
        ours.quit()
        theirs.quit()


@pytest.mark.slow
@pytest.mark.programs("stockfish")
def test_complete_games_against_stockfish_both_protocols(no_protocol_errors: None) -> None:
    theirs = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    theirs.configure({"UCI_LimitStrength": True, "UCI_Elo": 1350})
    limit = chess.engine.Limit(white_clock=10, black_clock=10, white_inc=0.1, black_inc=0.1)
    try:
        for opener in (open_uci, open_xboard):
            ours = opener()
            try:
                for ponder in (False, True):
                    board = play_game(ours, theirs, limit, ponder=ponder, max_plies=400)
                    assert board.is_game_over(claim_draw=True) or len(board.move_stack) == 400
            finally:
                ours.quit()
    finally:
        theirs.quit()


def test_chess960_castling_notation(no_protocol_errors: None) -> None:
    # python-chess turns UCI_Chess960 on and sends king-takes-rook castling and Shredder-FEN.
    engine = open_uci()
    try:
        board = chess.Board("rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w EAea - 0 1", chess960=True)
        board.push_uci("b1a1")  # castling queen side, king takes rook in 960 notation
        for _ in range(6):
            result = engine.play(board, chess.engine.Limit(depth=3))
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        engine.quit()


@pytest.mark.variant
def test_crazyhouse_over_uci_variant(no_protocol_errors: None) -> None:
    import chess.variant

    engine = open_uci()
    try:
        board = chess.variant.CrazyhouseBoard()
        for move in ("e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"):
            board.push_uci(move)
        for _ in range(10):
            result = engine.play(board, chess.engine.Limit(depth=3))
            assert result.move in board.legal_moves
            board.push(result.move)
            if board.is_game_over():
                break
    finally:
        engine.quit()


def test_mate_limit_and_root_moves_both_protocols(no_protocol_errors: None) -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    for opener in (open_uci, open_xboard):
        engine = opener()
        try:
            if opener is open_uci:
                info = engine.analyse(board, chess.engine.Limit(mate=1))
                assert info["score"].white() == chess.engine.Mate(1)
            # root_moves: searchmoves over UCI, exclude/include over xboard (analysis only).
            only = [chess.Move.from_uci("h2h3"), chess.Move.from_uci("g2g3")]
            info = engine.analyse(board, chess.engine.Limit(depth=3), root_moves=only)
            assert info["pv"][0] in only
        finally:
            engine.quit()
