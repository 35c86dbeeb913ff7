"""tools/instructions.py: callgrind's count is read back, and a search's cost is the deeper
run's count less the depth-1 run's, with the node count of the search."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import instructions  # noqa: E402


def test_the_collected_count_is_read_from_callgrinds_report() -> None:
    stderr = "==12== Events    : Ir\n==12== Collected : 3539480348\n==12==\n==12== I refs: 3,539\n"
    assert instructions.collected(stderr) == 3539480348
    with pytest.raises(RuntimeError, match="no count"):
        instructions.collected("valgrind: failed to start tool 'callgrind'\n")


def test_without_valgrind_it_says_so(monkeypatch, capsys) -> None:
    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    assert instructions.main(["--depth", "3"]) == 2
    assert "valgrind is not installed" in capsys.readouterr().err


@pytest.mark.programs("valgrind")
def test_depth_one_is_refused() -> None:
    with pytest.raises(SystemExit):
        instructions.main(["--depth", "1"])


@pytest.mark.slow
@pytest.mark.programs("valgrind")
def test_a_search_is_counted(capsys) -> None:
    assert instructions.main(["--variant", "chess", "--moves", "e2e4 e7e5", "--depth", "4"]) == 0
    first, second = capsys.readouterr().out.splitlines()[:2]
    nodes, count = (int(word) for word in first.split(": ")[1].split()[::2])
    assert first.startswith("chess depth 4: ") and nodes > 20 and count > 1000 * nodes
    assert second.strip().endswith(")") and "instructions a node" in second
