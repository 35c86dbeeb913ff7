"""cshogi as the USI client: its match runner (cshogi.cli) plays ferz against Fairy-Stockfish
or itself with clocks and pondering, checking every move on cshogi's board and the clocks; its
engine driver (cshogi.usi.Engine) checks a mate, `bestmove resign` and byoyomi."""

from __future__ import annotations

import contextlib
import io
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

cshogi = pytest.importorskip("cshogi", reason="needs cshogi (pip install cshogi)")
from cshogi import cli  # noqa: E402
from cshogi.usi import Engine  # noqa: E402

from tests.clients.common import launcher  # noqa: E402
from tests.programs import find  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.variant]

#: cshogi's endings (CSA) that are a fault of an engine: an illegal move, a lost clock.
FAULTS = ("%ILLEGAL_MOVE", "ILLEGAL_MOVE", "%TIME_UP", "%+ILLEGAL_ACTION", "%-ILLEGAL_ACTION")


def match(tmp_path: Path, opponent: str, games: int, plies: int, **clock: int) -> list[str]:
    """cshogi.cli.main: ferz against `opponent` (alternating colours, pondering on), games of
    at most `plies` plies; returns the CSA records, none ended by a fault."""
    ferz = launcher(tmp_path, "usi")
    records = tmp_path / "csa"
    records.mkdir()
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        result = cli.main(
            str(ferz), opponent, games=games, ponder=True, draw=plies, csa=str(records), **clock
        )
    assert result["total"] == games, output.getvalue()
    texts = [path.read_text() for path in sorted(records.glob("*.csa"))]
    assert len(texts) == games, output.getvalue()
    for text in texts:
        endings = [line for line in text.splitlines() if line.startswith("%")]
        assert endings and not set(endings) & set(FAULTS), (endings, output.getvalue())
        assert text.count("\n+") + text.count("\n-") >= 10, text  # some moves were played
    return texts


@pytest.mark.timeout(180)
def test_cshogi_match_with_clock_and_ponder(tmp_path: Path) -> None:
    """Two 20-ply games at 1 s + 0.1 s with pondering, ferz against Fairy-Stockfish (or
    itself without it): every move legal on cshogi's board, no clock lost (whole games: the
    slow test below)."""
    opponent = find("fairy-stockfish") or str(launcher(tmp_path, "usi"))
    match(tmp_path, opponent, 2, 20, time=1000, inc=100)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.programs("fairy-stockfish")
def test_cshogi_match_against_fairy_stockfish_with_byoyomi(tmp_path: Path) -> None:
    """Four whole games (up to 200 plies) with 2 s and a 200 ms byoyomi, pondering, against
    Fairy-Stockfish: no illegal move, no clock lost."""
    match(tmp_path, find("fairy-stockfish"), 4, 200, time=2000, byoyomi=200)


@pytest.fixture
def usi(tmp_path: Path) -> Iterator[Engine]:
    """ferz driven by cshogi's USI engine class."""
    engine = Engine(str(launcher(tmp_path, "usi")))
    try:
        engine.isready()
        engine.usinewgame()
        yield engine
    finally:
        if engine.proc is not None:
            engine.proc.kill()
            engine.proc.wait(5)


@pytest.mark.timeout(60)
def test_mate_then_resign(usi: Engine) -> None:
    """ferz finds the mate in 1 that cshogi's board confirms, and resigns when mated."""
    sfen = "8k/9/8P/9/9/9/9/9/8K b G 1"
    board = cshogi.Board(sfen)
    usi.position(sfen="sfen " + sfen)
    best, _ = usi.go(byoyomi=1000)
    move = board.move_from_usi(best)
    assert board.is_legal(move), best
    board.push(move)
    assert board.is_game_over(), f"{best} does not mate"
    usi.position(sfen="sfen " + sfen, moves=[best])
    assert usi.go(byoyomi=1000)[0] == "resign"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("clock", [{"btime": 0, "wtime": 0}, {}], ids=["empty-clock", "no-clock"])
def test_byoyomi_is_kept(usi: Engine, clock: dict[str, int]) -> None:
    """`go btime 0 wtime 0 byoyomi 500` (as shogi GUIs send it) and `go byoyomi 500`: the move
    comes within the byoyomi (median of 3), measured by the client, legal on cshogi's board."""
    board = cshogi.Board()
    took = []
    for _ in range(3):
        usi.position(moves=[cshogi.move_to_usi(m) for m in board.history])
        start = time.monotonic()
        best, _ = usi.go(byoyomi=500, **clock)
        took.append((time.monotonic() - start) * 1000)
        move = board.move_from_usi(best)
        assert board.is_legal(move), best
        board.push(move)
    assert statistics.median(took) < 500, took
    assert max(took) < 1000, took  # a GUI flags an engine past its byoyomi
