"""book.BookBuilder (what `ferz book build` makes its book with): records of plies in flat arrays,
sorted and summed in compiled code (core/polyglot.py), spilled to temporary files past a size;
the same file byte for byte as book.build's rows saved, for every option and with the counts
halved as Polyglot halves them, compiled or not."""

from __future__ import annotations

import functools
import io
import subprocess
import sys

import pytest

from ferz import book, pgn, variants
from ferz.board import Board
from tests.library.test_pgn_book import random_games
from tests.pure_core import run_pure


def built(tmp_path, games, max_ply=1024, min_games=3, uniform=False, spill=None) -> bytes:
    """The book a BookBuilder makes of (end Board, result) games."""
    path = tmp_path / "builder.bin"
    path.unlink(missing_ok=True)
    kwargs = {} if spill is None else {"spill": spill}
    with book.BookBuilder(max_ply, min_games, uniform, **kwargs) as builder:
        for end, result in games:
            codes = [move.code for move in end.move_stack]
            builder.add(end.starting_fen, end.rules, end.chess960, codes, result)
        entries, positions = builder.write(path)
        assert builder.parts is None  # the temporary files are gone
    data = path.read_bytes() if path.exists() else b""
    assert entries == len(data) // 16
    assert positions == len({data[i : i + 8] for i in range(0, len(data), 16)})
    return data


def saved(tmp_path, games, max_ply=1024, min_games=3, uniform=False) -> bytes:
    """The book build() makes of the same games, saved."""
    path = tmp_path / "build.bin"
    book.save(path, book.build(games, max_ply=max_ply, min_games=min_games, uniform=uniform))
    return path.read_bytes()


@functools.cache
def shared_games() -> list[tuple[Board, str]]:
    """200 random games and 40 of them again (weights above 1), made once for the tests."""
    games = random_games(200, 11)
    return games + [(end, "1-0") for end, _ in games[:40]]


@pytest.mark.parametrize(
    ("max_ply", "min_games", "uniform", "spill"),
    [(1024, 1, False, None), (1024, 1, False, 4000), (12, 2, False, 4000), (8, 1, True, None)],
)
def test_the_same_book_as_build(tmp_path, max_ply, min_games, uniform, spill) -> None:
    """Random games (e.p., promotions, castling) many of which share their first moves; a
    small spill size sends the records through the temporary files."""
    games = shared_games()
    theirs = saved(tmp_path, games, max_ply, min_games, uniform)
    mine = built(tmp_path, games, max_ply, min_games, uniform, spill)
    assert mine == theirs and len(mine) > 16 * 50


def test_counts_halved_in_the_games_order(tmp_path) -> None:
    """Past 16 383 games through one move every move of the position is halved, the later
    games counted after: spilled in parts or not, the file is build()'s."""
    e4, d4 = Board(), Board()
    e4.push_san("e4")
    d4.push_san("d4")
    games = [(d4, "1/2-1/2")] * 11 + [(e4, "1-0")] * 16390 + [(d4, "1/2-1/2")] * 3
    theirs = saved(tmp_path, games, min_games=1)
    assert built(tmp_path, games, min_games=1) == theirs
    assert built(tmp_path, games, min_games=1, spill=5000) == theirs


def test_chess960_and_no_entries(tmp_path) -> None:
    fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1"
    games = random_games(40, 5, fen)
    assert built(tmp_path, games, min_games=1) == saved(tmp_path, games, min_games=1)
    assert built(tmp_path, games[:2], min_games=50) == b""  # no move kept: no file
    assert not (tmp_path / "builder.bin").exists()
    with pytest.raises(ValueError, match="standard chess"):
        book.BookBuilder().add(
            variants.get("gardner").start_fen, variants.get("gardner"), False, [], "*"
        )


SCRIPT = """
import json, sys, tempfile, os
from ferz import book, variants
from ferz.core import compiled, polyglot
games, spill = json.loads(sys.stdin.read())
rules = variants.get("chess")
path = os.path.join(tempfile.mkdtemp(), "b.bin")
with book.BookBuilder(1024, 1, False, spill=spill) as builder:
    for codes, result in games:
        builder.add(rules.start_fen, rules, False, codes, result)
    builder.write(path)
print(json.dumps({"compiled": compiled() or not polyglot.__file__.endswith(".py"),
                  "results": open(path, "rb").read().hex()}))
"""


def test_the_uncompiled_builder_writes_the_same(tmp_path) -> None:
    games = random_games(40, 8)
    data = built(tmp_path, games, min_games=1)
    cases = [[[m.code for m in end.move_stack], result] for end, result in games]
    assert bytes.fromhex(run_pure(SCRIPT, [cases, 4000])) == data


def test_book_build_writes_what_build_lines_makes(tmp_path) -> None:
    """`ferz book build` on a PGN with comments, variations, a bad game, Chess960 and
    crazyhouse games: the book of book.build_lines over stream_games' main lines (what the
    command used before), byte for byte, for its options."""
    from tests.library.test_pgn_mainlines import EDGE, random_pgn

    text = random_pgn(60, 6) + "\n" + EDGE
    path = tmp_path / "g.pgn"
    path.write_text(text)
    for options in (["--min-games", "1"], ["--max-ply", "6", "--min-games", "2", "--uniform"]):
        max_ply = int(options[1]) if options[0] == "--max-ply" else 1024
        min_games = int(options[options.index("--min-games") + 1])
        lines = []
        for game in pgn.stream_games(io.StringIO(text), mainline_only=True, max_plies=max_ply):
            if game.errors or game.variant not in ("chess", "chess960"):
                continue
            rules = variants.get(game.variant)
            fen = game.headers.get("FEN") or rules.start_fen
            lines.append(
                (fen, rules, rules.chess960, game.mainline_moves(), game.headers["Result"])
            )
        rows = book.build_lines(lines, max_ply, min_games, "--uniform" in options)
        book.save(tmp_path / "ref.bin", rows)
        out = tmp_path / "b.bin"
        run = subprocess.run(
            [sys.executable, "-m", "ferz", "book", "build", str(path), "-o", str(out), *options],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        assert out.read_bytes() == (tmp_path / "ref.bin").read_bytes()
        assert f"from {len(lines)} games" in run.stdout
        games = pgn.stream_games(io.StringIO(text), mainline_only=True, max_plies=max_ply)
        bad = sum(1 for game in games if game.errors)
        assert run.stderr.count("skipped a bad game") == bad and bad >= 5
