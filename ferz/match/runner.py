"""The schedule of a match and its local runner (threads, each with its own pair of engines).

Game i plays opening i // 2 (cycling through the list), engine A with White in even games, so
games 2k and 2k+1 are a pair with colours reversed. Records are handed to a callback as they
finish, in the order they finish; the callback returns False to stop the match (an SPRT that
is decided, a failure that should stop it). Ray's runner (`cluster`) plays the same schedule.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import Failure
from .adjudication import Adjudication
from .clock import MatchLimits
from .engines import Driver, EngineError, EngineSpec
from .launch import launch
from .openings import Opening
from .referee import GameRecord, play_game

OnRecord = Callable[[GameRecord], bool]


class MatchError(Failure):
    """The match cannot go on (an engine that does not start): `ferz: error:`, exit 2."""


@dataclass(frozen=True)
class MatchConfig:
    """Everything a game needs; plain data, so that Ray can send it to other machines."""

    engines: tuple[EngineSpec, EngineSpec]  # A, B
    variant: str
    budget: MatchLimits
    adjudication: Adjudication
    openings: tuple[Opening, ...]
    games: int
    grace: float = 5.0
    pairs: bool = True  # each opening twice, colours reversed (else once, A with White)
    random_moves: float = 0.0  # share of moves replaced by random ones (data generation)
    seed: int = 1  # of the random moves (per game, so every runner plays the same games)

    def game(self, index: int) -> tuple[Opening, bool]:
        """The opening of game `index` and whether engine A has White."""
        if not self.pairs:
            return self.openings[index % len(self.openings)], True
        return self.openings[(index // 2) % len(self.openings)], index % 2 == 0


def default_concurrency() -> int:
    """The number of cores less one, at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


class EnginePair:
    """One worker's engines A and B, started when first needed and after a failure."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.engines: dict[str, Driver | None] = {"A": None, "B": None}

    def ready(self) -> dict[str, Driver]:
        """Both engines, running; MatchError if one cannot start."""
        out = {}
        for key, spec in zip(("A", "B"), self.config.engines, strict=True):
            engine = self.engines[key]
            if engine is None or not engine.alive():
                if engine is not None:
                    engine.kill()
                try:
                    engine = launch(spec, self.config.variant)
                except EngineError as error:
                    raise MatchError(f"engine {key} ({spec.label()}) {error}") from None
                self.engines[key] = engine
            out[key] = engine
        return out

    def play(self, index: int) -> GameRecord:
        """Play game `index`; a failed engine is ended (restarted for the next game)."""
        engines = self.ready()
        opening, a_white = self.config.game(index)
        config = self.config
        record = play_game(
            index,
            opening,
            a_white,
            engines,
            config.budget,
            config.adjudication,
            config.variant,
            config.grace,
            config.random_moves,
            f"{config.seed}:{index}",
        )
        if record.failed:
            # a failed engine may be dead, stalled or out of step with the referee
            failed = self.engines[record.failed]
            if failed is not None:
                failed.kill()
            self.engines[record.failed] = None
        return record

    def close(self) -> None:
        """Quit both engines."""
        for key, engine in self.engines.items():
            if engine is not None:
                engine.quit()
            self.engines[key] = None


def play_one(config: MatchConfig, index: int) -> GameRecord:
    """One game with freshly started engines (a Ray task's work); MatchError if one does
    not start."""
    pair = EnginePair(config)
    try:
        return pair.play(index)
    finally:
        pair.close()


def run_local(
    config: MatchConfig,
    concurrency: int,
    on_record: OnRecord,
    indexes: Sequence[int] | None = None,
) -> None:
    """Play the schedule (or only its games `indexes`, for a match that resumes) on
    `concurrency` threads; MatchError if an engine cannot start."""
    lock = threading.Lock()
    stop = threading.Event()
    todo = range(config.games) if indexes is None else indexes
    upcoming = iter(todo)
    errors: list[MatchError] = []

    def worker() -> None:
        """Take the next game until the schedule ends or the match stops."""
        pair = EnginePair(config)
        try:
            while not stop.is_set():
                with lock:
                    index = next(upcoming, None)
                if index is None:
                    return
                try:
                    record = pair.play(index)
                except MatchError as error:
                    with lock:
                        errors.append(error)
                    stop.set()
                    return
                with lock:
                    if not stop.is_set() and not on_record(record):
                        stop.set()
        finally:
            pair.close()

    threads = [
        threading.Thread(target=worker, name=f"match-{n}", daemon=True)
        for n in range(max(1, min(concurrency, len(todo))))
    ]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        raise
    if errors:
        raise errors[0]


def on_threads(count: int, threads: int, work: Callable[[int], None]) -> None:
    """Call `work(i)` for i in range(count) on up to `threads` threads, each taking the next i;
    the first MatchError or ValueError stops the handing out and is raised here."""
    lock = threading.Lock()
    upcoming = iter(range(count))
    errors: list[Exception] = []

    def worker() -> None:
        """Take the next item until none is left or one failed."""
        while not errors:
            with lock:
                index = next(upcoming, None)
            if index is None:
                return
            try:
                work(index)
            except (MatchError, ValueError) as error:
                errors.append(error)
                return

    pool = [
        threading.Thread(target=worker, name=f"work-{n}", daemon=True)
        for n in range(max(1, min(threads, count)))
    ]
    for thread in pool:
        thread.start()
    for thread in pool:
        while thread.is_alive():
            thread.join(0.2)  # a timed join lets Ctrl-C through
    if errors:
        raise errors[0]


def play_each(configs: list[MatchConfig], concurrency: int) -> list[list[GameRecord]]:
    """Several small matches at once (the game pairs of a tuner's batch): each config's games,
    in order, on `concurrency` threads, one config to a thread; MatchError if an engine cannot
    start."""
    results: list[list[GameRecord]] = [[] for _ in configs]

    def play(number: int) -> None:
        """Play one config's games with one pair of engines."""
        pair = EnginePair(configs[number])
        try:
            results[number] = [pair.play(i) for i in range(configs[number].games)]
        finally:
            pair.close()

    on_threads(len(configs), concurrency, play)
    return results
