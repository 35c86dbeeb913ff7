"""Training data from engine self-play: a recipe, its openings, the filters, and the resumable
chunked run.

A run plays its games in chunks of `chunk_games` through ferz match's runner (local threads or
Ray tasks), keeps each game's positions that pass the filters, drops positions already kept
(by position key), and writes each chunk as a `.fzd` file (fileformat) in game order, then
records it in `manifest.json`. A chunk is written whole or not at all (a temporary file
renamed), and the manifest after it (a Ctrl-C or SIGTERM meanwhile waits for both), so an
interrupted run loses at most the games of the chunk it was playing, and running the same
command again replays exactly those: the openings and random moves of game g depend only on
the seed and g, and at a fixed node budget with one thread the engines play the same moves,
so the output is the same bytes as an uninterrupted run's, whichever order local threads or
Ray finish the games in.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import shutil
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from ..board import Board, Move
from ..data import OPENINGS
from ..files import claim, held_interrupts, write_atomically
from ..match.adjudication import Adjudication
from ..match.clock import MatchLimits
from ..match.cluster import play_games
from ..match.engines import EngineError, EngineSpec
from ..match.launch import launch
from ..match.openings import Opening, read_positions
from ..match.referee import GameRecord
from ..match.runner import MatchConfig, MatchError
from .fileformat import (
    FLAG_ADJUDICATED,
    FLAG_CAPTURE,
    FLAG_CHECK,
    FLAG_GIVES_CHECK,
    FLAG_PROMOTION,
    FLAG_RANDOM,
    FLAG_TAIL,
    SUFFIX,
    FormatError,
    TrainingRecord,
    chunk_keys,
    encode_position,
    encoding_of,
    record_key,
    write_chunk,
)
from .filters import keep, promotes

MANIFEST = "manifest.json"
LOCK = "datagen"  # the run writing the directory holds DIR/datagen.lock (ferz.files.claim)
RECIPE = "recipe.json"
DRIVERS = ("match", "selfplay")


@dataclass(frozen=True)
class Recipe:
    """Everything that decides the data (the number of games only decides how much)."""

    engine: str = "stockfish"  # a program (path or name on PATH), or "ferz"
    variant: str = "chess"
    nodes: int = 400  # node budget per move
    seed: int = 1
    openings: str = ""  # an EPD/FEN file of openings ("": the bundled ones, for chess)
    book_share: float = 0.5  # share of games from an opening of the book (the rest: start)
    book_plies: tuple[int, int] = (0, 4)  # random plies after a book opening
    start_plies: tuple[int, int] = (6, 11)  # random plies from the start position
    random_moves: float = 0.0  # share of the engine's moves replaced by random ones
    max_opening_score: int = 600  # a game whose first score is larger is dropped
    score_cap: int = 3000  # positions with a larger |score| are dropped (mates too)
    keep_checks: bool = False  # keep positions with the side to move in check
    keep_tactical: bool = False  # keep positions whose best move captures, promotes, checks
    keep_tails: bool = False  # keep the positions of an adjudicated game's deciding window
    resign_score: int = 1500  # adjudication: both engines see this for resign_moves moves
    resign_moves: int = 3
    max_moves: int = 200  # adjudicated a draw at this many moves
    hash_mb: int = 16
    chunk_games: int = 50
    # "match": ferz match's runner and referee; "selfplay": a chunk's games interleaved on one
    # long-lived engine (selfplay.py), other games than the match driver's for the same seed
    driver: str = "match"

    def check(self) -> None:
        """ValueError naming the first setting that makes no sense."""
        from .. import variants

        variants.get(self.variant)  # ValueError naming an unknown variant, before any file
        if self.nodes < 1:
            raise ValueError("--nodes must be at least 1")
        if not 0.0 <= self.book_share <= 1.0 or not 0.0 <= self.random_moves <= 1.0:
            raise ValueError("--book-share and --random-moves are shares between 0 and 1")
        for name in ("book_plies", "start_plies"):
            low, high = getattr(self, name)
            if not 0 <= low <= high:
                raise ValueError(
                    f"--{name.replace('_', '-')}: expected LOW:HIGH with 0 <= LOW <= HIGH"
                )
        if not 0 < self.score_cap <= 32000:
            raise ValueError("--score-cap must be between 1 and 32000 (scores are stored as int16)")
        if self.chunk_games < 1 or self.hash_mb < 1:
            raise ValueError("--chunk-games and --hash must be at least 1")
        if self.driver not in DRIVERS:
            raise ValueError(f"--driver must be one of {', '.join(DRIVERS)}, not {self.driver!r}")
        if self.driver == "selfplay" and self.engine == "ferz":
            raise ValueError(
                "--driver selfplay plays a UCI program (stockfish, fairy-stockfish); "
                "ferz's own search plays with --driver match"
            )
        Adjudication(self.resign_score, self.resign_moves, max_moves=self.max_moves).check()

    def as_dict(self) -> dict:
        """The recipe as JSON-ready data."""
        return {
            k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()
        }

    def default_name(self) -> str:
        """A name for the output directory: engine, variant, nodes and seed."""
        engine = "ferz" if self.engine == "ferz" else Path(self.engine).name
        driver = "" if self.driver == "match" else f"-{self.driver}"
        return f"{engine}-{self.variant}-{self.nodes}n-s{self.seed}{driver}"


@dataclass
class Progress:
    """What a run did: chunks and games done, positions kept and dropped, speed."""

    chunks: int = 0
    games: int = 0
    positions: int = 0
    duplicates: int = 0
    seconds: float = 0.0
    resumed_chunks: int = 0


def cache_dir(name: str) -> Path:
    """The default output directory: $XDG_CACHE_HOME/ferz/datagen/NAME (~/.cache if unset)."""
    from ..cache import cache_dir as root

    return root("datagen", name)


# ------------------------------------------------------------------------------ openings


def book(recipe: Recipe) -> list[str]:
    """The FENs of the recipe's opening book (none for variants without one)."""
    if recipe.openings:
        return [opening.fen for opening in read_positions(recipe.openings, recipe.variant)]
    if recipe.variant == "chess":
        return [opening.fen for opening in read_positions(OPENINGS, "chess")]
    return []


def chess960_start(rng: random.Random) -> str:
    """A random Chess960 start position: bishops on squares of both colours, the king
    between the rooks, Black mirroring White."""
    row: list[str | None] = [None] * 8
    row[rng.randrange(0, 8, 2)] = "b"
    row[rng.randrange(1, 8, 2)] = "b"
    for piece in "qnn":
        row[rng.choice([i for i, p in enumerate(row) if p is None])] = piece
    # the three squares left hold rook, king, rook in that order
    for square, piece in zip([i for i, p in enumerate(row) if p is None], "rkr", strict=True):
        row[square] = piece
    black = "".join(p for p in row if p is not None)
    return f"{black}/pppppppp/8/8/8/8/PPPPPPPP/{black.upper()} w KQkq - 0 1"


def opening(recipe: Recipe, fens: list[str], game: int) -> Opening:
    """Game `game`'s start: a book position plus random plies, or random plies from the
    start position (Chess960: a random one of the 960); it depends only on the seed, the
    variant and the game number."""
    rng = random.Random(f"{recipe.seed}:{recipe.variant}:{game}")
    for _ in range(100):
        if fens and rng.random() < recipe.book_share:
            board = Board(rng.choice(fens), variant=recipe.variant)
            plies = rng.randint(*recipe.book_plies)
        else:
            # Chess960's start positions are the 960 arrangements, not the variant's default
            start = chess960_start(rng) if recipe.variant == "chess960" else None
            board = Board(start, variant=recipe.variant)
            plies = rng.randint(*recipe.start_plies)
        start = board.fen()
        moves = []
        for _ in range(plies):
            if board.is_game_over():
                break
            # (the codes in legal_moves' order: the same choice, without spelling every move)
            code = rng.choice(board.position.legal_moves())
            move = Move(code, board.uci(Move(code, "")))
            board.push(move)
            moves.append(move.uci())
        if not board.is_game_over():
            return Opening(start, tuple(moves))
    raise ValueError(f"no opening of the recipe leaves a {recipe.variant} game unfinished")


# ------------------------------------------------------------------------------ filters


def positions(record: GameRecord, recipe: Recipe, game: int) -> Iterator[TrainingRecord]:
    """The positions of a played game that pass the recipe's filters, with their labels and
    flags (fileformat.FLAG_*): none from a failed or unfinished game, or from one whose
    opening left a lost position (|first score| > max_opening_score)."""
    plies = record.plies
    white = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}.get(record.result)
    if record.failure or white is None or not plies or plies[0].score is None:
        return
    if abs(plies[0].score) > recipe.max_opening_score:
        return
    board = Board(record.opening.fen, variant=record.variant)
    for move in record.opening.moves:
        board.push_uci(move)
    adjudicated = record.termination == "adjudication"
    # the scores that decided the game: each side's last resign_moves moves
    by_score = adjudicated and not record.reason.startswith("move limit")
    tail = len(plies) - 2 * recipe.resign_moves if by_score else len(plies)
    first = len(record.opening.moves)
    for index, ply in enumerate(plies):
        best = board.parse_uci(ply.best or ply.uci)
        flags = FLAG_CHECK if board.is_check() else 0
        flags |= FLAG_CAPTURE if board.is_capture(best) else 0
        flags |= FLAG_PROMOTION if promotes(best.uci()) else 0
        flags |= FLAG_GIVES_CHECK if board.gives_check(best) else 0
        flags |= FLAG_RANDOM if ply.best else 0
        flags |= FLAG_ADJUDICATED if adjudicated else 0
        flags |= FLAG_TAIL if index >= tail else 0
        if ply.score is not None and abs(ply.score) <= recipe.score_cap and keep(flags, recipe):
            result = white if board.turn else -white
            yield TrainingRecord(board.fen(), ply.score, result, first + index, game, flags)
        board.push_uci(ply.uci)


# ------------------------------------------------------------------------------ the run


def engine_spec(recipe: Recipe) -> EngineSpec:
    """How to start the recipe's engine (one thread: the games must be deterministic)."""
    options = {"Hash": str(recipe.hash_mb), "Threads": "1"}
    if recipe.engine == "ferz":
        return EngineSpec([], name="ferz", options=options)
    return EngineSpec([recipe.engine], options=options)


def engine_identity(recipe: Recipe) -> dict:
    """The engine's path, UCI name and the SHA-256 of its program; ValueError (a clear one)
    when it cannot be found or started or cannot play the variant."""
    spec = engine_spec(recipe)
    info: dict[str, str] = {"engine": recipe.engine}
    if recipe.engine != "ferz":
        path = shutil.which(recipe.engine) or shutil.which(recipe.engine, path="/usr/games")
        if path is None:
            hint = " (Debian: apt-get install stockfish)" if "stockfish" in recipe.engine else ""
            raise ValueError(f"engine {recipe.engine!r} not found or not executable{hint}")
        info["path"] = path
        info["sha256"] = _digest(Path(path))
        spec = dataclasses.replace(spec, command=[path])
    try:
        engine = launch(spec, recipe.variant)
    except EngineError as error:
        raise ValueError(f"engine {recipe.engine!r} does not start: {error}") from None
    info["id"] = engine.name
    engine.quit()
    return info


def _digest(path: Path) -> str:
    """The SHA-256 of a program ("" if it cannot be read)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def versions() -> dict:
    """The versions that decide the output besides the engine: ferz and Python."""
    from .. import __version__
    from ..core import compiled

    return {"ferz": __version__, "python": sys.version.split()[0], "compiled_core": compiled()}


def chunk_seed(recipe: Recipe, chunk: int) -> int:
    """The random-move seed of a chunk (the runner seeds game i of a chunk with seed:i)."""
    return zlib.crc32(f"{recipe.seed}:{recipe.variant}:chunk {chunk}".encode())


def chunk_name(chunk: int) -> str:
    """The file name of a chunk."""
    return f"chunk-{chunk:06d}{SUFFIX}"


def _write_json(path: Path, data: dict) -> None:
    """Write JSON atomically (a temporary file renamed)."""
    write_atomically(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def prepare(out: Path, recipe: Recipe, command: list[str]) -> tuple[dict, dict]:
    """Create the output directory, check that it holds no other recipe's data, write the
    recipe file; returns (recipe file, manifest). ValueError for an unusable directory."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise ValueError(f"cannot write to the output directory {out}: {error}") from None
    claim(out / LOCK, "ferz datagen")
    manifest_path, recipe_path = out / MANIFEST, out / RECIPE
    manifest: dict = {"format": 1, "chunks": []}
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text())
            stored = json.loads(recipe_path.read_text())
        except (OSError, ValueError) as error:
            raise ValueError(f"{out} holds a damaged manifest or recipe: {error}") from None
        # a setting the recipe file lacks (written before the setting existed) had its default
        old = {**Recipe().as_dict(), **stored["recipe"]}
        differ = [
            key
            for key in sorted(set(old) | set(recipe.as_dict()))
            if old.get(key) != recipe.as_dict().get(key)
        ]
        if differ:
            raise ValueError(
                f"{out} holds data of another recipe ({', '.join(differ)} differ): give the "
                "same settings to continue it, or another --out or --name"
            )
        engine = stored["engine"]
        if "sha256" in engine and _digest(Path(engine["path"])) != engine["sha256"]:
            raise ValueError(
                f"the engine {engine['path']} is not the program that began the data in {out} "
                "(its SHA-256 differs): its games would differ; use another --out or --name"
            )
        return stored, manifest
    strangers = [p.name for p in out.iterdir() if not _ours(p.name)]
    if strangers:
        raise ValueError(
            f"{out} is not empty and holds no datagen run ({', '.join(sorted(strangers)[:3])}"
            f"{', ...' if len(strangers) > 3 else ''}): give an empty or new --out"
        )
    identity = engine_identity(recipe)
    stored = {
        "recipe": recipe.as_dict(),
        "command": command,
        "engine": identity,
        "versions": versions(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    _write_json(recipe_path, stored)
    _write_json(manifest_path, manifest)
    return stored, manifest


def _ours(name: str) -> bool:
    """Whether a file name is one a run writes (an unfinished first run leaves such files)."""
    ours = (MANIFEST, RECIPE, f"{LOCK}.lock")
    return name in ours or name.startswith("chunk-") or name.endswith(".tmp")


def verified(out: Path, manifest: dict, seen: set[int]) -> int:
    """The number of the manifest's chunks that are intact, in order, their positions' keys
    added to `seen`; a damaged or missing chunk and all after it are dropped (regenerated)."""
    for number, entry in enumerate(manifest["chunks"]):
        try:
            keys = chunk_keys(out / entry["file"])
        except FormatError as error:
            print(f"datagen: {error}: regenerating from chunk {number}", file=sys.stderr)
            del manifest["chunks"][number:]
            return number
        seen.update(keys)
    return len(manifest["chunks"])


def generate(
    recipe: Recipe,
    games: int,
    out: Path,
    concurrency: int = 1,
    ray: str | None = None,
    command: list[str] | None = None,
    report: Callable[[str], None] = print,
) -> Progress:
    """Play `games` games (rounded up to whole chunks) into `out`, continuing what is there;
    ValueError for bad settings, an unusable directory or an engine that does not start."""
    recipe.check()
    if games < 1:
        raise ValueError("--games must be at least 1")
    if ray and recipe.driver != "match":
        raise ValueError("--ray plays with --driver match only")
    fens = book(recipe)
    stored, manifest = prepare(out, recipe, command or sys.argv)
    seen: set[int] = set()
    progress = Progress()
    done = progress.resumed_chunks = verified(out, manifest, seen)
    chunks = -(-games // recipe.chunk_games)
    spec = engine_spec(recipe)
    if "path" in stored["engine"]:
        spec = dataclasses.replace(spec, command=[stored["engine"]["path"]])
    if done:
        report(f"datagen: {done} chunks already in {out}, continuing")
    started = time.monotonic()
    if recipe.driver == "selfplay":
        _run_selfplay(recipe, fens, spec, range(done, chunks), out, manifest, seen, progress,
                      concurrency, started, report)  # fmt: skip
        return progress
    try:
        _run(recipe, fens, spec, range(done, chunks), out, manifest, seen, progress,
             concurrency, ray, started, report)  # fmt: skip
    except MatchError as error:
        raise ValueError(str(error)) from None
    return progress


def _run(
    recipe: Recipe,
    fens: list[str],
    spec: EngineSpec,
    todo: range,
    out: Path,
    manifest: dict,
    seen: set[int],
    progress: Progress,
    concurrency: int,
    ray: str | None,
    started: float,
    report: Callable[[str], None],
) -> None:
    """Play and write the chunks `todo` (one Ray connection for all of them); MatchError
    if an engine does not start or Ray cannot be joined."""
    chunks = todo.stop
    if ray:
        from ..match.cluster import session

        context = session(ray)
    else:
        context = nullcontext()
    with context:
        for chunk in todo:
            first = chunk * recipe.chunk_games
            openings = tuple(opening(recipe, fens, first + i) for i in range(recipe.chunk_games))
            config = MatchConfig(
                (spec, spec),
                recipe.variant,
                MatchLimits(nodes=recipe.nodes),
                Adjudication(recipe.resign_score, recipe.resign_moves, max_moves=recipe.max_moves),
                openings,
                recipe.chunk_games,
                pairs=False,  # one engine plays both sides: a reversed game is the same game
                random_moves=recipe.random_moves,
                seed=chunk_seed(recipe, chunk),
            )
            records = play_games(config, concurrency, ray)
            # game order, whatever order the runner finished them in
            games = [list(positions(records[i], recipe, first + i)) for i in sorted(records)]
            _keep_chunk(
                recipe, chunk, chunks, games, out, manifest, seen, progress, started, report
            )


def _keep_chunk(
    recipe: Recipe,
    chunk: int,
    chunks: int,
    games: list[list[TrainingRecord]],
    out: Path,
    manifest: dict,
    seen: set[int],
    progress: Progress,
    started: float,
    report: Callable[[str], None],
) -> None:
    """Write a played chunk (each game's positions, in game order) without the positions
    already kept, record it in the manifest and report the progress."""
    first = chunk * recipe.chunk_games
    kept, packed = [], []
    encoding = encoding_of(recipe.variant)
    for game in games:
        for record in game:
            position = encode_position(record.fen, encoding)  # (once: its key, its record)
            key = record_key(position, encoding)
            if key in seen:
                progress.duplicates += 1
                continue
            seen.add(key)
            kept.append(record)
            packed.append(position)
    name = chunk_name(chunk)
    header = {"chunk": chunk, "first_game": first, "games": recipe.chunk_games}
    entry = {"file": name, "first_game": first, "games": len(games), "positions": len(kept)}
    # a Ctrl-C between the chunk and its manifest entry would throw the chunk's games away
    # (a chunk the manifest does not list is played again)
    with held_interrupts():
        write_chunk(out / name, kept, recipe.variant, header, packed)
        manifest["chunks"].append(entry)
        _write_json(out / MANIFEST, manifest)
    progress.chunks += 1
    progress.games += len(games)
    progress.positions += len(kept)
    before, progress.seconds = progress.seconds, time.monotonic() - started
    # the chunk's own rate first: the mean since the start stays low long after a pause
    rate = len(kept) / max(progress.seconds - before, 1e-9)
    mean = progress.positions / max(progress.seconds, 1e-9)
    report(
        f"chunk {chunk + 1}/{chunks}: {len(games)} games, "
        f"{len(kept)} positions ({progress.duplicates} duplicates dropped so far), "
        f"{rate:.0f} positions/s ({mean:.0f}/s since the start)"
    )


def _run_selfplay(
    recipe: Recipe,
    fens: list[str],
    spec: EngineSpec,
    todo: range,
    out: Path,
    manifest: dict,
    seen: set[int],
    progress: Progress,
    concurrency: int,
    started: float,
    report: Callable[[str], None],
) -> None:
    """Play and write the chunks `todo` with the selfplay driver: `concurrency` lanes, each
    one long-lived engine playing whole chunks; ValueError if an engine fails."""
    from .selfplay import UciProcess, play_chunk, play_chunks

    options = {"Hash": str(recipe.hash_mb), "Threads": "1"}

    def play(engine: UciProcess, chunk: int) -> list[list[TrainingRecord]]:
        """One chunk's games, each game's kept positions."""
        first = chunk * recipe.chunk_games
        openings = [opening(recipe, fens, first + i) for i in range(recipe.chunk_games)]
        return play_chunk(engine, recipe, openings, first)

    def done(chunk: int, games: object) -> None:
        """Write a finished chunk."""
        _keep_chunk(
            recipe,
            chunk,
            todo.stop,
            games,
            out,
            manifest,
            seen,
            progress,
            started,
            report,  # type: ignore[arg-type]
        )

    play_chunks(
        lambda: UciProcess(spec.command, options, recipe.variant),
        list(todo),
        play,
        min(concurrency, len(todo)),
        done,
    )


def dataset(path: Path) -> list[Path]:
    """The chunk files of a datagen directory in game order (its manifest's), or the file
    itself; ValueError if a directory has no manifest."""
    if path.is_dir():
        try:
            manifest = json.loads((path / MANIFEST).read_text())
        except (OSError, ValueError) as error:
            raise ValueError(f"{path}: no readable {MANIFEST} ({error})") from None
        return [path / entry["file"] for entry in manifest["chunks"]]
    return [path]
