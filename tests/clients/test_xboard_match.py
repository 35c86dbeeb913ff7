"""XBoard 4.9 as the client, headless (`xvfb-run -a`, `-noGUI`) in match mode with claim
testing on: ferz (CECP, or UCI through PolyGlot) against Fairy-Max, MaxQi and itself (in the
variants XBoard judges that Fairy-Max does not play); the saved PGN and XBoard's debug log
must show no illegal move, no false claim, no forfeit and a proper result for every game."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.clients.common import ROOT, run_group
from tests.programs import SEARCH_PATH, find
from tests.protocol.xboard_gui import ENGINE, POLYGLOT, XBOARD

pytestmark = [pytest.mark.e2e, pytest.mark.variant]

#: What XBoard writes when it catches an engine out (result comments and its debug log).
FAULTS = re.compile(
    r"False (win|draw|illegal-move) claim|Forfeit due to|but bare king|[Ii]llegal move"
    r"|invalid move|rejected by|Error (writing to|reading from) .* chess program"
)
RESULTS = {"1-0", "0-1", "1/2-1/2"}


def xboard_match(
    tmp_path: Path,
    second: str,
    variant: str,
    games: int,
    tc: str = "0:10",
    inc: str = "0.1",
    position: str | None = None,
    uci: bool = False,
    max_moves: int = 80,
    timeout: float = 240,
) -> list[dict[str, str]]:
    """XBoard plays a `games`-game match (colours alternating, ferz first: White in game 1)
    of `variant` between ferz and `second`, at `tc` + `inc`, from `position` (a FEN) or the
    start, a game longer than `max_moves` moves adjudicated a draw. Checks the saved PGN and
    the debug log; returns each game's tags, with its `Comment` (the last {...}) and `Moves`."""
    xvfb_run = find("xvfb-run")
    assert xvfb_run and XBOARD, "xvfb-run and xboard come with the xvfb and xboard packages"
    pgn, debug = tmp_path / "games.pgn", tmp_path / "xboard.debug"
    command = [xvfb_run, "-a", XBOARD, "-noGUI", "-variant", variant, "-mg", str(games)]
    command += ["-fcp", f"{ENGINE} {'uci' if uci else 'xboard'}", "-fd", str(ROOT)]
    command += ["-scp", second, "-tc", tc, "-inc", inc, "-testClaims", "true"]
    command += ["-adjudicateDrawMoves", str(max_moves), "-sgf", str(pgn)]
    command += ["-debug", "-nameOfDebugFile", str(debug), "-popupExitMessage", "false"]
    command += ["-saveSettingsOnExit", "false", "-settingsFile", str(tmp_path / "xboardrc")]
    # XBoard waits 10 s between the games of a match (-matchPause 10000) by default
    command += ["-matchPause", "500"]
    if uci:
        command += ["-fUCI", "-adapterCommand", f'{POLYGLOT} -noini -ec "%fcp" -ed "%fd"']
    if position:
        (tmp_path / "start.fen").write_text(position + "\n")
        command += ["-lpf", str(tmp_path / "start.fen")]
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=SEARCH_PATH)
    try:
        run_group(
            command,
            timeout,
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        tail = debug.read_text(errors="replace")[-3000:] if debug.exists() else ""
        pytest.fail(f"the XBoard match did not end within {timeout} s: {tail}")
    log = debug.read_text(errors="replace") if debug.exists() else ""
    assert pgn.exists(), f"XBoard saved no game; debug log tail: {log[-3000:]}"
    played = parse_pgn(pgn.read_text(errors="replace"))
    assert len(played) == games, f"{len(played)} of {games} games saved: {pgn.read_text()}"
    for number, game in enumerate(played, 1):
        ferz_white = number % 2 == 1
        assert game["Result"] in RESULTS, f"game {number}: result {game['Result']}: {game}"
        assert not FAULTS.search(game["Comment"]), f"game {number}: {game['Comment']}"
        flag = "White wins on time" if not ferz_white else "Black wins on time"
        assert flag not in game["Comment"], f"game {number}: ferz lost on time"
    faults = [line for line in log.splitlines() if FAULTS.search(line)]
    engine_errors = re.findall(r"^\d*\s*<first\s*: ((?:Error|tellusererror).*)$", log, re.M)
    assert not faults and not engine_errors, (faults + engine_errors)[:10]
    return played


def parse_pgn(text: str) -> list[dict[str, str]]:
    """The games of a PGN file as XBoard saves them: tags, the last comment and the moves."""
    games = []
    for chunk in re.split(r"\n(?=\[Event )", text.strip()):
        if not chunk.strip():
            continue
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', chunk, re.M))
        body = "\n".join(line for line in chunk.splitlines() if not line.startswith("["))
        comments = re.findall(r"\{([^}]*)\}", body)
        tags["Comment"] = comments[-1] if comments else ""
        tags["Moves"] = re.sub(r"\{[^}]*\}", " ", body)
        games.append(tags)
    return games


def fairymax(tmp_path: Path, name: str = "fairymax") -> str:
    """A command that runs Fairy-Max (or MaxQi, same package) without XBoard's `computer`.

    Debian's Fairy-Max 5.0b dies of a segmentation fault about every second time it reads a
    command it does not know, and XBoard sends `computer` at the start of every game between
    two engines: unfiltered, half the games ended at once with "Error writing to second chess
    program" (a free point for ferz, or a match cut short)."""
    path = find(name)
    assert path, f"{name} comes with the fairymax package"
    wrapper = tmp_path / f"{name}.sh"
    wrapper.write_text(f'#!/bin/sh\ngrep --line-buffered -vx computer | {path} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


# ---------------------------------------------------------------- the default run


@pytest.mark.timeout(300)
@pytest.mark.programs("xboard", "Xvfb", "fairymax")
def test_xboard_match_chess_against_fairy_max(tmp_path: Path) -> None:
    """One game of chess at 5 s + 0.05 s against Fairy-Max, a draw adjudicated after 50
    moves: a proper result, no fault (whole games at 10 s + 0.1 s: the slow series below)."""
    (game,) = xboard_match(
        tmp_path, fairymax(tmp_path), "normal", 1, tc="0:05", inc="0.05", max_moves=50
    )
    assert game["White"].startswith("ferz")


@pytest.mark.timeout(300)
@pytest.mark.programs("xboard", "Xvfb", "fairymax")
def test_xboard_accepts_the_shatranj_bare_king_claim(tmp_path: Path) -> None:
    """Shatranj from a position where White bares Black's king at once (ferz White, then
    Fairy-Max White): ferz claims the win only when XBoard agrees (no false claim), and both
    games end 1-0."""
    fen = "8/8/8/1K4Q1/7p/5P2/6k1/2B5 w - - 0 62"  # Qxh4 bares the king for good
    played = xboard_match(tmp_path, fairymax(tmp_path), "shatranj", 2, position=fen)
    assert [game["Result"] for game in played] == ["1-0", "1-0"], played


@pytest.mark.timeout(300)
@pytest.mark.programs("xboard", "Xvfb", "fairymax", "polyglot")
def test_xboard_runs_ferz_over_uci_through_polyglot(tmp_path: Path) -> None:
    """ferz as a UCI engine behind PolyGlot (XBoard's adapter), from a won ending against
    Fairy-Max: PolyGlot's claims for ferz pass XBoard's test, ferz wins."""
    fen = "4k3/8/8/8/8/8/3PP3/3QK3 w - - 0 1"
    (game,) = xboard_match(tmp_path, fairymax(tmp_path), "normal", 1, position=fen, uci=True)
    assert game["Result"] == "1-0", game


# ---------------------------------------------------------------- longer series


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.programs("xboard", "Xvfb", "fairymax")
@pytest.mark.parametrize("variant", ["normal", "shatranj", "makruk", "capablanca"])
def test_xboard_match_against_fairy_max(tmp_path: Path, variant: str) -> None:
    """Two whole games (colours swapped) at 10 s + 0.1 s against Fairy-Max in each variant
    both play: proper results, no illegal move, no false claim, no forfeit."""
    xboard_match(tmp_path, fairymax(tmp_path), variant, 2, max_moves=200, timeout=800)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.programs("xboard", "Xvfb", "fairymax")
def test_xboard_match_xiangqi_against_maxqi(tmp_path: Path) -> None:
    """Two whole xiangqi games against MaxQi (Fairy-Max's xiangqi engine, same package)."""
    xboard_match(tmp_path, fairymax(tmp_path, "maxqi"), "xiangqi", 2, max_moves=200, timeout=800)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.programs("xboard", "Xvfb", "fairymax", "polyglot")
def test_xboard_match_through_polyglot(tmp_path: Path) -> None:
    """Two whole games of chess with ferz behind PolyGlot against Fairy-Max."""
    xboard_match(tmp_path, fairymax(tmp_path), "normal", 2, uci=True, max_moves=200, timeout=800)


def self_match(tmp_path: Path, variant: str) -> list[dict[str, str]]:
    """Two games of ferz against itself at 5 s + 0.05 s, judged by XBoard."""
    return xboard_match(tmp_path, f"{ENGINE} xboard", variant, 2, tc="0:05", inc="0.05")


@pytest.mark.slow  # the default run keeps one claim judged by XBoard: shatranj's bare king
@pytest.mark.timeout(300)
@pytest.mark.programs("xboard", "Xvfb")
def test_xboard_accepts_the_third_check_claim(tmp_path: Path) -> None:
    """Three-check, ferz against itself: every result ferz claims passes XBoard's test (the
    games end by the third check or another rule XBoard knows, never by a false claim)."""
    self_match(tmp_path, "3check")


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.programs("xboard", "Xvfb")
@pytest.mark.parametrize(
    "variant", ["atomic", "giveaway", "suicide", "losers", "crazyhouse", "kingofthehill"]
)
def test_xboard_accepts_every_rule_ending_ferz_claims(tmp_path: Path, variant: str) -> None:
    """Each variant XBoard judges whose games end by its own rule (explosions, losing all
    pieces, stalemates that win, the hill), ferz against itself: no claim XBoard calls false."""
    self_match(tmp_path, variant)
