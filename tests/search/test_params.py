"""ferz.params: the FERZ_PARAMS override and the tuned block that tools/tune.py rewrites."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ferz import params, timeman

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import paramfile  # noqa: E402


def test_override_sets_search_time_and_eval_values() -> None:
    """Names from each table are found and set; the tables are restored afterwards."""
    saved = (dict(params.SEARCH), dict(params.TIME), dict(params.EVAL))
    try:
        params._override("se_min_depth=11, moves_to_go=25,tempo=-3")
        assert params.SEARCH["se_min_depth"] == 11
        assert params.TIME["moves_to_go"] == 25
        assert params.EVAL["tempo"] == -3
    finally:
        for table, old in zip((params.SEARCH, params.TIME, params.EVAL), saved, strict=True):
            table.clear()
            table.update(old)


def _search(variant: str) -> Any:
    """A Search on the start position of a built-in variant."""
    from ferz.core import factory
    from ferz.core.evaluate import Evaluator
    from ferz.core.search import Search
    from ferz.core.tt import TT
    from ferz.variants import get

    rules = get(variant)
    ev = Evaluator(rules)
    return Search(factory.position(rules, rules.start_fen, ev), TT(1), ev)


def _lmr_check(variant: str) -> int:
    """The late move reduction of checks a Search reads in a variant."""
    return _search(variant).lmr_check


def test_drop_games_search_with_their_own_values() -> None:
    """`drops.NAME` sets DROPS, which a Search and the clock read in games with drops only."""
    saved = dict(params.DROPS)
    try:
        params._override("drops.lmr_check=7")
        assert params.DROPS["lmr_check"] == 7
        assert (_lmr_check("shogi"), _lmr_check("crazyhouse")) == (7, 7)
        assert _lmr_check("chess") == params.SEARCH["lmr_check"]
        params._override("drops.moves_to_go=40")
        clock = {"wtime": 10000, "winc": 100, "overhead": 0}
        chess, drops = timeman.allocate(0, **clock), timeman.allocate(0, drops=True, **clock)
        assert chess.soft == 10000 / params.TIME["moves_to_go"] + 75
        assert drops.soft == 10000 / 40 + 75
        with pytest.raises(ValueError, match="drops.tempo"):
            params._override("drops.tempo=3")  # an evaluation value has no drop-game twin
    finally:
        params.DROPS.clear()
        params.DROPS.update(saved)


def test_palace_games_search_with_their_own_values() -> None:
    """`palace.NAME` sets PALACE, which a Search reads in games whose royal piece keeps to a
    palace (xiangqi, janggi and their kin) only; a time value has no palace twin."""
    from ferz.variants import get

    # the shipped value, kept by an SPRT in xiangqi: quiet checks survive late move pruning
    assert (_search("xiangqi").lmp_checks, _search("chess").lmp_checks) == (1, 0)
    assert [params.has_palace(get(v)) for v in ("xiangqi", "janggi", "chess", "shogi")] == [
        True,
        True,
        False,
        False,
    ]
    saved = dict(params.PALACE)
    try:
        params._override("palace.lmr_check=9")
        assert (_lmr_check("xiangqi"), _lmr_check("janggi"), _lmr_check("minixiangqi")) == (9, 9, 9)
        assert _lmr_check("chess") == _lmr_check("makruk") == params.SEARCH["lmr_check"]
        assert _lmr_check("shogi") == params.DROPS.get("lmr_check", params.SEARCH["lmr_check"])
        with pytest.raises(ValueError, match="palace.moves_to_go"):
            params._override("palace.moves_to_go=40")
    finally:
        params.PALACE.clear()
        params.PALACE.update(saved)


@pytest.mark.parametrize("spec", ["no_such_name=3", "tempo=fast", "tempo", "tempo=1.5"])
def test_override_refuses_unknown_names_and_non_integers(spec: str) -> None:
    """A bad item is an error naming it, and nothing is changed."""
    before = dict(params.EVAL)
    with pytest.raises(ValueError, match="FERZ_PARAMS"):
        params._override(spec)
    assert before == params.EVAL


def test_environment_override_reaches_a_new_process() -> None:
    """FERZ_PARAMS is read when ferz.params is imported; a bad value stops the import."""
    code = "from ferz.params import SEARCH; print(SEARCH['lmr_base'])"
    env = {"FERZ_PARAMS": "lmr_base=77", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.stdout.strip() == "77"
    env["FERZ_PARAMS"] = "lmr_base=x"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode != 0 and "lmr_base=x" in out.stderr


def test_tuned_block_round_trips(tmp_path: Path) -> None:
    """Rewriting the block with the current values leaves params.py byte for byte the same,
    and the block parses back to the same values."""
    copy = tmp_path / "params.py"
    text = Path(params.__file__).read_text()
    copy.write_text(text)
    paramfile.rewrite(params.KNOWN_VALUES, params.TERMS, params.KING_DANGER, params.PST, copy)
    assert copy.read_text() == text


def test_rewrite_refuses_a_file_without_the_block(tmp_path: Path) -> None:
    """A params file without the markers is an error, and the file is left alone."""
    copy = tmp_path / "params.py"
    copy.write_text("X = 1\n")
    with pytest.raises(ValueError, match="block"):
        paramfile.rewrite({}, {}, {}, {}, copy)
    assert copy.read_text() == "X = 1\n"


SPSA_FILES = sorted((ROOT / "tools" / "spsa").glob("*.txt"))


@pytest.mark.parametrize("path", SPSA_FILES, ids=lambda p: p.name)
def test_spsa_parameter_files_start_at_the_engines_values(path: Path) -> None:
    """A tuning recipe in tools/spsa names parameters that FERZ_PARAMS sets, each starting at
    its present value and inside its range (a file left behind by a change of params.py would
    tune from stale numbers)."""
    from ferz.match import spsa

    tables = {**params.SEARCH, **params.TIME, **params.EVAL}
    specs = spsa.read_params(path)
    assert specs
    for spec in specs:
        assert spec.name in tables, spec.name
        assert spec.start == tables[spec.name], spec.name
        assert spec.low <= spec.start <= spec.high, spec.name
