"""Ray: the same schedule played as Ray tasks on a cluster, one CPU each.

Each task starts both engines, plays one game and returns its record, which the driver hands
to the same callback as the local runner, so the progress line, the PGN and the SPRT work as
they do locally. A task whose worker dies is retried by Ray (`max_retries`), and once more by
the driver if Ray gives up, so no game is lost. Ray is an optional dependency:
`pip install 'ferz[cluster]'`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import MissingPackage
from .referee import GameRecord
from .runner import MatchConfig, MatchError, OnRecord, play_one, run_local

RETRIES = 3  # Ray's own retries of a task whose worker died


def _ray() -> Any:
    """The ray module; MissingPackage naming the extra when it is missing."""
    try:
        import ray
    except ImportError:
        raise MissingPackage("ray", "--ray", "'ray[default]'") from None
    return ray


def connect(address: str) -> Any:
    """Join the cluster at `address` (`auto`: the one this machine belongs to; `local`: a
    private one in this process) and return the ray module."""
    ray = _ray()
    if not ray.is_initialized():
        try:
            # "local" starts a private instance even where a cluster runs (Ray's own rule)
            ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise MatchError(f"cannot join the Ray cluster at {address!r}: {error}") from None
    return ray


@contextmanager
def session(address: str) -> Iterator[Any]:
    """The ray module joined to `address` for the duration; a connection made here is closed
    at the end (and a private `local` instance with it)."""
    ray = _ray()
    opened = not ray.is_initialized()
    connect(address)
    try:
        yield ray
    finally:
        if opened:
            ray.shutdown()


def _task(config: MatchConfig, index: int) -> GameRecord | str:
    """A Ray task: one game, or the message of an engine that does not start."""
    try:
        return play_one(config, index)
    except MatchError as error:
        return f"error: {error}"


def cluster_cpus(ray: Any) -> int:
    """The CPUs of the cluster (at least one)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_ray(
    config: MatchConfig,
    address: str,
    in_flight: int,
    on_record: OnRecord,
    indexes: Sequence[int] | None = None,
) -> None:
    """Play the schedule (or only its games `indexes`) as Ray tasks, at most `in_flight` at
    once (0: one per cluster CPU)."""
    with session(address) as ray:
        _run(ray, config, in_flight, on_record, indexes)


def _run(
    ray: Any,
    config: MatchConfig,
    in_flight: int,
    on_record: OnRecord,
    indexes: Sequence[int] | None = None,
) -> None:
    """The schedule on a joined cluster."""
    remote = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(_task)
    limit = in_flight or cluster_cpus(ray)
    upcoming = iter(range(config.games) if indexes is None else indexes)
    shared = ray.put(config)
    pending: dict[Any, int] = {}
    replays: dict[int, int] = {}

    def submit(index: int) -> None:
        """Start the task of game `index`."""
        pending[remote.remote(shared, index)] = index

    for index in upcoming:
        submit(index)
        if len(pending) >= limit:
            break
    stopped = False
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            ref = done[0]
            index = pending.pop(ref)
            try:
                outcome = ray.get(ref)
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as error:
                # Ray retried the task and gave up: play the game once more elsewhere
                replays[index] = replays.get(index, 0) + 1
                if replays[index] > 1:
                    raise MatchError(
                        f"game {index + 1} lost twice with its worker: {error}"
                    ) from None
                submit(index)
                continue
            if isinstance(outcome, str):
                raise MatchError(outcome.removeprefix("error: "))
            if not stopped and not on_record(outcome):
                stopped = True
            if not stopped:
                following = next(upcoming, None)
                if following is not None:
                    submit(following)
            elif pending:
                for ref in list(pending):
                    ray.cancel(ref, force=True)
                pending.clear()
    finally:
        for ref in list(pending):
            ray.cancel(ref, force=True)


def play_each(configs: list[MatchConfig], address: str) -> list[list[GameRecord]]:
    """Several small matches as Ray tasks, one game each (the runner's `play_each` on a
    cluster); a game whose worker died is played again, once."""
    with session(address) as ray:
        remote = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(_task)
        results: list[list[GameRecord | None]] = [[None] * c.games for c in configs]
        pending = {
            remote.remote(config, index): (number, index, 0)
            for number, config in enumerate(configs)
            for index in range(config.games)
        }
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            number, index, tries = pending.pop(done[0])
            try:
                outcome = ray.get(done[0])
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as error:
                if tries:
                    raise MatchError(f"a game lost twice with its worker: {error}") from None
                pending[remote.remote(configs[number], index)] = (number, index, 1)
                continue
            if isinstance(outcome, str):
                raise MatchError(outcome.removeprefix("error: "))
            results[number][index] = outcome
    return [[record for record in games if record is not None] for games in results]


def play_games(
    config: MatchConfig, concurrency: int = 1, ray: str | None = None
) -> dict[int, GameRecord]:
    """Every game of the schedule, by index (for tools that generate data from games), played
    locally on `concurrency` threads or as Ray tasks at `ray`; MatchError if an engine cannot
    start."""
    records: dict[int, GameRecord] = {}

    def keep(record: GameRecord) -> bool:
        """Store a record and go on."""
        records[record.index] = record
        return True

    if ray:
        run_ray(config, ray, concurrency if concurrency > 1 else 0, keep)
    else:
        run_local(config, concurrency, keep)
    return records
