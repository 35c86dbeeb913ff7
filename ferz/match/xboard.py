"""The xboard/CECP v2 protocol on the line-driven engine driver: features, variant, force
mode, level/time/otim, thinking output, resignations and result claims."""

from __future__ import annotations

import contextlib
import re
import time

from .engines import Driver, EngineError, EngineSpec, MoveLimits, Reply, allotted

SQUARE = re.compile(r"([a-p])(\d+)")
FEATURE = re.compile(r'(\w+)=("[^"]*"|\S+)')
#: xboard thinking output: ply score time(cs) nodes pv
THINKING = re.compile(r"^\s*(\d+)[.&]?\s+(-?\d+)\s+(\d+)\s+(\d+)\s*(.*)$")
CLAIM = re.compile(r"^(1-0|0-1|1/2-1/2)(\s|$)")
#: xboard's names of ferz variants that differ from ferz's
XBOARD_NAMES = {"chess": ["normal"], "chess960": ["fischerandom"], "losalamos": ["los-alamos"]}


def shift_ranks(move: str, delta: int) -> str:
    """A move with every rank number moved by `delta` (xboard counts ranks from 0 on boards of
    ten ranks)."""
    if not delta:
        return move
    return SQUARE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + delta}", move)


class XboardDriver(Driver):
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
            if line.startswith("tellusererror"):
                # an engine that cannot start tells the user why (ferz: a bad FERZ_PARAMS)
                raise EngineError("start", f"cannot start: {line[len('tellusererror') :].strip()}")
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

    def _limits(self, limits: MoveLimits, white: bool) -> None:
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

    def play(self, limits: MoveLimits, grace: float, white: bool) -> Reply:
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

    def played(self, move: str) -> None:
        """Nothing to send: the engine made its own move on its board already."""

    def game_over(self, result: str, reason: str) -> None:
        """result RESULT {reason}."""
        with contextlib.suppress(EngineError):
            self.send(f"result {result} {{{reason}}}")
