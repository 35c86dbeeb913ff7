"""`ferz bench` and `ferz epd`: output format, parsing, bad input."""

from __future__ import annotations

import pytest

from ferz import bench, commands, epd
from ferz.commands.epd import run as run_suite


def test_bench_prints_signature_last(capsys):
    """The last two lines are the node count and the speed."""
    assert commands.main(["bench", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2].startswith("Nodes searched: ")
    assert lines[-1].startswith("Nodes/second: ")
    assert int(lines[-2].split(": ")[1]) > 0
    assert len(bench.POSITIONS) >= 40


def test_bench_rejects_bad_depth():
    with pytest.raises(ValueError):
        bench.report(0)


def test_epd_line_parsing():
    """Operations, quoted ids and counters are read; malformed lines are refused."""
    record = epd.parse_line(
        '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'
    )
    assert record.ops["bm"] == ["Qg6"]
    assert record.name == "WAC.001"
    assert record.fen.endswith(" w - - 0 1")
    record = epd.parse_line('8/8/8/8/8/8/8/K1k5 b - - hmvc 7; fmvn 30; bm Kd1; id "x y";')
    assert record.fen.endswith(" 7 30")
    assert record.name == "x y"
    assert epd.parse_line("   ") is None
    with pytest.raises(ValueError):
        epd.parse_line("8/8/8 w")


def test_epd_run_counts_solved(tmp_path, capsys):
    """A tiny suite: one mate in 1 solved, a bad line reported, `solved K/N` last."""
    suite = tmp_path / "suite.epd"
    suite.write_text(
        '7k/8/5K2/8/8/8/8/6Q1 w - - bm Qg7#; id "m1";\n'
        "this is not epd\n"
        '7k/8/5K2/8/8/8/8/6Q1 w - - am Qg7#; id "avoid";\n'
    )
    assert run_suite(str(suite), movetime=100) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("m1: ok")
    assert out[1].startswith("line 2: error")
    assert out[2].startswith("avoid: FAIL")
    assert out[-1].startswith("solved 1/3")


def test_epd_missing_file():
    """An unknown file is refused with the list of bundled suites."""
    with pytest.raises(ValueError, match="bundled suites: .*wac"):
        run_suite("/nonexistent/file.epd")


def test_epd_bundled_suite_by_name(capsys):
    """`ferz epd mate_in_1` runs the suite that ships in the package, with no path. (5 000
    nodes: in mate1.003, a tangle of captures, depth 1 alone takes chess-6a over 2 000.)"""
    assert run_suite("mate_in_1", nodes=5000) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("solved 8/8")


def test_bundled_suites_parse():
    """Every bundled EPD line parses into a legal position with a bm or am, and ids are unique."""
    from ferz import data
    from ferz.board import Board

    assert {"wac", "bk", "ecmgcp", "mate_in_1", "arasan2024"} <= set(data.suites())
    for name in data.suites():
        ids = set()
        for line in data.suite(name).read_text().splitlines():
            record = epd.parse_line(line)
            if record is None:
                continue
            Board(record.fen)
            assert "bm" in record.ops or "am" in record.ops, (name, line)
            assert record.name not in ids, (name, record.name)
            ids.add(record.name)
    openings = [epd.parse_line(line) for line in data.OPENINGS.read_text().splitlines()]
    assert len([r for r in openings if r is not None]) == 50


def test_epd_fixed_nodes_is_deterministic(tmp_path, capsys):
    """`nodes` replaces the movetime: the same moves twice, and a bad budget is refused."""
    suite = tmp_path / "suite.epd"
    suite.write_text(
        '7k/8/5K2/8/8/8/8/6Q1 w - - bm Qg7#; id "m1";\n'
        'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id "open";\n'
    )
    outputs = []
    for _ in range(2):
        assert run_suite(str(suite), nodes=3000) == 0
        lines = capsys.readouterr().out.strip().splitlines()
        outputs.append(lines[:-1])  # the last line carries the elapsed time
        assert lines[0].startswith("m1: ok")
    assert outputs[0] == outputs[1]
    with pytest.raises(ValueError):
        run_suite(str(suite), nodes=0)


def test_epd_sets_engine_options(tmp_path, capsys, monkeypatch):
    """`--option NAME=VALUE` reaches the engine before the first search (EvalFile to compare
    networks on a suite); a malformed or unknown option is refused before any position."""
    from ferz.commands import epd as epd_command

    seen: list[tuple[str, object]] = []

    class Recording(epd_command.Engine):
        def set_option(self, name, value):
            seen.append((name, value))
            super().set_option(name, value)

    monkeypatch.setattr(epd_command, "Engine", Recording)
    suite = tmp_path / "suite.epd"
    suite.write_text('7k/8/5K2/8/8/8/8/6Q1 w - - bm Qg7#; id "m1";\n')
    args = ["epd", str(suite), "--nodes", "500", "--option", "Use NNUE=false"]
    assert commands.main(args) == 0
    assert ("Use NNUE", "false") in seen
    assert capsys.readouterr().out.startswith("m1: ok")
    for bad, reason in (("Use NNUE", "expected NAME=VALUE"), ("Bogus=1", "unknown option")):
        assert commands.main(["epd", str(suite), "--option", bad]) == 2
        out, err = capsys.readouterr()
        assert out == "" and reason in err
