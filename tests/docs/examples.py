"""The docs' examples are tests: every fenced block of README.md and docs/*.md, by its language.

Sybil drives them: it parses Markdown itself, runs Python blocks in one namespace per document,
and lets the project register its own evaluators for other block languages (shell commands,
protocol transcripts), so one well-kept library drives every kind of block; pytest-markdown-docs
and pytest-examples run Python blocks only. tests/docs/conftest.py collects the documents when
pytest reaches this file (`python -m pytest tests/docs/examples.py` runs the docs alone).

Every block has a language (an untagged or unknown one fails):

* `python`: run in the document's namespace (the README's second block uses the first's
  `Board`). An expression statement whose comment is a Python literal claims its value
  (`board.is_pinned(False, "e4")  # True: ...`, `frozenset({'e2'})`); `...` in a list or a
  tuple stands for any items between.
* `sh`: one test per command (backslash continuations joined, `&&` parts run in turn). A
  `ferz ...` line is parsed by ferz's own argument parser and run for real, shortened by
  REWRITES; a line that cannot run here is in SKIPS with its reason (a skipped `ferz` line is
  still parsed, so a renamed option fails). Exit code 0, or the one in EXIT_CODES.
* `console`: `$ command` lines, each followed by its output, which must match (`...` stands
  for any text, as the docs write it).
* `ini`: a variants file: `ferz check` must load every section, and each variant's perft 2
  runs through `ferz --variants FILE`.
* `js`: node checks its syntax (`node --check`); running it needs npm packages.
* `text`: layouts, diagrams and sample output, not run. Where one states facts it is checked:
  TEXT_CHECKS (the match summary's lines, xboard's features and setup, a command's synopsis
  against its parser), and in any other text block every path names a file of the repository
  and every `owner.member` of a ferz module or class (engine., pos., movegen., ...) exists.

Each document runs in a temporary folder of its own (the working directory of its Python
blocks and commands, and their XDG_* folders, so nothing lands in ~/.cache), holding the
files its examples name: FIXTURES.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import doctest
import io
import os
import re
import shlex
import stat
import subprocess
import sys
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sybil import Document, Example, Region
from sybil.evaluators.python import pad
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer, RawFencedCodeBlockLexer

from tests.conftest import ROOT
from tests.programs import SEARCH_PATH, find, need

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: the languages a block may have (each has its parser below)
LANGUAGES = ("python", "sh", "console", "ini", "js", "text")

#: seconds one command may run (a loaded machine included) before it fails
TIMEOUT = 180

# Each command is shortened by these (regular expression, replacement), in order; the comment
# says why the shorter run still tests what the line shows.
REWRITES: list[tuple[str, str]] = [
    # a match or a tuning run: two games (one opening, both colours) show it runs and ends
    (r"--games \d+", "--games 2"),
    # two game pairs: one SPSA step and its state file
    (r"--iterations \d+", "--iterations 2"),
    # 300 nodes a move: a game in well under a second
    (r"--nodes \d+", "--nodes 300"),
    # one second a game and 10 ms a move (xboard's `level` gives whole seconds: not less)
    (r"--tc [\d.+/:]+", "--tc 1+0.01"),
    (r"--movetime \d+", "--movetime 20"),
    (r"--depth \d+", "--depth 3"),
    # (a run without --iterations would play the default 1000 pairs)
    (r"^(ferz spsa (?!.*--iterations ).*)$", r"\1 --iterations 2"),
    # ... and a game lasts at most 12 moves (a 1 s game could last hundreds; 12 moves of both
    # engines show the game is played and scored as well as more would)
    (r"^(ferz (?:match|spsa) (?!.*--max-moves ).*)$", r"\1 --max-moves 12"),
    # ferz analyse's default is 100 ms a move
    (r"^(ferz analyse (?!.*--(?:movetime|depth|nodes) ).*)$", r"\1 --nodes 300"),
    # python-chess's side of the speed measurement, two plies less
    (r"^(python bench/perft_speed\.py)$", r"\1 --quick"),
    # no cluster here: a private Ray instance on this machine (which takes ~10 s: SLOW)
    (r"--ray auto", "--ray local"),
]

# Commands that cannot run here, by how they start (the words as written), with the reason.
SKIPS: dict[str, str] = {
    "pip install": "installs from a package index and compiles the core for minutes "
    "(tests/package builds and installs the wheel in a fresh venv: slow)",
    "python -m build": "builds the sdist and the wheel for minutes (tests/package: slow)",
    "python -m pytest": "the test suite itself",
    "make build": "recompiles the core that the running tests import",
    "make pgo": "recompiles the core twice, with a profile, that the running tests import",
    "make lint": "ruff over the whole tree: its verdict is the code's, not this line's",
    "make docs": "Sphinx builds the API reference for a minute (.ci/run builds it)",
    "python bench/build_flags.py": "A=TREE B=TREE stand for two source trees, each compiled "
    "for minutes",
    "ray start": "starts a node of a Ray cluster that outlives the test",
    "ray status": "reads the cluster that `ray start` made",
    "ray stop": "stops this machine's node of a Ray cluster",
    "ferz match --ray auto": "`...` stands for the other options of a match",
    "ferz web": "serves until stopped (tests/web/ drive the server and a browser)",
    "xboard": "opens XBoard's window (tests/clients/ play ferz in XBoard under Xvfb)",
    "cutechess-cli": "cutechess-cli is not installed here",
    "fastchess": "fastchess is not installed here (tests/clients/ run its compliance steps)",
    "cd web": "the front end's folder, for the npm lines",
    "npm ci": "downloads the front end's packages from the npm registry",
    "npm run build": "rewrites ferz/web/static/ in the checkout (and needs npm ci's packages)",
}

# Commands that run only with `-m slow`, by a word they contain, with the reason.
SLOW: dict[str, str] = {
    "--ray": "starts a private Ray instance (about 10 s)",
}

# Exit codes other than 0 that a command is documented to end with (none so far).
EXIT_CODES: dict[str, int] = {}

#: the outside programs a command may need, by a pattern of its text
PROGRAMS = {
    "stockfish": r"(?<![\w-])stockfish\b|\./myengine",
    "fairy-stockfish": r"\bfairy-stockfish\b",
    "fairymax": r"\bfairymax\b",
}

#: the short match whose PGN is games.pgn and whose summary docs/match.md shows
SHORT_MATCH = (
    "ferz match --engine cmd=ferz --engine cmd=ferz --nodes 300 --games 2 --max-moves 12 "
    "--sprt 0 5 --pgn games.pgn --quiet"
)


@dataclass
class ShortMatch:
    """The PGN and the summary of SHORT_MATCH, played once a session."""

    pgn: Path
    summary: str


def short_match(folder: Path) -> ShortMatch:
    """Play SHORT_MATCH in `folder`."""
    result = run(shlex.split(SHORT_MATCH), folder)
    return ShortMatch(folder / "games.pgn", result.stdout)


def _variants_ini() -> str:
    """The variants file that docs/variants.md shows (its `ini` block)."""
    text = (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    return re.search(r"^```ini\n(.*?)^```", text, re.M | re.S).group(1)


#: the files the examples name, made in each document's folder: name -> its text
FIXTURES: dict[str, Callable[[ShortMatch], str]] = {
    "games.pgn": lambda match: match.pgn.read_text(encoding="utf-8"),
    "my.ini": lambda match: _variants_ini(),
    "search.txt": lambda match: "rfp_margin,150,80,250,10\nlmr_div,225,150,300,12\n",
    # ./myengine stands for any UCI engine: Stockfish, tuning one of its options
    "tunables.txt": lambda match: "Skill Level,10,0,20\n",
    "myengine": lambda match: f'#!/bin/sh\nexec {find("stockfish") or "stockfish"} "$@"\n',
}


def make_fixtures(folder: Path, match: ShortMatch) -> None:
    """Write FIXTURES into a document's folder."""
    for name, text in FIXTURES.items():
        (folder / name).write_text(text(match), encoding="utf-8")
    engine = folder / "myengine"
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    (folder / "syzygy").symlink_to(ROOT / "tests" / "data" / "syzygy")  # the test tables


# ---- running commands


def environment(folder: Path) -> dict[str, str]:
    """The environment of a command: XDG folders inside `folder`, /usr/games on the PATH."""
    env = dict(os.environ, PATH=SEARCH_PATH)
    env.pop("FERZ_PARAMS", None)
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env[name] = str(folder / name.lower())
    return env


def parse_ferz(args: list[str]) -> None:
    """Fail unless ferz's own argument parser accepts `ferz ARGS` (an unknown option, a
    missing argument)."""
    from ferz.commands import build_parser

    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            build_parser(args).parse_args(args)
    except SystemExit as stop:
        if stop.code:
            pytest.fail(f"ferz {shlex.join(args)}: {errors.getvalue().strip()}", pytrace=False)


def rewrite(text: str) -> str:
    """A command shortened by REWRITES."""
    for pattern, replacement in REWRITES:
        text = re.sub(pattern, replacement, text)
    return text


def run(words: list[str], folder: Path) -> subprocess.CompletedProcess:
    """Run a command (rewritten) in `folder`: `ferz` as this Python's ferz, a `python PATH`
    script of the repository in the repository; fail unless it exits with its code."""
    text = rewrite(shlex.join(words))
    for program, pattern in PROGRAMS.items():
        if re.search(pattern, text):
            need(program)
    words = shlex.split(text)
    cwd = folder
    if words[0] == "ferz":
        parse_ferz(words[1:])
        words = [sys.executable, "-m", "ferz", *words[1:]]
    elif words[0] == "python":
        words = [sys.executable, *words[1:]]
        cwd = ROOT
    try:
        result = subprocess.run(
            words,
            cwd=cwd,
            env=environment(folder),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        result = None
    if result is None:
        pytest.fail(f"{text}: still running after {TIMEOUT} s", pytrace=False)
    expected = next((code for key, code in EXIT_CODES.items() if text.startswith(key)), 0)
    if result.returncode != expected:
        pytest.fail(
            f"{text}: exit code {result.returncode}, not {expected}\n{result.stderr[-3000:]}",
            pytrace=False,
        )
    return result


def skip_entry(words: list[str]) -> str | None:
    """The SKIPS entry (`start: reason`) that a command's words start with, or None."""
    text = shlex.join(words)
    for start, reason in SKIPS.items():
        if text == start or text.startswith(start + " "):
            return f"{start}: {reason}"
    return None


@dataclass
class Command:
    """One command of an `sh` block: its text (continuations joined) and its `&&` parts."""

    text: str
    parts: list[list[str]]

    @classmethod
    def read(cls, source: str) -> Command:
        """The command written in `source` (shell words; `#` starts a comment)."""
        text = " ".join(source.replace("\\\n", " ").split())
        parts: list[list[str]] = [[]]
        for word in shlex.split(text, comments=True):
            if word == "&&":
                parts.append([])
            else:
                parts[-1].append(word)
        return cls(text, [part for part in parts if part])

    def slow(self) -> str | None:
        """Why the command runs only with `-m slow`, or None."""
        return next((why for word, why in SLOW.items() if word in self.text.split()), None)


def run_command(example: Example) -> None:
    """Run each part of an `sh` command, or parse it and skip it (SKIPS)."""
    folder = example.namespace["docs_folder"]
    skipped = []
    for words in example.parsed.parts:
        entry = skip_entry(words)
        if entry is None:
            run(words, folder)
            continue
        if words[0] == "ferz":
            parse_ferz(words[1:])
        skipped.append(entry)
    if skipped:
        pytest.skip("; ".join(skipped))


class ShellParser:
    """One region per command of every `sh` block."""

    def __init__(self) -> None:
        """Find the `sh` blocks."""
        self.lexer = FencedCodeBlockLexer("sh")

    def __call__(self, document: Document) -> Iterator[Region]:
        """Each command of each block, from its first line to its last."""
        for block in self.lexer(document):
            source = block.lexemes["source"]
            position = block.start + source.offset
            assert document.text.startswith(source, position), "an indented sh block"
            lines: list[str] = []
            for line in source.splitlines(keepends=True):
                lines.append(line)
                position += len(line)
                if line.rstrip("\n").endswith("\\"):
                    continue
                text = "".join(lines)
                lines = []
                if text.split("#", 1)[0].strip():
                    start = position - len(text)
                    region = Region(start, position - 1, Command.read(text), run_command)
                    yield region


# ---- console transcripts


def run_transcript(example: Example) -> None:
    """Run each `$ command` of a console block; its output must match the lines below it."""
    folder = example.namespace["docs_folder"]
    for command, want in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", example.parsed, re.M):
        got = run(shlex.split(command), folder).stdout
        checker = doctest.OutputChecker()
        if not checker.check_output(want, got, doctest.ELLIPSIS):
            pytest.fail(f"$ {command}\nthe docs show:\n{want}\nit prints:\n{got}", pytrace=False)


# ---- variants files


def check_variants_file(example: Example) -> None:
    """`ferz check` loads every section of an `ini` block, and each variant's perft 2 runs."""
    folder = example.namespace["docs_folder"]
    path = folder / f"block-{example.line}.ini"
    path.write_text(example.parsed, encoding="utf-8")
    names = re.findall(r"^\[([\w-]+)", example.parsed, re.M)
    report = run(["ferz", "check", str(path)], folder).stdout
    for name in names:
        assert re.search(rf"^{name}: ok\b", report, re.M), f"{name} not loaded:\n{report}"
        perft = run(["ferz", "--variants", str(path), "perft", "2", "--variant", name], folder)
        assert perft.stdout.strip(), f"perft 2 of {name} printed nothing"


# ---- JavaScript


def check_javascript(example: Example) -> None:
    """node parses a `js` block as an ES module (running it needs its npm packages)."""
    node = need("node")
    path = example.namespace["docs_folder"] / f"block-{example.line}.mjs"
    path.write_text(example.parsed, encoding="utf-8")
    result = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# ---- Python


def _claim(comment: str) -> tuple[bool, object]:
    """(True, value) when a comment begins with a Python literal (up to a colon, if any):
    a literal, or frozenset/set of one; else (False, None)."""
    cuts = [len(comment), *(m.start() for m in re.finditer(":", comment))]
    for cut in sorted(cuts):
        text = comment[:cut].strip()
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            kind = {"frozenset": frozenset, "set": set}.get(getattr(node.func, "id", ""))
            try:
                if kind is not None:
                    return True, kind(ast.literal_eval(node.args[0]))
            except (ValueError, TypeError):
                continue
        try:
            return True, ast.literal_eval(node)
        except (ValueError, TypeError):
            continue
    return False, None


def _matches(value: object, claim: object) -> bool:
    """Whether a value is what a claim says; `...` in a claimed list or tuple stands for any
    items between its head and its tail."""
    if isinstance(claim, (list, tuple)) and Ellipsis in claim:
        if type(value) is not type(claim):
            return False
        cut = claim.index(Ellipsis)
        head, tail = list(claim[:cut]), list(claim[cut + 1 :])
        items = list(value)
        return (
            len(items) >= len(head) + len(tail)
            and items[: len(head)] == head
            and items[len(items) - len(tail) :] == tail
        )
    return value == claim


def run_python(example: Example) -> None:
    """Run a `python` block statement by statement in the document's namespace; an expression
    whose comment claims a value (a literal) must have it."""
    source = example.parsed
    comments = {
        token.start[0]: token.string[1:].strip()
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    }
    offset = example.line + source.line_offset
    tree = ast.parse(pad(source, offset), example.path)
    namespace = example.namespace
    for statement in tree.body:
        claimed, value = False, None
        if isinstance(statement, ast.Expr):
            claimed, value = _claim(comments.get(statement.end_lineno - offset, ""))
        if not claimed:
            code = compile(ast.Module([statement], []), example.path, "exec", dont_inherit=True)
            exec(code, namespace)
            continue
        expression = ast.Expression(statement.value)
        got = eval(compile(expression, example.path, "eval", dont_inherit=True), namespace)
        line = ast.get_source_segment(pad(source, offset), statement)
        assert _matches(got, value), f"line {statement.lineno}: {line} is {got!r}, not {value!r}"
    namespace.pop("__builtins__", None)


# ---- text blocks


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of a parser."""
    return {option for action in parser._actions for option in action.option_strings}


def _subparser(name: str) -> argparse.ArgumentParser:
    """The parser of `ferz NAME`."""
    from ferz.commands import build_parser

    parser = build_parser([name])
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


def check_synopsis(text: str, namespace: dict) -> None:
    """A `ferz NAME [--option ...]` synopsis lists exactly the options of NAME's parser."""
    name = re.match(r"ferz (\w+)", text).group(1)
    shown = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text))
    options = _option_strings(_subparser(name)) - {"-h", "--help"}
    assert shown == options, f"ferz {name}: not shown {options - shown}, unknown {shown - options}"


def check_summary(text: str, namespace: dict) -> None:
    """The sample `ferz match` summary has the lines, in order, of a real one (with --pgn; a
    real one run with --sprt has SPRT after LOS, as the text below the block says)."""
    labels = [line.split(":")[0] for line in text.splitlines()]
    lines = namespace["docs_match"].summary.splitlines()
    real = [line.split(":")[0] for line in lines if ": " in line]
    expected = labels[: labels.index("LOS") + 1] + ["SPRT"] + labels[labels.index("LOS") + 1 :]
    assert real == expected


def _xboard(commands: str) -> str:
    """What `ferz xboard` answers to these lines."""
    result = subprocess.run(
        [sys.executable, "-m", "ferz", "xboard"],
        input=commands + "quit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def check_features(text: str, namespace: dict) -> None:
    """The features shown are the ones `ferz xboard` sends after `protover 2`: done=0 first,
    each key=value of the first line, the variants' list as it begins, the option shown among
    the options, done=1 last, and nothing else."""
    sent = [line for line in _xboard("xboard\nprotover 2\n").splitlines() if line]
    assert sent[0] == "feature done=0" and sent[-1] == "feature done=1", sent
    shown = re.sub(r"\n\s+", " ", text).splitlines()
    assert shown[0] in sent, f"sent: {sent[1]}"
    variants = re.match(r'feature variants="(.*)\.\.\."$', shown[1]).group(1)
    assert any(line.startswith(f'feature variants="{variants}') for line in sent)
    option = shown[2].split("   (")[0]
    assert option in sent
    assert shown[3] == sent[-1]
    known = [shown[0], "feature done=0", "feature done=1"]
    others = [line for line in sent if line not in known]
    assert all(re.match(r"feature (variants|option)=", line) for line in others), others


def check_setup(text: str, namespace: dict) -> None:
    """The `setup` and `piece` lines shown are what `ferz xboard` sends after `variant
    gardner` (the variant whose start position the setup line holds)."""
    sent = _xboard("xboard\nprotover 2\nvariant gardner\n")
    got = sent[sent.index("setup (") :]
    assert doctest.OutputChecker().check_output(text, got, doctest.ELLIPSIS), got


#: the checks of text blocks that state facts: (document, a pattern of the block's start)
TEXT_CHECKS: dict[tuple[str, str], Callable[[str, dict], None]] = {
    ("match.md", r"Engines: "): check_summary,
    ("protocols.md", r"feature myname="): check_features,
    ("protocols.md", r"setup \("): check_setup,
    ("protocols.md", r"ferz play \["): check_synopsis,
    ("web.md", r"ferz web \["): check_synopsis,
}

#: folders where a path in a text block may start
PATH_BASES = (ROOT, ROOT / "ferz", ROOT / "ferz" / "core")


def _path_exists(path: str) -> bool:
    """Whether a path of a text block names a file or folder of the repository (from its root,
    ferz/ or ferz/core/, or any folder of ferz/ for a bare file name)."""
    if any((base / path).exists() for base in PATH_BASES):
        return True
    return "/" not in path and any((ROOT / "ferz").rglob(path))


def _owners() -> dict[str, list[Path]]:
    """The names a text block's `owner.member` may start with, and the sources of each."""
    core = ROOT / "ferz" / "core"
    owners = {path.stem: [path, path.with_suffix(".pxd")] for path in core.glob("*.py")}
    owners["pos"] = owners["Position"] = owners["position"]
    owners["Evaluator"] = owners["evaluate"]
    owners["engine"] = owners["Engine"] = [ROOT / "ferz" / "engine.py"]
    return owners


def check_names(text: str) -> None:
    """Every path of a text block exists, and every `owner.member` of a known owner (a core
    module, pos/Position, Evaluator, engine/Engine) is a name its sources hold."""
    text = re.sub(r"(\w+)\.py/pxd", r"\1.py \1.pxd", text)
    missing = []
    for path in re.findall(r"(?<![\w./-])((?:[\w-]+/)+[\w.-]*|[\w-]+\.pyx?d?)(?![\w/(])", text):
        if path.endswith((".py", ".pxd", "/")) and not _path_exists(path):
            missing.append(path)
    owners = _owners()
    for owner, member in re.findall(r"(?<![\w.])(\w+)\.(\w+)", text):
        if member in ("py", "pxd"):
            continue  # a file, checked above
        sources = [path for path in owners.get(owner, []) if path.exists()]
        if sources and not any(re.search(rf"\b{member}\b", p.read_text()) for p in sources):
            missing.append(f"{owner}.{member}")
    assert missing == [], f"not in the repository: {missing}"


def check_text(example: Example) -> None:
    """A text block's facts: its TEXT_CHECKS entry, else its paths and names."""
    name = Path(example.path).name
    for (document, pattern), check in TEXT_CHECKS.items():
        if document == name and re.match(pattern, example.parsed):
            check(example.parsed, example.namespace)
            return
    check_names(example.parsed)


# ---- every block has a language


def unknown_language(example: Example) -> None:
    """Fail: a block whose language no parser takes."""
    language = example.parsed or "(none)"
    pytest.fail(f"a block of language {language}: give it one of {LANGUAGES}", pytrace=False)


class UnknownLanguageParser:
    """A failing region for every block whose language is not in LANGUAGES."""

    def __init__(self) -> None:
        """Find every fenced block with its info line."""
        self.lexer = RawFencedCodeBlockLexer(re.compile(r"(?P<language>[^\n]*)$\n", re.M))

    def __call__(self, document: Document) -> Iterator[Region]:
        """The blocks of no known language."""
        for block in self.lexer(document):
            language = block.lexemes["language"].strip()
            if language not in LANGUAGES:
                yield Region(block.start, block.end, language, unknown_language)


class BlockParser:
    """One region per block of one language, run by `evaluator` with the block's text."""

    def __init__(self, language: str, evaluator: Callable[[Example], None]) -> None:
        """Find the blocks of `language`."""
        self.lexer = FencedCodeBlockLexer(language)
        self.evaluator = evaluator

    def __call__(self, document: Document) -> Iterator[Region]:
        """Each block, parsed as its text."""
        for block in self.lexer(document):
            yield Region(block.start, block.end, block.lexemes["source"], self.evaluator)


PARSERS = [
    BlockParser("python", run_python),
    ShellParser(),
    BlockParser("console", run_transcript),
    BlockParser("ini", check_variants_file),
    BlockParser("js", check_javascript),
    BlockParser("text", check_text),
    UnknownLanguageParser(),
]


def slow_reason(example: Example | None) -> str | None:
    """Why an example runs only with `-m slow` (SLOW), or None."""
    parsed = getattr(example, "parsed", None)
    return parsed.slow() if isinstance(parsed, Command) else None
