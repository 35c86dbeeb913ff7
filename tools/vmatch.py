#!/usr/bin/env python3
# ferz - a chess and chess-variant engine
# Copyright (C) 2026 the ferz authors
#
# This program is free software: you can redistribute it and/or modify it under the terms of
# the GNU General Public License as published by the Free Software Foundation, either version 3
# of the License, or (at your option) any later version.
#
# This program is distributed in the hope that it will be useful, but WITHOUT ANY WARRANTY;
# without even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.
# See the GNU General Public License for more details.
#
# You should have received a copy of the GNU General Public License along with this program.
# If not, see <https://www.gnu.org/licenses/>.
"""Variant engine-vs-engine matches over UCI and xboard/CECP, refereed by pyffish.

Plays --games N games of --variant V between engine A and engine B. Every move is checked
against pyffish (Fairy-Stockfish's rules); pyffish also ends the game (mate, stalemate as the
variant scores it, repetition, move-count and counting rules, variant ends). Opening k is a
seeded random sequence of --opening-plies legal plies from the start position (or line k of
--openings FILE, FENs), played twice with colours reversed; engine A has White in odd games.

Clocks are kept here (--tc BASE+INC seconds, or --movetime MS). An engine more than
--timemargin ms over its time loses on time; one that does not answer within its time plus
--hang-grace seconds is killed and loses; an illegal move, a crash, a rejected legal move or
a false result claim also loses. Such failures are logged as WARNINGs, listed in the summary,
and the engine is restarted for the next game. --stop-on-failure A stops the match at A's
first failure.

Moves are kept in pyffish's UCI notation. xboard engines number the ranks of boards with 10
ranks from 0 (xiangqi a0..i9), so their moves are shifted by one rank both ways; a promotion
whose piece letter differs (or is missing) is accepted when exactly one legal promotion joins
the same two squares.

Example (from the repository root):
  python3 tools/vmatch.py --variant shatranj --games 100 --tc 10+0.1 \\
      --engine-a "python3 -m ferz xboard" --proto-a xboard --name-a ferz \\
      --engine-b /usr/games/fairymax --proto-b xboard --name-b fairymax \\
      --pgn shatranj.pgn --log shatranj.log
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime
import logging
import math
import queue
import random
import re
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

try:
    import pyffish
except ImportError:  # reported by main() with a clear message
    pyffish = None

log = logging.getLogger("vmatch")

MATE_CP = 100000  # a mate score in centipawns, for resign adjudication
#: xboard names of variants whose pyffish name the engine may not list
XBOARD_ALIASES: dict[str, list[str]] = {
    "chess": ["normal"],
    "losalamos": ["los-alamos", "losalamos"],
    "fischerandom": ["fischerandom", "chess960"],
}
MOVE_RE = re.compile(r"^([a-z]\d+|[A-Za-z*]@)([a-z]\d+)(.*)$")
SQUARE_RE = re.compile(r"([a-z])(\d+)")
FEATURE_RE = re.compile(r'(\w+)=("[^"]*"|\S+)')
# xboard thinking output: ply score time nodes pv
THINK_RE = re.compile(r"^\s*(\d+)[.&]?\s+(-?\d+)\s+(\d+)\s+(\d+)")
CLAIM_RE = re.compile(r"^(1-0|0-1|1/2-1/2)(\s|$)")


class EngineFailure(Exception):
    """An engine broke a rule or the protocol; kind is crash/hang/illegal/protocol/claim."""

    def __init__(self, kind: str, msg: str) -> None:
        super().__init__(msg)
        self.kind = kind


# ---------------------------------------------------------------------------------------------
# statistics


def elo_from_score(s: float) -> float:
    """Logistic Elo difference for an expected score s."""
    if s <= 0.0:
        return -math.inf
    if s >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_stats(w: int, d: int, losses: int) -> tuple[float, float, float, float]:
    """(Elo, 95% error bar, score, LOS) from W/D/L, trinomial normal approximation."""
    n = w + d + losses
    if n == 0:
        return 0.0, math.inf, 0.5, 0.5
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + losses * s**2) / n
    half = 1.959964 * math.sqrt(var / n)
    lo, hi = s - half, s + half
    err = (elo_from_score(hi) - elo_from_score(lo)) / 2 if lo > 0 and hi < 1 else math.inf
    decisive = w + losses
    los = 0.5 * (1 + math.erf((w - losses) / math.sqrt(2 * decisive))) if decisive else 0.5
    return elo_from_score(s), err, s, los


# ---------------------------------------------------------------------------------------------
# notation


def shift_ranks(move: str, delta: int) -> str:
    """The move with every square's rank number changed by delta."""
    if not delta:
        return move
    return SQUARE_RE.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + delta}", move)


def board_ranks(fen: str) -> int:
    """Number of ranks of the board of a FEN."""
    return fen.split()[0].split("[")[0].count("/") + 1


def match_legal(move: str, legal: list[str]) -> str | None:
    """The legal move the engine meant, or None: exact, or the only promotion on its squares."""
    if move in legal:
        return move
    m = MOVE_RE.match(move)
    if not m:
        return None
    stem = m.group(1) + m.group(2)
    same = [x for x in legal if (mm := MOVE_RE.match(x)) and mm.group(1) + mm.group(2) == stem]
    # engines spell promotion pieces their own way (fairymax: q for the met); accept the
    # spelling only when it cannot stand for another legal move
    if len(same) == 1 and same[0] != stem:
        return same[0]
    return None


# ---------------------------------------------------------------------------------------------
# engines


@dataclass
class EngineSpec:
    """How to start one engine."""

    key: str
    cmd: str
    proto: str
    name: str
    options: list[tuple[str, str]]
    variant_name: str | None
    stderr: bool
    feature_timeout: float = 10.0


@dataclass
class TimeControl:
    """--tc BASE+INC (seconds) or --movetime MS."""

    base: float = 0.0
    inc: float = 0.0
    movetime_ms: int = 0


@dataclass
class MoveReply:
    """What an engine answered on its turn."""

    move: str | None = None  # pyffish notation; None with resigned or claim
    resigned: bool = False
    claim: str | None = None  # a result the engine claimed instead of moving
    elapsed: float = 0.0
    score: int | None = None  # centipawns from the mover's point of view
    depth: int | None = None


class Engine:
    """A child process spoken to by lines; a reader thread queues its output with timestamps."""

    def __init__(self, spec: EngineSpec) -> None:
        """Keep the spec; start() launches the process."""
        self.spec = spec
        self.proc: subprocess.Popen | None = None
        self.moves: list[str] = []
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.name = spec.name

    def start(self) -> None:
        """Launch the process and its reader thread."""
        try:
            argv = shlex.split(self.spec.cmd)
        except ValueError as e:
            raise EngineFailure("crash", f"bad command line {self.spec.cmd!r}: {e}") from e
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None if self.spec.stderr else subprocess.DEVNULL,
                text=True,
                bufsize=1,
                errors="replace",
            )
        except OSError as e:
            raise EngineFailure("crash", f"cannot start {self.spec.cmd!r}: {e}") from e
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self) -> None:
        """Queue every output line, then None at end of file."""
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\r\n")))
        self.lines.put((time.monotonic(), None))

    def send(self, text: str) -> None:
        """Write one command line."""
        log.debug("%s < %s", self.spec.key, text)
        try:
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise EngineFailure("crash", f"exited (write failed: {e}); {self.exit_text()}") from e

    def exit_text(self) -> str:
        """Describe the process's exit status."""
        if self.proc is None:
            return "not started"
        try:
            rc = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit code {rc}"

    def readline(self, deadline: float) -> tuple[float, str] | None:
        """Next line before the monotonic deadline, or None on timeout; EOF raises."""
        left = deadline - time.monotonic()
        try:
            if left > 0:
                t, line = self.lines.get(timeout=left)
            else:
                t, line = self.lines.get_nowait()
        except queue.Empty:
            return None
        if line is None:
            self.lines.put((t, None))  # keep reporting the end of file
            raise EngineFailure("crash", f"terminated ({self.exit_text()})")
        log.debug("%s > %s", self.spec.key, line)
        return t, line

    def drain(self) -> list[str]:
        """Lines already queued (stale output between turns)."""
        out = []
        while True:
            try:
                _, line = self.lines.get_nowait()
            except queue.Empty:
                return out
            if line is None:
                self.lines.put((time.monotonic(), None))
                return out
            log.debug("%s > %s", self.spec.key, line)
            out.append(line)

    def kill(self) -> None:
        """Kill the process at once."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass

    def quit(self) -> None:
        """Ask the engine to quit; kill it if it does not."""
        try:
            self.send("quit")
            assert self.proc is not None
            self.proc.wait(timeout=2)
        except (EngineFailure, subprocess.TimeoutExpired, AssertionError):
            self.kill()

    # protocol-specific
    def init(self, variant: str) -> None:
        """Handshake and options."""
        raise NotImplementedError

    def new_game(self, variant: str, fen: str, standard: bool, moves: list[str], tc: TimeControl):
        """Prepare a game from fen (+ moves already played)."""
        raise NotImplementedError

    def tell(self, move: str) -> None:
        """The opponent played move."""
        raise NotImplementedError

    def play(self, clocks: tuple[float, float], tc: TimeControl, hang_grace: float) -> MoveReply:
        """Ask for a move; clocks are (own, opponent's) seconds."""
        raise NotImplementedError

    def played(self, move: str) -> None:
        """The engine's own move, as the referee understood it."""
        self.moves.append(move)

    def game_over(self, result: str, reason: str) -> None:
        """The game ended."""


class XboardEngine(Engine):
    """xboard/CECP protocol 2 engine."""

    def __init__(self, spec: EngineSpec) -> None:
        """Features are filled by init()."""
        super().__init__(spec)
        self.features: dict[str, str] = {}
        self.delta = 0  # xboard rank minus pyffish rank
        self.ping_n = 0
        self.last_sent: str | None = None
        self.fen = ""
        self.moves: list[str] = []

    def init(self, variant: str) -> None:
        """protover 2 feature negotiation, with a timeout when done=1 never comes."""
        self.send("xboard")
        self.send("protover 2")
        # the protocol allows 2 s before assuming a protocol 1 engine, but an engine written
        # in Python on a loaded machine can take longer to start: wait --feature-timeout
        # seconds, and as long as 30 s after done=0
        deadline = time.monotonic() + self.spec.feature_timeout
        while True:
            got = self.readline(deadline)
            if got is None:
                break
            line = got[1].strip()
            if not line.startswith("feature"):
                continue
            for k, v in FEATURE_RE.findall(line[7:]):
                v = v.strip('"')
                if k == "done":
                    if v == "0":
                        deadline = time.monotonic() + 30.0
                    else:
                        deadline = 0.0
                elif k == "option":
                    self.features.setdefault("option", "")
                else:
                    self.features[k] = v
                if k in ("done", "option"):
                    continue
                ok = not (k == "san" and v == "1")
                self.send(f"{'accepted' if ok else 'rejected'} {k}")
            if deadline == 0.0:
                break
        if not self.name:
            self.name = self.features.get("myname") or shlex.split(self.spec.cmd)[0]
        for k, v in self.spec.options:
            if k in ("memory", "cores"):
                self.send(f"{k} {v}")
            else:
                self.send(f"option {k}={v}")
        self.xvariant = self.variant_name(variant)
        self.sync(30.0)

    def variant_name(self, variant: str) -> str:
        """The engine's name for the pyffish variant; error if it does not list it."""
        if self.spec.variant_name:
            return self.spec.variant_name
        listed = [v.strip() for v in self.features.get("variants", "normal").split(",")]
        for cand in [variant, *XBOARD_ALIASES.get(variant, [])]:
            if cand in listed:
                return cand
        raise EngineFailure(
            "protocol",
            f"does not list variant {variant!r} (its variants: {','.join(listed)}); "
            f"give its name with --variant-name-{self.spec.key.lower()}",
        )

    def sync(self, timeout: float) -> list[str]:
        """ping/pong round trip; returns the lines before pong. Rejected moves raise."""
        if self.features.get("ping") != "1":
            return self.drain()
        self.ping_n += 1
        self.send(f"ping {self.ping_n}")
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineFailure("hang", f"no pong within {timeout:g}s")
            line = got[1].strip()
            if line == f"pong {self.ping_n}":
                return seen
            self.check_rejection(line)
            seen.append(line)

    def check_rejection(self, line: str) -> None:
        """An 'Illegal move' or 'Error' reply to a move we sent ends the game against it."""
        low = line.lower()
        if low.startswith("illegal move") or (
            low.startswith("error") and self.last_sent and self.last_sent in line
        ):
            raise EngineFailure(
                "protocol",
                f"rejected the legal move {self.last_sent} ({line!r}) in {self.current_fen()}",
            )

    def current_fen(self) -> str:
        """FEN of the engine's current position (for messages)."""
        try:
            return pyffish.get_fen(self.variant, self.fen, self.moves)
        except Exception:  # noqa: BLE001 - only for a message
            return f"{self.fen} moves {' '.join(self.moves)}"

    def to_engine(self, move: str) -> str:
        """pyffish move in the engine's notation."""
        return shift_ranks(move, self.delta)

    def send_move(self, move: str) -> None:
        """Send a move in force mode."""
        text = self.to_engine(move)
        self.last_sent = text
        self.send(f"usermove {text}" if self.features.get("usermove") == "1" else text)
        self.moves.append(move)

    def new_game(self, variant: str, fen: str, standard: bool, moves: list[str], tc: TimeControl):
        """new, variant, level/st, force, setboard or the opening moves."""
        self.variant, self.fen, self.moves = variant, fen, []
        self.delta = -1 if board_ranks(fen) > 9 else 0
        self.drain()
        self.send("new")
        if self.xvariant != "normal":
            self.send(f"variant {self.xvariant}")
        if tc.movetime_ms:
            self.send(f"st {tc.movetime_ms / 1000:g}")
        else:
            minutes, secs = divmod(tc.base, 60)
            self.send(f"level 0 {int(minutes)}:{secs:02g} {tc.inc:g}")
        self.send("post")
        self.send("easy")
        self.send("force")
        if not standard:
            if self.features.get("setboard") != "1":
                raise EngineFailure("protocol", "cannot set up a FEN (no feature setboard=1)")
            self.last_sent = fen
            self.send(f"setboard {fen}")
        for m in moves:
            self.send_move(m)
        self.sync(30.0)

    def tell(self, move: str) -> None:
        """Send the opponent's move (the engine is in force mode)."""
        self.send_move(move)

    def play(self, clocks: tuple[float, float], tc: TimeControl, hang_grace: float) -> MoveReply:
        """time/otim, go, read thinking lines until 'move X'; then back to force mode."""
        for line in self.sync(max(hang_grace, 1.0)):
            log.debug("%s: stale output %r", self.spec.key, line)
        if not tc.movetime_ms:
            self.send(f"time {max(1, round(clocks[0] * 100))}")
            self.send(f"otim {max(1, round(clocks[1] * 100))}")
        allotted = tc.movetime_ms / 1000 if tc.movetime_ms else clocks[0]
        self.send("go")
        t0 = time.monotonic()
        deadline = t0 + allotted + hang_grace
        reply = MoveReply()
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineFailure("hang", f"no move within {allotted + hang_grace:.1f}s")
            t, line = got
            s = line.strip()
            words = s.split()
            if not words:
                continue
            if (m := THINK_RE.match(s)) is not None:
                reply.depth, reply.score = int(m.group(1)), int(m.group(2))
            elif words[0] == "move" and len(words) >= 2:
                text = words[1]
                break
            elif s.startswith("My move is") and ":" in s:
                text = s.split(":", 1)[1].split()[0]
                break
            elif words[0] == "resign":
                reply.resigned = True
                break
            elif CLAIM_RE.match(s):
                reply.claim = words[0]
                break
            else:
                self.check_rejection(s)
        reply.elapsed = t - t0
        self.send("force")  # keep the engine from moving on when the opponent's move comes
        if reply.resigned or reply.claim:
            return reply
        reply.move = shift_ranks(text, -self.delta)
        return reply

    def game_over(self, result: str, reason: str) -> None:
        """Tell the engine the result."""
        with contextlib.suppress(EngineFailure):
            self.send(f"result {result} {{{reason}}}")


class UciEngine(Engine):
    """UCI engine; the variant goes in UCI_Variant."""

    def __init__(self, spec: EngineSpec) -> None:
        """Options are filled by init()."""
        super().__init__(spec)
        self.option_names: set[str] = set()
        self.fen = ""
        self.moves: list[str] = []

    def init(self, variant: str) -> None:
        """uci/uciok, options, UCI_Variant, isready."""
        self.send("uci")
        deadline = time.monotonic() + 30.0
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineFailure("hang", "no uciok within 30s")
            line = got[1].strip()
            if line == "uciok":
                break
            if line.startswith("id name ") and not self.name:
                self.name = line[8:].strip()
            m = re.match(r"option name (.+?) type ", line)
            if m:
                self.option_names.add(m.group(1).lower())
        if not self.name:
            self.name = shlex.split(self.spec.cmd)[0]
        for k, v in self.spec.options:
            self.send(f"setoption name {k} value {v}")
        uvariant = self.spec.variant_name or variant
        if uvariant != "chess":
            if "uci_variant" not in self.option_names:
                raise EngineFailure("protocol", "has no UCI_Variant option (plays only chess)")
            self.send(f"setoption name UCI_Variant value {uvariant}")
        self.isready(30.0)

    def isready(self, timeout: float) -> None:
        """isready/readyok round trip."""
        self.send("isready")
        deadline = time.monotonic() + timeout
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineFailure("hang", f"no readyok within {timeout:g}s")
            if got[1].strip() == "readyok":
                return

    def new_game(self, variant: str, fen: str, standard: bool, moves: list[str], tc: TimeControl):
        """ucinewgame; the position is sent with every go."""
        self.fen, self.moves = fen, list(moves)
        self.drain()
        self.send("ucinewgame")
        self.isready(30.0)

    def tell(self, move: str) -> None:
        """Remember the move for the next position command."""
        self.moves.append(move)

    def play(self, clocks: tuple[float, float], tc: TimeControl, hang_grace: float) -> MoveReply:
        """position + go; read info lines until bestmove."""
        white = self.fen.split()[1] == "w"
        if len(self.moves) % 2:
            white = not white
        pos = f"position fen {self.fen}"
        if self.moves:
            pos += " moves " + " ".join(self.moves)
        self.send(pos)
        if tc.movetime_ms:
            go, allotted = f"go movetime {tc.movetime_ms}", tc.movetime_ms / 1000
        else:
            w, b = (clocks[0], clocks[1]) if white else (clocks[1], clocks[0])
            inc = round(tc.inc * 1000)
            go = f"go wtime {max(1, round(w * 1000))} btime {max(1, round(b * 1000))}"
            go += f" winc {inc} binc {inc}"
            allotted = clocks[0]
        self.drain()
        self.send(go)
        t0 = time.monotonic()
        deadline = t0 + allotted + hang_grace
        reply = MoveReply()
        while True:
            got = self.readline(deadline)
            if got is None:
                raise EngineFailure("hang", f"no bestmove within {allotted + hang_grace:.1f}s")
            t, line = got
            words = line.split()
            if not words:
                continue
            if words[0] == "info":
                self.parse_info(words, reply)
            elif words[0] == "bestmove":
                reply.elapsed = t - t0
                if len(words) < 2 or words[1] in ("(none)", "0000", "none"):
                    raise EngineFailure("illegal", f"bestmove without a move: {line!r}")
                reply.move = words[1]
                return reply

    @staticmethod
    def parse_info(words: list[str], reply: MoveReply) -> None:
        """depth and score (cp or mate; bounds ignored) from an info line."""
        if "lowerbound" in words or "upperbound" in words:
            return
        for i, w in enumerate(words[:-1]):
            if w == "depth" and words[i + 1].isdigit():
                reply.depth = int(words[i + 1])
            elif w == "score" and i + 2 < len(words):
                kind, val = words[i + 1], words[i + 2]
                try:
                    n = int(val)
                except ValueError:
                    continue
                if kind == "cp":
                    reply.score = n
                elif kind == "mate":
                    reply.score = MATE_CP - abs(n) if n > 0 else -MATE_CP + abs(n)


def make_engine(spec: EngineSpec) -> Engine:
    """An Engine for the spec's protocol."""
    return UciEngine(spec) if spec.proto == "uci" else XboardEngine(spec)


# ---------------------------------------------------------------------------------------------
# referee


def referee(variant: str, fen: str, moves: list[str], legal: list[str]) -> tuple[str, str] | None:
    """(PGN result, reason) if the game has ended by pyffish's rules, else None."""
    cur = pyffish.get_fen(variant, fen, moves)
    white = cur.split()[1] == "w"

    def result(value: int) -> str:
        """PGN result for a value from the side to move's point of view."""
        if value == 0:
            return "1/2-1/2"
        return "1-0" if (value > 0) == white else "0-1"

    # variant ends first: pyffish also has no legal moves after a bare king, which is no stalemate
    ended, value = pyffish.is_immediate_game_end(variant, fen, moves)
    if ended:
        board = cur.split()[0].split("[")[0]
        bare = any(
            sum(c.isalpha() and test(c) for c in board) == 1 for test in (str.isupper, str.islower)
        )
        return result(value), "bare king" if bare else "variant end"
    if not legal:
        value = pyffish.game_result(variant, fen, moves)
        if pyffish.gives_check(variant, fen, moves):
            reason = "checkmate"
        else:
            reason = "stalemate" if value == 0 else "stalemate (scored as a win)"
        return result(value), reason
    ended, value = pyffish.is_optional_game_end(variant, fen, moves)
    if ended:
        what = "repetition" if repeated(variant, fen, moves) else "move-count rule"
        return result(value), f"{'draw' if value == 0 else 'decided'} by {what}"
    insufficient = pyffish.has_insufficient_material(variant, fen, moves)
    if insufficient[0] and insufficient[1]:
        return "1/2-1/2", "insufficient material"
    return None


def repeated(variant: str, fen: str, moves: list[str]) -> bool:
    """Whether the current position (board, side, castling, en passant) occurred before."""

    def key(n: int) -> str:
        """Position after the first n moves, without the move counters."""
        return " ".join(pyffish.get_fen(variant, fen, moves[:n]).split()[:4])

    now = key(len(moves))
    return any(key(n) == now for n in range(len(moves) - 2, -1, -2))


# ---------------------------------------------------------------------------------------------
# openings


@dataclass
class Opening:
    """A start FEN and the moves played from it before the engines take over."""

    fen: str
    moves: list[str] = field(default_factory=list)
    standard: bool = True  # fen is the variant's start position


def random_openings(variant: str, count: int, plies: int, seed: int) -> list[Opening]:
    """count openings of plies random legal moves each (none that ends the game)."""
    fen = pyffish.start_fen(variant)
    out = []
    for k in range(count):
        rng = random.Random(f"{seed}:{variant}:{k}")
        for _ in range(1000):
            moves: list[str] = []
            for _ in range(plies):
                legal = sorted(pyffish.legal_moves(variant, fen, moves))
                if not legal:
                    break
                moves.append(rng.choice(legal))
            else:
                if referee(variant, fen, moves, pyffish.legal_moves(variant, fen, moves)) is None:
                    break
        else:
            raise ValueError(f"no opening of {plies} plies in {variant} that does not end the game")
        out.append(Opening(fen, moves))
    return out


def file_openings(path: str, variant: str) -> list[Opening]:
    """FEN lines of a file (blank lines and # comments skipped), validated by pyffish."""
    out = []
    start = pyffish.start_fen(variant)
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip().rstrip(";")
            if not line:
                continue
            if pyffish.validate_fen(line, variant) != pyffish.FEN_OK:
                raise ValueError(f"{path}:{n}: not a valid {variant} FEN: {line}")
            if referee(variant, line, [], pyffish.legal_moves(variant, line, [])) is not None:
                raise ValueError(f"{path}:{n}: the game has already ended: {line}")
            out.append(Opening(line, [], line == start))
    if not out:
        raise ValueError(f"{path}: no positions")
    return out


# ---------------------------------------------------------------------------------------------
# one game


@dataclass
class GameRecord:
    """A finished game."""

    index: int
    white: str
    black: str
    opening: Opening
    moves: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    result: str = "*"
    termination: str = ""
    reason: str = ""
    failed: str | None = None  # "A"/"B"
    failure_kind: str | None = None
    seconds: float = 0.0


def play_game(
    index: int,
    opening: Opening,
    a_white: bool,
    engines: dict[str, Engine],
    args: argparse.Namespace,
    tc: TimeControl,
) -> GameRecord:
    """Play one game; engine failures end it as a loss for the offender."""
    variant = args.variant
    keys = {"w": "A" if a_white else "B", "b": "B" if a_white else "A"}
    rec = GameRecord(index, engines[keys["w"]].name, engines[keys["b"]].name, opening)
    rec.moves = list(opening.moves)
    rec.comments = ["book"] * len(opening.moves)
    t_start = time.monotonic()
    fen0 = opening.fen
    clocks = {"w": tc.base, "b": tc.base}
    evals: dict[str, list[int | None]] = {"A": [], "B": []}  # White's view, per engine

    def fail(key: str, err: EngineFailure) -> None:
        """Record err as a loss for engine key."""
        rec.failed, rec.failure_kind = key, err.kind
        loser_white = keys["w"] == key
        rec.result = "0-1" if loser_white else "1-0"
        rec.termination = {"time": "time forfeit", "illegal": "rules infraction"}.get(
            err.kind, "abandoned"
        )
        rec.reason = f"{engines[key].name} ({key}) {err.kind}: {err}"
        log.warning("game %d: %s", index + 1, rec.reason)

    for key in ("A", "B"):
        try:
            engines[key].new_game(variant, fen0, opening.standard, rec.moves, tc)
        except EngineFailure as err:
            fail(key, err)
            rec.seconds = time.monotonic() - t_start
            return rec

    while True:
        legal = pyffish.legal_moves(variant, fen0, rec.moves)
        end = referee(variant, fen0, rec.moves, legal)
        if end is not None:
            rec.result, rec.reason = end
            rec.termination = "normal"
            break
        if len(rec.moves) - len(opening.moves) >= 2 * args.max_moves:
            rec.result, rec.termination, rec.reason = "1/2-1/2", "adjudication", "max moves"
            break
        fen = pyffish.get_fen(variant, fen0, rec.moves)
        side = fen.split()[1]
        other = "b" if side == "w" else "w"
        key = keys[side]
        eng = engines[key]
        try:
            reply = eng.play((clocks[side], clocks[other]), tc, args.hang_grace)
        except EngineFailure as err:
            fail(key, err)
            break
        if reply.resigned or (reply.claim and reply.claim == ("0-1" if side == "w" else "1-0")):
            rec.result = "0-1" if side == "w" else "1-0"
            rec.termination, rec.reason = "normal", f"{eng.name} resigns"
            break
        if reply.claim:
            fail(key, EngineFailure("claim", f"claimed {reply.claim} in {fen}, not a game end"))
            break
        move = match_legal(reply.move or "", legal)
        if move is None:
            fail(key, EngineFailure("illegal", f"illegal move {reply.move} in {fen}"))
            break
        if move != reply.move:
            log.debug("game %d: %s sent %s, taken as %s", index + 1, key, reply.move, move)
        if tc.movetime_ms:
            if (reply.elapsed * 1000 - tc.movetime_ms) > args.timemargin:
                fail(
                    key,
                    EngineFailure(
                        "time", f"used {reply.elapsed * 1000:.0f} ms for a {tc.movetime_ms} ms move"
                    ),
                )
                break
        else:
            clocks[side] -= reply.elapsed
            if clocks[side] < -args.timemargin / 1000:
                fail(key, EngineFailure("time", f"lost on time ({clocks[side]:.3f}s left)"))
                break
            clocks[side] = max(clocks[side], 0.0) + tc.inc
        rec.moves.append(move)
        eng.played(move)
        cmt = []
        if reply.score is not None:
            cmt.append(f"{reply.score / 100:+.2f}/{reply.depth or 0}")
        cmt.append(f"{reply.elapsed:.3f}s")
        rec.comments.append(" ".join(cmt))
        opp = "B" if key == "A" else "A"
        try:
            engines[opp].tell(move)
        except EngineFailure as err:
            fail(opp, err)
            break
        evals[key].append(None if reply.score is None else reply.score * (1 if side == "w" else -1))
        adj = adjudicate(evals, args, len(rec.moves))
        if adj is not None:
            rec.result, rec.reason = adj
            rec.termination = "adjudication"
            break
    for e in engines.values():
        if e is not None and rec.failed != e.spec.key:
            e.game_over(rec.result, rec.reason)
    rec.seconds = time.monotonic() - t_start
    return rec


def adjudicate(
    evals: dict[str, list[int | None]], args: argparse.Namespace, plies: int
) -> tuple[str, str] | None:
    """Resign (or optional draw) adjudication when both engines' recent scores agree."""
    n = args.resign_moves
    if args.resign_score > 0 and n > 0 and min(len(evals["A"]), len(evals["B"])) >= n:
        last = evals["A"][-n:] + evals["B"][-n:]
        if all(x is not None for x in last):
            if all(x >= args.resign_score for x in last):  # type: ignore[operator]
                return "1-0", f"resign adjudication: both engines >= +{args.resign_score} cp"
            if all(x <= -args.resign_score for x in last):  # type: ignore[operator]
                return "0-1", f"resign adjudication: both engines <= -{args.resign_score} cp"
    n = args.draw_moves
    if (
        args.draw_movenumber > 0
        and n > 0
        and plies >= 2 * args.draw_movenumber
        and min(len(evals["A"]), len(evals["B"])) >= n
    ):
        last = evals["A"][-n:] + evals["B"][-n:]
        if all(x is not None and abs(x) <= args.draw_score for x in last):
            return "1/2-1/2", f"draw adjudication: |eval| <= {args.draw_score} cp"
    return None


# ---------------------------------------------------------------------------------------------
# PGN


def pgn_text(rec: GameRecord, args: argparse.Namespace, tcdesc: str) -> str:
    """The game as PGN with Variant, FEN and SetUp tags; moves in SAN with comments."""
    fen0 = rec.opening.fen
    headers = [
        ("Event", args.event),
        ("Site", "local"),
        ("Date", datetime.date.today().strftime("%Y.%m.%d")),
        ("Round", str(rec.index + 1)),
        ("White", rec.white),
        ("Black", rec.black),
        ("Result", rec.result),
        ("Variant", args.variant),
        ("FEN", fen0),
        ("SetUp", "1"),
        ("TimeControl", tcdesc),
        ("Termination", rec.termination),
        ("PlyCount", str(len(rec.moves))),
    ]
    try:
        sans = pyffish.get_san_moves(args.variant, fen0, rec.moves, False, pyffish.NOTATION_SAN)
    except Exception:  # noqa: BLE001 - fall back to coordinates rather than lose the game
        sans = list(rec.moves)
    fields = fen0.split()
    white = fields[1] == "w"
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    tokens = []
    for i, (san, cmt) in enumerate(zip(sans, rec.comments, strict=False)):
        if white:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(san)
        if i == len(sans) - 1 and rec.reason:
            cmt = f"{cmt}; {rec.reason}" if cmt else rec.reason
        if cmt:
            tokens.append("{" + cmt.replace("}", ")") + "}")
        if not white:
            number += 1
        white = not white
    if not sans and rec.reason:
        tokens.append("{" + rec.reason.replace("}", ")") + "}")
    tokens.append(rec.result)
    lines, cur = [], ""
    for tok in tokens:
        if cur and len(cur) + 1 + len(tok) > 79:
            lines.append(cur)
            cur = tok
        else:
            cur = f"{cur} {tok}" if cur else tok
    lines.append(cur)
    head = "\n".join(f'[{k} "{v}"]' for k, v in headers)
    return head + "\n\n" + "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for side in ("a", "b"):
        ap.add_argument(f"--engine-{side}", required=True, help=f"command line of engine {side}")
        ap.add_argument(f"--proto-{side}", choices=["uci", "xboard"], default="uci")
        ap.add_argument(f"--name-{side}", default="")
        ap.add_argument(
            f"--option-{side}",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="engine option (repeatable); xboard: 'option NAME=VALUE' (memory, cores as such)",
        )
        ap.add_argument(
            f"--variant-name-{side}",
            default=None,
            help="the engine's name of the variant if it differs (e.g. los-alamos)",
        )
    ap.add_argument("--variant", default="chess", help="pyffish variant name (default chess)")
    ap.add_argument("--games", type=int, default=10)
    tcg = ap.add_mutually_exclusive_group()
    tcg.add_argument("--movetime", type=int, help="fixed time per move in ms")
    tcg.add_argument("--tc", help="BASE+INC in seconds, e.g. 10+0.1")
    ap.add_argument("--timemargin", type=int, default=200, help="ms over time before forfeit")
    ap.add_argument(
        "--hang-grace", type=float, default=5.0, help="s beyond its time before an engine is killed"
    )
    ap.add_argument(
        "--feature-timeout",
        type=float,
        default=10.0,
        help="s to wait for an xboard engine's features without done=1",
    )
    ap.add_argument("--openings", help="file of FENs (default: random openings)")
    ap.add_argument("--opening-plies", type=int, default=4, help="plies of a random opening")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--concurrency", type=int, default=1, help="games played in parallel")
    ap.add_argument("--resign-score", type=int, default=1000, help="cp; 0 = no resign adjudication")
    ap.add_argument("--resign-moves", type=int, default=5)
    ap.add_argument("--draw-movenumber", type=int, default=0, help="0 = no draw adjudication")
    ap.add_argument("--draw-moves", type=int, default=8)
    ap.add_argument("--draw-score", type=int, default=10)
    ap.add_argument("--max-moves", type=int, default=300, help="full moves, then a draw")
    ap.add_argument(
        "--stop-on-failure",
        choices=["A", "B", "any"],
        default=None,
        help="stop the match when this engine fails (crash, time, illegal move, ...)",
    )
    ap.add_argument("--pgn", default="vmatch.pgn")
    ap.add_argument("--log", help="log file (also written to stderr)")
    ap.add_argument("--event", default="vmatch")
    ap.add_argument("--engine-stderr", action="store_true", help="let engines write to stderr")
    ap.add_argument("-v", "--verbose", action="store_true", help="log every engine line")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.opening_plies < 0 or args.max_moves < 1 or args.concurrency < 1:
        ap.error("--opening-plies must be >= 0, --max-moves and --concurrency >= 1")
    for side in ("a", "b"):
        for o in getattr(args, f"option_{side}"):
            if "=" not in o:
                ap.error(f"--option-{side} {o!r}: expected NAME=VALUE")
    return args


def parse_tc(args: argparse.Namespace) -> TimeControl:
    """TimeControl from --tc/--movetime (default movetime 100 ms); ValueError if malformed."""
    if args.tc:
        base, _, inc = args.tc.partition("+")
        try:
            tc = TimeControl(float(base), float(inc or 0))
        except ValueError:
            msg = f"--tc {args.tc!r}: expected BASE+INC in seconds, e.g. 10+0.1"
            raise ValueError(msg) from None
        if tc.base <= 0 or tc.inc < 0:
            raise ValueError(f"--tc {args.tc!r}: BASE must be > 0 and INC >= 0")
        return tc
    ms = args.movetime if args.movetime is not None else 100
    if ms <= 0:
        raise ValueError("--movetime must be positive")
    return TimeControl(movetime_ms=ms)


def main(argv: list[str] | None = None) -> int:
    """Run the match; 0 when it ran, 2 on bad input or engines that cannot start."""
    args = parse_args(argv)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if args.log:
        handlers.append(logging.FileHandler(args.log))
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        handlers=handlers,
    )
    if pyffish is None:
        log.error("pyffish is not installed (pip install pyffish)")
        return 2
    if args.variant not in pyffish.variants():
        known = " ".join(pyffish.variants())
        log.error("unknown variant %r; pyffish knows: %s", args.variant, known)
        return 2
    try:
        tc = parse_tc(args)
        if args.openings:
            openings = file_openings(args.openings, args.variant)
        else:
            count = (args.games + 1) // 2
            openings = random_openings(args.variant, count, args.opening_plies, args.seed)
    except (ValueError, OSError) as e:
        log.error("%s", e)
        return 2
    specs = {
        side.upper(): EngineSpec(
            side.upper(),
            getattr(args, f"engine_{side}"),
            getattr(args, f"proto_{side}"),
            getattr(args, f"name_{side}"),
            [tuple(o.split("=", 1)) for o in getattr(args, f"option_{side}")],  # type: ignore[misc]
            getattr(args, f"variant_name_{side}"),
            args.engine_stderr,
            args.feature_timeout,
        )
        for side in ("a", "b")
    }
    for spec in specs.values():
        if spec.proto == "xboard" and tc.movetime_ms and tc.movetime_ms % 1000:
            log.warning(
                "engine %s: xboard's st takes seconds; %g s may be rounded by the engine",
                spec.key,
                tc.movetime_ms / 1000,
            )
    tcdesc = f"{tc.movetime_ms / 1000:g}/move" if tc.movetime_ms else f"{tc.base:g}+{tc.inc:g}"
    schedule = [(i, openings[(i // 2) % len(openings)], i % 2 == 0) for i in range(args.games)]

    local = threading.local()
    lock = threading.Lock()
    started: list[Engine] = []
    stop = threading.Event()
    results: dict[int, GameRecord] = {}
    counts = {"w": 0, "d": 0, "l": 0}
    failures: list[GameRecord] = []
    start_errors: list[str] = []
    names = {key: sp.name or sp.cmd.split()[0] for key, sp in specs.items()}

    def engines_for_thread() -> dict[str, Engine]:
        """This worker's engines, (re)started as needed."""
        if not hasattr(local, "engines"):
            local.engines = {"A": None, "B": None}
        for key in ("A", "B"):
            if local.engines[key] is None:
                eng = make_engine(specs[key])
                with lock:
                    started.append(eng)
                try:
                    eng.start()
                    eng.init(args.variant)
                except EngineFailure as e:
                    eng.kill()
                    raise RuntimeError(f"engine {key} ({specs[key].cmd}): {e}") from e
                names[key] = eng.name
                local.engines[key] = eng
        return local.engines

    def run(item: tuple[int, Opening, bool]) -> None:
        """Play one scheduled game and record it."""
        index, opening, a_white = item
        if stop.is_set():
            return
        try:
            engines = engines_for_thread()
        except RuntimeError as e:
            log.error("%s", e)
            with lock:
                start_errors.append(str(e))
            stop.set()
            return
        rec = play_game(index, opening, a_white, engines, args, tc)
        with lock:
            results[index] = rec
            # append at once, so that a match that is killed keeps its finished games
            with open(args.pgn, "a", encoding="utf-8") as f:
                f.write(pgn_text(rec, args, tcdesc) + "\n")
            score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(rec.result)
            if score is not None:
                score_a = score if a_white else 1.0 - score
                counts["w" if score_a == 1.0 else "d" if score_a == 0.5 else "l"] += 1
            if rec.failed:
                failures.append(rec)
                if args.stop_on_failure in (rec.failed, "any"):
                    log.warning("stopping the match: engine %s failed", rec.failed)
                    stop.set()
            w, d, lo = counts["w"], counts["d"], counts["l"]
            elo, err, s, _ = elo_stats(w, d, lo)
            log.info(
                "game %d/%d: %s - %s %s (%s) %d plies %.1fs | A: +%d =%d -%d score %.3f "
                "elo %+.1f +/- %.1f",
                index + 1,
                args.games,
                rec.white,
                rec.black,
                rec.result,
                rec.reason,
                len(rec.moves),
                rec.seconds,
                w,
                d,
                lo,
                s,
                elo,
                err,
            )
        if rec.failed:
            # a failed engine may be dead, hung or out of step: start it afresh
            engines[rec.failed].kill()
            engines[rec.failed] = None  # type: ignore[assignment]

    try:
        open(args.pgn, "w", encoding="utf-8").close()
    except OSError as e:
        log.error("cannot write the PGN: %s", e)
        return 2
    t0 = time.monotonic()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency) as pool:
            list(pool.map(run, schedule))
    except KeyboardInterrupt:
        stop.set()
        log.warning("interrupted")
    finally:
        for eng in started:
            eng.quit()
    wall = time.monotonic() - t0

    with open(args.pgn, "w", encoding="utf-8") as f:  # again, in game order
        for index in sorted(results):
            f.write(pgn_text(results[index], args, tcdesc) + "\n")

    w, d, lo = counts["w"], counts["d"], counts["l"]
    n = w + d + lo
    elo, err, s, los = elo_stats(w, d, lo)
    print()
    print(f"Match ({args.variant}): A = {names['A']}  vs  B = {names['B']}")
    for key in ("A", "B"):
        sp = specs[key]
        print(f"  engine {key}: {sp.cmd} ({sp.proto}) {dict(sp.options)}")
    avg = sum(r.seconds for r in results.values()) / len(results) if results else 0.0
    print(
        f"  {n} games finished ({args.games} scheduled), tc {tcdesc}, {wall:.0f}s wall, "
        f"{avg:.1f}s per game"
    )
    print(f"Result for A: W {w}  D {d}  L {lo}   score {w + 0.5 * d:g}/{n} = {100 * s:.1f}%")
    print(f"Elo difference A-B: {elo:+.1f} +/- {err:.1f} (95%)   LOS {100 * los:.1f}%")
    if n and s in (0.0, 1.0):
        p = 0.05 ** (1.0 / n)  # exact one-sided bound when every game went one way
        bound = elo_from_score(p) if s == 1.0 else -elo_from_score(p)
        word, rel = ("won", ">") if s else ("lost", "<")
        print(f"  all games {word}: Elo difference {rel} {bound:+.0f} (95% one-sided)")
    if failures:
        print(f"Engine failures ({len(failures)}):")
        for rec in failures:
            print(f"  game {rec.index + 1}: {rec.failure_kind}: {rec.reason}")
    else:
        print("Engine failures: none")
    print(f"PGN written to {args.pgn}")
    for err in start_errors:
        print(f"Match stopped: {err}")
    return 2 if start_errors else 0


if __name__ == "__main__":
    sys.exit(main())
