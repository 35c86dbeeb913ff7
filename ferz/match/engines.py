"""Engines as child processes: how to start one, and one line-driven driver for UCI and xboard.

The driver reads the engine's output on a thread into a queue of (time, line), so that the
referee can wait for a line with a deadline and know when each line arrived. Every way an
engine can fail ends in an `EngineError` whose `kind` names it:

- `crash`: the process exited (its exit code is in the message);
- `disconnect`: it closed its output, or stopped reading its input, but still runs;
- `stall`: no answer within its time and the grace period (it is then killed);
- `protocol`: an answer the protocol does not allow (no move in `bestmove`, a rejected legal
  move, a variant it does not know);
- `start`: the command cannot be run at all.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

MATE_CP = 100000  # a mate score in centipawns: mate in n is MATE_CP - n
SQUARE = re.compile(r"([a-p])(\d+)")
FEATURE = re.compile(r'(\w+)=("[^"]*"|\S+)')
#: xboard thinking output: ply score time(cs) nodes pv
THINKING = re.compile(r"^\s*(\d+)[.&]?\s+(-?\d+)\s+(\d+)\s+(\d+)\s*(.*)$")
CLAIM = re.compile(r"^(1-0|0-1|1/2-1/2)(\s|$)")
#: xboard's names of ferz variants that differ from ferz's
XBOARD_NAMES = {"chess": ["normal"], "chess960": ["fischerandom"], "losalamos": ["los-alamos"]}
PROTOCOLS = ("uci", "xboard")


class EngineError(Exception):
    """An engine that failed: `kind` is crash, disconnect, stall, protocol or start."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class EngineSpec:
    """How to start an engine and set it up."""

    command: list[str]  # empty: this ferz (`cmd=ferz`)
    name: str = ""
    protocol: str = "uci"
    options: dict[str, str] = field(default_factory=dict)
    params: str = ""  # FERZ_PARAMS for the engine's process (ferz's parameter overrides)
    variant_name: str = ""  # the engine's own name of the variant, if not ferz's
    workdir: str | None = None
    stderr: bool = False  # let the engine write to our stderr
    start_timeout: float = 30.0  # seconds for uciok / xboard's features

    def label(self) -> str:
        """The engine's name, or its program's name."""
        return self.name or (os.path.basename(self.command[0]) if self.command else "ferz")


def ferz_command(protocol: str = "uci") -> list[str]:
    """The command that runs this ferz (same Python, same package) in a protocol."""
    return [sys.executable, "-m", "ferz", protocol]


def parse_spec(words: list[str]) -> EngineSpec:
    """An EngineSpec from `key=value` words (cutechess style): cmd=, name=, proto=, params=,
    option.NAME=VALUE, variant=, dir=, stderr=; ValueError names a bad word."""
    settings: dict[str, str] = {}
    options: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise ValueError(f"engine setting {word!r}: expected KEY=VALUE (cmd=..., name=...)")
        if key.startswith("option."):
            options[key[len("option.") :]] = value
        elif key in ("cmd", "name", "proto", "params", "variant", "dir", "stderr"):
            settings[key] = value
        else:
            raise ValueError(
                f"engine setting {key!r} unknown (cmd, name, proto, params, option.NAME, "
                "variant, dir, stderr)"
            )
    protocol = settings.get("proto", "uci")
    if protocol not in PROTOCOLS:
        raise ValueError(f"proto={protocol!r}: expected uci or xboard")
    command_text = settings.get("cmd", "")
    if not command_text:
        raise ValueError(f"engine {' '.join(words)!r}: no cmd= (a command line, or ferz)")
    if command_text == "ferz":
        command = []  # resolved where the engine starts (another machine's Python, with Ray)
    else:
        try:
            command = shlex.split(command_text)
        except ValueError as error:
            raise ValueError(f"cmd={command_text!r}: {error}") from None
    default_name = "ferz" if command_text == "ferz" else ""
    return EngineSpec(
        command,
        name=settings.get("name", default_name),
        protocol=protocol,
        options=options,
        params=settings.get("params", ""),
        variant_name=settings.get("variant", ""),
        workdir=settings.get("dir") or None,
        stderr=settings.get("stderr", "") in ("1", "true", "yes"),
    )


@dataclass
class Limits:
    """What the engine is told for one move: clocks (ms), or a fixed time, nodes or depth."""

    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    movetime: int | None = None
    nodes: int | None = None
    depth: int | None = None


@dataclass
class Reply:
    """An engine's answer on its turn."""

    move: str = ""  # as the engine wrote it, in ferz's square names
    resigned: bool = False
    claim: str = ""  # a result the engine claimed instead of moving (xboard)
    elapsed: float = 0.0  # seconds between the go and the answer
    score: int | None = None  # centipawns for the mover (mates as MATE_CP - n)
    depth: int | None = None
    nodes: int | None = None
    pv: list[str] = field(default_factory=list)


class Engine:
    """A child process spoken to by lines; subclasses speak a protocol."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.log: list[str] = []  # the last lines exchanged, for failure reports

    # ------------------------------------------------------------------ process

    def start(self) -> None:
        """Launch the process and its reader thread; EngineError('start') if it cannot run."""
        env = dict(os.environ)
        if self.spec.params:
            env["FERZ_PARAMS"] = self.spec.params
        command = self.spec.command or ferz_command(self.spec.protocol)
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None if self.spec.stderr else subprocess.DEVNULL,
                text=True,
                bufsize=1,
                errors="replace",
                cwd=self.spec.workdir,
                env=env,
            )
        except OSError as error:
            text = " ".join(command)
            raise EngineError("start", f"cannot run {text!r}: {error.strerror}") from None
        threading.Thread(target=self._reader, args=(self.proc,), daemon=True).start()

    def _reader(self, proc: subprocess.Popen[str]) -> None:
        """Queue every output line with its arrival time, then None at end of file."""
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                self.lines.put((time.monotonic(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        self.lines.put((time.monotonic(), None))

    def _note(self, line: str) -> None:
        """Keep the last lines of the conversation."""
        self.log.append(line)
        del self.log[:-20]

    def send(self, text: str) -> None:
        """Write one command line; a closed pipe is a crash or a disconnect."""
        self._note(f"< {text}")
        try:
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise self._gone("stopped reading its input") from None

    def _gone(self, what: str) -> EngineError:
        """The error for a process whose pipe closed: a crash if it exited, else a disconnect."""
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        if code is None:
            return EngineError("disconnect", f"{what} but still runs")
        return EngineError("crash", f"exited with code {code} ({what})")

    def readline(self, deadline: float) -> tuple[float, str] | None:
        """The next line before the monotonic deadline, or None on timeout; EOF raises."""
        try:
            stamp, line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            self.lines.put((stamp, None))  # keep reporting the end of the output
            raise self._gone("closed its output")
        self._note(f"> {line}")
        return stamp, line

    def drain(self) -> None:
        """Drop lines already queued (late output of a previous search)."""
        while True:
            try:
                stamp, line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.lines.put((stamp, None))
                return

    def wait_for(self, word: str, seconds: float, what: str) -> list[str]:
        """Lines up to one that equals or starts with `word`; EngineError('stall') on timeout."""
        deadline = time.monotonic() + seconds
        seen = []
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineError("stall", f"no {what} within {seconds:g} s")
            line = got[1].strip()
            if line == word or line.startswith(word + " "):
                return seen
            seen.append(line)

    def alive(self) -> bool:
        """Whether the process still runs."""
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """End the process at once."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._close_pipes()

    def quit(self) -> None:
        """Ask the engine to quit; kill it if it does not within two seconds."""
        if self.alive():
            try:
                self.send("quit")
                assert self.proc is not None
                self.proc.wait(timeout=2)
            except (EngineError, subprocess.TimeoutExpired, AssertionError):
                pass
        self.kill()

    def _close_pipes(self) -> None:
        """Close our ends of the pipes (the reader thread then ends)."""
        if self.proc is None:
            return
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass

    # ------------------------------------------------------------------ protocol

    def handshake(self, variant: str) -> None:
        """Start the protocol, set the options and the variant."""
        raise NotImplementedError

    def new_game(self, fen: str, standard: bool, moves: list[str], ranks: int) -> None:
        """Set up a game from `fen` (the variant's start if `standard`) after `moves`."""
        raise NotImplementedError

    def tell(self, move: str) -> None:
        """The opponent's move (or a move of the opening)."""
        raise NotImplementedError

    def play(self, limits: Limits, grace: float, white: bool) -> Reply:
        """Think on the current position (`white` to move) and answer; `grace` seconds beyond
        the allotted time before the engine counts as stalled."""
        raise NotImplementedError

    def played(self, move: str) -> None:
        """Its own move, as the referee understood it."""

    def game_over(self, result: str, reason: str) -> None:
        """Tell the engine how the game ended."""

    def analyse(self, fen: str, moves: list[str], limits: Limits, multipv: int) -> list[Reply]:
        """Search a position and return the best lines (UCI engines)."""
        raise EngineError("protocol", "analysis needs a UCI engine")


def allotted(limits: Limits, white: bool) -> float:
    """Seconds the engine may think at most: its clock, the fixed time, or no limit (60 s)."""
    if limits.movetime is not None:
        return limits.movetime / 1000
    clock = limits.wtime if white else limits.btime
    if clock is not None:
        return clock / 1000
    return 60.0  # depth and node limits: a generous bound before a search counts as stalled


class UciEngine(Engine):
    """A UCI engine; the variant goes in UCI_Variant."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.option_names: set[str] = set()
        self.fen = "startpos"
        self.moves: list[str] = []

    def handshake(self, variant: str) -> None:
        """uci / uciok, the options, UCI_Variant, isready."""
        self.send("uci")
        deadline = time.monotonic() + self.spec.start_timeout
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineError("stall", f"no uciok within {self.spec.start_timeout:g} s")
            line = got[1].strip()
            if line == "uciok":
                break
            if line.startswith("info string error"):
                # an engine that cannot start says so (ferz: a bad FERZ_PARAMS) and waits
                raise EngineError("start", line[len("info string ") :])
            if line.startswith("id name ") and not self.name:
                self.name = line[8:].strip()
            found = re.match(r"option name (.+?) type ", line)
            if found:
                self.option_names.add(found.group(1).lower())
        self.name = self.name or self.spec.label()
        for key, value in self.spec.options.items():
            if key.lower() not in self.option_names:
                raise EngineError("protocol", f"has no option {key!r}")
            self.send(f"setoption name {key} value {value}")
        wanted = self.spec.variant_name or variant
        if variant == "chess960" and "uci_chess960" in self.option_names:
            self.send("setoption name UCI_Chess960 value true")
        elif wanted != "chess":
            if "uci_variant" not in self.option_names:
                raise EngineError("protocol", f"cannot play {variant} (no UCI_Variant option)")
            self.send(f"setoption name UCI_Variant value {wanted}")
        self.isready(self.spec.start_timeout)

    def isready(self, seconds: float) -> None:
        """isready / readyok."""
        self.send("isready")
        self.wait_for("readyok", seconds, "readyok")

    def new_game(self, fen: str, standard: bool, moves: list[str], ranks: int) -> None:
        """ucinewgame; the position goes with every go."""
        self.fen, self.moves = fen, list(moves)
        self.drain()
        self.send("ucinewgame")
        self.isready(self.spec.start_timeout)

    def tell(self, move: str) -> None:
        """Remember the move for the next position command."""
        self.moves.append(move)

    def played(self, move: str) -> None:
        """Its own move joins the move list."""
        self.moves.append(move)

    def _position(self, fen: str, moves: list[str]) -> str:
        """The position command."""
        text = f"position fen {fen}"
        return text + (" moves " + " ".join(moves) if moves else "")

    def play(self, limits: Limits, grace: float, white: bool) -> Reply:
        """position + go; info lines until bestmove."""
        self.drain()
        self.send(self._position(self.fen, self.moves))
        stamp_go = time.monotonic()
        self.send(go_command(limits))
        return self._read_reply(stamp_go, allotted(limits, white) + grace)

    def _read_reply(self, started: float, seconds: float) -> Reply:
        """Info lines until bestmove, within `seconds` of `started`."""
        reply = Reply()
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
                parse_info(words, reply)
            elif words[0] == "bestmove":
                reply.elapsed = stamp - started
                if len(words) < 2 or words[1] in ("(none)", "0000", "none"):
                    raise EngineError("protocol", f"bestmove without a move: {line!r}")
                reply.move = words[1]
                return reply

    def analyse(self, fen: str, moves: list[str], limits: Limits, multipv: int) -> list[Reply]:
        """The best `multipv` lines (deepest report of each) of a search of the position."""
        self.drain()
        if "multipv" in self.option_names:
            self.send(f"setoption name MultiPV value {multipv}")
        self.send(self._position(fen, moves))
        started = time.monotonic()
        self.send(go_command(limits))
        lines: dict[int, Reply] = {}
        deadline = started + allotted(limits, True) + 60.0
        while True:
            got = self.readline(deadline)
            if got is None:
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


def go_command(limits: Limits) -> str:
    """The UCI go command of the limits."""
    parts = ["go"]
    if limits.wtime is not None and limits.btime is not None:
        parts += [f"wtime {max(1, limits.wtime)}", f"btime {max(1, limits.btime)}"]
        parts += [f"winc {limits.winc}", f"binc {limits.binc}"]
        if limits.movestogo:
            parts.append(f"movestogo {limits.movestogo}")
    if limits.movetime is not None:
        parts.append(f"movetime {limits.movetime}")
    if limits.nodes is not None:
        parts.append(f"nodes {limits.nodes}")
    if limits.depth is not None:
        parts.append(f"depth {limits.depth}")
    return " ".join(parts)


def parse_info(words: list[str], reply: Reply) -> None:
    """Depth, score, nodes and pv of a UCI info line (bound scores are ignored)."""
    bound = "lowerbound" in words or "upperbound" in words
    for index, word in enumerate(words[:-1]):
        following = words[index + 1]
        if word == "depth" and following.isdigit():
            reply.depth = int(following)
        elif word == "nodes" and following.isdigit():
            reply.nodes = int(following)
        elif word == "score" and index + 2 < len(words) and not bound:
            try:
                value = int(words[index + 2])
            except ValueError:
                continue
            if following == "cp":
                reply.score = value
            elif following == "mate":
                reply.score = MATE_CP - value if value > 0 else -MATE_CP - value
        elif word == "pv":
            reply.pv = words[index + 1 :]
            break


def shift_ranks(move: str, delta: int) -> str:
    """A move with every rank number moved by `delta` (xboard counts ranks from 0 on boards of
    ten ranks)."""
    if not delta:
        return move
    return SQUARE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + delta}", move)


class XboardEngine(Engine):
    """An xboard/CECP v2 engine, kept in force mode except on its own turn."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.features: dict[str, str] = {}
        self.delta = 0
        self.pings = 0
        self.last_sent = ""
        self.xvariant = "normal"

    def handshake(self, variant: str) -> None:
        """xboard / protover 2 and the features (done=0 extends the wait)."""
        self.send("xboard")
        self.send("protover 2")
        deadline = time.monotonic() + min(self.spec.start_timeout, 10.0)
        while True:
            got = self.readline(deadline)
            if got is None:
                break  # a protocol 1 engine sends no features
            line = got[1].strip()
            if not line.startswith("feature"):
                continue
            finished = False
            for key, raw in FEATURE.findall(line[7:]):
                value = raw.strip('"')
                if key == "done":
                    finished = value == "1"
                    deadline = time.monotonic() + (0 if finished else self.spec.start_timeout)
                    continue
                if key != "option":
                    self.features[key] = value
                self.send(f"{'rejected' if key == 'san' and value == '1' else 'accepted'} {key}")
            if finished:
                break
        self.name = self.name or self.features.get("myname") or self.spec.label()
        for key, value in self.spec.options.items():
            if key in ("memory", "cores"):
                self.send(f"{key} {value}")
            else:
                self.send(f"option {key}={value}")
        self.xvariant = self._variant_name(variant)
        self.sync(self.spec.start_timeout)

    def _variant_name(self, variant: str) -> str:
        """The engine's name of the variant; EngineError if it does not list one."""
        if self.spec.variant_name:
            return self.spec.variant_name
        listed = [name.strip() for name in self.features.get("variants", "normal").split(",")]
        for name in [variant, *XBOARD_NAMES.get(variant, [])]:
            if name in listed:
                return name
        raise EngineError(
            "protocol", f"does not list the variant {variant!r} (it lists {','.join(listed)})"
        )

    def sync(self, seconds: float) -> None:
        """ping / pong (when the engine has the feature); a rejected move raises."""
        if self.features.get("ping") != "1":
            return
        self.pings += 1
        self.send(f"ping {self.pings}")
        deadline = time.monotonic() + seconds
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineError("stall", f"no pong within {seconds:g} s")
            line = got[1].strip()
            if line == f"pong {self.pings}":
                return
            self._check_rejection(line)

    def _check_rejection(self, line: str) -> None:
        """An 'Illegal move' or 'Error' about our last command is a protocol failure."""
        low = line.lower()
        if low.startswith("illegal move") or (
            low.startswith("error") and self.last_sent and self.last_sent in line
        ):
            raise EngineError("protocol", f"rejected {self.last_sent!r}: {line!r}")

    def _send_move(self, move: str) -> None:
        """A move in the engine's notation."""
        text = shift_ranks(move, self.delta)
        self.last_sent = text
        self.send(f"usermove {text}" if self.features.get("usermove") == "1" else text)

    def new_game(self, fen: str, standard: bool, moves: list[str], ranks: int) -> None:
        """new, variant, force, setboard (unless the start position), the opening moves."""
        self.delta = -1 if ranks > 9 else 0
        self.drain()
        self.send("new")
        if self.xvariant != "normal":
            self.send(f"variant {self.xvariant}")
        self.send("force")
        self.send("post")
        if not standard:
            if self.features.get("setboard") != "1":
                raise EngineError("protocol", "cannot set up a position (no setboard feature)")
            self.last_sent = fen
            self.send(f"setboard {fen}")
        for move in moves:
            self._send_move(move)
        self.sync(self.spec.start_timeout)

    def tell(self, move: str) -> None:
        """The opponent's move, in force mode."""
        self._send_move(move)

    def _limits(self, limits: Limits, white: bool) -> None:
        """level/st/sd and time/otim for this move."""
        if limits.depth is not None:
            self.send(f"sd {limits.depth}")
        if limits.nodes is not None:
            raise EngineError("protocol", "xboard engines take no node limit here")
        if limits.movetime is not None:
            self.send(f"st {max(1, round(limits.movetime / 1000))}")
        own = limits.wtime if white else limits.btime
        other = limits.btime if white else limits.wtime
        if own is not None and other is not None:
            inc = (limits.winc if white else limits.binc) / 1000
            base = max(own, 1000) / 1000
            minutes, seconds = divmod(base, 60)
            self.send(f"level {limits.movestogo or 0} {int(minutes)}:{int(seconds):02d} {inc:g}")
            self.send(f"time {max(1, own // 10)}")
            self.send(f"otim {max(1, other // 10)}")

    def play(self, limits: Limits, grace: float, white: bool) -> Reply:
        """go; thinking lines until `move X`, a resignation or a result claim; then force."""
        self.sync(max(grace, 1.0))
        self._limits(limits, white)
        started = time.monotonic()
        self.send("go")
        seconds = allotted(limits, white) + grace
        deadline = started + seconds
        reply = Reply()
        text = ""
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineError("stall", f"no move within {seconds:.1f} s")
            stamp, line = got
            stripped = line.strip()
            words = stripped.split()
            if not words:
                continue
            thinking = THINKING.match(stripped)
            if thinking is not None:
                reply.depth, reply.score = int(thinking.group(1)), int(thinking.group(2))
                reply.nodes = int(thinking.group(4))
            elif words[0] == "move" and len(words) >= 2:
                text = words[1]
                break
            elif words[0] == "resign":
                reply.resigned = True
                break
            elif CLAIM.match(stripped):
                reply.claim = words[0]
                break
            else:
                self._check_rejection(stripped)
        reply.elapsed = stamp - started
        self.send("force")
        reply.move = shift_ranks(text, -self.delta) if text else ""
        return reply

    def game_over(self, result: str, reason: str) -> None:
        """result RESULT {reason}."""
        with contextlib.suppress(EngineError):
            self.send(f"result {result} {{{reason}}}")


def create(spec: EngineSpec) -> Engine:
    """A started, handshaken engine is made by `launch`; this only builds the driver."""
    return UciEngine(spec) if spec.protocol == "uci" else XboardEngine(spec)


def launch(spec: EngineSpec, variant: str) -> Engine:
    """Start an engine and run its handshake; EngineError (the process is ended) on failure."""
    engine = create(spec)
    engine.start()
    try:
        engine.handshake(variant)
    except EngineError:
        engine.kill()
        raise
    return engine
