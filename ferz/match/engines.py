"""Engines as child processes: how to start one, and the line-driven driver (`Process`) that
`uci` and `xboard` build their protocols on, and the tests and tools use.

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

import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import Failure

PROTOCOLS = ("uci", "xboard", "usi", "ucci")


class EngineError(Failure):
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
        raise ValueError(f"proto={protocol!r}: expected uci, xboard, usi or ucci")
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
class MoveLimits:
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
    score: int | None = None  # centipawns for the mover (mates as ferz.score.MATE_CP - n)
    depth: int | None = None
    nodes: int | None = None
    pv: list[str] = field(default_factory=list)


class Process:
    """A child process spoken to by lines: the base of the match's drivers (`Driver`) and of
    the tests and tools that talk to an engine (tests/protocol/proc.py, tests/variants/oracle.py,
    tools/tune.py). Output lines are read on a thread into a queue of (time, line)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.log: list[str] = []  # the last lines exchanged, for failure reports

    def spawn(
        self,
        command: list[str],
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: int | None = None,
    ) -> None:
        """Launch the process and its reader thread (stderr: None to inherit ours, or
        subprocess.DEVNULL / PIPE); EngineError('start') if it cannot run."""
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                bufsize=1,
                errors="replace",
                cwd=cwd,
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

    def send_bytes(self, data: bytes) -> None:
        """Write raw bytes (input that need not be text); a closed pipe as in `send`."""
        self._note(f"< {data!r}")
        try:
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.flush()
            self.proc.stdin.buffer.write(data)
            self.proc.stdin.buffer.flush()
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

    def expect(
        self, match: str | Callable[[str], bool], seconds: float, what: str = ""
    ) -> list[str]:
        """The lines read up to and including the first that starts with `match` (or
        satisfies it); EngineError('stall') after `seconds`, its message listing the last."""
        test = match if callable(match) else (lambda line: line.startswith(match))
        deadline = time.monotonic() + seconds
        seen: list[str] = []
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineError(
                    "stall", f"no {what or repr(match)} within {seconds:g} s; got {seen[-15:]}"
                )
            seen.append(got[1])
            if test(got[1]):
                return seen

    def wait_for(self, word: str, seconds: float, what: str) -> list[str]:
        """Lines (stripped) before one that equals or starts with `word`; EngineError('stall')
        on timeout."""

        def found(line: str) -> bool:
            line = line.strip()
            return line == word or line.startswith(word + " ")

        try:
            return [line.strip() for line in self.expect(found, seconds, what)[:-1]]
        except EngineError as error:
            if error.kind == "stall":
                raise EngineError("stall", f"no {what} within {seconds:g} s") from None
            raise

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

    def quit(self, seconds: float = 2.0) -> None:
        """Ask the process to quit; kill it if it does not within `seconds`."""
        if self.alive():
            try:
                self.send("quit")
                assert self.proc is not None
                self.proc.wait(timeout=seconds)
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


class Driver(Process, ABC):
    """The driver of one engine of a match: a Process started from an EngineSpec; its
    subclasses speak a protocol (ferz.match.uci, usi, xboard; ferz.match.launch picks one)."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__()
        self.spec = spec
        self.name = spec.name

    def start(self) -> None:
        """Launch the engine; EngineError('start') if it cannot run."""
        env = dict(os.environ)
        if self.spec.params:
            env["FERZ_PARAMS"] = self.spec.params
        command = self.spec.command or ferz_command(self.spec.protocol)
        stderr = None if self.spec.stderr else subprocess.DEVNULL
        self.spawn(command, env=env, cwd=self.spec.workdir, stderr=stderr)

    # ------------------------------------------------------------------ protocol

    @abstractmethod
    def handshake(self, variant: str) -> None:
        """Start the protocol, set the options and the variant."""

    @abstractmethod
    def new_game(self, fen: str, standard: bool, moves: list[str], ranks: int) -> None:
        """Set up a game from `fen` (the variant's start if `standard`) after `moves`."""

    @abstractmethod
    def tell(self, move: str) -> None:
        """The opponent's move (or a move of the opening)."""

    @abstractmethod
    def play(self, limits: MoveLimits, grace: float, white: bool) -> Reply:
        """Think on the current position (`white` to move) and answer; `grace` seconds beyond
        the allotted time before the engine counts as stalled."""

    @abstractmethod
    def played(self, move: str) -> None:
        """Its own move, as the referee understood it."""

    @abstractmethod
    def game_over(self, result: str, reason: str) -> None:
        """Tell the engine how the game ended."""

    def analyse(self, fen: str, moves: list[str], limits: MoveLimits, multipv: int) -> list[Reply]:
        """Search a position and return the best lines (UCI engines)."""
        raise EngineError("protocol", "analysis needs a UCI engine")


def allotted(limits: MoveLimits, white: bool) -> float:
    """Seconds the engine may think at most: its clock, the fixed time, or no limit (60 s)."""
    if limits.movetime is not None:
        return limits.movetime / 1000
    clock = limits.wtime if white else limits.btime
    if clock is not None:
        return clock / 1000
    return 60.0  # depth and node limits: a generous bound before a search counts as stalled
