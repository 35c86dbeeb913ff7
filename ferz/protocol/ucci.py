"""UCCI, the xiangqi engines' protocol: UCI's life cycle with xiangqi's coordinates.

UCCI numbers ranks from 0 on ten-rank boards (`h2e2`, a0-i9 on the 9x10 board; from 1 on
smaller ones, as Fairy-Stockfish does), writes options without the
`name`/`value` words (`setoption Hash 64`), gives the clocks as the side to move's `time` /
`increment` and the opponent's `opptime` / `oppincrement` (milliseconds, as Fairy-Stockfish
reads them), excludes moves with `banmoves`, answers `nobestmove` when there is no legal move
and `bye` to `quit`. Its FEN is ferz's (`r` is also read as Red to move, and the WXF letters
`h`/`e` as horse and elephant).
"""

from __future__ import annotations

import re
from typing import Any

from .uci import AUTHOR, NAME, parse_go, shorten
from .usi import Usi

UCCI_MOVE = re.compile(r"([a-p])(\d)([a-p])(\d)\Z")
FERZ_MOVE = re.compile(r"([a-p])(\d+)([a-p])(\d+)\Z")
MATE = 30000  # a mate score, less the plies to it (UCCI has no `mate` score word)


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
    """UCI score words as UCCI's: `score cp 25` -> `score 25`, mates as +-(30000 - plies)."""
    out = []
    i = 0
    while i < len(words):
        if words[i] == "score" and i + 2 < len(words) and words[i + 1] in ("cp", "mate"):
            value = int(words[i + 2])
            if words[i + 1] == "mate":
                plies = 2 * value - 1 if value > 0 else -2 * value
                value = MATE - plies if value > 0 else -(MATE - plies)
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
        """Moves in UCCI's coordinates and scores without `cp`/`mate`."""
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
        for option in self.engine.options:
            lines.append(_format_option(option))
        lines.append("ucciok")
        self.out.lines(lines)

    def cmd_usi(self, args: list[str]) -> None:
        """Not this protocol's handshake."""
        raise ValueError("this session speaks UCCI")

    def cmd_setoption(self, args: list[str]) -> None:
        """`setoption NAME VALUE` (UCCI) or `setoption name NAME value VALUE` (UCI)."""
        if args and args[0].lower() != "name":
            words = args
            name, value = words[0], " ".join(words[1:]) or None
            for cut in range(len(words), 0, -1):
                candidate = " ".join(words[:cut])
                if candidate in self.engine.options:
                    name, value = candidate, " ".join(words[cut:]) or None
                    break
            args = ["name", name] + (["value", value] if value is not None else [])
        super().cmd_setoption(args)

    def cmd_position(self, args: list[str]) -> None:
        """`position fen FEN|startpos [moves ...]`; the bans end with the position."""
        super().cmd_position(args)
        self._banned = set()

    def cmd_banmoves(self, args: list[str]) -> None:
        """Moves the next search must not play."""
        self._banned = {move_to_ferz(m, self._geometry()[1]) for m in args}

    def cmd_go(self, args: list[str]) -> None:
        """go with UCCI's clocks (own `time`/`increment`, `opptime`/`oppincrement`)."""
        tokens = [t.lower() for t in args]
        white = self.engine.board.turn
        own, opp = ("wtime", "btime") if white else ("btime", "wtime")
        names = {
            "time": own,
            "opptime": opp,
            "increment": own[0] + "inc",
            "oppincrement": opp[0] + "inc",
        }
        out = [names.get(t, t) for t in tokens if t != "draw"]
        parse_go(out)  # validate
        if self._banned:
            board = self.engine.board
            allowed = [board.uci(m) for m in board.legal_moves if board.uci(m) not in self._banned]
            if allowed:
                out += ["searchmoves", *allowed]
        super(Usi, self).cmd_go(out)

    def cmd_probe(self, args: list[str]) -> None:
        """Hash probing is not offered: an empty answer."""
        self.out.line("pophash")

    def run(self, first: tuple[str, bool] | None = None) -> int:
        """Answer commands until `quit` or end of input, then say `bye`."""
        code = super().run(first)
        self.out.line("bye")
        return code


def _format_option(option: Any) -> str:
    """An option declaration in UCCI's style (no `name` word)."""
    kind = option.kind
    line = f"option {option.name} type {kind}"
    if kind == "spin":
        return f"{line} min {option.min} max {option.max} default {option.default}"
    if kind == "check":
        return f"{line} default {'true' if option.default else 'false'}"
    if kind == "combo":
        return line + "".join(f" var {c}" for c in option.choices) + f" default {option.default}"
    if kind == "button":
        return line
    return f"{line} default {option.default or '<empty>'}"
