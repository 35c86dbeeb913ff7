"""xboard/CECP transcripts against the real engine process."""

from __future__ import annotations

import logging
import os
import shlex
import sys
from collections.abc import Iterator

import chess
import chess.engine
import pytest

from tests.protocol.proc import ROOT, EngineProcess


def handshake(engine: EngineProcess) -> dict[str, str]:
    """xboard + protover 2; returns the features. `feature done=0` comes first, so XBoard waits
    for `done=1` instead of giving up after its 2 s window (a loaded machine can be slower)."""
    engine.send("xboard", "protover 2")
    lines = engine.expect("feature done=1", timeout=10)
    assert [x for x in lines if x.startswith("feature")][0] == "feature done=0"
    features: dict[str, str] = {}
    for line in lines:
        for item in shlex.split(line.split(" ", 1)[1]):
            key, value = item.split("=", 1)
            features[key] = value if key != "option" else features.get(key, "") + value + ";"
    return features


@pytest.fixture
def xb() -> Iterator[EngineProcess]:
    engine = EngineProcess()  # no command: the first line `xboard` selects CECP
    handshake(engine)
    yield engine
    assert engine.close() == 0


def ping(engine: EngineProcess, n: int) -> list[str]:
    engine.send(f"ping {n}")
    return engine.expect(f"pong {n}")


def test_features() -> None:
    engine = EngineProcess("xboard")
    features = handshake(engine)
    for key in ("ping", "setboard", "usermove", "analyze", "reuse"):
        assert features[key] == "1"
    assert features["san"] == "0" and features["sigint"] == "0"
    assert features["myname"].startswith("ferz")
    assert "normal" in features["variants"].split(",")
    assert "Move Overhead -spin" in features["option"]
    assert engine.close() == 0


def test_python_chess_takes_the_handshake_without_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """python-chess rejects sigterm=0, reuse=0 and san=1 with a warning: ferz sends none."""
    caplog.set_level(logging.WARNING, logger="chess.engine")
    command = [sys.executable, "-m", "ferz", "xboard"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    engine = chess.engine.SimpleEngine.popen_xboard(command, timeout=10, cwd=ROOT, env=env)
    engine.quit()
    assert not [r.getMessage() for r in caplog.records if r.name == "chess.engine"]


def test_game_engine_plays_black_with_thinking(xb: EngineProcess) -> None:
    xb.send(
        "new",
        "random",
        "level 40 0:30 0",
        "post",
        "hard",
        "easy",
        "computer",
        "time 3000",
        "otim 3000",
        "usermove e2e4",
    )
    lines = xb.expect("move ", timeout=10)
    board = chess.Board()
    board.push_uci("e2e4")
    reply = lines[-1].split()[1]
    assert chess.Move.from_uci(reply) in board.legal_moves
    thinking = [x for x in lines if x[:1].isdigit()]
    assert thinking, "post shows thinking lines"
    for line in thinking:
        ply, score, centis, nodes = (int(x) for x in line.split()[:4])
        assert ply >= 1 and centis >= 0 and nodes >= 0 and abs(score) < 200000
    board.push_uci(reply)
    xb.send("time 2900", "otim 2900", "usermove g1f3")
    reply = xb.expect("move ")[-1].split()[1]
    board.push_uci("g1f3")
    assert chess.Move.from_uci(reply) in board.legal_moves
    ping(xb, 1)


def test_force_setboard_go_and_illegal_moves(xb: EngineProcess) -> None:
    xb.send(
        "new",
        "force",
        "setboard 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        "usermove a1a9",
        "usermove e2e4",
        "st 1",
        "go",
    )
    lines = xb.expect("move ")
    assert "Illegal move: a1a9" in lines and "Illegal move: e2e4" in lines
    assert lines[-1] == "move a1a8"
    assert "1-0 {White mates}" in ping(xb, 3)


def test_undo_remove_and_analyze(xb: EngineProcess) -> None:
    xb.send(
        "new",
        "force",
        "usermove e2e4",
        "usermove e7e5",
        "remove",
        "usermove d2d4",
        "post",
        "analyze",
    )
    lines = xb.expect(lambda x: x[:1].isdigit())  # analysis of the position after 1.d4
    board = chess.Board()
    board.push_uci("d2d4")
    assert chess.Move.from_uci(lines[-1].split()[4]) in board.legal_moves
    xb.send(".", "usermove d7d5", "undo", "exit")
    lines = ping(xb, 4)
    assert any(x.startswith("stat01: ") for x in lines)
    assert not any(x.startswith("move ") for x in lines)


def test_ping_during_ponder_and_ponder_game(xb: EngineProcess) -> None:
    xb.send("new", "hard", "level 0 0:10 0.1", "time 1000", "otim 1000", "usermove e2e4")
    board = chess.Board()
    board.push_uci("e2e4")
    for _ in range(4):
        reply = xb.expect("move ", timeout=10)[-1].split()[1]
        board.push_uci(reply)
        # answered while pondering (the ponder search runs until our move; no move comes first)
        assert not any(x.startswith("move ") for x in ping(xb, len(board.move_stack)))
        mine = sorted(board.legal_moves, key=lambda m: m.uci())[0]
        board.push(mine)
        xb.send("time 900", "otim 900", f"usermove {mine.uci()}")
    xb.expect("move ", timeout=10)
    xb.send("result 1/2-1/2 {test}")
    ping(xb, 99)


def test_errors(xb: EngineProcess) -> None:
    xb.send("frobnicate", "level 1 2", "setboard xx", "sd abc", "option Nope=1")
    lines = ping(xb, 1)
    assert sum(x.startswith(("Error", "tellusererror")) for x in lines) == 5


@pytest.mark.variant
def test_variant_crazyhouse(xb: EngineProcess) -> None:
    import chess.variant

    xb.send(
        "new",
        "variant crazyhouse",
        "force",
        "usermove e2e4",
        "usermove d7d5",
        "usermove e4d5",
        "sd 3",
        "go",
    )
    reply = xb.expect("move ")[-1].split()[1]
    board = chess.variant.CrazyhouseBoard()
    for move in ("e2e4", "d7d5", "e4d5"):
        board.push_uci(move)
    assert chess.Move.from_uci(reply) in board.legal_moves
    xb.send("variant nonsense")
    assert any(x.startswith("Error (variant nonsense is not supported)") for x in ping(xb, 1))


def test_fischer_random_castling_as_o_o(xb: EngineProcess) -> None:
    # FRC castling travels as O-O / O-O-O both ways; `include` leaves Black only O-O-O.
    fen = "1r2k2r/8/8/8/8/8/8/1R2K2R w HBhb - 0 1"
    xb.send("new", "variant fischerandom", "force", f"setboard {fen}", "usermove O-O")
    xb.send("exclude all", "include O-O-O", "sd 2", "go")
    lines = xb.expect("move ")
    assert not any(x.startswith(("Illegal", "Error")) for x in lines), lines
    assert lines[-1] == "move O-O-O"
    xb.send("usermove g1g2")  # White's rook went to f1 and the king to g1 with O-O
    assert not any(x.startswith("Illegal") for x in ping(xb, 1))
