"""fastchess's `--compliance` checks, step by step as fastchess runs them, from a plain client
(a subprocess and a reader thread; no ferz code), with every `info` line checked against the
UCI grammar and every `bestmove` against python-chess's legal moves."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("chess", reason="needs python-chess (pip install chess)")
import chess  # noqa: E402

from tests.clients.common import COMMAND, ENV, ROOT  # noqa: E402

pytestmark = pytest.mark.e2e

#: UCI `info` fields and how many integer values follow each (None: the rest of the line).
INT_FIELDS = {
    "depth": 1,
    "seldepth": 1,
    "time": 1,
    "nodes": 1,
    "multipv": 1,
    "currmovenumber": 1,
    "hashfull": 1,
    "nps": 1,
    "tbhits": 1,
    "sbhits": 1,
    "cpuload": 1,
    "wdl": 3,
}
MOVE_LISTS = {"pv", "refutation"}


class Client:
    """A UCI client: lines to the engine, lines from it (read by a thread, with the time they
    arrived), waits with deadlines."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            COMMAND,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=ROOT,
            env=ENV,
        )
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Queue every line of the engine's output, then None at its end."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\r\n")))
        self.lines.put((time.monotonic(), None))

    def send(self, *lines: str) -> float:
        """Write lines; returns the time they were written."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()
        return time.monotonic()

    def until(self, done: Callable[[str], bool], timeout: float = 10) -> list[str]:
        """Lines up to and including the first for which `done` is true."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                _, line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no answer within {timeout} s; got {got[-10:]}") from None
            if line is None:
                raise AssertionError(f"the engine exited; got {got[-10:]}")
            got.append(line)
            self.seen.append(line)
            if done(line):
                return got

    def word(self, word: str, timeout: float = 10) -> list[str]:
        """Lines up to the first whose first word is `word`."""
        return self.until(lambda line: line.split()[:1] == [word], timeout)

    def ready(self) -> None:
        """isready, answered by readyok."""
        self.send("isready")
        self.word("readyok")

    def close(self) -> None:
        """Kill the engine if it still runs."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture
def client() -> Iterator[Client]:
    """A ferz process driven by a plain client."""
    engine = Client()
    try:
        yield engine
    finally:
        engine.close()


def info_error(line: str, board: chess.Board) -> str | None:
    """What is wrong with an `info` line under the UCI grammar (None if nothing): known
    fields, integers where UCI has integers, a score `cp N` or `mate N` with an optional
    bound, and PV moves that are legal one after the other from `board`."""
    words = line.split()
    if words[:1] != ["info"]:
        return "not an info line"
    i = 1
    while i < len(words):
        field = words[i]
        i += 1
        if field == "string":
            return None
        if field in INT_FIELDS:
            values = words[i : i + INT_FIELDS[field]]
            if len(values) < INT_FIELDS[field] or not all(v.lstrip("-").isdigit() for v in values):
                return f"{field} needs {INT_FIELDS[field]} integer(s): {values}"
            i += INT_FIELDS[field]
        elif field == "score":
            kind, value = (words[i : i + 2] + ["", ""])[:2]
            if kind not in ("cp", "mate") or not value.lstrip("-").isdigit():
                return f"bad score {kind} {value}"
            i += 2
            if i < len(words) and words[i] in ("lowerbound", "upperbound"):
                i += 1
        elif field == "currmove":
            if i >= len(words) or not _legal(board, [words[i]]):
                return f"currmove {words[i : i + 1]} is not a legal move"
            i += 1
        elif field in MOVE_LISTS:
            moves = words[i:]
            if not moves or not _legal(board, moves):
                return f"{field} {moves} is not a legal line"
            return None
        else:
            return f"unknown field {field!r}"
    return None


def _legal(board: chess.Board, moves: list[str]) -> bool:
    """Whether the moves are legal one after the other from `board`."""
    board = board.copy(stack=False)
    for text in moves:
        try:
            board.push_uci(text)
        except ValueError:
            return False
    return True


def search(client: Client, go: str, board: chess.Board, timeout: float = 10) -> list[str]:
    """Send `go`, read up to its bestmove: every info line well-formed, the bestmove (and the
    ponder move) legal, an info line with a score before it. Returns the lines."""
    client.send(go)
    lines = client.word("bestmove", timeout)
    infos = [line for line in lines if line.startswith("info")]
    for line in infos:
        error = info_error(line, board)
        assert error is None, f"after {go!r}: {error}: {line}"
    words = lines[-1].split()
    assert len(words) in (2, 4), lines[-1]
    assert _legal(board, words[1:2]), f"after {go!r}: illegal in {board.fen()}: {lines[-1]}"
    if len(words) == 4:
        assert words[2] == "ponder" and _legal(board, [words[1], words[3]]), lines[-1]
    scored = [line for line in infos if " score " in line and " string " not in line]
    assert scored, f"after {go!r}: no info line with a score: {lines}"
    return lines


MIDDLEGAME = "3r2k1/p5n1/1pq1p2p/2p3p1/2P1P1n1/1P1P2pP/PN1Q2K1/5R2 w - - 0 27"
BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def test_fastchess_compliance_steps(client: Client) -> None:
    """fastchess's compliance steps: uci (id name, id author, uciok), isready, ucinewgame,
    position startpos / fen, `go wtime 100`, `go btime 100`, both clocks with increments in
    either order, then a short game from ucinewgame; quit ends the process with code 0."""
    client.send("uci")
    handshake = client.word("uciok")
    assert any(line.startswith("id name ") for line in handshake), handshake
    assert any(line.startswith("id author ") for line in handshake), handshake
    client.ready()
    client.send("ucinewgame")
    client.ready()
    client.send("position startpos")
    client.ready()
    client.send(f"position fen {MIDDLEGAME}")
    client.ready()
    search(client, "go wtime 100", chess.Board(MIDDLEGAME))
    client.send(f"position fen {BLACK_TO_MOVE}")
    search(client, "go btime 100", chess.Board(BLACK_TO_MOVE))
    search(client, "go wtime 100 winc 100 btime 100 binc 100", chess.Board(BLACK_TO_MOVE))
    search(client, "go btime 100 binc 100 wtime 100 winc 100", chess.Board(BLACK_TO_MOVE))
    client.send("ucinewgame", "position startpos")
    search(client, "go wtime 100 btime 100", chess.Board())
    client.send("position startpos moves e2e4 e7e5")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    search(client, "go wtime 100 btime 100", board)
    client.send("quit")
    assert client.proc.wait(5) == 0


def test_go_depth_nodes_and_stop(client: Client) -> None:
    """`go depth 5` reports depth 5 last, `go nodes 2000` stays near its budget, `go infinite`
    gives no bestmove until `stop` and then one, promptly; all info lines well-formed."""
    client.send("uci")
    client.word("uciok")
    board = chess.Board(MIDDLEGAME)
    client.send(f"position fen {MIDDLEGAME}")
    lines = search(client, "go depth 5", board)
    depths = [int(line.split()[2]) for line in lines if line.startswith("info depth ")]
    assert depths and max(depths) == 5, depths
    lines = search(client, "go nodes 2000", board)
    nodes = [
        int(line.split()[line.split().index("nodes") + 1])
        for line in lines
        if " nodes " in line and " string " not in line
    ]
    assert nodes and max(nodes) <= 2000 * 1.5, nodes
    client.send("go infinite")
    early = client.until(lambda line: line.startswith("bestmove") or "depth 4 " in line, 20)
    assert not early[-1].startswith("bestmove"), early
    time.sleep(0.3)
    sent = client.send("stop")
    lines = client.word("bestmove", 5)
    assert _legal(board, lines[-1].split()[1:2]), lines[-1]
    assert time.monotonic() - sent < 2, "bestmove came late after stop"
    for line in early + lines:
        if line.startswith("info"):
            assert info_error(line, board) is None, line
    client.send("isready")
    assert client.word("readyok")[:-1] == [], "output after the bestmove of stop"
    client.send("quit")
    assert client.proc.wait(5) == 0


def test_quit_during_a_search_ends_the_process(client: Client) -> None:
    """`quit` while `go infinite` runs: the process ends (code 0) within a few seconds."""
    client.send("uci")
    client.word("uciok")
    client.send("position startpos", "go infinite")
    client.until(lambda line: line.startswith("info depth"))
    client.send("quit")
    assert client.proc.wait(5) == 0
