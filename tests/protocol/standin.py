"""A stand-in Engine (python-chess rules, a trivial threaded search) to test protocol sessions.

It follows the Engine contract of docs/architecture.md, so the UCI and xboard sessions can be
tested for their own logic (holding bestmove in ponder/infinite mode, one bestmove per go,
urgent commands during a search) independently of the real search's speed and strength.
"""

from __future__ import annotations

import io
import threading
import time
from typing import Any

import chess

from ferz.engine import Info, Limits
from ferz.options import Option, Options
from ferz.protocol.channel import Reader, Writer


class NamedBoard(chess.Board):
    """python-chess's Board with ferz's Board conventions (square names, files, ranks)."""

    files = 8
    ranks = 8

    def piece_at(self, square: Any) -> chess.Piece | None:  # type: ignore[override]
        """The piece on a square given by name or number."""
        if isinstance(square, str):
            square = chess.parse_square(square)
        return super().piece_at(square)

    def outcome_value(self, claim_draw: bool = False) -> int | None:
        """The finished game's value for the side to move (1 won, 0 drawn, -1 lost), else None."""
        done = self.outcome(claim_draw=claim_draw)
        if done is None:
            return None
        return 0 if done.winner is None else (1 if done.winner == self.turn else -1)


class StandIn:
    """Searches by sleeping a little per depth and picks the first legal move in UCI order."""

    def __init__(self, step: float = 0.005) -> None:
        self.step = step
        self.score = 10  # centipawns reported for every depth
        self.options = Options(
            [
                Option("Hash", "spin", 16, 1, 1024),
                Option("Threads", "spin", 1, 1, 4),
                Option("MultiPV", "spin", 1, 1, 64),
                Option("Ponder", "check", False),
                Option("UCI_ShowWDL", "check", False),
                Option("Style", "combo", "Normal", choices=("Solid", "Normal", "Risky")),
                Option("SyzygyPath", "string", ""),
                Option("Clear Hash", "button"),
            ]
        )
        self.board = NamedBoard()
        self.games = 0
        self.last_limits: Limits | None = None
        self.ponderhits = 0
        self._stop = threading.Event()
        self._hit = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def searching(self) -> bool:
        """Whether a search thread is running."""
        return self._thread is not None and self._thread.is_alive()

    def set_option(self, name: str, value: Any) -> None:
        """Set an option (ValueError on bad input)."""
        self.options.set(name, value)

    def new_game(self) -> None:
        """Count new games."""
        self.games += 1

    def set_position(self, fen: str | None = None, moves: Any = ()) -> None:
        """Replace the position, or raise ValueError and keep the old one."""
        try:
            board = NamedBoard(fen) if fen else NamedBoard()
            for move in moves:
                board.push_uci(move)
        except ValueError as error:
            raise ValueError(str(error)) from None
        self.board = board

    def evaluate(self) -> int:
        """Material balance for the side to move."""
        values = {1: 100, 2: 300, 3: 300, 4: 500, 5: 900, 6: 0}
        total = sum(
            values[p.piece_type] * (1 if p.color == self.board.turn else -1)
            for p in self.board.piece_map().values()
        )
        return total

    def go(self, limits: Limits, on_info: Any, on_bestmove: Any) -> None:
        """Start the search thread."""
        self.last_limits = limits
        self._stop.clear()
        self._hit.clear()
        board = self.board.copy()
        self._thread = threading.Thread(
            target=self._search, args=(board, limits, on_info, on_bestmove), daemon=True
        )
        self._thread.start()

    def _search(self, board: NamedBoard, limits: Limits, on_info: Any, on_bestmove: Any) -> None:
        """Iterate depths until a limit, stop, or (infinite/ponder) stop/ponderhit."""
        moves = sorted(m.uci() for m in board.legal_moves)
        if limits.searchmoves:
            moves = [m for m in moves if m in limits.searchmoves] or moves
        if not moves:
            on_bestmove(None, None)
            return
        start = time.monotonic()
        best = moves[0]
        board.push_uci(best)
        reply = min((m.uci() for m in board.legal_moves), default=None)
        max_depth = limits.depth or 5
        depth = 0
        while not self._stop.is_set():
            depth += 1
            time.sleep(self.step)
            ms = int((time.monotonic() - start) * 1000)
            pv = [best] + ([reply] if reply else [])
            on_info(
                Info(
                    depth=depth,
                    seldepth=depth,
                    multipv=1,
                    score_cp=self.score,
                    nodes=depth * 10,
                    nps=1000,
                    time_ms=ms,
                    pv=pv,
                )
            )
            timed_out = limits.movetime is not None and ms >= limits.movetime
            if depth >= max_depth or timed_out:
                if (limits.infinite or limits.ponder) and not self._hit.is_set():
                    # A real engine keeps searching; this one just waits to be released.
                    while not self._stop.is_set() and not self._hit.is_set():
                        time.sleep(0.001)
                break
        on_bestmove(best, reply)

    def stop(self) -> None:
        """Ask the search to end."""
        self._stop.set()

    def ponderhit(self) -> None:
        """The ponder search becomes a normal one."""
        self.ponderhits += 1
        self._hit.set()

    def wait(self) -> None:
        """Wait for the search thread."""
        if self._thread is not None:
            self._thread.join()


class Pipe:
    """An in-memory GUI: feed lines to a session on a thread and collect what it writes."""

    def __init__(self, session_type: type, engine: StandIn | None = None) -> None:
        import os

        self.engine = engine or StandIn()
        read_fd, self._write_fd = os.pipe()
        self._stdin = os.fdopen(read_fd, "rb", buffering=0)
        self._sink = _Sink()
        self.session = session_type(
            Writer(self._sink), Reader(self._stdin).start(), lambda: self.engine, Limits
        )
        self.thread = threading.Thread(target=self.session.run, daemon=True)
        self.thread.start()

    def send(self, *lines: str) -> None:
        """Write lines to the session's stdin."""
        import os

        for line in lines:
            os.write(self._write_fd, (line + "\n").encode())

    def send_bytes(self, data: bytes) -> None:
        """Write raw bytes to the session's stdin."""
        import os

        os.write(self._write_fd, data)

    def close(self) -> None:
        """End of input."""
        import os

        os.close(self._write_fd)

    @property
    def lines(self) -> list[str]:
        """Every line written so far."""
        return self._sink.getvalue().splitlines()

    def wait_for(self, predicate: Any, timeout: float = 5.0) -> list[str]:
        """Wait until predicate(lines) is true; returns the lines."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.lines
            if predicate(lines):
                return lines
            time.sleep(0.002)
        raise AssertionError(f"timed out; output so far: {self.lines[-20:]}")

    def expect(self, text: str, timeout: float = 5.0) -> list[str]:
        """Wait for a line starting with text; returns the lines."""
        return self.wait_for(lambda ls: any(x.startswith(text) for x in ls), timeout)


class _Sink(io.StringIO):
    """A thread-safe enough text buffer (writes come under the Writer's lock)."""
