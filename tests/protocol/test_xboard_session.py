"""The xboard session's game logic, driven through a pipe with a stand-in engine."""

from __future__ import annotations

import time
from collections.abc import Iterator

import chess
import pytest

from ferz.protocol.xboard import Xboard
from tests.protocol.standin import Pipe


@pytest.fixture
def gui() -> Iterator[Pipe]:
    pipe = Pipe(Xboard)
    pipe.send("xboard", "protover 2")
    pipe.expect("feature done=1")
    yield pipe
    pipe.send("quit")
    pipe.thread.join(5)
    assert not pipe.thread.is_alive()


def moves(lines: list[str]) -> list[str]:
    return [x.split()[1] for x in lines if x.startswith("move ")]


def pong(gui: Pipe, n: int) -> list[str]:
    gui.send(f"ping {n}")
    return gui.expect(f"pong {n}")


def test_handshake(gui: Pipe) -> None:
    lines = gui.lines
    assert lines[0] == "feature done=0"
    assert any('option="Style -combo Solid /// *Normal /// Risky"' in x for x in lines)
    assert not any('option="Hash ' in x for x in lines)


def test_engine_plays_black_after_usermove(gui: Pipe) -> None:
    gui.send("new", "level 40 5 0", "post", "time 30000", "otim 30000", "usermove e2e4")
    lines = gui.expect("move ")
    assert moves(lines) == ["a7a5"]  # the stand-in's choice: the first move in UCI order
    assert any(x.startswith("1 10 ") for x in lines)  # thinking: ply score time nodes pv
    limits = gui.engine.last_limits
    assert limits is not None
    assert (limits.wtime, limits.btime, limits.movestogo) == (300_000, 300_000, 40)
    pong(gui, 1)
    assert gui.engine.board.fen().startswith("rnbqkbnr/1ppppppp/8/p7/4P3")


def test_force_go_and_clock_belongs_to_engine(gui: Pipe) -> None:
    gui.send("new", "force", "usermove e2e4", "usermove e7e5", "time 1000", "otim 2000", "go")
    gui.expect("move ")
    limits = gui.engine.last_limits
    assert limits is not None and (limits.wtime, limits.btime) == (10_000, 20_000)
    pong(gui, 1)


def test_illegal_move_and_errors_keep_the_game(gui: Pipe) -> None:
    gui.send("new", "force", "usermove e2e5", "usermove e2e4", "frobnicate", "level x y z")
    gui.send("setboard not a fen", "sd -1", "usermove")
    lines = pong(gui, 7)
    assert "Illegal move: e2e5" in lines
    assert any(x.startswith("Error (unknown command): frobnicate") for x in lines)
    assert any(x.startswith("tellusererror Illegal position") for x in lines)
    assert sum(x.startswith("Error (") for x in lines) == 4
    assert gui.engine.board.fen().startswith("rnbqkbnr/pppppppp/8/8/4P3")


def test_setboard_undo_remove(gui: Pipe) -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    gui.send("new", "force", f"setboard {fen}", "usermove e2e4", "usermove e8d7", "undo")
    pong(gui, 1)
    assert gui.engine.board.fen().startswith("4k3/8/8/8/4P3/8/8/4K3 b")
    gui.send("usermove e8e7", "remove")
    pong(gui, 2)
    assert gui.engine.board.fen().startswith("4k3/8/8/8/8/8/4P3/4K3 w")
    gui.send("undo")
    lines = pong(gui, 3)
    assert any(x.startswith("Error (no move to take back)") for x in lines)


def test_sd_and_st(gui: Pipe) -> None:
    gui.send("new", "force", "sd 3", "st 0.5", "go")
    gui.expect("move ")
    limits = gui.engine.last_limits
    assert limits is not None and (limits.depth, limits.movetime) == (3, 500)


def test_ponder_hit_and_miss(gui: Pipe) -> None:
    gui.send("new", "hard", "easy", "hard", "level 0 1 0", "usermove e2e4")
    lines = gui.wait_for(lambda ls: len(moves(ls)) == 1)
    time.sleep(0.05)
    limits = gui.engine.last_limits
    assert limits is not None and limits.ponder  # pondering on the stand-in's guess, a2a3
    gui.send("usermove a2a3")  # the predicted reply
    lines = gui.wait_for(lambda ls: len(moves(ls)) == 2)
    assert gui.engine.ponderhits == 1
    time.sleep(0.05)
    gui.send("usermove h2h3")  # the stand-in predicted another move: a miss
    lines = gui.wait_for(lambda ls: len(moves(ls)) == 3)
    assert gui.engine.ponderhits == 1
    gui.send("easy")  # ends the ponder search on the next guess; the game position returns
    pong(gui, 5)
    first, second, third = moves(lines)
    board = chess.Board()
    for move in ("e2e4", first, "a2a3", second, "h2h3", third):
        board.push_uci(move)
    assert gui.engine.board.fen() == board.fen()


def test_analyze_mode(gui: Pipe) -> None:
    gui.send("new", "force", "post", "analyze")
    time.sleep(0.05)
    gui.send("usermove e2e4", ".")
    gui.expect("stat01: ")
    gui.send("undo", "exit")
    lines = pong(gui, 1)
    assert not moves(lines)
    assert gui.engine.board.fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP")


def test_move_now_and_ping_waits_for_the_move(gui: Pipe) -> None:
    gui.engine.step = 0.05
    gui.send("new", "force", "sd 50", "go", "?", "ping 9")
    lines = gui.expect("pong 9")
    assert lines.index("pong 9") > next(i for i, x in enumerate(lines) if x.startswith("move "))


def test_checkmate_result_and_options(gui: Pipe) -> None:
    gui.send("new", "setboard 7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "usermove f1f8")
    lines = pong(gui, 1)
    assert "1-0 {White mates}" in lines
    gui.send("option Style=Risky", "option Clear Hash", "option Bogus=1", "memory 99999", "cores 2")
    lines = pong(gui, 2)
    assert gui.engine.options.get("Style") == "Risky"
    assert gui.engine.options.get("Hash") == 1024 and gui.engine.options.get("Threads") == 2
    assert sum(x.startswith("Error (no such option") for x in lines) == 1


def test_bare_coordinate_moves_and_exclude(gui: Pipe) -> None:
    gui.send("new", "force", "e2e4", "exclude a7a5", "go")
    lines = gui.expect("move ")
    assert moves(lines) == ["a7a6"]  # a7a5, the stand-in's first choice, is excluded


def test_draw_offer_accepted_only_when_worse(gui: Pipe) -> None:
    gui.send("new", "force", "sd 2", "go")
    gui.expect("move ")
    gui.send("draw")
    assert "offer draw" not in pong(gui, 1)  # +0.10: play on
    gui.engine.score = -150
    gui.send("force", "usermove e2e4", "go")
    gui.wait_for(lambda ls: len(moves(ls)) == 2)
    gui.send("draw")
    assert "offer draw" in pong(gui, 2)


def test_resigns_after_hopeless_scores(gui: Pipe) -> None:
    gui.engine.score = -1500
    gui.send("new", "sd 2", "usermove e2e4")
    for n, reply in enumerate(("d2d4", "g1f3", "b1c3"), 1):
        gui.wait_for(lambda ls, n=n: len(moves(ls)) == n)
        pong(gui, n)
        gui.send(f"usermove {reply}")
    lines = gui.expect("resign")
    assert len(moves(lines)) == 3  # the fourth hopeless search resigns instead of moving


def test_egtpath_sets_both_kinds_of_tables(tmp_path) -> None:
    """`egtpath ferz DIR` sets FerzTbPath, `egtpath syzygy DIR` SyzygyPath (a real engine);
    another kind is an error line, a missing folder a comment (XBoard sends its default)."""
    from ferz.engine import Engine

    pipe = Pipe(Xboard, Engine())
    try:
        pipe.send("xboard", "protover 2")
        assert any('egt="syzygy,ferz"' in x for x in pipe.expect("feature done=1"))
        pipe.send(f"egtpath ferz {tmp_path}", "egtpath gaviota /x", "egtpath ferz /nope")
        lines = pong(pipe, 1)
        assert pipe.engine.options.get("FerzTbPath") == str(tmp_path)
        assert any("syzygy|ferz" in x for x in lines)
        assert any(x.startswith("# no tablebases") for x in lines)
    finally:
        pipe.send("quit")
        pipe.thread.join(5)
