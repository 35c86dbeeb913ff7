"""UCCI, the xiangqi engines' protocol: UCI's life cycle with xiangqi's coordinates.

UCCI (the spec: https://www.xqbase.com/protocol/cchess_ucci.htm, version 3.0; ElephantEye is
its reference engine) numbers ranks from 0 on ten-rank boards (`h2e2`, a0-i9 on the 9x10
board; from 1 on smaller ones, as Fairy-Stockfish does), names options with one word and sets
them without the `name`/`value` words (`setoption hashsize 64`), gives the clocks as the side
to move's `time` / `increment` and the opponent's `opptime` / `oppincrement` (in seconds, in
milliseconds once the GUI set the `usemillisec` the engine offers), excludes moves with
`banmoves`, answers `nobestmove` when there is no legal move and `bye` to `quit`. Its FEN is
ferz's (`r` is also read as Red to move, and the WXF letters `h`/`e` as horse and elephant).
"""

from __future__ import annotations

import math
import queue
import re
from typing import Any

from ..score import MATE_CP
from .channel import EOF
from .uci import AUTHOR, NAME, parse_go, parse_setoption, shorten
from .usi import Usi

UCCI_MOVE = re.compile(r"([a-p])(\d)([a-p])(\d)\Z")
FERZ_MOVE = re.compile(r"([a-p])(\d+)([a-p])(\d+)\Z")

#: The spec's standard options that are ferz's options under another name (`hashsize` and
#: `threads` 0: the engine's choice, their default).
STANDARD = {"hashsize": "Hash", "threads": "Threads", "ponder": "Ponder", "usebook": "OwnBook"}
#: The spec's standard check options that are the session's own: `usemillisec` (go's times in
#: milliseconds, else seconds), `batch` (read no command while searching), `debug`.
SESSION_CHECKS = ("usemillisec", "batch", "debug")
#: go's clock words, by whose clock they give (True: the side to move's) and UCI's field.
CLOCK_WORDS = {
    "time": (True, "time"),
    "increment": (True, "inc"),
    "opptime": (False, "time"),
    "oppincrement": (False, "inc"),
}


def move_to_ferz(move: str, ranks: int = 10) -> str:
    """A UCCI move (`h2e2`) as ferz's (`h3e3`); ValueError if it is not one.

    Ranks count from 0 on ten-rank boards only (as Fairy-Stockfish and XBoard count them);
    smaller boards (minixiangqi) keep ferz's ranks from 1."""
    match = UCCI_MOVE.match(move)
    if not match:
        raise ValueError(f"not a UCCI move: {shorten(move)!r}")
    a, b, c, d = match.groups()
    shift = 1 if ranks == 10 else 0
    return f"{a}{int(b) + shift}{c}{int(d) + shift}"


def move_to_ucci(move: str, ranks: int = 10) -> str:
    """A ferz move (`h3e3`) as UCCI's (`h2e2` on ten ranks)."""
    match = FERZ_MOVE.match(move)
    if not match or ranks != 10:
        return move
    a, b, c, d = match.groups()
    return f"{a}{int(b) - 1}{c}{int(d) - 1}"


def fen_to_ferz(fen: str) -> str:
    """A UCCI FEN as ferz's: `r` (Red) to move is `w`, WXF's h/e are n/b."""
    fields = fen.split()
    if len(fields) < 2:
        raise ValueError(f"FEN needs a board and a side: {shorten(fen)!r}")
    board = fields[0].translate(str.maketrans("hHeE", "nNbB"))
    side = {"r": "w", "w": "w", "b": "b"}.get(fields[1].lower())
    if side is None:
        raise ValueError(f"FEN side must be w, r or b, got {fields[1][:10]!r}")
    rest = fields[2:] + ["-", "-", "0", "1"][len(fields) - 2 :]
    return " ".join([board, side, *rest[:4]])


def _score(words: list[str]) -> list[str]:
    """UCI score words as UCCI's: `score cp 25` -> `score 25`, mates as +-(MATE_CP - plies)
    (UCCI has no `mate` score word)."""
    out = []
    i = 0
    while i < len(words):
        if words[i] == "score" and i + 2 < len(words) and words[i + 1] in ("cp", "mate"):
            value = int(words[i + 2])
            if words[i + 1] == "mate":
                plies = 2 * value - 1 if value > 0 else -2 * value
                value = MATE_CP - plies if value > 0 else -(MATE_CP - plies)
            out += ["score", str(value)]
            i += 3
            continue
        if words[i] in ("lowerbound", "upperbound"):
            i += 1
            continue
        out.append(words[i])
        i += 1
    return out


class Ucci(Usi):
    """One UCCI conversation (xiangqi and its kin)."""

    VARIANT = "xiangqi"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Usi's arguments."""
        super().__init__(*args, **kwargs)
        self._banned: set[str] = set()
        self._millisec = False  # the spec: seconds until the GUI sets usemillisec
        self._batch = False

    def say(self, text: str) -> None:
        """Send a message for the user (UCCI's `info message`)."""
        self.out.line("info message " + " ".join(text.split()))

    def _out_move(self, move: str | None) -> str | None:
        """A ferz move as UCCI's."""
        return None if move is None else move_to_ucci(move, self._geometry()[1])

    def _move_on(self, move: str, files: int, ranks: int) -> str:
        """A UCCI move as ferz's."""
        return move_to_ferz(move, ranks)

    def _in_fen(self, text: str) -> str:
        """A UCCI FEN as ferz's."""
        return fen_to_ferz(text)

    def _out_fen(self) -> str:
        """ferz's FEN (UCCI's is the same)."""
        return self.engine.board.fen()

    def _label(self) -> str:
        """The name of the GUI's position format."""
        return "Ucci fen"

    def _rewrite_info(self, line: str) -> str:
        """Moves in UCCI's coordinates, scores without `cp`/`mate`, `info message` for text."""
        if line.startswith("info string "):
            return "info message " + line[len("info string ") :]
        return " ".join(_score(super()._rewrite_info(line).split()))

    def _no_move(self) -> str:
        """UCCI's answer when there is no legal move."""
        return "nobestmove"

    def _start(self) -> None:
        """Play xiangqi unless a xiangqi-like variant is set."""
        rules = self.engine.board.rules
        if not (rules.files == 9 and rules.ranks in (7, 10) and not rules.drops):
            self.engine.set_option("UCI_Variant", self.VARIANT)

    def cmd_ucci(self, args: list[str]) -> None:
        """Identify, declare the options (UCCI's style), and play xiangqi."""
        from .. import __version__

        self._start()
        lines = [f"id name {NAME} {__version__}", f"id author {AUTHOR}"]
        lines += [f"option {name} type check default false" for name in SESSION_CHECKS]
        names = {ferz: ucci for ucci, ferz in STANDARD.items()}
        for option in self.engine.options:
            # one word, as a UCCI GUI sends it back: the spec's name, or ferz's without spaces
            lines.append(_format_option(option, names.get(option.name, _one_word(option.name))))
        lines += ["option newgame type button", "ucciok"]
        self.out.lines(lines)

    def cmd_usi(self, args: list[str]) -> None:
        """Not this protocol's handshake."""
        raise ValueError("this session speaks UCCI")

    def cmd_setoption(self, args: list[str]) -> None:
        """`setoption NAME [VALUE]` (UCCI) or `setoption name NAME value VALUE` (UCI).

        NAME is one of the spec's standard options (usemillisec, batch, debug, hashsize, threads,
        ponder, usebook, newgame) or one of ferz's with `_` for its spaces (`Move_Overhead`;
        `Move Overhead` too). As the spec asks, an option the engine does not have is no error:
        GUIs send their own set without reading the engine's.
        """
        if args and args[0].lower() == "name":
            name, value = parse_setoption(args)
            if name.lower() not in (*SESSION_CHECKS, *STANDARD, "newgame"):
                super().cmd_setoption(args)
                return
            words = [name] + ([value] if value is not None else [])
        else:
            words = args
        if not words:
            raise ValueError("setoption needs an option name")
        key, value = words[0].lower(), " ".join(words[1:]) or None
        if key in SESSION_CHECKS:
            state = _check(key, value)
            if key == "usemillisec":
                self._millisec = state
            elif key == "batch":
                self._batch = state
            else:
                self.debug = state
            return
        if key == "newgame":  # a new game or position: forget the hash and the histories
            self.cmd_ucinewgame([])
            return
        found = self._ferz_option(words)
        if found is None:
            if self.debug:
                self.say(f"option {shorten(words[0])} ignored (ferz has no such option)")
            return
        name, value = found
        if key in ("hashsize", "threads") and value is not None and value.strip() == "0":
            value = str(self.engine.options[name].default)
        super().cmd_setoption(["name", name] + (["value", value] if value is not None else []))

    def _ferz_option(self, words: list[str]) -> tuple[str, str | None] | None:
        """The ferz option that `setoption` words name, and the value after it; None if none."""
        standard = STANDARD.get(words[0].lower())
        if standard is not None:
            return standard, " ".join(words[1:]) or None
        options = self.engine.options
        for cut in range(len(words), 0, -1):  # the longest name first (`Clear Hash`)
            candidate = " ".join(words[:cut])
            for name in (candidate, candidate.replace("_", " ")):
                if name in options:
                    return options[name].name, " ".join(words[cut:]) or None
        return None

    def cmd_position(self, args: list[str]) -> None:
        """`position fen FEN|startpos [moves ...]`; the bans end with the position."""
        super().cmd_position(args)
        self._banned = set()

    def cmd_banmoves(self, args: list[str]) -> None:
        """Moves the next search must not play."""
        self._banned = {move_to_ferz(m, self._geometry()[1]) for m in args}

    def cmd_go(self, args: list[str]) -> None:
        """go with UCCI's clocks: the side to move's `time`/`increment`/`movestogo`, the
        opponent's `opptime`/`oppincrement` (`oppmovestogo` is read and not used), in seconds
        unless `usemillisec` is on; `draw` (a draw offer) is ignored."""
        tokens = [t.lower() for t in args]
        white = self.engine.board.turn
        out: list[str] = []
        i = 0
        while i < len(tokens):
            word = tokens[i]
            if word == "draw":
                i += 1
            elif word in CLOCK_WORDS or word == "oppmovestogo":
                if i + 1 >= len(tokens):
                    raise ValueError(f"go {word} needs a value")
                if word in CLOCK_WORDS:
                    own, field = CLOCK_WORDS[word]
                    out += [("w" if own == white else "b") + field, self._ms(word, tokens[i + 1])]
                i += 2
            else:
                out.append(word)
                i += 1
        parse_go(out)  # validate
        if self._banned:
            board = self.engine.board
            allowed = [board.uci(m) for m in board.legal_moves if board.uci(m) not in self._banned]
            if allowed:
                out += ["searchmoves", *allowed]
        super(Usi, self).cmd_go(out)
        if self._batch:
            self._finish_search()

    def _ms(self, word: str, value: str) -> str:
        """A go time as UCI's milliseconds: as it is with usemillisec, else seconds * 1000."""
        if self._millisec:
            return value
        try:
            seconds = float(value)
        except ValueError:
            seconds = math.nan
        if not math.isfinite(seconds):
            raise ValueError(f"go {word} needs a number of seconds, got {shorten(value, 20)!r}")
        return str(round(seconds * 1000))

    def _finish_search(self) -> None:
        """Batch mode: no command is read until the search ends by itself and its bestmove is
        out; what arrives meanwhile runs after it, in order."""
        while self._thinking.is_set():
            try:
                item = self.reader.get(timeout=0.01)
            except queue.Empty:
                continue
            line = self._receive(item)
            if line is None:
                continue
            if self._hold and (item is EOF or line.split()[:1] == ["quit"]):
                # a search without a limit ends only by stop, which batch mode does not read:
                # after a quit nothing ever could
                self.cmd_stop([])
            self._deferred.append(line)
        if self._engine is not None:
            self._engine.wait()

    def cmd_probe(self, args: list[str]) -> None:
        """Hash probing is not offered: an empty answer."""
        self.out.line("pophash")

    def run(self, first: tuple[str, bool] | None = None) -> int:
        """Answer commands until `quit` or end of input, then say `bye`."""
        code = super().run(first)
        self.out.line("bye")
        return code


def _one_word(name: str) -> str:
    """An option name as one word (`Move Overhead` -> `Move_Overhead`, as Fairy-Stockfish)."""
    return "_".join(name.split())


def _check(name: str, value: str | None) -> bool:
    """The value of a check option (`true`/`on`, `false`/`off`); ValueError otherwise."""
    text = (value or "").strip().lower()
    if text in ("true", "on", "1", "yes"):
        return True
    if text in ("false", "off", "0", "no"):
        return False
    raise ValueError(f"option {name}: expected true or false, got {shorten(text, 20)!r}")


def _format_option(option: Any, name: str) -> str:
    """An option declaration in UCCI's style (no `name` word), under the given name."""
    kind = option.kind
    line = f"option {name} type {kind}"
    if kind == "spin":
        return f"{line} min {option.min} max {option.max} default {option.default}"
    if kind == "check":
        return f"{line} default {'true' if option.default else 'false'}"
    if kind == "combo":
        return line + "".join(f" var {c}" for c in option.choices) + f" default {option.default}"
    if kind == "button":
        return line
    return f"{line} default {option.default or '<empty>'}"
