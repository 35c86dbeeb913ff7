"""Start positions for a match: EPD, FEN or PGN files, or random plies from the start position.

Each opening is played twice, colours reversed. EPD lines give the position's first four
fields (with `hmvc`/`fmvn` opcodes when present); FEN lines the whole FEN; a PGN file gives
each game's start position and main-line moves (up to `plies`, when given), read one game at
a time (`ferz datagen` takes the position after them). Every opening is
checked with ferz's Board: a line that is no position of the variant, or a game that is
already over, is an error naming the file and line.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..board import Board
from ..data import OPENINGS


@dataclass(frozen=True)
class Opening:
    """A start position and the moves (UCI) the engines are given before they take over."""

    fen: str
    moves: tuple[str, ...] = field(default=())


def _epd_fen(line: str) -> str:
    """The FEN of an EPD or FEN line (counters from hmvc/fmvn opcodes, else 0 1)."""
    fields = line.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return " ".join(fields[:6])
    halfmove = re.search(r"\bhmvc\s+(\d+)", line)
    fullmove = re.search(r"\bfmvn\s+(\d+)", line)
    counters = f"{halfmove.group(1) if halfmove else 0} {fullmove.group(1) if fullmove else 1}"
    return " ".join(fields[:4]) + " " + counters


def read_positions(path: str | Path, variant: str) -> list[Opening]:
    """The openings of an EPD/FEN file (blank lines and # comments skipped), or of a PGN file
    (`.pgn`: the position after each game's main line)."""
    path = Path(path)
    if path.suffix.lower() == ".pgn":
        return [Opening(board.fen()) for _, board in _pgn_openings(path, variant, None)]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot read openings {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ValueError(f"cannot read openings {path}: not UTF-8 text") from None
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        fen = _epd_fen(line)
        try:
            board = Board(fen, variant=variant)
        except ValueError as error:
            raise ValueError(f"{path}:{number}: not a {variant} position: {error}") from None
        if board.is_game_over():
            raise ValueError(f"{path}:{number}: the game is already over in {fen}")
        out.append(Opening(board.fen()))
    if not out:
        raise ValueError(f"{path}: no positions")
    return out


def read_games(path: str | Path, variant: str, plies: int | None) -> list[Opening]:
    """The openings of a PGN file: each game's start and main line (its first `plies`)."""
    return [opening for opening, _ in _pgn_openings(Path(path), variant, plies)]


def _pgn_openings(path: Path, variant: str, plies: int | None) -> list[tuple[Opening, Board]]:
    """Each game's opening and the board after it, the file read a game at a time (main lines
    only: a big file takes the memory of its openings, not of its games); ValueError names
    the game and line of a bad one."""
    from .. import pgn

    try:
        handle = open(path, encoding="utf-8-sig", errors="replace")  # noqa: SIM115
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    out = []
    with handle:
        games = pgn.stream_games(handle, mainline_only=True, max_plies=plies)
        for index, game in enumerate(games, 1):
            if game.errors:
                raise ValueError(f"{path}: {game.errors[0]}")
            if game.variant != variant:
                raise ValueError(f"{path}: game {index} is {game.variant}, the match {variant}")
            board = game.board()
            moves = game.mainline_moves()[: plies if plies is not None else None]
            for move in moves:
                board.push_uci(move)
            if board.is_game_over():
                raise ValueError(f"{path}: game {index}: the opening ends the game")
            out.append((Opening(game.board().fen(), tuple(moves)), board))
    if not out:
        raise ValueError(f"{path}: no games")
    return out


def random_openings(variant: str, count: int, plies: int, seed: int) -> list[Opening]:
    """`count` openings of `plies` random legal plies from the start (none that ends the game),
    the same for the same seed."""
    start = Board(variant=variant)
    out = []
    for index in range(count):
        rng = random.Random(f"{seed}:{variant}:{index}")
        for _ in range(100):
            board = start.copy()
            for _ in range(plies):
                if board.is_game_over():
                    break
                board.push(rng.choice(board.legal_moves))
            if not board.is_game_over():
                break
        else:
            raise ValueError(f"no opening of {plies} random plies in {variant} stays unfinished")
        out.append(Opening(start.fen(), tuple(move.uci() for move in board.move_stack)))
    return out


def load(
    path: str | None,
    variant: str,
    plies: int | None,
    count: int,
    seed: int,
) -> list[Opening]:
    """The match's openings: a file (.pgn or EPD/FEN), else the bundled set for chess, else
    `plies` (default 4) random plies for other variants."""
    if path:
        if str(path).lower().endswith(".pgn"):
            return read_games(path, variant, plies)
        return read_positions(path, variant)
    if variant == "chess" and not plies:
        return read_positions(OPENINGS, variant)
    return random_openings(variant, max(1, count), 4 if plies is None else plies, seed)


def order(openings: list[Opening], shuffle: bool, seed: int) -> list[Opening]:
    """The openings in file order, or shuffled with the seed."""
    if not shuffle:
        return list(openings)
    shuffled = list(openings)
    random.Random(seed).shuffle(shuffled)
    return shuffled
