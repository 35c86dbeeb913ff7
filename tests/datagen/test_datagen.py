"""ferz datagen: filters and labels, deduplication, determinism, resume after an interruption,
bad input. The games are played by a fast deterministic stand-in engine (datagen_engine.py)
or by ferz itself at a few nodes a move."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from ferz import commands
from ferz.datagen import fileformat as ff
from ferz.datagen import generate as generate_module
from ferz.datagen.generate import Progress, Recipe, dataset, generate, positions
from ferz.match.openings import Opening
from ferz.match.referee import GameRecord, Ply

ROOT = Path(__file__).resolve().parents[2]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.fixture
def stand_in(tmp_path: Path) -> str:
    """An executable that runs the stand-in engine (the runner starts engines by path)."""
    path = tmp_path / "stand-in"
    path.write_text(
        f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} "
        f"{ROOT / 'tests' / 'datagen' / 'datagen_engine.py'}\n"
    )
    path.chmod(0o755)
    return str(path)


def files(out: Path) -> dict[str, bytes]:
    """The bytes of each chunk of an output directory."""
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.fzd"))}


# ------------------------------------------------------------------------------ filters


def game(result: str = "1-0", termination: str = "normal", reason: str = "") -> GameRecord:
    """1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+ 4. Qe2 Qxe2+ (scores in the mover's view)."""
    record = GameRecord(0, "chess", Opening(START), True, result=result)
    record.termination, record.reason = termination, reason
    record.plies = [
        Ply("e2e4", 30), Ply("d7d5", -20), Ply("e4d5", 50), Ply("d8d5", -40),
        Ply("b1c3", 60), Ply("d5e5", -50), Ply("d1e2", 3500), Ply("e5e2", -70),
    ]  # fmt: skip
    return record


def test_filters_drop_checks_tactical_moves_and_large_scores() -> None:
    kept = list(positions(game(), Recipe(), 7))
    # e4d5 and d8d5 capture, d5e5 checks, d1e2 answers a check with |score| over the cap,
    # e5e2 captures
    assert [(r.ply, r.score, r.result) for r in kept] == [(0, 30, 1), (1, -20, -1), (4, 60, 1)]
    assert kept[0].fen == START and {r.game for r in kept} == {7}
    assert all(r.flags == 0 for r in kept)


def test_filters_can_be_turned_off_and_flags_say_why() -> None:
    recipe = Recipe(keep_checks=True, keep_tactical=True, score_cap=32000)
    flags = {r.ply: r.flags for r in positions(game(), recipe, 0)}
    assert flags[2] == flags[3] == ff.FLAG_CAPTURE
    assert flags[5] == ff.FLAG_GIVES_CHECK
    assert flags[6] == ff.FLAG_CHECK
    assert flags[7] == ff.FLAG_CAPTURE | ff.FLAG_GIVES_CHECK


def test_adjudicated_tails_and_bad_games_are_dropped() -> None:
    decided = game("1-0", "adjudication", "both engines see White ahead by 1500 cp or more")
    recipe = Recipe(resign_moves=1, keep_checks=True, keep_tactical=True, score_cap=32000)
    kept = list(positions(decided, recipe, 0))
    assert [r.ply for r in kept] == [0, 1, 2, 3, 4, 5]  # the last two plies decided it
    assert all(r.flags & ff.FLAG_ADJUDICATED for r in kept)
    tails = list(positions(decided, dataclasses.replace(recipe, keep_tails=True), 0))
    assert [r.ply for r in tails if r.flags & ff.FLAG_TAIL] == [6, 7]
    assert list(positions(game("*"), Recipe(), 0)) == []  # unfinished
    lost = game()
    lost.plies[0] = Ply("e2e4", 900)
    assert list(positions(lost, Recipe(), 0)) == []  # the opening left a lost position
    failed = game()
    failed.failure = "crash"
    assert list(positions(failed, Recipe(), 0)) == []


def test_random_moves_are_labelled_with_the_engine_move() -> None:
    record = game()
    # a random a2a3 replaced the engine's e2e4: the position's flags come from e2e4
    record.plies = [Ply("a2a3", 30, best="e2e4"), Ply("e7e5", -20)]
    kept = list(positions(record, Recipe(), 0))
    assert kept[0].flags == ff.FLAG_RANDOM
    assert kept[1].fen.startswith("rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/")


# ------------------------------------------------------------------------------ runs


def recipe_for(engine: str, **changes: object) -> Recipe:
    """A small recipe with the stand-in engine."""
    small = Recipe(engine=engine, nodes=1, chunk_games=2, max_moves=18)
    return dataclasses.replace(small, **changes)  # type: ignore[arg-type]


def test_same_seed_same_bytes_whatever_the_concurrency(tmp_path, stand_in) -> None:
    quiet = lambda line: None  # noqa: E731
    one = generate(recipe_for(stand_in), 4, tmp_path / "one", 1, report=quiet)
    two = generate(recipe_for(stand_in), 4, tmp_path / "two", 2, report=quiet)
    assert one.positions == two.positions > 50
    assert files(tmp_path / "one") == files(tmp_path / "two")
    other = generate(recipe_for(stand_in, seed=2), 4, tmp_path / "other", 2, report=quiet)
    assert files(tmp_path / "other") != files(tmp_path / "one") and other.positions
    # the games follow each other in the files, each position once
    records = [r for path in dataset(tmp_path / "one") for r in ff.read_chunk(path)[1]]
    assert [r.game for r in records] == sorted(r.game for r in records)
    keys = [ff.position_key(r.fen) for r in records]
    assert len(keys) == len(set(keys)) == one.positions


def test_duplicate_positions_are_kept_once(tmp_path, stand_in) -> None:
    # no random plies and no book: every game is the same game
    recipe = recipe_for(stand_in, book_share=0.0, start_plies=(0, 0))
    progress = generate(recipe, 4, tmp_path / "out", 2, report=lambda line: None)
    records = [r for path in dataset(tmp_path / "out") for r in ff.read_chunk(path)[1]]
    assert {r.game for r in records} == {0}
    # games 1-3 repeat all of game 0 (which repeats some of its own positions too)
    assert progress.duplicates >= 3 * len(records) > 0
    assert len({ff.position_key(r.fen) for r in records}) == len(records) == progress.positions


def test_progress_gives_each_chunk_its_own_rate(tmp_path, monkeypatch) -> None:
    # a first chunk that took 100 s (a paused run) must not make the next one look slow
    clock = iter([100.0, 100.002])
    monkeypatch.setattr(generate_module, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    recipe, manifest, progress, lines = Recipe(), {"chunks": []}, Progress(), []
    keep_chunk = generate_module._keep_chunk
    for chunk in (0, 1):
        fen = START if chunk == 0 else START.replace(" w ", " b ")
        games = [[ff.TrainingRecord(fen, 10, 0, 8, chunk * recipe.chunk_games)]]
        keep_chunk(recipe, chunk, 2, games, tmp_path, manifest, set(), progress, 0.0, lines.append)
    assert lines[0].endswith(
        "1 positions (0 duplicates dropped so far), 0 positions/s (0/s since the start)"
    )
    assert lines[1].endswith("500 positions/s (0/s since the start)")
    assert progress.positions == 2 and progress.seconds == 100.002


@pytest.mark.slow
def test_an_interrupted_run_continues_to_the_same_bytes(tmp_path, stand_in) -> None:
    """The match driver's run stopped by Ctrl-C and continued. The default run covers it with
    test_selfplay.py's test of the same name (the same command's Ctrl-C handling and
    continuation from the manifest, with the other driver) and test_match_resume.py's match
    stopped by SIGTERM (the match runner's stop)."""
    full = tmp_path / "full"
    generate(recipe_for(stand_in), 8, full, 2, report=lambda line: None)
    out = tmp_path / "interrupted"
    command = [
        sys.executable, "-m", "ferz", "datagen", "--engine", stand_in, "--nodes", "1",
        "--chunk-games", "2", "--max-moves", "18", "--games", "8", "--concurrency", "2",
        "--out", str(out),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # slow moves (same moves) so that the Ctrl-C lands mid-run however busy the machine is
    slow = dict(env, DATAGEN_STANDIN_DELAY="0.02")
    # Ctrl-C's handler even when this test runs in a shell's background job, whose children
    # inherit SIGINT ignored (Python then keeps it ignored)
    default_sigint = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    proc = subprocess.Popen(
        command, env=slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint
    )
    deadline = time.monotonic() + 60
    while not (out / "chunk-000000.fzd").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # Ctrl-C in the middle of the second chunk
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"run the same command to continue" in err
    assert 1 <= len(files(out)) < 4
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "already in" in done.stdout
    assert files(out) == files(full)
    assert not list(out.glob("*.tmp"))


@pytest.mark.slow
def test_a_killed_run_and_a_damaged_chunk_are_regenerated(tmp_path, stand_in) -> None:
    """The match driver's chunks checked and regenerated; the default run covers it with
    test_selfplay.py's test of the same name (the chunks are checked before either driver
    plays: generate's verified)."""
    full = tmp_path / "full"
    generate(recipe_for(stand_in), 6, full, 2, report=lambda line: None)
    out = tmp_path / "out"
    generate(recipe_for(stand_in), 6, out, 2, report=lambda line: None)
    # a kill between a chunk's rename and the manifest's update, and a damaged chunk
    manifest = (out / "manifest.json").read_text()
    (out / "chunk-000001.fzd").write_bytes(b"FERZDATA garbage")
    progress = generate(recipe_for(stand_in), 6, out, 2, report=lambda line: None)
    assert progress.resumed_chunks == 1 and progress.chunks == 2
    assert files(out) == files(full)
    assert (out / "manifest.json").read_text() == manifest
    # more games extend the data; fewer do nothing
    assert generate(recipe_for(stand_in), 4, out, 2, report=lambda line: None).chunks == 0


def test_another_recipe_in_the_same_directory_is_refused(tmp_path, stand_in) -> None:
    out = tmp_path / "out"
    generate(recipe_for(stand_in), 2, out, 1, report=lambda line: None)
    with pytest.raises(ValueError, match="another recipe.*nodes"):
        generate(recipe_for(stand_in, nodes=2), 2, out, 1, report=lambda line: None)
    Path(stand_in).write_text(Path(stand_in).read_text() + "# another build\n")
    with pytest.raises(ValueError, match="SHA-256 differs"):
        generate(recipe_for(stand_in), 4, out, 1, report=lambda line: None)
    # a directory of other files is no place for data
    with pytest.raises(ValueError, match=r"not empty and holds no datagen run \(out, stand-in\)"):
        generate(recipe_for(stand_in), 2, tmp_path, 1, report=lambda line: None)


@pytest.mark.skipif(os.name != "posix", reason="advisory locks (fcntl) are POSIX only")
def test_a_directory_another_run_writes_is_refused(tmp_path, stand_in) -> None:
    """Two runs of one recipe would write the same chunks: while a process holds the
    directory's datagen.lock, a run there stops before it writes anything."""
    out = tmp_path / "out"
    out.mkdir()
    code = "import sys; from ferz.files import claim; claim(sys.argv[1], 'ferz datagen'); "
    code += "print('held', flush=True); sys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(out / "datagen")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(
            ValueError, match=f"being written by another ferz datagen .process {holder.pid}"
        ):
            generate(recipe_for(stand_in), 2, out, 1, report=lambda line: None)
        assert sorted(p.name for p in out.iterdir()) == ["datagen.lock"]
    finally:
        holder.communicate("", timeout=30)
    generate(recipe_for(stand_in), 2, out, 1, report=lambda line: None)  # free again
    assert (out / "chunk-000000.fzd").exists()


def test_ferz_itself_regenerates_the_same_bytes(tmp_path) -> None:
    # one worker plays both games with the same engines (ucinewgame between), two workers
    # each with fresh ones: the same games
    recipe = Recipe(engine="ferz", nodes=60, chunk_games=2, max_moves=12, hash_mb=1)
    generate(recipe, 2, tmp_path / "a", 1, report=lambda line: None)
    generate(recipe, 2, tmp_path / "b", 2, report=lambda line: None)
    assert files(tmp_path / "a") == files(tmp_path / "b") != {}
    header, records = ff.read_chunk(tmp_path / "a" / "chunk-000000.fzd")
    assert header["first_game"] == 0 and records


# ------------------------------------------------------------------------------ bad input


def test_bad_input_gives_a_clear_error(tmp_path, capsys, stand_in) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    args = ["datagen", "--games", "1", "--nodes", "1"]
    assert commands.main([*args, "--engine", stand_in, "--out", str(blocked / "out")]) == 2
    assert "cannot write to the output directory" in capsys.readouterr().err
    missing = str(tmp_path / "no-such-engine")
    assert commands.main([*args, "--engine", missing, "--out", str(tmp_path / "o")]) == 2
    assert f"engine {missing!r} not found" in capsys.readouterr().err
    assert commands.main([*args, "--engine", "/bin/true", "--out", str(tmp_path / "t")]) == 2
    assert "does not start" in capsys.readouterr().err
    assert commands.main([*args, "--score-cap", "40000", "--out", str(tmp_path / "c")]) == 2
    assert "--score-cap" in capsys.readouterr().err
    assert commands.main(["datagen", "--dump", str(tmp_path)]) == 2
    assert "manifest.json" in capsys.readouterr().err


def test_dump_prints_white_view_text(tmp_path, capsys, stand_in) -> None:
    out = tmp_path / "out"
    generate(recipe_for(stand_in), 2, out, 1, report=lambda line: None)
    assert commands.main(["datagen", "--dump", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    fen, result, score, ply, flags = lines[0].split(";")
    assert result in ("0.0", "0.5", "1.0")
    first = ff.read_chunk(out / "chunk-000000.fzd")[1][0]
    assert (fen, int(score), int(ply), int(flags)) == (
        first.fen,
        first.white_score(),
        first.ply,
        first.flags,
    )


@pytest.mark.slow
@pytest.mark.programs("stockfish")
def test_stockfish_data_over_ray_equals_local(tmp_path) -> None:
    from tests.programs import find, need_module

    need_module("ray", "ray[default]")
    recipe = Recipe(engine=str(find("stockfish")), nodes=200, chunk_games=4)
    generate(recipe, 4, tmp_path / "local", 2, report=lambda line: None)
    generate(recipe, 4, tmp_path / "ray", 2, ray="local", report=lambda line: None)
    assert files(tmp_path / "local") == files(tmp_path / "ray") != {}
