"""The Engine facade: legal moves everywhere, determinism, stop, options, bad input."""

from __future__ import annotations

import threading
import time

import chess
import pytest

from ferz import bench, timeman
from ferz.engine import ELO_MIN, Engine, Limits
from tests.conftest import read_perft_epd
from tests.search.helpers import scored, think

# Wall-clock bounds in these tests only catch a search that hangs or ignores its limit: on a
# loaded 2-core machine a thread can wait hundreds of ms for a core. Latencies are measured by
# bench/latency.py instead.
HANG = 5.0


def test_best_move_is_legal_on_every_perft_position(engine: Engine):
    """Every perft-suite position gets a legal move (or None exactly when the game is over)."""
    for fen, _ in read_perft_epd("perftsuite.epd"):
        engine.new_game()
        best, _ = think(engine, fen, nodes=1500)
        board = chess.Board(fen)
        if board.is_game_over():
            assert best is None, fen
        else:
            assert best is not None, fen
            assert chess.Move.from_uci(best) in board.legal_moves, f"{fen}: {best}"


def test_go_nodes_is_deterministic():
    """`go nodes N` twice after new_game: identical node counts and principal variations."""
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    runs = []
    for _ in range(2):
        engine = Engine()
        for _ in range(2):
            engine.new_game()
            best, infos = think(engine, fen, nodes=30000)
            last = scored(infos)[-1]
            runs.append((best, last.nodes, last.pv, [i.nodes for i in scored(infos)]))
    assert all(run == runs[0] for run in runs)


def test_bench_is_deterministic():
    """The bench signature does not change between runs."""
    positions = bench.POSITIONS[:8]
    assert bench.run(5, positions)[0] == bench.run(5, positions)[0]


def test_stop_during_infinite_returns_a_legal_move(engine: Engine):
    """`stop` is answered with a legal move (the latency itself, about 10 ms on an idle machine,
    is measured by bench/latency.py; the bound here only catches a search that ignores it)."""
    engine.set_position(None, ["e2e4", "e7e5"])
    got = []
    done = threading.Event()

    def on_bestmove(best, ponder):
        got.append((best, ponder, time.monotonic()))
        done.set()

    engine.go(Limits(infinite=True), on_bestmove=on_bestmove)
    time.sleep(0.5)
    assert engine.searching and not done.is_set()
    start = time.monotonic()
    engine.stop()
    assert done.wait(5)
    assert got[0][2] - start < HANG
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(got[0][0]) in board.legal_moves


def test_movetime_is_respected(engine: Engine):
    """A 300 ms search gets a budget of at most 300 ms and uses its time (a loaded machine only
    makes it later, so the lower bound is firm; the overshoot is measured by bench/latency.py)."""
    assert timeman.allocate(0, movetime=300).hard <= 300
    start = time.monotonic()
    best, _ = think(engine, None, movetime=300)
    elapsed = time.monotonic() - start
    assert best is not None
    assert 0.15 < elapsed < HANG


def test_clock_search_stays_within_its_time(engine: Engine):
    """With 1 s on the clock the budget is a small share of it, and the search ends."""
    budget = timeman.allocate(0, wtime=1000, btime=1000, winc=0, binc=0)
    assert budget.soft is not None and budget.hard is not None
    assert 0 < budget.soft <= budget.hard <= 200
    start = time.monotonic()
    best, _ = think(engine, None, wtime=1000, btime=1000, winc=0, binc=0)
    assert best is not None
    assert time.monotonic() - start < HANG


def test_multipv_reports_distinct_lines(engine: Engine):
    """MultiPV 3 gives three lines with distinct first moves, best first."""
    engine.set_option("MultiPV", 3)
    _, infos = think(engine, None, depth=6)
    last = [i for i in scored(infos) if i.depth == 6]
    assert [i.multipv for i in last] == [1, 2, 3]
    assert len({i.pv[0] for i in last}) == 3
    assert last[0].score_cp >= last[1].score_cp >= last[2].score_cp


def test_searchmoves_restricts_the_root(engine: Engine):
    """Only the listed moves are considered."""
    best, _ = think(engine, None, depth=5, searchmoves=["a2a3", "h2h3"])
    assert best in ("a2a3", "h2h3")


def test_threads_search_gives_a_legal_move(engine: Engine):
    """Lazy SMP with two threads returns a legal move and counts every thread's nodes."""
    engine.set_option("Threads", 2)
    best, infos = think(engine, None, movetime=300)
    assert chess.Move.from_uci(best) in chess.Board().legal_moves


def test_bad_input_changes_nothing(engine: Engine):
    """A bad FEN, move or option raises ValueError and keeps the previous state."""
    engine.set_position(None, ["e2e4"])
    before = engine.board.fen()
    with pytest.raises(ValueError):
        engine.set_position("not a fen")
    with pytest.raises(ValueError):
        engine.set_position(None, ["e2e4", "e2e4"])
    assert engine.board.fen() == before
    with pytest.raises(ValueError):
        engine.set_option("Hash", 0)
    with pytest.raises(ValueError):
        engine.set_option("No Such Option", 1)
    assert engine.options.get("Hash") == 8


def test_a_position_that_extends_the_last_one_plays_only_the_new_moves(engine: Engine):
    """A GUI's next position command (the same game plus moves) extends the board in place;
    the result is the board a fresh replay gives, and a bad new move keeps the old one."""
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * 3 + ["e2e4", "e7e5", "g1f3"]
    engine.set_position(None, moves[:6])
    board = engine.board
    engine.set_position(None, moves)
    assert engine.board is board  # extended, not rebuilt
    fresh = Engine()
    fresh.set_position(None, moves)
    assert engine.board.fen() == fresh.board.fen()
    assert engine.board.repetitions() == fresh.board.repetitions()
    with pytest.raises(ValueError, match="move 17"):
        engine.set_position(None, [*moves, "b8c6", "e4e5"])
    assert engine.board.fen() == fresh.board.fen()
    assert len(engine.board.move_stack) == len(moves)
    # another game, another start or the same game shortened: built anew
    engine.set_position(None, ["d2d4"])
    assert engine.board.fen().startswith("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b")
    engine.set_position(chess.STARTING_FEN, ["d2d4", "d7d5"])
    assert engine.board.fen().startswith("rnbqkbnr/ppp1pppp/8/3p4/3P4")
    engine.set_position(chess.STARTING_FEN, ["d2d4"])
    assert engine.board.fen().startswith("rnbqkbnr/pppppppp/8/8/3P4")


def test_skill_level_plays_legal_moves(engine: Engine):
    """A limited-strength engine still returns legal moves quickly."""
    engine.set_option("UCI_LimitStrength", True)
    engine.set_option("UCI_Elo", ELO_MIN)
    board = chess.Board()
    for _ in range(6):
        best, _ = think(engine, None, [m.uci() for m in board.move_stack], movetime=200)
        move = chess.Move.from_uci(best)
        assert move in board.legal_moves
        board.push(move)


def test_ponderhit_turns_ponder_into_timed_search(engine: Engine):
    """A ponder search waits for ponderhit, then finishes on its clock."""
    engine.set_position(None, ["e2e4"])
    got = []
    engine.go(Limits(ponder=True, wtime=2000, btime=2000), on_bestmove=lambda b, p: got.append(b))
    time.sleep(0.3)
    assert engine.searching
    engine.ponderhit()
    assert engine.wait(3)
    assert got and got[0] is not None


@pytest.mark.parametrize("nodes", [200000, 54321, 7777])
def test_interrupted_iteration_reports_no_bogus_mate(engine: Engine, nodes):
    """A depth cut short by the node limit reports a real bound, never a made-up mate."""
    fen = "r4rk1/pbq2pp1/1ppbpn1p/8/2PP4/1P1Q1N2/PBB2PPP/R3R1K1 w - - 0 1"  # WAC.249
    _, infos = think(engine, fen, nodes=nodes)
    assert all(i.score_mate is None for i in scored(infos))
    assert all(abs(i.score_cp) < 1000 for i in scored(infos))


def test_own_book_move_is_played_without_search(engine: Engine, tmp_path):
    """OwnBook with a book that knows the position: its move comes back at once."""
    from ferz import book

    path = tmp_path / "tiny.bin"
    book.write(path, {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1": [("b2b3", 5)]})
    engine.set_option("BookFile", str(path))
    _, infos = think(engine, None, depth=2)  # OwnBook is off: a normal search
    assert scored(infos)
    engine.set_option("OwnBook", True)
    best, infos = think(engine, None, depth=20)  # a book move needs no search
    assert best == "b2b3"
    assert not scored(infos)
    best, _ = think(engine, None, ["b2b3"], depth=3)  # out of book: a normal search
    assert best is not None
    with pytest.raises(ValueError):
        engine.set_option("BookFile", str(tmp_path / "missing.bin"))
    assert engine.options.get("BookFile") == str(path)


def test_a_failing_info_callback_still_gets_a_bestmove(engine: Engine):
    """A front end whose info callback raises still receives exactly one legal bestmove."""

    def broken(info):
        raise RuntimeError("front end bug")

    got = []
    engine.set_position(None)
    engine.go(Limits(depth=3), on_info=broken, on_bestmove=lambda b, p: got.append(b))
    assert engine.wait(10)
    assert len(got) == 1
    assert chess.Move.from_uci(got[0]) in chess.Board().legal_moves


def test_long_searches_report_the_current_root_move(engine: Engine):
    """After a second of thinking, `currmove` infos name a legal root move and its number."""
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    started = time.monotonic()
    best, infos = think(engine, fen, movetime=1600)
    assert time.monotonic() - started < 5
    current = [i for i in infos if i.currmove is not None]
    assert current, "no currmove info in a 1.6 s search"
    assert len(current) <= 2, "currmove is throttled to about one per second"
    legal = {m.uci() for m in chess.Board(fen).legal_moves}
    for info in current:
        assert info.currmove in legal
        assert 1 <= info.currmovenumber <= len(legal)
        assert info.depth is not None and info.depth >= 1
        assert not info.pv and info.score_cp is None
    short = think(engine, fen, movetime=200)[1]
    assert not [i for i in short if i.currmove is not None], "short searches stay quiet"
    assert best in legal


def test_blocking_play_and_analyse() -> None:
    """`play` returns a legal move with its report; `analyse` returns MultiPV lines best first;
    the board is left as it was, and the engine's own MultiPV is restored."""
    from ferz.board import Board

    engine = Engine()
    board = Board()
    board.push_san("e4")
    result = engine.play(board, Limits(depth=5))
    assert result.move in {board.uci(m) for m in board.legal_moves}
    assert result.info.depth == 5 and result.info.pv[0] == result.move
    assert len(board.move_stack) == 1
    lines = engine.analyse(board, Limits(depth=5), multipv=3)
    assert [i.multipv for i in lines] == [1, 2, 3]
    assert len({i.pv[0] for i in lines}) == 3
    assert lines[0].score_cp >= lines[1].score_cp >= lines[2].score_cp
    assert engine.options.get("MultiPV") == 1
    xiangqi = Board(variant="xiangqi")
    move = engine.play(xiangqi, Limits(nodes=3000)).move
    assert move in {xiangqi.uci(m) for m in xiangqi.legal_moves}
    with pytest.raises(ValueError):
        engine.analyse(board, Limits(infinite=True))
    with pytest.raises(ValueError):
        engine.analyse(board, Limits(depth=2), multipv=0)


MATE_IN_1 = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"


def test_a_mate_is_reported_at_every_depth(engine: Engine) -> None:
    """After a mate is found the depth still rises, one line per iteration as Stockfish's:
    `go depth 12` on a mate in 1 reports depths 1 to 12 (it said depth 1 twelve times)."""
    best, infos = think(engine, MATE_IN_1, depth=12)
    assert best == "a1a8"
    lines = scored(infos)
    assert [i.depth for i in lines] == list(range(1, 13))
    assert all(i.score_mate == 1 and i.pv == ["a1a8"] for i in lines)


def test_a_mate_under_a_time_limit_repeats_no_line(engine: Engine) -> None:
    """`go movetime` on a mate in 1 deepens quickly, each line a depth deeper than the last
    (it printed the same depth-1 line 124 times in 10 ms)."""
    best, infos = think(engine, MATE_IN_1, movetime=300)
    assert best == "a1a8"
    depths = [i.depth for i in scored(infos)]
    assert depths == list(range(1, len(depths) + 1)), depths


def test_a_mate_is_the_result_at_the_depth_asked() -> None:
    """The blocking API reports the last iteration's depth, a found mate's too."""
    from ferz.board import Board

    engine = Engine()
    result = engine.play(Board(MATE_IN_1), Limits(depth=30))
    assert result.move == "a1a8"
    assert result.info.score_mate == 1 and result.info.depth == 30
