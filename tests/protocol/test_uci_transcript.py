"""UCI transcripts against the real engine process (what GUIs and match runners send)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import chess
import pytest

from ferz.board import Board
from tests.conftest import ROOT
from tests.protocol.proc import EngineProcess

# Wall-clock bounds here only catch a hang (a loaded 2-core machine can delay any answer by
# hundreds of ms); bench/latency.py measures the latencies.
HANG = 5.0

INTEGER_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits", "time"}
REQUIRED_OPTIONS = (
    "Hash",
    "Threads",
    "MultiPV",
    "Ponder",
    "Move Overhead",
    "Clear Hash",
    "UCI_Chess960",
    "UCI_LimitStrength",
    "UCI_Elo",
    "UCI_ShowWDL",
)


@pytest.fixture
def uci() -> Iterator[EngineProcess]:
    engine = EngineProcess("uci")
    engine.send("uci")
    engine.expect("uciok")
    yield engine
    assert engine.close() == 0


def check_info(line: str, board: chess.Board) -> None:
    """An info line is well formed: integer fields, a cp/mate score, a legal PV."""
    tokens = line.split()
    assert tokens[0] == "info"
    if tokens[1] == "string":
        return
    for i, token in enumerate(tokens[:-1]):
        if token in INTEGER_FIELDS and not (token == "time" and "string" in tokens[:i]):
            int(tokens[i + 1])  # raises on "1.5" or garbage
    if "score" in tokens:
        kind, value = tokens[tokens.index("score") + 1 : tokens.index("score") + 3]
        assert kind in ("cp", "mate") and int(value) == int(value)
    if "pv" in tokens:
        copy = board.copy()
        for move in tokens[tokens.index("pv") + 1 :]:
            copy.push_uci(move)  # raises if the PV has an illegal move


def search(engine: EngineProcess, board: chess.Board, go: str, timeout: float = 20) -> str:
    """Run `go ...` on board; checks every info line; returns the bestmove line."""
    moves = " ".join(m.uci() for m in board.move_stack)
    start = board.root().fen()
    engine.send(f"position fen {start}" + (f" moves {moves}" if moves else ""), go)
    lines = engine.expect("bestmove", timeout)
    infos = [x for x in lines if x.startswith("info")]
    for line in infos:
        check_info(line, board)
    scored = [x for x in infos if " score " in x]
    assert scored, "at least one info line with a score before bestmove"
    best = lines[-1].split()
    if best[1] != "(none)":
        assert chess.Move.from_uci(best[1]) in board.legal_moves
    return lines[-1]


def test_handshake_and_options() -> None:
    engine = EngineProcess()  # no command: UCI by default
    engine.send("uci")
    lines = engine.expect("uciok")
    assert lines[0].startswith("id name ferz") and lines[1].startswith("id author ")
    names = [x.split(" type ")[0][len("option name ") :] for x in lines if x.startswith("option")]
    for name in REQUIRED_OPTIONS:
        assert name in names
    assert any(x.startswith("option name UCI_ShowWDL type check default false") for x in lines)
    for line in lines:
        assert line == line.strip() and "  " not in line
    engine.send("isready")
    engine.expect("readyok")
    assert engine.close() == 0


def test_setoption_and_errors_are_info_strings(uci: EngineProcess) -> None:
    uci.send(
        "setoption name Hash value 8",
        "setoption name Hash value -5",
        "setoption name Nope value 1",
        "setoption name Clear Hash",
        "setoption name Move Overhead value 50",
        "isready",
    )
    lines = uci.expect("readyok")
    assert len(lines) == 3 and all(x.startswith("info string") for x in lines[:-1])


def test_game_moves_depth_nodes_movetime(uci: EngineProcess) -> None:
    uci.send("ucinewgame", "isready")
    uci.expect("readyok")
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
    search(uci, board, "go depth 3")
    search(uci, board, "go nodes 2000")
    start = time.monotonic()
    search(uci, board, "go movetime 300")
    assert 0.15 < time.monotonic() - start < HANG


def test_clock_only_one_side_like_fastchess(uci: EngineProcess) -> None:
    board = chess.Board()
    start = time.monotonic()
    search(uci, board, "go wtime 100")
    board.push_uci("e2e4")
    search(uci, board, "go btime 100")
    search(uci, board, "go wtime 1000 btime 100 winc 10 binc 10")
    assert time.monotonic() - start < HANG


def test_isready_and_stop_during_infinite(uci: EngineProcess) -> None:
    uci.send("position startpos", "go infinite")
    time.sleep(0.3)
    uci.send("isready")
    lines = uci.expect("readyok", timeout=HANG)  # answered while the search goes on
    assert not any(x.startswith("bestmove") for x in lines)
    time.sleep(0.5)
    assert not any(x.startswith("bestmove") for x in uci.quiet(0.2))
    uci.send("stop")
    lines = uci.expect("bestmove", timeout=HANG)
    uci.send("isready")
    assert not any(x.startswith("bestmove") for x in uci.expect("readyok"))


def test_ponder_hit_and_miss(uci: EngineProcess) -> None:
    uci.send("position startpos moves e2e4 e7e5", "go ponder wtime 2000 btime 2000")
    assert not any(x.startswith("bestmove") for x in uci.quiet(0.5))
    uci.send("ponderhit")
    lines = uci.expect("bestmove", timeout=3)
    assert sum(x.startswith("bestmove") for x in lines) == 1
    uci.send("position startpos moves e2e4 e7e5 g1f3", "go ponder wtime 2000 btime 2000")
    time.sleep(0.2)
    uci.send("stop")  # ponder miss: the GUI stops and starts a new search
    uci.expect("bestmove", timeout=2)
    board = chess.Board()
    for move in ("e2e4", "e7e5", "b1c3"):
        board.push_uci(move)
    search(uci, board, "go movetime 100")


def test_bad_position_keeps_the_previous_one(uci: EngineProcess) -> None:
    uci.send(
        "position startpos moves e2e4",
        "position startpos moves e2e5",
        "position fen 8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w",
        "go depth 1",
    )
    lines = uci.expect("bestmove")
    errors = [x for x in lines if x.startswith("info string")]
    assert len(errors) >= 2
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert chess.Move.from_uci(lines[-1].split()[1]) in after_e4.legal_moves


def test_a_game_of_thousands_of_plies_is_followed_to_its_last_move(uci: EngineProcess) -> None:
    """A real makruk game of 3 263 plies: each position command is the whole game (16 386
    bytes at the end); ferz follows it to the last move and answers in that position (a line
    limit of 16 KiB once left it two plies behind, and it played a move of the old position),
    and past the plies a board holds."""
    text = (ROOT / "tests" / "data" / "makruk-3263-plies.txt").read_text()
    moves = " ".join(x for x in text.splitlines() if not x.startswith("#")).split()
    uci.send("setoption name UCI_Variant value makruk")
    start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"
    for plies in (3000, 3100, 3200, 3261, 3263):
        uci.send(f"position fen {start} moves " + " ".join(moves[:plies]))
    uci.send("d")
    uci.expect("Fen: 8/3K4/8/6k1/6p1/8/8/6m1 b - - 3089 1632")
    uci.send("go depth 3")
    best = uci.expect("bestmove")[-1].split()[1]
    board = Board(variant="makruk")
    for move in moves:
        board.push_uci(move)
    assert best in {board.uci(move) for move in board.legal_moves}
    # on past the 3 800 plies a board holds (the kings walk to and fro: 136 rounds of 4 plies)
    moves += ["g5h5", "d7e7", "h5g5", "e7d7"] * 136
    uci.send(f"position fen {start} moves " + " ".join(moves), "d")
    uci.expect("Fen: 8/3K4/8/6k1/6p1/8/8/6m1 b - - 3633 1904")
    assert not [x for x in uci.output if "error" in x or "longer than" in x]


@pytest.mark.parametrize("mode", [(), ("uci",)])
def test_a_line_over_the_limit_is_skipped_whole(mode: tuple[str, ...]) -> None:
    """docs/protocols.md: a line over 64 KiB is skipped with an `info string`. As the first line
    of a plain `ferz` (the one that picks the protocol) it was cut and run: "invalid UCI move
    'f3'"."""
    engine = EngineProcess(*mode)
    engine.send("position startpos moves " + "g1f3 g8f6 f3g1 f6g8 " * 4000, "d")
    lines = engine.expect("Fen: ")
    assert lines[-1].startswith("Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    infos = [x for x in lines if x.startswith("info")]
    assert infos == ["info string error: line longer than 65536 bytes ignored"], lines
    assert engine.close() == 0


def test_mated_and_stalemated_positions(uci: EngineProcess) -> None:
    uci.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "go depth 5")
    lines = uci.expect("bestmove")
    assert lines[-1] == "bestmove (none)" and any("score mate 0" in x for x in lines)
    uci.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go movetime 50")
    lines = uci.expect("bestmove")
    assert lines[-1] == "bestmove (none)" and any("score cp 0" in x for x in lines)


def test_mate_in_one_found_with_mate_score(uci: EngineProcess) -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    line = search(uci, board, "go depth 4")
    assert line.split()[1] == "a1a8"
    assert any("score mate 1" in x for x in uci.output)


def test_searchmoves_restricts_the_root(uci: EngineProcess) -> None:
    board = chess.Board()
    line = search(uci, board, "go depth 3 searchmoves a2a3 h2h3")
    assert line.split()[1] in ("a2a3", "h2h3")


def test_extras_d_perft(uci: EngineProcess) -> None:
    uci.send("position startpos moves e2e4", "d")
    uci.expect("Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq")
    uci.send("go perft 3")
    lines = uci.expect("Nodes searched")
    assert lines[-1] == "Nodes searched: 13160"


def test_quit_during_search_exits_promptly() -> None:
    engine = EngineProcess("uci")
    engine.send("position startpos", "go infinite")
    time.sleep(0.3)
    assert engine.close(timeout=HANG) == 0


def test_quit_piped_behind_searches_answers_every_go() -> None:
    """The issue's pipe: two searches then quit, all sent at once. Stockfish answers both gos
    (its second go waits for the first search); ferz stopped the first search at the second
    `position` and then dropped the second go at the quit it read meanwhile."""
    lines = "position startpos", "go depth 30", "position startpos moves e2e4", "go depth 3"
    proc = subprocess.run(
        [sys.executable, "-m", "ferz"],
        input="".join(line + "\n" for line in (*lines, "quit")),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    best = [x for x in proc.stdout.splitlines() if x.startswith("bestmove")]
    assert len(best) == 2, proc.stdout
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert chess.Move.from_uci(best[1].split()[1]) in after_e4.legal_moves


def test_eof_is_quit() -> None:
    engine = EngineProcess("uci")
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()
    assert engine.proc.wait(5) == 0


def test_bench_command_output_is_flushed(uci: EngineProcess) -> None:
    uci.send("bench 2")
    lines = uci.expect("Nodes/second", timeout=60)
    assert any(x.startswith("Nodes searched: ") for x in lines)
