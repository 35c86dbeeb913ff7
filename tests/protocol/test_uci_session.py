"""The UCI session's own logic, driven through a pipe with a stand-in engine."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from ferz.protocol.uci import Uci
from tests.protocol.standin import Pipe, StandIn


@pytest.fixture
def gui() -> Iterator[Pipe]:
    pipe = Pipe(Uci)
    yield pipe
    pipe.send("quit")
    pipe.thread.join(5)
    assert not pipe.thread.is_alive()


def bestmoves(lines: list[str]) -> list[str]:
    return [x for x in lines if x.startswith("bestmove")]


def test_handshake_lists_options_then_uciok(gui: Pipe) -> None:
    gui.send("uci")
    lines = gui.expect("uciok")
    assert lines[0].startswith("id name ferz ")
    assert lines[1].startswith("id author ")
    assert "option name Hash type spin default 16 min 1 max 1024" in lines
    assert "option name Clear Hash type button" in lines
    assert lines[-1] == "uciok"


def test_setoption_good_and_bad_values(gui: Pipe) -> None:
    gui.send(
        "setoption name hash value 64",
        "setoption name Hash value lots",
        "setoption name Hash value 999999",
        "setoption name Nonsense value 1",
        "setoption name Hash",
        "setoption name SyzygyPath",
        "setoption name Clear Hash",
        "setoption name Style value risky",
        "isready",
    )
    lines = gui.expect("readyok")
    assert gui.engine.options.get("Hash") == 64
    assert gui.engine.options.get("Style") == "Risky"
    errors = [x for x in lines if x.startswith("info string error")]
    assert len(errors) == 4, lines
    assert all(x.startswith(("info string", "readyok")) for x in lines)


def test_position_with_moves_and_illegal_move_keeps_previous(gui: Pipe) -> None:
    gui.send("position startpos moves e2e4 e7e5")
    gui.send("position startpos moves e2e4 e2e4", "isready")
    lines = gui.expect("readyok")
    assert any("error: position" in x for x in lines)
    assert gui.engine.board.fen().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3")
    gui.send("position fen not/a/fen w - - 0 1", "position fen", "isready")
    gui.wait_for(lambda ls: ls.count("readyok") == 2)
    assert gui.engine.board.fen().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3")


def test_go_depth_gives_info_then_one_bestmove(gui: Pipe) -> None:
    gui.send("position startpos", "go depth 3")
    lines = gui.expect("bestmove")
    infos = [x for x in lines if x.startswith("info depth")]
    assert len(infos) == 3 and " score cp " in infos[-1]
    assert bestmoves(lines) == ["bestmove a2a3 ponder a7a5"]
    assert gui.engine.last_limits is not None and gui.engine.last_limits.depth == 3


def test_isready_answered_during_infinite_search_and_no_early_bestmove(gui: Pipe) -> None:
    gui.send("position startpos", "go infinite")
    time.sleep(0.1)  # the stand-in finishes its depths quickly; bestmove must still wait
    gui.send("isready")
    lines = gui.expect("readyok")
    assert not bestmoves(lines)
    gui.send("stop")
    lines = gui.expect("bestmove")
    assert len(bestmoves(lines)) == 1


def test_ponder_then_ponderhit(gui: Pipe) -> None:
    gui.send("position startpos moves e2e4 e7e5", "go ponder wtime 1000 btime 1000")
    time.sleep(0.1)
    assert not bestmoves(gui.lines)
    gui.send("ponderhit")
    lines = gui.expect("bestmove")
    assert len(bestmoves(lines)) == 1
    assert gui.engine.ponderhits == 1


def test_ponder_miss_stop_then_new_search(gui: Pipe) -> None:
    gui.send("position startpos", "go ponder movetime 100000")
    time.sleep(0.05)
    gui.send("stop", "position startpos moves d2d4", "go depth 2")
    gui.wait_for(lambda ls: len(bestmoves(ls)) == 2)
    time.sleep(0.05)
    assert len(bestmoves(gui.lines)) == 2


def test_position_during_search_stops_it_and_keeps_order(gui: Pipe) -> None:
    gui.engine.step = 0.05
    gui.send("position startpos", "go depth 40", "position startpos moves g1f3", "go depth 1")
    lines = gui.wait_for(lambda ls: len(bestmoves(ls)) == 2, timeout=2)
    first, second = bestmoves(lines)
    assert first.startswith("bestmove a2a3")
    assert second.startswith("bestmove a7a5")  # from the position after g1f3


def test_stop_after_a_kept_command_belongs_to_the_next_search(gui: Pipe) -> None:
    # position (kept while the infinite search is stopped), go ponder, ponderhit: the
    # ponderhit must reach the ponder search, not the one being stopped.
    gui.send("position startpos", "go infinite")
    time.sleep(0.05)
    gui.send("position startpos moves e2e4 e7e5", "go ponder", "ponderhit")
    gui.wait_for(lambda ls: len(bestmoves(ls)) == 2, timeout=2)
    assert gui.engine.ponderhits == 1


def test_no_legal_moves(gui: Pipe) -> None:
    gui.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go depth 3")
    lines = gui.expect("bestmove")
    assert lines[-2:] == ["info depth 0 score cp 0", "bestmove (none)"]
    gui.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "go movetime 10")
    lines = gui.wait_for(lambda ls: len(bestmoves(ls)) == 2)
    assert lines[-2:] == ["info depth 0 score mate 0", "bestmove (none)"]


def test_unknown_commands_and_garbage_are_reported(gui: Pipe) -> None:
    gui.send("frobnicate", "go sideways", "   ", "# a comment", "position")
    gui.send_bytes(b"\xff\xfe\x00\x01 zz\r\n")
    gui.send("isready")
    lines = gui.expect("readyok")
    assert all(x.startswith("info string") for x in lines[:-1]), lines
    assert len(lines) == 5  # four errors (blank and comment lines are silent) and readyok


def test_huge_line_is_skipped_whole(gui: Pipe) -> None:
    gui.send("position startpos moves " + "e2e4 " * 20000, "isready")
    lines = gui.expect("readyok")
    assert any("line longer than" in x for x in lines)
    assert gui.engine.board.fen().startswith("rnbqkbnr/pppppppp")


def test_eof_quits_even_while_searching() -> None:
    pipe = Pipe(Uci)
    pipe.send("go infinite")
    time.sleep(0.05)
    pipe.close()
    pipe.thread.join(5)
    assert not pipe.thread.is_alive()
    assert len(bestmoves(pipe.lines)) == 1


def test_extras_d_eval(gui: Pipe) -> None:
    # `go perft` counts with ferz's compiled core, which this python-chess stand-in does not
    # have: tests/rules/test_perft_cli.py and the transcript tests run it on the real engine.
    gui.send("position startpos moves e2e4", "d")
    gui.expect("Fen: ")
    gui.send("eval")
    gui.expect("info string static eval 0")


def test_standin_is_a_fair_engine() -> None:
    # Guards the stand-in itself: searchmoves restricts its choice.
    engine = StandIn()
    got: list[str | None] = []
    from tests.protocol.standin import Limits

    engine.go(Limits(depth=1, searchmoves=["h2h4"]), lambda i: None, lambda b, p: got.append(b))
    engine.wait()
    assert got == ["h2h4"]


def test_illegal_searchmoves_are_left_out(gui: Pipe) -> None:
    gui.send("position startpos", "go depth 1 searchmoves zz e2e5 h2h4")
    lines = gui.expect("bestmove")
    assert any("ignoring zz e2e5" in x for x in lines)
    assert lines[-1].startswith("bestmove h2h4")
    gui.send("go depth 1 searchmoves e7e5")  # none legal: search every move
    lines = gui.wait_for(lambda ls: len(bestmoves(ls)) == 2)
    assert bestmoves(lines)[-1].startswith("bestmove a2a3")


def test_eof_runs_the_commands_kept_behind_a_search_then_quits() -> None:
    # A script that pipes a search, then a new position and a second search, then closes its
    # input: the commands read during the first search run before the quit that EOF means.
    pipe = Pipe(Uci)
    pipe.send("go infinite")
    pipe.wait_for(lambda lines: any(x.startswith("info") for x in lines))
    pipe.send("position startpos moves e2e4", "go depth 1", "d")
    pipe.close()
    pipe.thread.join(5)
    assert not pipe.thread.is_alive()
    assert len(bestmoves(pipe.lines)) == 2, pipe.lines
    assert any("Fen: rnbqkbnr/pppppppp/8/8/4P3" in x for x in pipe.lines), pipe.lines


@pytest.mark.parametrize(
    "commands",
    [
        # the sequence: the second go was dropped by the quit read while the first
        # search was being stopped
        ("position startpos", "go depth 30", "position startpos moves e2e4", "go depth 3"),
        # a search that would never end: the quit stops it (it used to hang the session)
        ("go infinite", "go infinite"),
    ],
)
def test_quit_answers_every_go_sent_before_it(commands: tuple[str, ...]) -> None:
    # Stockfish reads its input in order: every go before the quit gets its bestmove, and the
    # quit stops the last search.
    pipe = Pipe(Uci)
    pipe.send(*commands, "quit")
    pipe.thread.join(5)
    assert not pipe.thread.is_alive()
    gos = sum(c.split()[0] == "go" for c in commands)
    assert len(bestmoves(pipe.lines)) == gos, pipe.lines
