"""The error contract of every `ferz` command (README.md, "Errors"): bad input, a missing or
unreadable file, a missing optional package or an engine that fails gives one line
`ferz: error: ...` on stderr and exit code 2, leaves no output file (and no lock or temporary
file) behind, and never a traceback.

Most cases run in this process (commands.main, fast: an exception that escapes would fail the
test as a traceback would); those where only a real process shows the traceback (an optional
package missing, FERZ_PARAMS, which ferz reads when it starts) run `python -m ferz`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ferz import commands

ROOT = Path(__file__).resolve().parents[2]
EXITS = f"{sys.executable} -c pass"  # an engine that exits at once
JUNK = "this is not\nwhat the command reads\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A missing, an empty, a junk text and a binary file, and where outputs would go."""
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "junk").write_text(JUNK)
    (tmp_path / "binary").write_bytes(bytes(range(256)) * 3 + b"\x01")
    good = tmp_path / "good.pgn"
    good.write_text('[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n')
    return {
        "missing": tmp_path / "missing",
        "empty": tmp_path / "empty",
        "junk": tmp_path / "junk",
        "binary": tmp_path / "binary",
        "good": good,
        "out": tmp_path / "out",  # no command below may create it
    }


def assert_contract(code: int, out: str, err: str, folder: Path, output: Path) -> None:
    """Exit 2, one `ferz: error:` line, no traceback, no summary or listing on stdout, and
    nothing written: not the output, nor a lock or a temporary file."""
    assert code == 2, (out, err)
    errors = [line for line in err.splitlines() if line.startswith("ferz: error: ")]
    assert len(errors) == 1, err
    assert "Traceback" not in err and "Traceback" not in out, err
    assert "[Errno" not in err, err  # an OSError's message is its words, not its repr
    assert out == "", out
    assert not output.exists(), f"{output} was written"
    left = [p.name for p in folder.iterdir() if p.suffix in (".lock", ".tmp")]
    assert left == [], left


#: (case, the command line given the files) run in this process
IN_PROCESS: list[tuple[str, Callable[[dict[str, Path]], list[str]]]] = [
    ("perft bad FEN", lambda f: ["perft", "2", "--fen", "8/8/8 w - - 0 1"]),
    ("perft unknown variant", lambda f: ["perft", "1", "--variant", "nosuch"]),
    ("bench bad depth", lambda f: ["bench", "0"]),
    ("--variants missing", lambda f: ["--variants", str(f["missing"]), "perft", "1"]),
    ("--variants binary", lambda f: ["--variants", str(f["binary"]), "perft", "1"]),
    ("check missing", lambda f: ["check", str(f["missing"])]),
    ("check junk", lambda f: ["check", str(f["junk"])]),
    ("play bad FEN", lambda f: ["play", "--fen", "x"]),
    ("play unknown variant", lambda f: ["play", "--variant", "nosuch"]),
    ("epd missing", lambda f: ["epd", str(f["missing"]), "--nodes", "10"]),
    ("epd empty", lambda f: ["epd", str(f["empty"]), "--nodes", "10"]),
    ("epd junk", lambda f: ["epd", str(f["junk"]), "--nodes", "10"]),
    ("epd binary", lambda f: ["epd", str(f["binary"]), "--nodes", "10"]),
    ("analyse missing", lambda f: ["analyse", str(f["missing"]), "-o", str(f["out"])]),
    ("analyse empty", lambda f: ["analyse", str(f["empty"]), "-o", str(f["out"])]),
    ("analyse junk", lambda f: ["analyse", str(f["junk"]), "-o", str(f["out"])]),
    (
        "analyse engine exits",
        lambda f: ["analyse", str(f["good"]), "--engine", EXITS, "-o", str(f["out"])],
    ),
    ("book build missing", lambda f: ["book", "build", str(f["missing"]), "-o", str(f["out"])]),
    ("book build empty", lambda f: ["book", "build", str(f["empty"]), "-o", str(f["out"])]),
    ("book build junk", lambda f: ["book", "build", str(f["junk"]), "-o", str(f["out"])]),
    ("book build no move kept", lambda f: ["book", "build", str(f["good"]), "-o", str(f["out"])]),
    ("book probe missing", lambda f: ["book", "probe", str(f["missing"])]),
    ("book probe binary", lambda f: ["book", "probe", str(f["binary"])]),
    ("book probe bad FEN", lambda f: ["book", "probe", str(f["binary"]), "--fen", "x"]),
    *[
        (
            f"match openings {kind}",
            lambda f, kind=kind: [
                "match",
                "--engine",
                "cmd=ferz",
                "--engine",
                "cmd=ferz",
                "--depth",
                "1",
                "--games",
                "2",
                "--openings",
                str(f[kind]),
                "--pgn",
                str(f["out"]),
            ],
        )  # fmt: skip
        for kind in ("missing", "empty", "junk", "binary")
    ],
    (
        "match unknown variant",
        lambda f: ["match", "--engine", "cmd=ferz", "--engine", "cmd=ferz", "--variant", "x"],
    ),
    (
        "match engine exits",
        lambda f: [
            "match",
            "--engine",
            f"cmd={EXITS}",
            "--engine",
            "cmd=ferz",
            "--depth",
            "1",
            "--games",
            "2",
            "--quiet",
            "--pgn",
            str(f["out"]),
        ],
    ),  # fmt: skip
    (
        "match engine missing",
        lambda f: [
            "match",
            "--engine",
            f"cmd={f['missing']}",
            "--engine",
            "cmd=ferz",
            "--depth",
            "1",
            "--games",
            "2",
            "--quiet",
            "--pgn",
            str(f["out"]),
        ],
    ),  # fmt: skip
    ("spsa params missing", lambda f: ["spsa", "--params", str(f["missing"])]),
    ("spsa params binary", lambda f: ["spsa", "--params", str(f["binary"])]),
    ("spsa bad param", lambda f: ["spsa", "--param", "x", "--state", str(f["out"])]),
    (
        "spsa openings missing",
        lambda f: [
            "spsa",
            "--param",
            "rfp_margin,150,80,250",
            "--openings",
            str(f["missing"]),
            "--state",
            str(f["out"]),
        ],
    ),  # fmt: skip
    (
        "spsa engine lacks the option",
        lambda f: [
            "spsa",
            "--param",
            "no_such_option,150,80,250",
            "--engine",
            f"cmd={sys.executable} -m ferz",
            "--iterations",
            "1",
            "--nodes",
            "50",
            "--concurrency",
            "1",
            "--state",
            str(f["out"]),
            "--quiet",
        ],
    ),  # fmt: skip
    (
        "spsa engine exits",
        lambda f: [
            "spsa",
            "--param",
            "x_y,150,80,250",
            "--engine",
            f"cmd={EXITS}",
            "--iterations",
            "1",
            "--concurrency",
            "1",
            "--state",
            str(f["out"]),
            "--quiet",
        ],
    ),  # fmt: skip
    (
        "datagen engine missing",
        lambda f: [
            "datagen",
            "--engine",
            str(f["missing"]),
            "--games",
            "1",
            "--out",
            str(f["out"]),
        ],
    ),
    (
        "datagen unknown variant",
        lambda f: ["datagen", "--engine", "ferz", "--variant", "x", "--out", str(f["out"])],
    ),
    ("datagen dump missing", lambda f: ["datagen", "--dump", str(f["missing"])]),
    ("datagen dump binary", lambda f: ["datagen", "--dump", str(f["binary"])]),
]


@pytest.mark.parametrize("case", IN_PROCESS, ids=[name for name, _ in IN_PROCESS])
def test_bad_input_is_one_error_line_and_exit_2(case, files, tmp_path, capsys) -> None:
    """Each command, fed a missing, empty, junk or binary file, a bad FEN, an unknown variant
    or an engine that exits or lacks an option, keeps the contract."""
    _, argv = case
    code = commands.main(argv(files))
    captured = capsys.readouterr()
    assert_contract(code, captured.out, captured.err, tmp_path, files["out"])


@pytest.mark.parametrize("command", ["analyse", "spsa", "match"])
def test_ray_missing_is_one_error_line(command, files, tmp_path, capsys, monkeypatch) -> None:
    """--ray without Ray installed (simulated: `import ray` fails) names the package to
    install, whatever Ray this machine has."""
    monkeypatch.setitem(sys.modules, "ray", None)
    argv = {
        "analyse": ["analyse", str(files["good"]), "--depth", "1", "-o", str(files["out"])],
        "spsa": ["spsa", "--param", "rfp_margin,150,80,250", "--state", str(files["out"])],
        "match": ["match", "--engine", "cmd=ferz", "--engine", "cmd=ferz", "--depth", "1"],
    }[command]
    code = commands.main([*argv, "--ray", "auto", "--quiet"])
    captured = capsys.readouterr()
    assert_contract(code, captured.out, captured.err, tmp_path, files["out"])
    assert "pip install 'ferz[cluster]'" in captured.err


def ferz(*argv: str, env: dict[str, str] | None = None, stdin: str = "", block: str = ""):
    """Run `python -m ferz ARGV` (with the module `block` made unimportable, as if it were not
    installed); (exit code, stdout, stderr)."""
    prelude = f"import sys; sys.modules[{block!r}] = None; " if block else "import sys; "
    code = prelude + "from ferz.commands import main; sys.exit(main(sys.argv[1:]))"
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        input=stdin,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("command", "package"), [("analyse", "ray"), ("spsa", "ray"), ("web", "starlette")]
)
def test_a_missing_package_is_no_traceback_in_a_real_process(command, package, files, tmp_path):
    """The reported cases: `ferz analyse --ray auto` and `ferz spsa --ray auto` without Ray
    ended in a traceback (exit 1); `ferz web` without its extra is the same kind of error."""
    argv = {
        "analyse": ["analyse", str(files["good"]), "--depth", "1", "-o", str(files["out"])],
        "spsa": ["spsa", "--param", "rfp_margin,150,80,250", "--state", str(files["out"])],
        "web": ["web", "--no-browser", "--db", str(files["out"])],
    }[command]
    ray = ["--ray", "auto"] if package == "ray" else []
    code, out, err = ferz(*argv, *ray, block=package)
    assert_contract(code, out, err, tmp_path, files["out"])
    assert "pip install 'ferz[" in err and package in err


def test_an_engine_without_the_tuned_option_is_no_traceback(files, tmp_path) -> None:
    """The reported case: `ferz spsa --engine cmd=OTHER` whose engine lacks the option."""
    code, out, err = ferz(
        "spsa", "--param", "no_such_option,150,80,250", "--engine",
        f"cmd={sys.executable} -m ferz", "--iterations", "1", "--nodes", "50",
        "--concurrency", "1", "--state", str(files["out"]), "--quiet",
    )  # fmt: skip
    assert_contract(code, out, err, tmp_path, files["out"])
    assert "has no option 'no_such_option'" in err


@pytest.mark.parametrize("command", [["perft", "1"], ["bench", "1"], ["variants"]])
def test_a_bad_ferz_params_stops_every_command(command, tmp_path) -> None:
    """An unknown FERZ_PARAMS name is an error for every command, even one that never reads
    a parameter (perft accepted it)."""
    code, out, err = ferz(*command, env={"FERZ_PARAMS": "nosuch=1"})
    assert_contract(code, out, err, tmp_path, tmp_path / "out")
    assert "FERZ_PARAMS: cannot set 'nosuch=1'" in err


@pytest.mark.parametrize(
    ("command", "first", "reply"),
    [
        ([], "uci", "info string error: FERZ_PARAMS: cannot set 'nosuch=1'"),
        (["uci"], "uci", "info string error: FERZ_PARAMS: cannot set 'nosuch=1'"),
        ([], "usi", "info string error: FERZ_PARAMS: cannot set 'nosuch=1'"),
        ([], "ucci", "info message error: FERZ_PARAMS: cannot set 'nosuch=1'"),
        ([], "xboard", "tellusererror FERZ_PARAMS: cannot set 'nosuch=1'"),
    ],
)
def test_a_bad_ferz_params_is_told_in_the_handshake(command, first, reply) -> None:
    """As a GUI's engine, ferz with a bad FERZ_PARAMS answers the first line with the reason
    in the protocol's words (docs/engine.md), then stops: exit 2, the same line on stderr."""
    code, out, err = ferz(*command, env={"FERZ_PARAMS": "nosuch=1"}, stdin=f"{first}\n")
    assert (code, out.splitlines()) == (2, [reply])
    assert err.splitlines() == ["ferz: error: FERZ_PARAMS: cannot set 'nosuch=1'"]


@pytest.mark.parametrize("proto", ["uci", "xboard"])
def test_a_match_names_the_bad_ferz_params_of_its_engine(proto, tmp_path, capsys) -> None:
    """`ferz match` shows why ferz with a bad params= did not start, not only its exit code."""
    limit = ["--tc", "1+0.1"] if proto == "xboard" else ["--depth", "1"]
    code = commands.main(
        [
            "match", "--engine", "cmd=ferz", f"proto={proto}", "params=nosuch=1", "--engine",
            "cmd=ferz", f"proto={proto}", *limit, "--games", "2", "--quiet",
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert_contract(code, captured.out, captured.err, tmp_path, tmp_path / "out")
    assert "engine A (ferz) cannot start: FERZ_PARAMS: cannot set 'nosuch=1'" in captured.err


def test_an_epd_suite_with_some_bad_lines_runs_the_rest(tmp_path, capsys) -> None:
    """A suite with a bad line still runs: the line is reported in place and counts as not
    solved (exit 0); only a file where no line is a runnable EPD record is an error."""
    suite = tmp_path / "suite.epd"
    suite.write_text('7k/8/5K2/8/8/8/8/6Q1 w - - bm Qg7#; id "m1";\n8/8/8 w - - bm e4;\n')
    assert commands.main(["epd", str(suite), "--nodes", "2000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("m1: ok") and out[1].startswith("line 2: error: ")
    assert out[-1].startswith("solved 1/2")
