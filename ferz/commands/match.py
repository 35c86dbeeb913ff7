"""`ferz match`: the command line, the live progress line and the final summary.

The summary is one `Key: value` line per figure, in a fixed order, for scripts to parse:
Engines, Variant, Limits, Games, Score, Elo, Ptnml(0-2), Elo (pairs), nElo, LOS, SPRT (when
asked for), Failures, Terminations, Time, PGN.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TextIO

from ..files import claim, release, write_atomically
from ..match import openings as openings_module
from ..match import resume, stats
from ..match.adjudication import Adjudication
from ..match.clock import MatchLimits, parse_tc
from ..match.engines import EngineSpec, parse_spec
from ..match.record import to_pgn
from ..match.referee import FAILURES, GameRecord
from ..match.resume import MatchState, state_path
from ..match.runner import MatchConfig, MatchError, default_concurrency, run_local

EXAMPLES = """\
engines are given as KEY=VALUE words (cutechess style), A first, then B:
  cmd=COMMAND      the engine's command line (quoted), or ferz for this ferz
  name=NAME        name in the PGN and the summary (default: the engine's id name)
  proto=uci|xboard|usi|ucci protocol (default uci; usi for shogi, ucci for xiangqi)
  option.NAME=V    an engine option (UCI setoption; xboard `option NAME=V`, memory, cores)
  params=N=V,...   FERZ_PARAMS for the engine (ferz's search and evaluation numbers)
  variant=NAME     the engine's own name of the variant, when it differs from ferz's
  dir=PATH, stderr=1  working directory; let the engine write to this terminal's stderr

examples:
  ferz match --engine cmd=ferz name=new params=lmr_div=190 --engine cmd=ferz name=base \\
      --nodes 20000 --games 200 --sprt 0 5 --pgn ab.pgn
  ferz match --engine cmd=ferz --engine cmd=/usr/games/stockfish option.UCI_LimitStrength=true \\
      option.UCI_Elo=1800 --tc 10+0.1 --games 100 --concurrency 2
  ferz match --variant shatranj --engine cmd=ferz proto=xboard \\
      --engine cmd=/usr/games/fairymax proto=xboard --tc 10+0.1 --games 20
  ferz match ... --ray auto       (the same match as Ray tasks on a cluster: docs/match.md)

resuming: with --pgn FILE the match keeps its state in FILE.state.json after every game;
  the same command with --resume continues a stopped match (the games played count, the
  game that was in progress is played again). Only --games (to extend), --concurrency,
  --ray, --quiet and --stop-on-failure may change. Without --resume, a FILE that holds games
  is refused, never overwritten; while a match writes FILE (holding FILE.lock), another is
  refused."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ferz match`."""
    parser.add_argument(
        "--engine",
        action="append",
        nargs="+",
        metavar="KEY=VALUE",
        required=True,
        help="an engine: give it twice, A then B (keys below)",
    )
    parser.add_argument(
        "--each", nargs="+", default=[], metavar="KEY=VALUE", help="settings for both engines"
    )
    parser.add_argument("--variant", default="chess", help="variant to play (default: chess)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    limits = parser.add_argument_group("limits")
    limits.add_argument("--tc", help="time control [MOVES/]BASE[+INC] in seconds, e.g. 10+0.1")
    limits.add_argument("--movetime", type=int, metavar="MS", help="fixed time per move")
    limits.add_argument("--nodes", type=int, help="nodes per move")
    limits.add_argument("--depth", type=int, help="depth per move")
    limits.add_argument(
        "--timemargin",
        type=int,
        default=100,
        metavar="MS",
        help="how far over its time an engine may go before it loses (default 100)",
    )
    limits.add_argument(
        "--grace",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds beyond its time before a silent engine is killed (default 5)",
    )
    start = parser.add_argument_group("openings")
    start.add_argument(
        "--openings",
        metavar="FILE",
        help="EPD, FEN or PGN file (default: the bundled set for chess, random plies otherwise)",
    )
    start.add_argument(
        "--plies", type=int, help="plies of each PGN opening, or of random openings (default 4)"
    )
    start.add_argument("--shuffle", action="store_true", help="openings in random order")
    start.add_argument("--seed", type=int, default=1, help="seed of --shuffle and random plies")
    adjudicate = parser.add_argument_group("adjudication")
    adjudicate.add_argument(
        "--resign-score",
        type=int,
        default=0,
        metavar="CP",
        help="a win when both engines' last --resign-moves scores give one side CP (0: off)",
    )
    adjudicate.add_argument("--resign-moves", type=int, default=3, metavar="N", help="default 3")
    adjudicate.add_argument(
        "--draw-movenumber",
        type=int,
        default=0,
        metavar="M",
        help="after move M, a draw when both engines' last --draw-moves scores are within "
        "--draw-score of zero (0: off)",
    )
    adjudicate.add_argument("--draw-moves", type=int, default=8, metavar="N", help="default 8")
    adjudicate.add_argument("--draw-score", type=int, default=10, metavar="CP", help="default 10")
    adjudicate.add_argument(
        "--max-moves", type=int, default=0, metavar="N", help="a draw at N moves (0: off)"
    )
    test = parser.add_argument_group("SPRT")
    test.add_argument(
        "--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), help="stop when decided"
    )
    test.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    test.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    test.add_argument(
        "--sprt-model",
        choices=["normalized", "logistic"],
        default="normalized",
        help="Elo of ELO0/ELO1 (default normalized, as fishtest)",
    )
    run = parser.add_argument_group("running")
    run.add_argument(
        "--concurrency",
        type=int,
        help=f"games at once (default: cores - 1 = {default_concurrency()}; with --ray: CPUs)",
    )
    run.add_argument("--ray", metavar="ADDRESS", help="play the games as Ray tasks (auto, local)")
    run.add_argument(
        "--stop-on-failure", action="store_true", help="stop at the first engine failure"
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "--pgn",
        metavar="FILE",
        help="write the games here (in game order), the match's state to FILE.state.json",
    )
    out.add_argument(
        "--resume",
        action="store_true",
        help="continue the match of --pgn FILE where it stopped (a new one if FILE is empty)",
    )
    out.add_argument("--event", default="ferz match", help="PGN Event tag")
    out.add_argument("--quiet", action="store_true", help="no progress line")


def engine_specs(args: argparse.Namespace) -> tuple[EngineSpec, EngineSpec]:
    """Engines A and B from --engine and --each; ValueError unless there are two."""
    if len(args.engine) != 2:
        raise ValueError(f"--engine must be given twice (A and B), not {len(args.engine)} times")
    first, second = (parse_spec(list(args.each) + list(words)) for words in args.engine)
    return first, second


def build_config(args: argparse.Namespace) -> MatchConfig:
    """The match configuration from the arguments; ValueError with a message for bad input."""
    from .. import variants

    variants.get(args.variant)  # ValueError names an unknown variant
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    budget = MatchLimits(
        tc=parse_tc(args.tc) if args.tc else None,
        movetime_ms=args.movetime,
        nodes=args.nodes,
        depth=args.depth,
        margin_ms=args.timemargin,
    )
    budget.check()
    adjudication = Adjudication(
        args.resign_score,
        args.resign_moves,
        args.draw_score,
        args.draw_moves,
        args.draw_movenumber,
        args.max_moves,
    )
    adjudication.check()
    if args.grace <= 0:
        raise ValueError("--grace must be positive")
    specs = engine_specs(args)
    for key, spec in zip("AB", specs, strict=True):
        if spec.protocol != "xboard":
            continue
        if budget.nodes is not None:
            raise ValueError(f"engine {key} speaks xboard, which has no node limit: use --tc")
        if budget.movetime_ms is not None and budget.movetime_ms % 1000:
            raise ValueError(f"engine {key} speaks xboard, whose st takes whole seconds")
    starts = openings_module.load(
        args.openings, args.variant, args.plies, (args.games + 1) // 2, args.seed
    )
    starts = openings_module.order(starts, args.shuffle, args.seed)
    return MatchConfig(
        specs, args.variant, budget, adjudication, tuple(starts), args.games, args.grace
    )


@dataclass
class MatchProgress:
    """What the match has done so far, and how it is shown."""

    config: MatchConfig
    sprt: stats.Sprt | None
    stop_on_failure: bool
    pgn_path: str | None
    event: str
    quiet: bool = False
    stream: TextIO = sys.stderr
    records: dict[int, GameRecord] = field(default_factory=dict)
    decision: str = ""
    started: float = field(default_factory=time.monotonic)
    state: MatchState | None = None  # kept beside the PGN, saved after every game
    texts: dict[int, str] = field(default_factory=dict)  # each game's PGN text, by index
    seconds_before: float = 0.0  # of the sessions before this one
    closed: bool = False  # the match has ended: a game finishing now is not taken
    lock: threading.Lock = field(default_factory=threading.Lock)

    def scores(self) -> dict[int, float]:
        """Engine A's score by game index."""
        out = {}
        for index, record in self.records.items():
            score = record.score_a()
            if score is not None:
                out[index] = score
        return out

    def add(self, record: GameRecord) -> bool:
        """Take a finished game; False to stop the match."""
        with self.lock:
            if self.closed:
                return False
            text = to_pgn(record, self.event, self.config.budget) if self.pgn_path else ""
            self.records[record.index] = record
            if self.pgn_path:
                # appended at once, so a match that is killed keeps its games; the state
                # after it, so that the state never names a game the PGN lacks
                self.texts[record.index] = text
                with open(self.pgn_path, "a", encoding="utf-8") as handle:
                    handle.write(text)
                if self.state is not None:
                    self.state.add(record, text)
                    self.save_state()
            return self.judge(record)

    def save_state(self) -> None:
        """Write the state file with the time run so far."""
        assert self.state is not None and self.pgn_path
        self.state.seconds = self.seconds()
        self.state.save(state_path(self.pgn_path))

    def seconds(self) -> float:
        """Seconds the match has run, in this session and the ones it resumes."""
        return self.seconds_before + time.monotonic() - self.started

    def judge(self, record: GameRecord | None = None) -> bool:
        """The SPRT's decision and the progress line after a game; False to stop."""
        tally = stats.tally(self.scores())
        if self.sprt is not None:
            self.decision = self.sprt.decision(list(tally.pairs))
        if not self.quiet and record is not None:
            self.show(record, tally)
        if self.decision:
            return False
        return not (self.stop_on_failure and record is not None and record.failure)

    def close(self) -> None:
        """End the match: no more games are taken, the PGN is rewritten in game order
        (atomically: a kill while writing keeps the previous file) and the state saved."""
        with self.lock:
            self.closed = True
            if not self.pgn_path or not self.texts:
                return
            write_atomically(self.pgn_path, "".join(t for _, t in sorted(self.texts.items())))
            if self.state is not None:
                self.save_state()

    def show(self, record: GameRecord, tally: stats.Tally) -> None:
        """The progress line: games, W/D/L, Elo, LLR and the last game's end."""
        estimate = stats.trinomial(tally.wins, tally.draws, tally.losses)
        line = (
            f"{len(self.records)}/{self.config.games} games"
            f"  +{tally.wins} ={tally.draws} -{tally.losses}"
            f"  Elo {_signed(estimate.elo)} +- {_plain(estimate.error())}"
        )
        if self.sprt is not None:
            line += f"  LLR {self.sprt.llr(list(tally.pairs)):.2f}"
        line += f"  | game {record.index + 1}: {record.result} {record.reason}"
        if self.stream.isatty():
            self.stream.write("\r\x1b[K" + line[:200])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _signed(value: float) -> str:
    """A signed figure with one decimal, or +inf/-inf."""
    return f"{value:+.1f}" if abs(value) != float("inf") else ("+inf" if value > 0 else "-inf")


def _plain(value: float) -> str:
    """A figure with one decimal, or inf."""
    return f"{value:.1f}" if value != float("inf") else "inf"


def summary(progress: MatchProgress, names: tuple[str, str], seconds: float) -> list[str]:
    """The final summary lines."""
    config = progress.config
    tally = stats.tally(progress.scores())
    games = stats.trinomial(tally.wins, tally.draws, tally.losses)
    pairs = stats.pentanomial(list(tally.pairs))
    nelo = stats.normalized(list(tally.pairs))
    records = list(progress.records.values())
    lines = [
        f"Engines: A = {names[0]}, B = {names[1]}",
        f"Variant: {config.variant}",
        f"Limits: {config.budget.describe()}",
        f"Games: {tally.games} of {config.games}",
        f"Score: W {tally.wins} D {tally.draws} L {tally.losses}, "
        f"{tally.points():g}/{tally.games} = {100 * tally.score():.2f} %",
        f"Elo: {_signed(games.elo)} +- {_plain(games.error())} (95 %) "
        f"[{_signed(games.low)}, {_signed(games.high)}]",
        f"Ptnml(0-2): [{', '.join(str(c) for c in tally.pairs)}]",
        f"Elo (pairs): {_signed(pairs.elo)} +- {_plain(pairs.error())} (95 %)",
        f"nElo: {_signed(nelo.elo)} +- {_plain(nelo.error())} (95 %)",
        f"LOS: {100 * stats.los(tally.wins, tally.losses):.1f} %",
    ]
    if progress.sprt is not None:
        sprt = progress.sprt
        lower, upper = sprt.bounds()
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(progress.decision, "continue")
        lines.append(
            f"SPRT: LLR {sprt.llr(list(tally.pairs)):.2f} ({lower:.2f}, {upper:.2f}) "
            f"[{sprt.elo0:.2f}, {sprt.elo1:.2f}] {sprt.model}: {verdict}"
        )
    failures = Counter(record.failure for record in records if record.failure)
    by_engine = Counter(record.failed for record in records if record.failed)
    kinds = ", ".join(f"{kind} {failures.get(kind, 0)}" for kind in FAILURES)
    lines.append(
        f"Failures: {sum(failures.values())} (A {by_engine.get('A', 0)}, "
        f"B {by_engine.get('B', 0)}; {kinds})"
    )
    ends = Counter(record.termination for record in records)
    lines.append("Terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
    per_game = seconds / len(records) if records else 0.0
    lines.append(f"Time: {seconds:.1f} s, {per_game:.2f} s per game")
    if progress.pgn_path:
        lines.append(f"PGN: {progress.pgn_path}")
    return lines


def failure_lines(progress: MatchProgress) -> list[str]:
    """One line per failed game (printed before the summary)."""
    return [
        f"game {index + 1}: {record.reason}"
        for index, record in sorted(progress.records.items())
        if record.failure
    ]


def main(args: argparse.Namespace) -> int:
    """Run `ferz match`; 0 when the match ran, 2 on bad input or an engine that cannot start
    (ValueError, MatchError: one `ferz: error:` line from ferz's main)."""
    config = build_config(args)
    sprt = None
    if args.sprt:
        sprt = stats.Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta, args.sprt_model)
        sprt.check()
    if args.concurrency is not None and args.concurrency < 1:
        raise ValueError("--concurrency must be at least 1")
    if args.resume and not args.pgn:
        raise ValueError("--resume continues the match of a --pgn FILE: give it")
    progress = MatchProgress(config, sprt, args.stop_on_failure, args.pgn, args.event, args.quiet)
    if not args.pgn:
        return play(args, progress)
    created = not os.path.exists(args.pgn)
    try:
        open_pgn(args, progress)
        return play(args, progress)
    finally:
        # a match that played no game leaves no empty PGN of its own making, and every match
        # its lock: FILE.lock guards a running match, not a finished one
        if created and not progress.records and _empty(args.pgn):
            os.unlink(args.pgn)
        release(args.pgn)


def _empty(path: str) -> bool:
    """Whether a file exists and holds nothing."""
    return os.path.isfile(path) and os.path.getsize(path) == 0


def play(args: argparse.Namespace, progress: MatchProgress) -> int:
    """Play the match's games that are left and print the summary; MatchError (after the
    summary of the games played, if any) when an engine cannot start."""
    config = progress.config
    todo = [index for index in range(config.games) if index not in progress.records]
    if progress.records:
        progress.judge()  # the SPRT of the games already played
    if progress.records and (not todo or progress.decision):
        # a resumed match with nothing left to play
        done = "its SPRT had decided" if progress.decision else "it was complete"
        for line in failure_lines(progress):
            print(line)
        for line in summary(progress, _names(progress, config), progress.seconds_before):
            print(line)
        print(f"Resumed: nothing to play, {done}")
        return 0
    error: MatchError | None = None
    interrupted = False
    previous = _stop_on_sigterm()
    try:
        if args.ray:
            from ..match.cluster import run_ray

            run_ray(config, args.ray, args.concurrency or 0, progress.add, todo)
        else:
            run_local(config, args.concurrency or default_concurrency(), progress.add, todo)
    except MatchError as failure:
        error = failure
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    progress.close()
    seconds = progress.seconds()
    if not args.quiet and sys.stderr.isatty():
        sys.stderr.write("\n")
    if error is not None and not progress.records:
        raise error  # a match that could not start has nothing to sum up
    names = _names(progress, config)
    for line in failure_lines(progress):
        print(line)
    for line in summary(progress, names, seconds):
        print(line)
    if interrupted:
        print("Stopped: interrupted")
        return 130
    if error is not None:
        sys.stdout.flush()  # the summary first, then the error line of ferz's main
        raise error
    return 0


def open_pgn(args: argparse.Namespace, progress: MatchProgress) -> None:
    """Start the PGN and the state of a new match, or with --resume take the games of a
    stopped one into `progress`; ValueError (nothing written) when FILE holds games that
    are not to be continued, or a state that cannot be."""
    claim(args.pgn, "ferz match")  # before the checks: two matches started at once both pass them
    config = progress.config
    now = resume.settings(args, config)
    path = state_path(args.pgn)
    written = os.path.exists(args.pgn) and os.path.getsize(args.pgn) > 0
    if not args.resume and (written or path.exists()):
        raise ValueError(
            f"{args.pgn} already holds a match: add --resume to continue it, "
            f"or give another --pgn (or delete {args.pgn} and {path})"
        )
    if args.resume and path.exists():
        state, texts = resume.load(args.pgn, now, config)
        for index in state.games:
            progress.records[index] = state.record(index, config)
        progress.texts = texts
        progress.state = state
        progress.seconds_before = state.seconds
        # the games the state knows, in order: a game written after the last save goes
        write_atomically(args.pgn, "".join(t for _, t in sorted(texts.items())))
        print(
            f"ferz match: resuming {args.pgn}: {len(texts)} games played (state {path})",
            file=sys.stderr,
        )
        return
    if written:
        raise ValueError(f"cannot resume {args.pgn}: it has no state file {path}")
    progress.state = MatchState(os.path.basename(args.pgn), now)
    try:
        open(args.pgn, "w", encoding="utf-8").close()  # the state follows with the first game
    except OSError as error:
        raise ValueError(f"cannot write {args.pgn}: {error.strerror}") from None


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM's handler during a match: stop as Ctrl-C does."""
    raise KeyboardInterrupt


def _stop_on_sigterm():
    """Make SIGTERM (a `kill`, a scheduler's stop) end a match as Ctrl-C does, with the games
    played so far summarised and written; the handler it replaces, or None off the main
    thread (where Python cannot install one)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)


def _names(progress: MatchProgress, config: MatchConfig) -> tuple[str, str]:
    """The engines' names as the games recorded them (their id names), else their labels."""
    names = [config.engines[0].label(), config.engines[1].label()]
    for record in progress.records.values():
        white, black = (0, 1) if record.a_white else (1, 0)
        names[white], names[black] = record.white, record.black
        break
    return names[0], names[1]
