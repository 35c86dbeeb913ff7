"""USI, the shogi engines' protocol: UCI's life cycle with shogi's own coordinates and SFEN.

USI numbers files from the right (9 to 1 on a 9x9 board) and ranks from the top with letters
(`7g7f`; drops `P*5e`; promotion `+`); "black" (sente) moves first, so it is ferz's White, and
`btime`/`binc` are the first player's clock. SFEN is FEN's board with the hand after the side
(`S2Pb3p`, `-` when empty) and the ply number last. Only the translation lives here; the
search and its messages are the UCI session's.
"""

from __future__ import annotations

import re
from typing import Any

from .uci import Uci, format_info, parse_go, shorten

USI_MOVE = re.compile(r"([1-9])([a-i])([1-9])([a-i])(\+?)\Z")
USI_DROP = re.compile(r"([A-Z])\*([1-9])([a-i])\Z")
FERZ_MOVE = re.compile(r"([a-p])(\d+)([a-p])(\d+)(\+?)\Z")
FERZ_DROP = re.compile(r"([A-Za-z])@([a-p])(\d+)\Z")
HAND_ORDER = "RBGSNLP"
#: USI's option names for the ones ferz calls otherwise.
OPTION_ALIASES = {"usi_hash": "Hash", "usi_ponder": "Ponder", "usi_variant": "UCI_Variant"}


def square_to_ferz(file: str, rank: str, files: int, ranks: int) -> str:
    """A USI square (`7g`) as ferz's (`c3`)."""
    f, r = files - int(file), ranks - (ord(rank) - ord("a")) - 1
    if not (0 <= f < files and 0 <= r < ranks):
        raise ValueError(f"square {file}{rank} is off the {files}x{ranks} board")
    return f"{chr(97 + f)}{r + 1}"


def square_to_usi(square: str, files: int, ranks: int) -> str:
    """A ferz square (`c3`) as USI's (`7g`)."""
    f, r = ord(square[0]) - 97, int(square[1:]) - 1
    return f"{files - f}{chr(97 + ranks - 1 - r)}"


def move_to_ferz(move: str, files: int, ranks: int) -> str:
    """A USI move as ferz's UCI text; ValueError if it is not USI."""
    match = USI_MOVE.match(move)
    if match:
        a, b, c, d, plus = match.groups()
        frm, to = square_to_ferz(a, b, files, ranks), square_to_ferz(c, d, files, ranks)
        return frm + to + plus
    match = USI_DROP.match(move)
    if match:
        return f"{match.group(1)}@{square_to_ferz(match.group(2), match.group(3), files, ranks)}"
    raise ValueError(f"not a USI move: {shorten(move)!r}")


def move_to_usi(move: str, files: int, ranks: int) -> str:
    """A ferz move (UCI text) as USI's."""
    match = FERZ_DROP.match(move)
    if match:
        square = square_to_usi(match.group(2) + match.group(3), files, ranks)
        return f"{match.group(1).upper()}*{square}"
    match = FERZ_MOVE.match(move)
    if not match:
        return move
    a, b, c, d, plus = match.groups()
    return square_to_usi(a + b, files, ranks) + square_to_usi(c + d, files, ranks) + plus


def sfen_to_fen(sfen: str) -> str:
    """An SFEN (board side hand [ply]) as ferz's FEN with a pocket; ValueError if malformed."""
    fields = sfen.split()
    if len(fields) not in (3, 4):
        raise ValueError(f"SFEN needs board, side, hand and ply: {shorten(sfen)!r}")
    board, side, hand = fields[:3]
    if side not in ("b", "w"):
        raise ValueError(f"SFEN side must be b or w, got {side[:10]!r}")
    ply = int(fields[3]) if len(fields) == 4 and fields[3].isdigit() else 1
    pocket = ""
    if hand != "-":
        if "".join(re.findall(r"\d*[A-Za-z]", hand)) != hand:
            raise ValueError(f"bad SFEN hand {hand[:40]!r}")
        for count, letter in re.findall(r"(\d*)([A-Za-z])", hand):
            if len(count) > 3:  # the FEN parser refuses big counts; spell none of millions out
                raise ValueError(f"SFEN hand count {count[:20]} is too big")
            pocket += letter * (int(count) if count else 1)
    color = "w" if side == "b" else "b"
    return f"{board}[{pocket}] {color} - - 0 {max(1, (ply + 1) // 2)}"


def fen_to_sfen(fen: str) -> str:
    """ferz's FEN of a shogi-like position as SFEN (hand in USI's order, sente's first)."""
    fields = fen.split()
    board, _, pocket = fields[0].partition("[")
    pocket = pocket.rstrip("]")
    hand = ""
    for upper in (True, False):
        for letter in HAND_ORDER + "".join(sorted(set(pocket.upper()) - set(HAND_ORDER))):
            wanted = letter if upper else letter.lower()
            count = pocket.count(wanted)
            if count:
                hand += (str(count) if count > 1 else "") + wanted
    side = "b" if fields[1] == "w" else "w"
    full = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    ply = 2 * (full - 1) + (1 if side == "b" else 2)
    return f"{board} {side} {hand or '-'} {ply}"


class Usi(Uci):
    """One USI conversation (shogi and its kin)."""

    VARIANT = "shogi"

    # -------------------------------------------------------------- translation

    def _geometry(self) -> tuple[int, int]:
        """The board's files and ranks."""
        board = self.engine.board
        return board.files, board.ranks

    def _out_move(self, move: str | None) -> str | None:
        """A ferz move as the GUI writes it."""
        return None if move is None else move_to_usi(move, *self._geometry())

    def _in_move(self, move: str) -> str:
        """A GUI move as ferz's UCI text."""
        return move_to_ferz(move, *self._geometry())

    def _in_fen(self, text: str) -> str:
        """A GUI position string as ferz's FEN."""
        return sfen_to_fen(text)

    def _out_fen(self) -> str:
        """The current position as the GUI writes it."""
        return fen_to_sfen(self.engine.board.fen())

    def _rewrite_info(self, line: str) -> str:
        """An info line with its moves in the GUI's notation."""
        words = line.split()
        out = []
        in_pv = False
        for i, word in enumerate(words):
            if in_pv or (i > 0 and words[i - 1] == "currmove"):
                word = self._out_move(word) or word
            if word == "pv":
                in_pv = True
            out.append(word)
        return " ".join(out)

    # -------------------------------------------------------------- callbacks

    def _on_info(self, info: Any) -> None:
        """Print one search update in the GUI's notation."""
        line = format_info(info)
        if line:
            if " score " in line:
                self._scored = True
            self.out.line(self._rewrite_info(line))

    def _send_bestmove(self, best: str | None, ponder: str | None) -> None:
        """The bestmove in the GUI's notation (`resign` when there is no legal move)."""
        if not self._thinking.is_set():
            return
        lines = []
        if not best and not self._scored:
            value = self.engine.board.outcome_value()  # decided by any rule: mate 0 (as FSF)
            lines.append(f"info depth 0 score {'mate 0' if value else 'cp 0'}")
        if best:
            text = f"bestmove {self._out_move(best)}"
            if ponder:
                text += f" ponder {self._out_move(ponder)}"
        else:
            text = self._no_move()
        lines.append(text)
        self._held = None
        self._thinking.clear()
        self.out.lines(lines)

    def _no_move(self) -> str:
        """What the GUI hears when there is no legal move."""
        return "bestmove resign"

    # -------------------------------------------------------------- commands

    def _start(self) -> None:
        """Switch to the protocol's default variant unless a variant of its kind is set."""
        rules = self.engine.board.rules
        if not (rules.drops and any(p.promoted for p in rules.pieces)):
            self.engine.set_option("UCI_Variant", self.VARIANT)

    def cmd_usi(self, args: list[str]) -> None:
        """Identify, declare the options, and play shogi."""
        from .. import __version__
        from .uci import AUTHOR, NAME, format_option

        self._start()
        lines = [f"id name {NAME} {__version__}", f"id author {AUTHOR}"]
        lines += [format_option(o) for o in self.engine.options]
        lines.append("usiok")
        self.out.lines(lines)

    def cmd_usinewgame(self, args: list[str]) -> None:
        """A new game: forget hash and histories."""
        self.cmd_ucinewgame(args)

    def cmd_setoption(self, args: list[str]) -> None:
        """setoption with USI's names (USI_Hash, USI_Ponder) as well as ferz's."""
        if len(args) >= 2 and args[1].lower() in OPTION_ALIASES:
            args = [args[0], OPTION_ALIASES[args[1].lower()], *args[2:]]
        super().cmd_setoption(args)

    def cmd_position(self, args: list[str]) -> None:
        """`position startpos|sfen SFEN [moves ...]`; on error the previous position stays."""
        if not args:
            raise ValueError("position needs startpos or sfen")
        lowered = [t.lower() for t in args]
        cut = lowered.index("moves") if "moves" in lowered else len(args)
        head = lowered[0]
        if head == "startpos" and cut == 1:
            fen = None
        elif head in ("sfen", "fen") and cut >= 2:
            fen = self._in_fen(" ".join(args[1:cut]))
        else:
            raise ValueError(f"position needs startpos or sfen, got {shorten(' '.join(args))!r}")
        self.await_idle()
        if fen is not None:
            self._check_fen(fen)
        files, ranks = self._geometry() if fen is None else self._fen_geometry(fen)
        moves = [self._move_on(m, files, ranks) for m in args[cut + 1 :]]
        self.engine.set_position(fen=fen, moves=moves)

    def _check_fen(self, fen: str) -> None:
        """Refuse a position for another board size before touching the engine."""
        files, ranks = self._fen_geometry(fen)
        if (files, ranks) != self._geometry():
            raise ValueError(f"position is {files}x{ranks}, the variant {self._geometry()}")

    def _fen_geometry(self, fen: str) -> tuple[int, int]:
        """The board size a FEN describes."""
        rows = fen.split()[0].split("[")[0].split("/")
        width = 0
        for cell in re.findall(r"\d+|\+?[A-Za-z]~?", rows[0]):
            width += int(cell) if cell.isdigit() else 1
        return width, len(rows)

    def _move_on(self, move: str, files: int, ranks: int) -> str:
        """A GUI move in the position's geometry."""
        return move_to_ferz(move, files, ranks)

    def cmd_go(self, args: list[str]) -> None:
        """go with USI's clocks (btime is the first player's), byoyomi, and `mate` (tsume)."""
        tokens = [t.lower() for t in args]
        if tokens and tokens[0] == "mate":
            self.out.line("checkmate notimplemented")
            return
        swap = {"btime": "wtime", "wtime": "btime", "binc": "winc", "winc": "binc"}
        out: list[str] = []
        byoyomi = 0
        i = 0
        while i < len(tokens):
            word = tokens[i]
            if word == "byoyomi":
                if i + 1 >= len(tokens) or not tokens[i + 1].lstrip("-").isdigit():
                    raise ValueError("go byoyomi needs an integer")
                byoyomi = max(0, int(tokens[i + 1]))
                i += 2
                continue
            out.append(swap.get(word, word))
            i += 1
        fields = parse_go(out)  # validates the rest the UCI way
        own = "wtime" if self.engine.board.turn else "btime"  # the side to move's clock
        if byoyomi and "movetime" not in fields and fields.get(own, 0) <= 0:
            # No main time left (`btime 0 wtime 0 byoyomi 1000`, the usual byoyomi game, or
            # byoyomi alone): the byoyomi is this move's time, all of it, less the Move
            # Overhead (it flags the engine: not UCI's exact movetime). As a 1 s clock with a
            # 1 s increment it was spent like a clock running out: about a tenth.
            out += ["movetime", str(max(1, byoyomi - self._overhead()))]
        elif byoyomi:
            for clock, inc in (("wtime", "winc"), ("btime", "binc")):
                if clock in fields:
                    out += [clock, str(fields[clock] + byoyomi)]
                    if inc not in fields:
                        out += [inc, str(byoyomi)]
        super().cmd_go(out)

    def _overhead(self) -> int:
        """The Move Overhead option in ms (0 for an engine without one)."""
        try:
            return int(self.engine.options.get("Move Overhead"))
        except KeyError:
            return 0

    def cmd_gameover(self, args: list[str]) -> None:
        """The game ended (win, lose or draw): stop thinking."""
        self.cmd_stop([])

    def cmd_d(self, args: list[str]) -> None:
        """The board, ferz's FEN and the GUI's position string."""
        super().cmd_d(args)
        self.out.line(f"{self._label()}: {self._out_fen()}")

    def _label(self) -> str:
        """The name of the GUI's position format."""
        return "Sfen"
