"""UCI: parse GUI commands into Engine calls and format the engine's answers as UCI lines."""

from __future__ import annotations

import contextlib
import io
import threading
from typing import Any

from ..engine import Info
from ..perft import check_depth, divide_lines
from .channel import MAX_LINE
from .session import Session

NAME = "ferz"
AUTHOR = "the ferz developers"

#: `go` parameters that take one integer, by UCI name (also the Limits field name).
GO_INTS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime")
GO_FLAGS = ("infinite", "ponder")
GO_WORDS = frozenset(GO_INTS + GO_FLAGS + ("searchmoves", "perft"))
#: Clock parameters may come in negative (a GUI reporting an overrun); they count as zero.
GO_CLOCKS = frozenset(("wtime", "btime", "winc", "binc"))

#: Commands handled at once even while a search is being waited for (until one is kept).
#: Not `quit`: it waits its turn behind the commands read before it (see Uci.await_idle).
URGENT = frozenset(("isready", "stop", "ponderhit", "debug"))

HELP = (
    "ferz speaks UCI. Commands: uci, isready, setoption name N [value V], ucinewgame,",
    "position (startpos|fen FEN) [moves M...], go [wtime btime winc binc movestogo depth nodes",
    "mate movetime N] [infinite] [ponder] [searchmoves M...], stop, ponderhit, quit;",
    "extras: d (board and FEN), eval, go perft N (or perft N), bench [depth], help.",
)


# ---------------------------------------------------------------- parsing


def _int(word: str, value: str) -> int:
    """An integer argument of command word `word`, or ValueError naming it."""
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{word} needs an integer, got {value[:40]!r}") from None


def parse_go(tokens: list[str]) -> dict[str, Any]:
    """Turn the tokens after `go` into Limits fields; ValueError on a malformed argument."""
    fields: dict[str, Any] = {}
    i = 0
    while i < len(tokens):
        word = tokens[i].lower()
        i += 1
        if word in GO_INTS:
            if i >= len(tokens):
                raise ValueError(f"go {word} needs a value")
            number = _int(word, tokens[i])
            i += 1
            if number < 0:
                if word not in GO_CLOCKS:
                    raise ValueError(f"go {word} must not be negative")
                number = 0
            fields[word] = number
        elif word in GO_FLAGS:
            fields[word] = True
        elif word == "searchmoves":
            moves = []
            while i < len(tokens) and tokens[i].lower() not in GO_WORDS:
                if tokens[i] != "0000":  # python-chess's marker for an empty list
                    moves.append(tokens[i])
                i += 1
            fields["searchmoves"] = moves
        elif word == "perft":
            if i >= len(tokens):
                raise ValueError("go perft needs a depth")
            fields["perft"] = _int("perft", tokens[i])
            i += 1
        else:
            raise ValueError(f"unknown go parameter {word[:40]!r}")
    return fields


def parse_position(tokens: list[str]) -> tuple[str | None, list[str]]:
    """Split the tokens after `position` into (fen or None for startpos, moves)."""
    if not tokens:
        raise ValueError("position needs startpos or fen")
    head = tokens[0].lower()
    lowered = [t.lower() for t in tokens]
    cut = lowered.index("moves") if "moves" in lowered else len(tokens)
    moves = tokens[cut + 1 :]
    if head == "startpos":
        if cut != 1:
            raise ValueError(f"unexpected {tokens[1][:40]!r} after startpos")
        return None, moves
    if head == "fen":
        if cut < 2:
            raise ValueError("position fen needs a FEN")
        return " ".join(tokens[1:cut]), moves
    raise ValueError(f"position needs startpos or fen, got {tokens[0][:40]!r}")


def parse_setoption(tokens: list[str]) -> tuple[str, str | None]:
    """Split the tokens after `setoption` into (name, value or None when absent)."""
    if not tokens or tokens[0].lower() != "name":
        raise ValueError("setoption needs: name <name> [value <value>]")
    lowered = [t.lower() for t in tokens]
    cut = lowered.index("value") if "value" in lowered else len(tokens)
    name = " ".join(tokens[1:cut])
    if not name:
        raise ValueError("setoption needs an option name")
    value = " ".join(tokens[cut + 1 :]) if cut < len(tokens) else None
    return name, value


# ---------------------------------------------------------------- formatting


def format_option(option: Any) -> str:
    """The `option name ... type ...` line that declares an option."""
    line = f"option name {option.name} type {option.kind}"
    kind = option.kind
    if kind == "button":
        return line
    if kind == "check":
        return f"{line} default {'true' if option.default else 'false'}"
    if kind == "spin":
        return f"{line} default {option.default} min {option.min} max {option.max}"
    if kind == "combo":
        return f"{line} default {option.default}" + "".join(f" var {c}" for c in option.choices)
    return f"{line} default {option.default or '<empty>'}"


def format_info(info: Info, show_wdl: bool = False) -> str | None:
    """One `info` line in Stockfish's field order, or None when the Info carries nothing."""
    if info.string:
        return "info string " + " ".join(str(info.string).split())
    parts = ["info"]

    def add(name: str, value: int | None) -> None:
        if value is not None:
            parts.append(f"{name} {int(value)}")

    add("depth", info.depth)
    if info.currmove and not info.pv:
        parts.append(f"currmove {info.currmove}")
        add("currmovenumber", info.currmovenumber)
        return " ".join(parts) if len(parts) > 1 else None
    add("seldepth", info.seldepth)
    add("multipv", info.multipv)
    score = info.score
    if score is not None:
        parts.append(f"score {score.uci()}")
    if info.bound in ("lower", "upper") and score is not None:
        parts.append(f"{info.bound}bound")
    if show_wdl and info.wdl is not None and len(info.wdl) == 3:
        parts.append("wdl {} {} {}".format(*(int(x) for x in info.wdl)))
    add("nodes", info.nodes)
    add("nps", info.nps)
    add("hashfull", info.hashfull)
    add("tbhits", info.tbhits)
    add("time", info.time_ms)
    if info.pv:
        parts.append("pv " + " ".join(info.pv))
    return " ".join(parts) if len(parts) > 1 else None


def format_bestmove(best: str | None, ponder: str | None = None) -> str:
    """The `bestmove` line; `(none)` when there is no legal move."""
    if not best:
        return "bestmove (none)"
    return f"bestmove {best} ponder {ponder}" if ponder else f"bestmove {best}"


def shorten(text: str, limit: int = 60) -> str:
    """A bounded echo of user input for error messages."""
    return text if len(text) <= limit else text[:limit] + "..."


# ---------------------------------------------------------------- session


class Uci(Session):
    """One UCI conversation: reads commands from a Reader, drives an Engine, writes to a Writer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Session's arguments: out, reader and the optional engine and Limits factories."""
        super().__init__(*args, **kwargs)
        self.debug = False
        # self._lock guards the search state below.
        self._thinking = threading.Event()  # a go is running and its bestmove is not out yet
        self._hold = False  # infinite/ponder: keep the bestmove until stop or ponderhit
        self._held: tuple[str | None, str | None] | None = None
        self._scored = False  # an info line with a score went out for this go

    def say(self, text: str) -> None:
        """Send an `info string` message."""
        self.out.line("info string " + " ".join(text.split()))

    # -------------------------------------------------------------- messages

    def _too_long(self, line: str) -> None:
        """Report an ignored overlong line."""
        self.say(f"error: line longer than {MAX_LINE} bytes ignored")

    def _unknown(self, line: str) -> None:
        """Report an unknown command."""
        self.say(f"unknown command: {shorten(line)!r} (type help for the list)")

    def _failed(self, word: str, line: str, error: Exception) -> None:
        """Report a failed command as an `info string`."""
        if isinstance(error, ValueError):
            self.say(f"error: {word}: {error}")
        else:
            self.say(f"internal error in {word}: {type(error).__name__}: {error}")

    # -------------------------------------------------------------- loop

    def run(self, first: tuple[str, bool] | None = None) -> int:
        """Answer commands until `quit` or end of input, `first` (a line already read, as the
        Reader gives it) first; returns the exit code."""
        if first is not None:
            line = self._receive(first)  # a line too long is reported and skipped
            if line is not None:
                self._deferred.append(line)
        self._serve()
        if self._engine is not None and self._thinking.is_set():
            self._engine.wait()  # let the stopped search finish and send its bestmove
        return 0

    def await_idle(self) -> None:
        """End a running search (it sends its bestmove) before a command that needs the engine.

        GUIs send such commands only after bestmove; one that does not would otherwise wait
        forever on an infinite search. Commands that arrive meanwhile are kept for later, in
        order; `stop` and `ponderhit` are urgent only until a command has been kept, since after
        that they belong to a later search. `quit` is kept too, after them: the command waiting
        here and those read before the quit still run (each search among them stopped by the
        next command, the last by the quit), one bestmove per go, as Stockfish reads its input
        in order.
        """
        if self._thinking.is_set():
            if self.debug:
                self.say("stopping the running search first")
            self.engine.stop()
            self._release()
        self._wait(self._thinking.is_set, URGENT, ("isready",))
        if self._engine is not None:
            self._engine.wait()  # the engine finishes its bookkeeping right after bestmove

    # -------------------------------------------------------------- search callbacks

    def _on_info(self, info: Any) -> None:
        """Print one search update."""
        try:
            show_wdl = bool(self.engine.options.get("UCI_ShowWDL"))
        except KeyError:
            show_wdl = False
        line = format_info(info, show_wdl)
        if line:
            if " score " in line:
                self._scored = True
            self.out.line(line)

    def _on_bestmove(self, best: str | None, ponder: str | None) -> None:
        """Send the bestmove now, or keep it until stop/ponderhit in infinite and ponder mode."""
        with self._lock:
            if self._hold:
                self._held = (best, ponder)
                return
            self._send_bestmove(best, ponder)

    def _send_bestmove(self, best: str | None, ponder: str | None) -> None:
        """Write the bestmove (with a score line first if the search gave none) and go idle."""
        if not self._thinking.is_set():
            return  # exactly one bestmove per go
        lines = []
        if not best and not self._scored:
            # a game decided by any rule scores as Fairy-Stockfish's: mate 0, drawn cp 0
            value = self.engine.board.outcome_value()
            lines.append(f"info depth 0 score {'mate 0' if value else 'cp 0'}")
        lines.append(format_bestmove(best, ponder))
        self._held = None
        # Idle before the GUI can read the bestmove, so that its next commands meet no search.
        self._thinking.clear()
        self.out.lines(lines)

    def _release(self) -> None:
        """End infinite/ponder holding; send a bestmove that arrived meanwhile."""
        with self._lock:
            self._hold = False
            if self._held is not None:
                self._send_bestmove(*self._held)

    # -------------------------------------------------------------- commands

    def cmd_uci(self, args: list[str]) -> None:
        """Identify and declare the options."""
        from .. import __version__

        lines = [f"id name {NAME} {__version__}", f"id author {AUTHOR}"]
        lines += [format_option(o) for o in self.engine.options]
        lines.append("uciok")
        self.out.lines(lines)

    def cmd_isready(self, args: list[str]) -> None:
        """Answer readyok (at once, even during a search)."""
        self.engine  # noqa: B018 - creating the engine is the heavy setup isready waits for
        self.out.line("readyok")

    def cmd_debug(self, args: list[str]) -> None:
        """Switch debug messages on or off."""
        self.debug = bool(args) and args[0].lower() == "on"

    def cmd_setoption(self, args: list[str]) -> None:
        """Set an engine option."""
        name, value = parse_setoption(args)
        self.await_idle()
        if name not in self.engine.options:
            raise ValueError(f"no such option {shorten(name)!r}")
        option = self.engine.options[name]
        if value is None and option.kind not in ("button", "string"):
            raise ValueError(f"option {option.name} needs a value")
        self.engine.set_option(option.name, value)
        if self.debug:
            self.say(f"{option.name} set to {self.engine.options.get(option.name)}")

    def cmd_register(self, args: list[str]) -> None:
        """Registration is not needed."""

    def cmd_ucinewgame(self, args: list[str]) -> None:
        """Forget the previous game (hash, histories)."""
        self.await_idle()
        self.engine.new_game()

    def cmd_position(self, args: list[str]) -> None:
        """Set up a position; on error the previous one stays."""
        fen, moves = parse_position(args)
        self.await_idle()
        self.engine.set_position(fen=fen, moves=moves)

    def cmd_go(self, args: list[str]) -> None:
        """Start a search (or a perft count with `go perft N`)."""
        fields = parse_go(args)
        self.await_idle()
        if "perft" in fields:
            self._perft(fields["perft"])
            return
        if fields.get("searchmoves"):
            fields["searchmoves"] = self._legal_searchmoves(fields["searchmoves"])
        limits = self.limits(**fields)
        with self._lock:
            self._hold = bool(fields.get("infinite") or fields.get("ponder"))
            self._held = None
            self._scored = False
            self._thinking.set()
        try:
            self.engine.go(limits, on_info=self._on_info, on_bestmove=self._on_bestmove)
        except Exception:
            with self._lock:
                self._hold = False
                self._thinking.clear()
            raise

    def _legal_searchmoves(self, moves: list[str]) -> list[str]:
        """The legal ones of `searchmoves` (the others are reported and left out)."""
        board = self.engine.board
        legal = {board.uci(m) for m in board.legal_moves}
        bad = [m for m in moves if m not in legal]
        if bad:
            self.say(f"searchmoves: ignoring {shorten(' '.join(bad))} (not legal here)")
        return [m for m in moves if m in legal]

    def cmd_stop(self, args: list[str]) -> None:
        """Stop the search; its bestmove follows."""
        if self._thinking.is_set():
            self.engine.stop()
            self._release()

    def cmd_ponderhit(self, args: list[str]) -> None:
        """The predicted move was played: the ponder search becomes a normal one."""
        if self._thinking.is_set():
            self.engine.ponderhit()
            self._release()

    def cmd_quit(self, args: list[str]) -> None:
        """Stop everything and leave."""
        self.cmd_stop(args)
        self._quit = True

    def cmd_help(self, args: list[str]) -> None:
        """List the commands."""
        for line in HELP:
            self.say(line)

    def cmd_d(self, args: list[str]) -> None:
        """Show the board and its FEN (for people at a terminal)."""
        from ..textboard import render

        board = self.engine.board
        self.out.lines([*render(board, ascii=True).splitlines(), f"Fen: {board.fen()}"])

    def cmd_eval(self, args: list[str]) -> None:
        """Print the static evaluation of the current position."""
        self.await_idle()
        value = self.engine.evaluate()
        self.out.line(f"info string static eval {int(value)} cp (side to move)")

    def cmd_perft(self, args: list[str]) -> None:
        """`perft N`: the same as `go perft N`."""
        if len(args) != 1:
            raise ValueError("perft needs a depth")
        self.await_idle()
        self._perft(_int("perft", args[0]))

    def _perft(self, depth: int) -> None:
        """Count leaf nodes below each root move (the compiled perft, Stockfish's divide)."""
        check_depth(depth)
        self.out.lines([*divide_lines(self.engine.board.copy(), depth), ""])

    def cmd_bench(self, args: list[str]) -> None:
        """Run the fixed benchmark (the search's signature)."""
        self.await_idle()
        from ..bench import report

        depth = _int("bench", args[0]) if args else None
        text = io.StringIO()
        with contextlib.redirect_stdout(text):  # its lines go out through the locked writer
            report(depth)
        self.out.lines(text.getvalue().splitlines())
