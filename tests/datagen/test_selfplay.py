"""ferz datagen --driver selfplay: the same bytes from the same command whatever the
concurrency, resume, the filters, the expected replies played unsearched, the fast FEN and move
reading against Board's, and bad input. The games are played by the stand-in engine of
datagen_engine.py (which names its expected reply, as Stockfish does)."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ferz import commands
from ferz.board import Board
from ferz.datagen import fileformat as ff
from ferz.datagen.generate import Recipe, chess960_start, dataset, generate, opening
from ferz.datagen.selfplay import (
    EngineFailure,
    FastFen,
    Stats,
    UciProcess,
    engine_move,
    last_score,
    play_chunk,
)
from ferz.match.referee import find_move
from ferz.score import MATE_CP

ROOT = Path(__file__).resolve().parents[2]
TACTICAL = ff.FLAG_CAPTURE | ff.FLAG_PROMOTION | ff.FLAG_GIVES_CHECK


@pytest.fixture
def stand_in(tmp_path: Path) -> str:
    """An executable that runs the stand-in engine."""
    path = tmp_path / "stand-in"
    path.write_text(
        f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} "
        f"{ROOT / 'tests' / 'datagen' / 'datagen_engine.py'}\n"
    )
    path.chmod(0o755)
    return str(path)


def recipe_for(engine: str, **changes: object) -> Recipe:
    """A small selfplay recipe with the stand-in engine."""
    small = Recipe(engine=engine, nodes=8, chunk_games=3, max_moves=20, driver="selfplay")
    return dataclasses.replace(small, **changes)  # type: ignore[arg-type]


def files(out: Path) -> dict[str, bytes]:
    """The bytes of each chunk of an output directory."""
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.fzd"))}


def records(out: Path) -> list[ff.TrainingRecord]:
    """Every record of an output directory, in order."""
    return [r for path in dataset(out) for r in ff.read_chunk(path)[1]]


def quiet(line: str) -> None:
    """A report that prints nothing."""


# ------------------------------------------------------------------------------ runs


def test_same_command_same_bytes_whatever_the_concurrency(tmp_path, stand_in) -> None:
    one = generate(recipe_for(stand_in), 9, tmp_path / "one", 1, report=quiet)
    two = generate(recipe_for(stand_in), 9, tmp_path / "two", 2, report=quiet)
    three = generate(recipe_for(stand_in), 9, tmp_path / "three", 3, report=quiet)
    assert one.positions == two.positions == three.positions > 30
    assert files(tmp_path / "one") == files(tmp_path / "two") == files(tmp_path / "three")
    other = generate(recipe_for(stand_in, seed=2), 9, tmp_path / "other", 2, report=quiet)
    assert files(tmp_path / "other") != files(tmp_path / "one") and other.positions
    kept = records(tmp_path / "one")
    assert [r.game for r in kept] == sorted(r.game for r in kept)
    keys = [ff.position_key(r.fen) for r in kept]
    assert len(keys) == len(set(keys)) == one.positions


def test_a_killed_run_and_a_damaged_chunk_are_regenerated(tmp_path, stand_in) -> None:
    full = tmp_path / "full"
    generate(recipe_for(stand_in), 9, full, 2, report=quiet)
    out = tmp_path / "out"
    generate(recipe_for(stand_in), 9, out, 2, report=quiet)
    manifest = json.loads((out / "manifest.json").read_text())
    # a kill between a chunk's rename and the manifest's update, and a damaged chunk
    (out / "chunk-000001.fzd").write_bytes(b"FERZDATA garbage")
    progress = generate(recipe_for(stand_in), 9, out, 2, report=quiet)
    assert progress.resumed_chunks == 1 and progress.chunks == 2
    assert files(out) == files(full)
    assert json.loads((out / "manifest.json").read_text()) == manifest
    # more games extend the data, continuing where it stopped
    assert generate(recipe_for(stand_in), 12, out, 2, report=quiet).chunks == 1
    generate(recipe_for(stand_in), 12, full, 1, report=quiet)
    assert files(out) == files(full)


def test_an_interrupted_run_continues_to_the_same_bytes(tmp_path, stand_in) -> None:
    full = tmp_path / "full"
    generate(recipe_for(stand_in), 12, full, 2, report=quiet)
    out = tmp_path / "interrupted"
    command = [
        sys.executable, "-m", "ferz", "datagen", "--engine", stand_in, "--nodes", "8",
        "--chunk-games", "3", "--max-moves", "20", "--games", "12", "--concurrency", "2",
        "--driver", "selfplay", "--out", str(out),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    slow = dict(env, DATAGEN_STANDIN_DELAY="0.02")  # the same moves, slower
    # Ctrl-C's handler even where this test runs in a background job (SIGINT ignored)
    default_sigint = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    proc = subprocess.Popen(
        command, env=slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint
    )
    deadline = time.monotonic() + 60
    while not (out / "chunk-000000.fzd").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # only ferz's process: its engines are ended for it
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert 1 <= len(files(out)) < 4
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "already in" in done.stdout
    assert files(out) == files(full)


def test_the_driver_is_part_of_the_recipe(tmp_path, stand_in) -> None:
    out = tmp_path / "out"
    generate(recipe_for(stand_in), 3, out, 1, report=quiet)
    with pytest.raises(ValueError, match="another recipe.*driver"):
        generate(recipe_for(stand_in, driver="match"), 3, out, 1, report=quiet)
    assert recipe_for(stand_in).default_name() == "stand-in-chess-8n-s1-selfplay"


def test_a_recipe_file_from_before_the_driver_continues(tmp_path, stand_in) -> None:
    """Data begun before --driver existed (no driver in recipe.json) is the match driver's."""
    out = tmp_path / "out"
    recipe = recipe_for(stand_in, driver="match", nodes=1, chunk_games=2)
    generate(recipe, 2, out, 1, report=quiet)
    stored = json.loads((out / "recipe.json").read_text())
    del stored["recipe"]["driver"]
    (out / "recipe.json").write_text(json.dumps(stored))
    assert generate(recipe, 4, out, 1, report=quiet).chunks == 1


# ------------------------------------------------------------------------------ filters


def test_the_filters_hold_and_can_be_turned_off(tmp_path, stand_in) -> None:
    generate(recipe_for(stand_in), 6, tmp_path / "filtered", 2, report=quiet)
    kept = records(tmp_path / "filtered")
    assert kept and all(r.flags & (ff.FLAG_CHECK | TACTICAL | ff.FLAG_TAIL) == 0 for r in kept)
    assert all(abs(r.score) <= 3000 for r in kept)
    # every kept position is one the stand-in scores so, and none is in check
    for r in kept[:40]:
        board = Board(r.fen)
        assert not board.is_check()
    loose = recipe_for(
        stand_in, keep_checks=True, keep_tactical=True, keep_tails=True, score_cap=32000
    )
    generate(loose, 6, tmp_path / "all", 2, report=quiet)
    flags = [r.flags for r in records(tmp_path / "all")]
    assert any(f & ff.FLAG_CAPTURE for f in flags) and any(f & ff.FLAG_ADJUDICATED for f in flags)
    assert len(flags) > len(kept)


def test_dropped_positions_get_no_label_search(stand_in) -> None:
    """A position in check, or one where the last search expects a capture or a check, is
    played from the expected reply without a search; the others are searched in full."""
    recipe = recipe_for(stand_in, chunk_games=4)
    fens: list[str] = []
    openings = [opening(recipe, fens, game) for game in range(4)]
    engine = UciProcess([stand_in], {"Hash": "1", "Threads": "1"}, "chess")
    try:
        stats = Stats()
        games = play_chunk(engine, recipe, openings, 0, stats)
        loose = Stats()
        everything = dataclasses.replace(recipe, keep_checks=True, keep_tactical=True)
        all_games = play_chunk(engine, everything, openings, 0, loose)
    finally:
        engine.close()
    assert stats.predicted > 0 and loose.predicted == loose.cheap == 0
    kept = sum(map(len, games))
    assert 0 < kept <= stats.searches
    # most full searches give a kept position; without the filters every ply is searched
    assert kept > 0.6 * stats.searches
    assert sum(map(len, all_games)) > kept


def test_a_lost_opening_ends_its_game_at_once(stand_in) -> None:
    recipe = recipe_for(stand_in, max_opening_score=50, chunk_games=1)
    # White has given away its queen: the stand-in scores it -900 for White
    lost = opening(recipe, [], 0)
    lost = dataclasses.replace(
        lost, fen="rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 0 3", moves=()
    )
    engine = UciProcess([stand_in], {}, "chess")
    try:
        stats = Stats()
        assert play_chunk(engine, recipe, [lost], 0, stats) == [[]]
    finally:
        engine.close()
    assert stats.lost_openings == 1 and stats.searches == 1


# ------------------------------------------------------------------------------ parts


@pytest.mark.parametrize(
    "variant", ["chess", "chess960", "xiangqi", "atomic", "makruk", "crazyhouse"]
)
def test_fast_fen_and_move_reading_agree_with_board(variant: str) -> None:
    rng = random.Random(7)
    for _ in range(6):
        start = chess960_start(rng) if variant == "chess960" else None
        board = Board(start, variant=variant)
        fen = FastFen(board.rules)
        for _ in range(80):
            if board.is_game_over():
                break
            assert fen(board) == board.fen()
            moves = board.legal_moves
            for move in moves:
                assert engine_move(board, move.uci()) == find_move(board, move.uci())
            board.push(rng.choice(moves))
    assert engine_move(Board(), "e2e5") is None and engine_move(Board(), "zz") is None


def test_results_are_read_from_lines_that_start_with_bestmove(tmp_path) -> None:
    talker = tmp_path / "talker"
    talker.write_text(
        "#!/bin/sh\nwhile read line; do case $line in\nuci) echo uciok;;\n"
        "isready) echo readyok;;\n"
        "go*) echo 'info string the bestmove e2e4 is not this'; echo 'info score cp 7'\n"
        "     echo 'bestmove d2d4 ponder d7d5';;\nquit) exit 0;;\nesac; done\n"
    )
    talker.chmod(0o755)
    engine = UciProcess([str(talker)], {}, "chess")
    try:
        engine.send(b"position startpos\ngo nodes 1\nposition startpos\ngo nodes 1\n")
        assert engine.result() == engine.result() == ("d2d4", "d7d5", 7)
    finally:
        engine.close()


def test_scores_are_read_as_the_match_driver_reads_them() -> None:
    lines = b"info depth 1 score cp 30 nodes 20 pv e2e4\ninfo depth 2 score cp 12 upperbound\n"
    assert last_score(lines) == 30  # a bound is skipped
    assert last_score(b"info depth 9 score mate 3 pv a1a8\n") == MATE_CP - 3
    assert last_score(b"info depth 9 score mate -2\n") == -(MATE_CP - 2)
    assert last_score(b"info string hello\n") is None


# ------------------------------------------------------------------------------ bad input


def test_bad_input_gives_a_clear_error(tmp_path, capsys, stand_in) -> None:
    args = ["datagen", "--games", "1", "--nodes", "1", "--driver", "selfplay"]
    missing = str(tmp_path / "no-such-engine")
    assert commands.main([*args, "--engine", missing, "--out", str(tmp_path / "o")]) == 2
    assert f"engine {missing!r} not found" in capsys.readouterr().err
    assert commands.main([*args, "--engine", "/bin/true", "--out", str(tmp_path / "t")]) == 2
    assert "does not start" in capsys.readouterr().err
    assert commands.main([*args, "--engine", "ferz", "--out", str(tmp_path / "f")]) == 2
    assert "--driver selfplay plays a UCI program" in capsys.readouterr().err
    ray = ["--engine", stand_in, "--ray", "local", "--out", str(tmp_path / "r")]
    assert commands.main([*args, *ray]) == 2
    assert "--ray plays with --driver match only" in capsys.readouterr().err
    with pytest.raises(EngineFailure, match="cannot play xiangqi"):
        UciProcess([stand_in], {}, "xiangqi")
    with pytest.raises(EngineFailure, match="does not start"):
        UciProcess([missing], {}, "chess")


def test_an_engine_that_dies_mid_run_stops_it_with_a_clear_error(tmp_path) -> None:
    dying = tmp_path / "dying"
    # a UCI greeting, then gone at the first search
    dying.write_text(
        "#!/bin/sh\nwhile read line; do case $line in\n"
        "uci) echo 'option name Hash type spin default 1 min 1 max 8'\n"
        "     echo 'option name Threads type spin default 1 min 1 max 1'; echo uciok;;\n"
        "isready) echo readyok;;\ngo*) exit 3;;\nesac; done\n"
    )
    dying.chmod(0o755)
    recipe = Recipe(engine=str(dying), driver="selfplay", chunk_games=2)
    # the error names the game and the position whose search the engine did not survive
    with pytest.raises(ValueError, match=r"exited \(code 3\), searching game 0: \S+/\S+ [wb] "):
        generate(recipe, 2, tmp_path / "out", 1, report=quiet)


# ------------------------------------------------------------------------------ real engines


@pytest.mark.slow
@pytest.mark.programs("stockfish")
def test_stockfish_selfplay_same_bytes_whatever_the_concurrency(tmp_path) -> None:
    from tests.programs import find

    recipe = Recipe(engine=str(find("stockfish")), nodes=200, chunk_games=4, driver="selfplay")
    generate(recipe, 8, tmp_path / "one", 1, report=quiet)
    generate(recipe, 8, tmp_path / "two", 2, report=quiet)
    assert files(tmp_path / "one") == files(tmp_path / "two") != {}


@pytest.mark.slow
@pytest.mark.variant
@pytest.mark.programs("fairy-stockfish")
def test_fairy_stockfish_selfplay_plays_variants(tmp_path) -> None:
    from tests.programs import find

    for variant in ("xiangqi", "crazyhouse"):
        recipe = Recipe(
            engine=str(find("fairy-stockfish")), variant=variant, nodes=200, chunk_games=2,
            driver="selfplay", max_moves=40, max_opening_score=3000,
        )  # fmt: skip
        progress = generate(recipe, 2, tmp_path / variant, 2, report=quiet)
        assert progress.positions > 0
        assert all(Board(r.fen, variant=variant) for r in records(tmp_path / variant))
