"""What the UCI and xboard conversations share: the lazy engine, the command loop, dispatch."""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Collection
from typing import Any

from .channel import EOF, Reader, Writer

#: A command handler: takes the words after the command word.
Command = Callable[[list[str]], None]


class Session:
    """One conversation: reads command lines from a Reader, drives an Engine, writes to a Writer.

    Subclasses give the protocol's own messages (`_too_long`, `_unknown`, `_failed`) and
    commands as `cmd_<word>` methods.
    """

    #: Command words that are not identifiers, by the `cmd_` name that handles them.
    ALIASES: dict[str, str] = {}

    def __init__(
        self,
        out: Writer,
        reader: Reader,
        make_engine: Callable[[], Any] | None = None,
        make_limits: Callable[..., Any] | None = None,
    ) -> None:
        self.out = out
        self.reader = reader
        self._make_engine = make_engine  # tests pass a stand-in engine and its Limits
        self._make_limits = make_limits
        self._engine: Any = None
        self._quit = False
        self._deferred: deque[str] = deque()  # commands kept for after the running search
        self._lock = threading.Lock()  # guards the subclass's search state

    # -------------------------------------------------------------- engine

    def limits(self, **fields: Any) -> Any:
        """An engine Limits object."""
        if self._make_limits is None:
            from ..engine import Limits

            self._make_limits = Limits
        return self._make_limits(**fields)

    @property
    def engine(self) -> Any:
        """The engine, created on first use so that the handshake comes before heavy imports."""
        if self._engine is None:
            if self._make_engine is None:
                from ..engine import Engine

                self._engine = Engine()
            else:
                self._engine = self._make_engine()
        return self._engine

    # -------------------------------------------------------------- protocol messages

    def _too_long(self, line: str) -> None:
        """Report an input line that was cut because it was too long (it is ignored)."""
        raise NotImplementedError

    def _unknown(self, line: str) -> None:
        """Report a line that names no command."""
        raise NotImplementedError

    def _failed(self, word: str, line: str, error: Exception) -> None:
        """Report a command `word` (the whole `line`) that failed: ValueError for bad input,
        anything else for a bug."""
        raise NotImplementedError

    # -------------------------------------------------------------- loop

    def _receive(self, item: tuple[str, bool] | None) -> str | None:
        """The command line in a reader item (`quit` at end of input); None to skip it."""
        if item is EOF:
            return "quit"
        line, too_long = item
        if too_long:
            self._too_long(line)
            return None
        return line

    def _serve(self) -> None:
        """Answer commands, kept ones first, until `quit` or end of input."""
        while not self._quit:
            if self._deferred:
                line: str | None = self._deferred.popleft()
            else:
                line = self._receive(self.reader.get())
            if line is not None:
                self.handle(line)

    def _wait(
        self, busy: Callable[[], bool], urgent: Collection[str], always: Collection[str]
    ) -> None:
        """While busy(), answer `always` commands and, until one is kept, `urgent` ones.

        Other commands are kept for later, in order: once one is kept, urgent ones after it
        belong to a later search and wait too, and so does the `quit` that end of input means.
        """
        while busy() and not self._quit:
            try:
                item = self.reader.get(timeout=0.01)
            except queue.Empty:
                continue
            line = self._receive(item)
            if line is None:
                continue
            if item is EOF and self._deferred:
                # End of input is a `quit` after everything already read: the kept commands
                # still run (as a GUI that closed its pipe after them meant), then it quits.
                self._deferred.append(line)
                continue
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] in always or (tokens[0] in urgent and not self._deferred):
                self.handle(line)
            else:
                self._deferred.append(line)

    def _command(self, tokens: list[str]) -> tuple[Command, list[str]] | None:
        """The handler of a command line's words and its arguments, or None if there is none."""
        word = tokens[0]
        name = self.ALIASES.get(word, word)
        method = getattr(self, "cmd_" + name, None) if name.isidentifier() else None
        return None if method is None else (method, tokens[1:])

    def handle(self, line: str) -> None:
        """Execute one command line; errors become the protocol's error messages."""
        tokens = line.split()
        if not tokens or tokens[0].startswith("#"):
            return
        found = self._command(tokens)
        if found is None:
            self._unknown(line)
            return
        method, args = found
        word = tokens[0]
        try:
            method(args)
        except Exception as error:  # never let a bug in one command kill the engine
            self._failed(word, line, error)
