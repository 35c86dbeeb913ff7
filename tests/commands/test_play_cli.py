"""`ferz play` as a user runs it: the real engine, moves typed on a piped stdin."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[2]


def run_play(text: str, *args: str, timeout: float = 60) -> str:
    """Run `ferz play ARGS` with text on stdin; returns stdout (exit code must be 0)."""
    done = subprocess.run(
        [sys.executable, "-m", "ferz", "play", *args],
        input=text.encode(),
        capture_output=True,
        timeout=timeout,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return done.stdout.decode()


def test_a_few_moves_takeback_and_fen() -> None:
    out = run_play("e4\nNf3\nundo\nfen\nquit\n", "--depth", "2")
    assert "♙" in out and " a  b  c  d  e  f  g  h" in out
    assert out.count("ferz plays") == 2
    line = next(line for line in out.splitlines() if line.count("/") == 7 and " w " in line)
    fen = line.split(": ")[-1]  # after the "Your move: " prompt
    board = chess.Board(fen)
    assert board.fullmove_number == 2 and board.piece_at(chess.E4) == chess.Piece.from_symbol("P")


def test_black_side_movetime_and_pgn_file(tmp_path: Path) -> None:
    path = tmp_path / "game.pgn"
    out = run_play("d5\nresign\n", "--color", "black", "--movetime", "100", "--pgn", str(path))
    assert out.index("ferz plays") < out.index("Your move")
    game = chess.pgn.read_game(path.open())
    assert game is not None and game.headers["Result"] == "1-0"
    assert len(list(game.mainline_moves())) == 3


def test_mate_from_a_position_with_ascii_board() -> None:
    out = run_play("Ra8\nquit\n", "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--ascii")
    assert "Game over: 1-0 (White mates)" in out
    assert "R" in out and "♖" not in out


def test_xiangqi_and_shogi_moves_in_their_own_notation() -> None:
    """WXF and Western shogi moves are read, and every move is shown in them (the PGN too)."""
    out = run_play("C2=5\nmoves\npgn\nquit\n", "--variant", "xiangqi", "--depth", "1")
    assert "Illegal move" not in out and "Last move: C2=5" in out
    reply = re.search(r"ferz plays (\S+)", out)
    assert reply is not None and re.fullmatch(r"[KAEHRCP1-5][1-9+-][+=-][1-9]", reply.group(1))
    assert "H2+3" in out  # in the list of legal moves
    assert '[Notation "WXF"]' in out and "1. C2=5 " in out
    out = run_play("P-7f\nfen\nquit\n", "--variant", "shogi", "--depth", "1")
    assert "Illegal move" not in out and "Last move: P-7f" in out
    assert "/2P6/" in out  # the pawn stands on 7f


def test_hint_with_syzygy_tables() -> None:
    """--syzygy: the hint says what the tables know of the position."""
    from tests.programs import need_library

    need_library("fathom", "libfathom1")
    fen = "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"
    tables = str(ROOT / "tests" / "data" / "syzygy")
    out = run_play("hint\nquit\n", "--fen", fen, "--syzygy", tables, "--movetime", "200")
    assert "Hint: Qf4" in out and "(tablebase: White wins, DTZ 11)" in out
