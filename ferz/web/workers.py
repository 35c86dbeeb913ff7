"""The engines the search pool drives: worker processes, or in-process engines in threads.

A `Worker` is ferz's own UCI engine in a child process (`python -m ferz uci`, with the user's
`--variants` file), spoken to over its pipes on the event loop: the web server's process then
only does sockets, rules and SQLite, and no search holds its GIL between two socket writes.
`InThread` wraps an in-process engine (the tests' stand-ins, whose timing they control) in the
same contract. Both run their callbacks on the event loop and end every search in a future:
its best move (None if there is none), or an EngineError (ferz.match's kinds: crash, stall,
protocol, start) when the process died, hung or said something wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import subprocess
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import Info
from ..match.engines import EngineError, ferz_command
from ..match.uci import read_info

log = logging.getLogger("ferz.web")

WORKER_NICE = 5  # workers run this much nicer than the server (see WorkerSpec)
START_TIMEOUT_S = 20.0  # a worker's `uci` ... `uciok`, and every `isready`
QUIT_S = 2.0  # how long a worker may take to quit before it is killed
LINE_LIMIT = 1 << 20  # longest line read from a worker (a PV of 1000 plies is ~6 KB)
STDERR_LINES = 10  # a worker's last stderr lines, logged when it fails

InfoCallback = Callable[[Info], None]


@dataclass
class WorkerSpec:
    """How workers start: the user's variants file, and how much nicer than the server.

    A worker runs `nice` steps below the server: when the CPU is contended the server's
    socket work goes first. An engine's move is bounded by wall-clock time (a fixed time or
    the clock), so a niced search reaches fewer nodes but answers as soon. A worker has its
    own session, so where Linux groups processes by session for scheduling (autogroup) its
    group's nice value is raised too: a process's own nice value only counts inside its
    group."""

    variants_file: str | None = None
    nice: int = WORKER_NICE
    start_timeout_s: float = START_TIMEOUT_S
    command: Sequence[str] | None = None  # another program speaking UCI (tests); None: ferz
    syzygy: str | None = None  # SyzygyPath of every worker (ferz web --syzygy)

    def argv(self) -> list[str]:
        """The worker's command line."""
        if self.command is not None:
            argv = list(self.command)
        else:
            argv = ferz_command("uci")
            if self.variants_file:
                path = os.path.abspath(self.variants_file)
                argv[-1:-1] = ["--variants", path]  # a global option, before the command
        nice = shutil.which("nice")
        if self.nice and nice:
            argv = [nice, "-n", str(self.nice), *argv]
        return argv


def nicer_group(pid: int, steps: int) -> None:
    """Raise the nice value of the scheduling group (Linux autogroup) of `pid`'s session by
    `steps`; nothing where there are no autogroups (or they are off)."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled", encoding="ascii") as enabled:
            if enabled.read().strip() != "1":
                return
        with open(f"/proc/{pid}/autogroup", encoding="ascii") as group:
            current = int(group.read().split("nice")[1])  # "/autogroup-42 nice 0"
        with open(f"/proc/{pid}/autogroup", "w", encoding="ascii") as group:
            group.write(str(min(19, current + steps)))
    except (OSError, ValueError, IndexError):
        pass  # not Linux, no autogroup, or not allowed: the process's own nice value stays


def go_line(limits: Any) -> str:
    """The UCI `go` command of ferz.engine.Limits (the inverse of ferz.protocol.uci.parse_go)."""
    parts = ["go"]
    for name in ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate"):
        value = getattr(limits, name, None)
        if value is not None:
            parts.append(f"{name} {int(value)}")
    if getattr(limits, "movetime", None) is not None:
        parts.append(f"movetime {int(limits.movetime)}")
    if getattr(limits, "infinite", False):
        parts.append("infinite")
    moves = list(getattr(limits, "searchmoves", ()) or ())
    if moves:
        parts.append("searchmoves " + " ".join(moves))
    return " ".join(parts)


def option_text(value: Any) -> str:
    """An option value as UCI writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Search:
    """The running search of a worker: its info callback and the future of its best move."""

    def __init__(self, on_info: InfoCallback | None) -> None:
        self.on_info = on_info
        self.done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()


class Worker:
    """ferz's UCI engine in a child process, driven over its pipes on the event loop.

    Any failure (the process exited, an `info string error`, a line that cannot be read)
    ends it: the running search's future gets the EngineError, the process is killed, and
    `alive` turns False so that the pool drops it and starts another."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.variant = ""
        self.options: set[str] = set()  # the option names the engine declared
        self.proc: asyncio.subprocess.Process | None = None
        self.error: EngineError | None = None  # why it ended
        self._sent: dict[str, str] = {}  # option values already set, to send only changes
        self._search: _Search | None = None
        self._expect: tuple[str, asyncio.Future[None]] | None = None  # a line awaited
        self._tasks: list[asyncio.Task[None]] = []
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._quitting = False

    @property
    def pid(self) -> int | None:
        """The process id (None before start)."""
        return None if self.proc is None else self.proc.pid

    @property
    def alive(self) -> bool:
        """Whether the process runs and has not failed."""
        return self.proc is not None and self.proc.returncode is None and self.error is None

    @property
    def searching(self) -> bool:
        """Whether a `go` has not had its bestmove yet."""
        return self._search is not None

    async def start(self, variant: str) -> None:
        """Launch the process, greet it (`uci` ... `uciok`) and set the variant; on failure
        the process is ended and EngineError says why."""
        argv = self.spec.argv()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                limit=LINE_LIMIT,
                # its own session: a Ctrl-C at the terminal reaches the server, which ends
                # the workers itself, instead of killing them under running searches
                start_new_session=True,
            )
        except OSError as error:
            raise EngineError("start", f"cannot run {argv[0]!r}: {error.strerror}") from None
        if self.spec.nice:
            nicer_group(self.proc.pid, self.spec.nice)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read()), loop.create_task(self._read_stderr())]
        try:
            await self._ask("uci", "uciok")
            if self.spec.syzygy and "SyzygyPath" in self.options:
                self.set_option("SyzygyPath", self.spec.syzygy)
            await self.switch(variant)
        except EngineError:
            self.kill()
            await self.close()
            raise
        except asyncio.CancelledError:
            self.kill()  # the search that wanted it was given up: no process is left behind
            raise

    async def switch(self, variant: str) -> bool:
        """Make the engine play `variant` (its hash is cleared); True: a process changes
        variant in 5-20 ms, much less than starting another (0.2 s)."""
        self._sent.pop("UCI_Variant", None)
        self.set_option("UCI_Variant", variant)
        await self._ask("isready", "readyok")
        self.variant = variant
        return True

    def set_option(self, name: str, value: Any) -> None:
        """Set an option (sent only when it changes)."""
        text = option_text(value)
        if self._sent.get(name) != text:
            self._send(f"setoption name {name} value {text}")
            self._sent[name] = text

    def new_game(self) -> None:
        """Forget the previous game (ucinewgame: hash and histories)."""
        self._send("ucinewgame")

    def set_position(self, fen: str | None = None, moves: Sequence[str] = ()) -> None:
        """The position to search next: `fen` (the variant's start if None) then `moves`."""
        text = f"position fen {fen}" if fen else "position startpos"
        self._send(text + (" moves " + " ".join(moves) if moves else ""))

    def go(self, limits: Any, on_info: InfoCallback | None = None) -> asyncio.Future[str | None]:
        """Start a search; the future gets its best move, or the EngineError that ended it.
        `on_info` hears every update with a line (on the event loop)."""
        if self._search is not None:
            raise EngineError("protocol", "a search is already running")
        search = _Search(on_info)
        self._send(go_line(limits))
        self._search = search
        return search.done

    def stop(self) -> None:
        """Ask the running search for its move now (an infinite one answers only then)."""
        if self._search is not None and self.alive:
            with contextlib.suppress(EngineError):
                self._send("stop")

    async def wait(self) -> None:
        """Until the running search has ended (with its move or an error)."""
        search = self._search
        if search is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(search.done)

    def kill(self) -> None:
        """End the process at once (a running search fails with `crash`)."""
        self._quitting = True
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()

    async def close(self) -> None:
        """Ask the process to quit (killed after QUIT_S) and wait for it."""
        self._quitting = True
        if self.proc is None:
            return
        if self.alive:
            with contextlib.suppress(EngineError):
                self._send("quit")
        try:
            await asyncio.wait_for(self.proc.wait(), QUIT_S)
        except asyncio.TimeoutError:
            self.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), QUIT_S)
        for task in self._tasks:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(task, QUIT_S)
        # asyncio's Process has no close(): its transport would be closed only when garbage
        # collected, after the loop may have ended
        transport = getattr(self.proc, "_transport", None)
        if transport is not None:
            transport.close()

    def rss_mb(self) -> float:
        """The process's resident memory in MB (Linux; 0 elsewhere or once it ended)."""
        if self.proc is None or self.proc.returncode is not None:
            return 0.0
        try:
            with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    # ------------------------------------------------------------------ the pipes

    def _send(self, text: str) -> None:
        """Write one command line; EngineError('crash') when the process is gone."""
        stdin = None if self.proc is None else self.proc.stdin
        if self.error is not None:
            raise self.error
        if (
            stdin is None
            or stdin.is_closing()
            or self.proc is None
            or self.proc.returncode is not None
        ):
            raise EngineError("crash", "the engine process has ended")
        stdin.write(text.encode() + b"\n")

    async def _ask(self, command: str, answer: str) -> None:
        """Send `command` and wait for the line `answer` (start_timeout_s; then `stall`)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._expect = (answer, future)
        self._send(command)
        try:
            await asyncio.wait_for(asyncio.shield(future), self.spec.start_timeout_s)
        except asyncio.TimeoutError:
            self._fail(EngineError("stall", f"no {answer} within {self.spec.start_timeout_s:g} s"))
            raise self.error from None  # type: ignore[misc]
        finally:
            self._expect = None

    async def _read(self) -> None:
        """Read the engine's lines until it ends; then fail whatever waited for it."""
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            while True:
                raw = await stdout.readline()
                if not raw:
                    break
                self._line(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (ValueError, OSError) as error:  # an overlong line, a broken pipe
            self._fail(EngineError("protocol", f"unreadable output: {error}"))
            return
        code = None
        with contextlib.suppress(asyncio.TimeoutError):
            code = await asyncio.wait_for(self.proc.wait(), QUIT_S)
        how = "closed its output" if code is None else f"exited with code {code}"
        self._fail(EngineError("crash", f"the engine process {how}"))

    async def _read_stderr(self) -> None:
        """Keep the last lines the engine wrote to stderr (logged when it fails)."""
        assert self.proc is not None and self.proc.stderr is not None
        with contextlib.suppress(ValueError, OSError):
            async for raw in self.proc.stderr:
                self._stderr.append(raw.decode("utf-8", "replace").rstrip())

    def _line(self, line: str) -> None:
        """One line from the engine."""
        search = self._search
        if line.startswith("info "):
            if line.startswith(("info string error", "info string internal error")):
                self._fail(EngineError("protocol", line[len("info string ") :]))
            elif search is not None and search.on_info is not None and " pv " in line:
                try:
                    info = read_info(line)
                except ValueError:
                    self._fail(EngineError("protocol", f"malformed line {line[:80]!r}"))
                    return
                search.on_info(info)
        elif line.startswith("bestmove"):
            if search is None:
                return  # a late answer to a search already given up; nothing waits for it
            self._search = None
            words = line.split()
            best = words[1] if len(words) > 1 and words[1] not in ("(none)", "0000") else None
            if not search.done.done():
                search.done.set_result(best)
        elif line.startswith("option name "):
            name = line[len("option name ") :].partition(" type ")[0]
            self.options.add(name)
        elif self._expect is not None and line.strip() == self._expect[0]:
            with contextlib.suppress(asyncio.InvalidStateError):  # answered twice
                self._expect[1].set_result(None)

    def _fail(self, error: EngineError) -> None:
        """The worker is unusable: remember why, fail its waiters, end the process."""
        if self.error is None:
            self.error = error
            if not self._quitting:
                tail = " | ".join(self._stderr)
                tail = f" (stderr: {tail})" if tail else ""
                log.warning("engine worker %s failed: %s%s", self.pid, error, tail)
        search, self._search = self._search, None
        if search is not None and not search.done.done():
            search.done.set_exception(self.error)
            search.done.exception()  # retrieved here too: a search given up may not ask
        if self._expect is not None and not self._expect[1].done():
            self._expect[1].set_exception(self.error)
            self._expect[1].exception()
        self.kill()


class InThread:
    """An in-process engine (ferz.engine.Engine's contract: go with callbacks, stop, wait),
    searching in its own thread, behind the Worker's contract. The pool uses it when given
    an engine factory (the tests' stand-ins)."""

    def __init__(self, engine: Any, variant: str) -> None:
        self.engine = engine
        self.variant = variant
        self.pid = None
        self.error: EngineError | None = None

    @property
    def options(self) -> Any:
        """The engine's options (anything that answers `in`)."""
        return self.engine.options

    @property
    def alive(self) -> bool:
        """Whether the pool may keep it (False once killed after a hang)."""
        return self.error is None

    @property
    def searching(self) -> bool:
        """Whether its search thread runs."""
        return bool(self.engine.searching)

    async def switch(self, variant: str) -> bool:
        """An in-process engine is not switched: the pool builds another (False)."""
        return False

    def set_option(self, name: str, value: Any) -> None:
        """Set an engine option."""
        self.engine.set_option(name, value)

    def new_game(self) -> None:
        """Forget the previous game."""
        self.engine.new_game()

    def set_position(self, fen: str | None = None, moves: Sequence[str] = ()) -> None:
        """The position to search next."""
        self.engine.set_position(fen=fen, moves=list(moves))

    def go(self, limits: Any, on_info: InfoCallback | None = None) -> asyncio.Future[str | None]:
        """Start the engine's search; its callbacks come back to the event loop."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[str | None] = loop.create_future()

        def finish(best: str | None) -> None:
            """On the loop: the search's move."""
            if not done.done():
                done.set_result(best)

        def report(info: Info) -> None:
            """On the loop: one update."""
            if on_info is not None and not done.done():
                on_info(info)

        self.engine.go(
            limits,
            on_info=lambda info: loop.call_soon_threadsafe(report, info),
            on_bestmove=lambda best, ponder=None: loop.call_soon_threadsafe(finish, best),
        )
        return done

    def stop(self) -> None:
        """Ask the search for its move now."""
        self.engine.stop()

    async def wait(self) -> None:
        """Until the search thread has ended."""
        await asyncio.to_thread(self.engine.wait)

    def kill(self) -> None:
        """Give the engine up (a thread cannot be killed: it is dropped)."""
        self.error = self.error or EngineError("stall", "given up")
        self.engine.stop()

    async def close(self) -> None:
        """Nothing to end: the engine is dropped with its last reference."""

    def rss_mb(self) -> float:
        """Counted in the server's own memory."""
        return 0.0
