"""The UCI protocol on the line-driven engine driver: handshake, options, UCI_Variant, go and
the info lines (depth, score, nodes, pv)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from ..engine import Info
from ..score import Score
from .engines import Driver, EngineError, EngineSpec, MoveLimits, Reply, allotted


class UciDriver(Driver):
    """A UCI engine; the variant goes in UCI_Variant."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.option_names: set[str] = set()
        self.fen = "startpos"
        self.moves: list[str] = []

    protocol = "uci"
    newgame: str | None = "ucinewgame"  # the protocol's new-game command
    ends: tuple[str, ...] = ("bestmove",)  # the first words of the line that ends a search

    def handshake(self, variant: str) -> None:
        """uci / uciok, the options, UCI_Variant, isready."""
        self.hello()
        wanted = self.spec.variant_name or variant
        if variant == "chess960" and "uci_chess960" in self.option_names:
            self.send("setoption name UCI_Chess960 value true")
        elif wanted != "chess":
            if "uci_variant" not in self.option_names:
                raise EngineError("protocol", f"cannot play {variant} (no UCI_Variant option)")
            self.send(f"setoption name UCI_Variant value {wanted}")
        self.isready(self.spec.start_timeout)

    def hello(self) -> None:
        """The greeting (uci, usi or ucci) up to its ok: the engine's name and options; then
        the options of the spec, each one the engine must have."""
        self.send(self.protocol)
        deadline = time.monotonic() + self.spec.start_timeout
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineError(
                    "stall", f"no {self.protocol}ok within {self.spec.start_timeout:g} s"
                )
            line = got[1].strip()
            if line == f"{self.protocol}ok":
                break
            if line.startswith(("info string error", "info message error")):
                # an engine that cannot start says so (ferz: a bad FERZ_PARAMS; UCCI's own
                # word is `info message`) and waits or exits
                said = line.split(None, 2)[2].removeprefix("error").lstrip(":").strip()
                reason = said or "no reason given"
                raise EngineError("start", f"cannot start: {reason}")
            if line.startswith("id name ") and not self.name:
                self.name = line[8:].strip()
            found = re.match(r"option (?:name )?(.+?) type ", line)  # UCCI has no `name`
            if found:
                self.option_names.add(found.group(1).lower())
        self.name = self.name or self.spec.label()
        for key, value in self.spec.options.items():
            if key.lower() not in self.option_names:
                raise EngineError("protocol", f"has no option {key!r}")
            self.send(self._setoption(key, value))

    def _setoption(self, name: str, value: str) -> str:
        """The protocol's setoption line."""
        return f"setoption name {name} value {value}"

    def isready(self, seconds: float) -> None:
        """isready / readyok."""
        self.send("isready")
        self.wait_for("readyok", seconds, "readyok")

    def new_game(self, fen: str, standard: bool, moves: list[str], ranks: int) -> None:
        """ucinewgame (usinewgame; UCCI has none); the position goes with every go."""
        self.fen, self.moves = fen, list(moves)
        self.drain()
        if self.newgame:
            self.send(self.newgame)
        self.isready(self.spec.start_timeout)

    def tell(self, move: str) -> None:
        """Remember the move for the next position command."""
        self.moves.append(move)

    def played(self, move: str) -> None:
        """Its own move joins the move list."""
        self.moves.append(move)

    def game_over(self, result: str, reason: str) -> None:
        """Nothing to say: UCI has no result command (the next ucinewgame starts afresh)."""

    def _position(self, fen: str, moves: list[str]) -> str:
        """The position command."""
        text = f"position fen {fen}"
        return text + (" moves " + " ".join(moves) if moves else "")

    def _go(self, limits: MoveLimits, white: bool) -> str:
        """The go command (the side to move matters to protocols that name the clocks so)."""
        return go_command(limits)

    def _info(self, words: list[str], reply: Reply) -> None:
        """An info line's words into the reply."""
        parse_info(words, reply)

    def _best(self, words: list[str], line: str) -> str:
        """The move of the line that ended the search (its words); EngineError for none."""
        if len(words) < 2 or words[1] in ("(none)", "0000", "none"):
            raise EngineError("protocol", f"bestmove without a move: {line!r}")
        return words[1]

    def play(self, limits: MoveLimits, grace: float, white: bool) -> Reply:
        """position + go; info lines until bestmove."""
        self.drain()
        self.send(self._position(self.fen, self.moves))
        started = time.monotonic()
        self.send(self._go(limits, white))
        reply = Reply()
        seconds = allotted(limits, white) + grace
        deadline = started + seconds
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineError("stall", f"no bestmove within {seconds:.1f} s")
            stamp, line = got
            words = line.split()
            if not words:
                continue
            if words[0] == "info":
                self._info(words, reply)
            elif words[0] in self.ends:
                reply.elapsed = stamp - started
                reply.move = self._best(words, line)
                return reply

    def analyse(self, fen: str, moves: list[str], limits: MoveLimits, multipv: int) -> list[Reply]:
        """The best `multipv` lines (deepest report of each) of a search of the position.

        A time limit is kept here, as a GUI's analysis does: `go infinite`, then `stop` when
        the time is up, so every engine searches for the whole time (an engine's own
        `movetime` handling may stop early)."""
        self.drain()
        if "multipv" in self.option_names:
            self.send(f"setoption name MultiPV value {multipv}")
        self.send(self._position(fen, moves))
        started = time.monotonic()
        timed = limits.movetime is not None
        self.send("go infinite" if timed else go_command(limits))
        stop_at = started + (limits.movetime or 0) / 1000 if timed else None
        lines: dict[int, Reply] = {}
        deadline = started + allotted(limits, True) + 60.0
        while True:
            wait_until = stop_at if stop_at is not None else deadline
            got = self.readline(wait_until)
            if got is None:
                if stop_at is not None:
                    self.send("stop")
                    stop_at = None
                    continue
                raise EngineError("stall", "no bestmove from the analysis")
            words = got[1].split()
            if words and words[0] == "info" and "pv" in words:
                reply = Reply()
                parse_info(words, reply)
                rank = int(words[words.index("multipv") + 1]) if "multipv" in words else 1
                if reply.score is not None and reply.pv:
                    lines[rank] = reply
            elif words and words[0] == "bestmove":
                return [lines[k] for k in sorted(lines)]


def go_command(limits: MoveLimits) -> str:
    """The UCI go command of the limits."""
    parts = ["go"]
    if limits.wtime is not None and limits.btime is not None:
        parts += [f"wtime {max(1, limits.wtime)}", f"btime {max(1, limits.btime)}"]
        parts += [f"winc {limits.winc}", f"binc {limits.binc}"]
        if limits.movestogo:
            parts.append(f"movestogo {limits.movestogo}")
    if limits.movetime is not None:
        parts.append(f"movetime {limits.movetime}")
    return " ".join(parts + nodes_and_depth(limits))


def nodes_and_depth(limits: MoveLimits) -> list[str]:
    """The go command's node and depth limits (the same words in UCI, USI and UCCI)."""
    parts = []
    if limits.nodes is not None:
        parts.append(f"nodes {limits.nodes}")
    if limits.depth is not None:
        parts.append(f"depth {limits.depth}")
    return parts


#: The info fields that carry one integer, by their names in ferz.engine.Info.
INFO_INTS = {
    "depth": "depth",
    "seldepth": "seldepth",
    "multipv": "multipv",
    "nodes": "nodes",
    "nps": "nps",
    "hashfull": "hashfull",
    "time": "time_ms",
    "currmovenumber": "currmovenumber",
}


def read_info(line: str, strict: bool = True) -> Info:
    """A UCI `info` line as ferz.engine.Info (the inverse of ferz.protocol.uci.format_info):
    the one reader of engines' info lines, for the match's drivers and the web's workers.
    A malformed number is a ValueError when `strict`, else its field is left out."""
    words = line.split()
    info = Info()
    if len(words) > 1 and words[1] == "string":
        info.string = line.split(None, 2)[2] if len(words) > 2 else ""
        return info
    i = 1
    while i < len(words):
        word = words[i]
        try:
            if word == "pv":
                info.pv = words[i + 1 :]
                break
            if word in INFO_INTS and i + 1 < len(words):
                setattr(info, INFO_INTS[word], int(words[i + 1]))
                i += 2
            elif word == "score" and i + 2 < len(words):
                kind, value = words[i + 1], int(words[i + 2])
                if kind == "mate":
                    info.score_mate = value
                elif kind == "cp":
                    info.score_cp = value
                i += 3
            elif word in ("lowerbound", "upperbound"):
                info.bound = word[:5]
                i += 1
            elif word == "wdl" and i + 3 < len(words):
                w, d, lost = (int(x) for x in words[i + 1 : i + 4])
                info.wdl = (w, d, lost)
                i += 4
            elif word == "currmove" and i + 1 < len(words):
                info.currmove = words[i + 1]
                i += 2
            else:
                i += 1  # a field ferz does not read: skip the word
        except ValueError:
            if strict:
                raise
            i += 1  # (USI's `score mate +`): the field is left out, its words skipped
    return info


def parse_info(words: list[str], reply: Reply, move: Callable[[str], str] | None = None) -> None:
    """Depth, score, nodes and pv of an info line (its words) into a reply, as read_info reads
    them, each pv move through `move` if given; bound scores and malformed fields are left out."""
    info = read_info(" ".join(words), strict=False)
    if info.depth is not None:
        reply.depth = info.depth
    if info.nodes is not None:
        reply.nodes = info.nodes
    if info.bound is None and info.score_cp is not None:
        reply.score = info.score_cp
    elif info.bound is None and info.score_mate is not None:
        mate = info.score_mate
        reply.score = Score(mate=mate).to_cp()
    if info.pv:
        reply.pv = [move(m) for m in info.pv] if move else info.pv
