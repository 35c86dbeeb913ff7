"""USI and UCCI engines on the UCI driver: the same life cycle, with the shogi and xiangqi
protocols' handshakes, clocks, positions (SFEN, UCCI's FEN) and move notations translated
to and from ferz's."""

from __future__ import annotations

from ..protocol import ucci, usi
from .engines import EngineError, EngineSpec, MoveLimits, Reply
from .uci import UciDriver, nodes_and_depth, parse_info

#: The variant each protocol plays when none is set.
DEFAULT_VARIANT = {"usi": "shogi", "ucci": "xiangqi"}


class UsiDriver(UciDriver):
    """A USI engine (shogi and its kin)."""

    protocol = "usi"
    newgame = "usinewgame"
    ends = ("bestmove", "nobestmove")

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.files, self.ranks = 9, 9
        self.start_fen = ""

    def handshake(self, variant: str) -> None:
        """usi|ucci / usiok|ucciok, the options, the variant if not the protocol's own."""
        from ..board import Board

        start = Board(variant=variant)
        self.files, self.ranks, self.start_fen = start.files, start.ranks, start.fen()
        self.hello()
        wanted = self.spec.variant_name or variant
        if wanted != DEFAULT_VARIANT[self.protocol]:
            if "uci_variant" not in self.option_names:
                raise EngineError("protocol", f"cannot play {variant} (no UCI_Variant option)")
            self.send(self._setoption("UCI_Variant", wanted))
        self.configure()
        self.isready(self.spec.start_timeout)

    def configure(self) -> None:
        """Protocol settings after the options, before isready (none for USI)."""

    def _out(self, move: str) -> str:
        """A ferz move in the engine's notation."""
        return usi.move_to_usi(move, self.files, self.ranks)

    def _in(self, move: str) -> str:
        """An engine's move as ferz's."""
        return usi.move_to_ferz(move, self.files, self.ranks)

    def _fen(self, fen: str) -> str:
        """A position other than the start in the position command."""
        return f"sfen {usi.fen_to_sfen(fen)}"

    def _position(self, fen: str, moves: list[str]) -> str:
        """position startpos|sfen ... moves ..."""
        head = "startpos" if fen == self.start_fen else self._fen(fen)
        text = f"position {head}"
        return text + (" moves " + " ".join(self._out(m) for m in moves) if moves else "")

    def _go(self, limits: MoveLimits, white: bool) -> str:
        """go with sente's clock as btime."""
        parts = ["go"]
        if limits.wtime is not None and limits.btime is not None:
            parts += [f"btime {max(1, limits.wtime)}", f"wtime {max(1, limits.btime)}"]
            parts += [f"binc {limits.winc}", f"winc {limits.binc}"]
        if limits.movetime is not None:
            parts += ["btime 0 wtime 0", f"byoyomi {limits.movetime}"]
        return " ".join(parts + nodes_and_depth(limits))

    def _info(self, words: list[str], reply: Reply) -> None:
        """An info line as UCI's into the reply, its pv in ferz's notation."""
        parse_info(self._info_words(words), reply, self._pv_move)

    def _best(self, words: list[str], line: str) -> str:
        """The best move as ferz's; EngineError for nobestmove, resign, win or a non-move."""
        if len(words) < 2 or words[0] == "nobestmove" or words[1] in ("resign", "win"):
            raise EngineError("protocol", f"no move: {line!r}")
        try:
            return self._in(words[1])
        except ValueError as error:
            raise EngineError("protocol", str(error)) from None

    def _pv_move(self, move: str) -> str:
        """A pv move as ferz's (kept as it is if it is not in the notation)."""
        try:
            return self._in(move)
        except ValueError:
            return move

    def _info_words(self, words: list[str]) -> list[str]:
        """An info line as UCI's."""
        return words


class UcciDriver(UsiDriver):
    """A UCCI engine (xiangqi and its kin)."""

    protocol = "ucci"
    newgame = None  # UCCI has no new-game command

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.millis = False  # go's times in milliseconds (the engine took usemillisec)

    def configure(self) -> None:
        """UCCI's go times are seconds unless the engine offers usemillisec and the GUI sets
        it: set it where offered, so that clocks keep their milliseconds."""
        self.millis = "usemillisec" in self.option_names
        if self.millis:
            self.send(self._setoption("usemillisec", "true"))

    def _setoption(self, name: str, value: str) -> str:
        """UCCI's setoption line."""
        return f"setoption {name} {value}"

    def _out(self, move: str) -> str:
        """A ferz move in UCCI's notation."""
        return ucci.move_to_ucci(move, self.ranks)

    def _in(self, move: str) -> str:
        """A UCCI move as ferz's."""
        return ucci.move_to_ferz(move, self.ranks)

    def _fen(self, fen: str) -> str:
        """A position other than the start: `fen` and its FEN as ferz writes it."""
        return f"fen {fen}"

    def _go(self, limits: MoveLimits, white: bool) -> str:
        """go with the side to move's clock as time and the other as opptime, in milliseconds
        after usemillisec, else in whole seconds (at least 1 on a running clock)."""
        parts = ["go"]
        if limits.wtime is not None and limits.btime is not None:
            own, opp = (limits.wtime, limits.btime) if white else (limits.btime, limits.wtime)
            inc, opp_inc = (limits.winc, limits.binc) if white else (limits.binc, limits.winc)
            unit = 1 if self.millis else 1000
            parts += [f"time {max(1, own // unit)}", f"increment {inc // unit}"]
            parts += [f"opptime {max(1, opp // unit)}", f"oppincrement {opp_inc // unit}"]
        if limits.movetime is not None:
            parts.append(f"movetime {limits.movetime}")
        return " ".join(parts + nodes_and_depth(limits))

    def _info_words(self, words: list[str]) -> list[str]:
        """UCCI's `score N` as UCI's `score cp N`."""
        out = []
        for i, word in enumerate(words):
            out.append(word)
            if word == "score" and i + 1 < len(words) and words[i + 1] not in ("cp", "mate"):
                out.append("cp")
        return out
