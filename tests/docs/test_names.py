"""The names the docs quote point at code that exists.

README.md and docs/*.md quote code in backticks: dotted names (`ferz.board.Board`), files
(`ferz/core/search.py`), class members (`Search.reward`) and functions (`check_depth(d)`). A
rename that forgets the docs leaves a reader looking for something that is not there; these
tests read every such quote and look it up in the code.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest

import ferz
from tests.conftest import ROOT

#: the measurement logs (docs/measurements/) quote names too
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS += sorted((ROOT / "docs" / "measurements").glob("*.md"))

#: folders of the repository whose files the docs name by path
FOLDERS = ("ferz", "tools", "tests", "bench", "docs")

#: a dotted name ending in one of these is a file name (`ferz.exe`), not a Python name
FILE_SUFFIXES = {"exe", "ini", "json", "py", "toml"}


def _quotes() -> list[tuple[str, int, str]]:
    """Every backticked span of the docs: (file, line, text)."""
    out = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"`([^`\n]+)`", text):
            line = text.count("\n", 0, match.start()) + 1
            out.append((path.relative_to(ROOT).as_posix(), line, match.group(1)))
    return out


@cache
def _modules() -> dict[str, object]:
    """Every importable module of ferz by dotted name (optional extras missing are left out)."""
    out: dict[str, object] = {"ferz": ferz}
    for info in pkgutil.walk_packages(ferz.__path__, "ferz."):
        if info.name.endswith("__main__"):
            continue  # importing it runs the command line
        try:
            out[info.name] = importlib.import_module(info.name)
        except ImportError:
            continue
    return out


@cache
def _classes() -> dict[str, list[type]]:
    """Every class defined in ferz, by its name."""
    out: dict[str, list[type]] = {}
    for module in _modules().values():
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                out.setdefault(value.__name__, []).append(value)
    return out


@cache
def _source(module_name: str) -> str:
    """A module's Python source and, for the compiled core, its .pxd declarations."""
    base = ROOT / Path(*module_name.split("."))
    texts = []
    for path in (base.with_suffix(".py"), base.with_suffix(".pxd"), base / "__init__.py"):
        if path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
    return "\n".join(texts)


@cache
def _defined() -> set[str]:
    """Every function, method, class and module-level name that ferz and tools/ define."""
    names: set[str] = set()
    files = [*ROOT.glob("ferz/**/*.py"), *ROOT.glob("ferz/**/*.pxd"), *ROOT.glob("tools/**/*.py")]
    for path in files:
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"\b(?:def|class)\s+(\w+)", text))
        names |= set(re.findall(r"^\s*(\w+)\s*[:=]", text, re.M))
        names |= set(re.findall(r"(\w+)\s*\([^()]*\)\s*(?:noexcept|except|nogil|:)", text))
    return names


def _resolve(dotted: str) -> bool:
    """Whether `ferz.a.b.c` is a module or an attribute reachable from one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = _modules().get(".".join(parts[:cut]))
        if module is None:
            continue
        value = module
        for name in parts[cut:]:
            if not hasattr(value, name):
                return False
            value = getattr(value, name)
        return True
    return False


def _member(cls: type, name: str) -> bool:
    """Whether a class has this member, at run time or declared in its source (a compiled
    class's C fields are not Python attributes)."""
    if hasattr(cls, name):
        return True
    return re.search(rf"\b{re.escape(name)}\b", _source(cls.__module__)) is not None


def test_dotted_names_exist() -> None:
    missing = [
        f"{file}:{line}: {name}"
        for file, line, text in _quotes()
        for name in re.findall(r"(?<![\w./])ferz(?:\.[A-Za-z_]\w*)+", text)
        if not _resolve(name) and name.rpartition(".")[2] not in FILE_SUFFIXES
    ]
    assert missing == []


def test_files_exist() -> None:
    pattern = rf"(?:^|(?<=[\s(]))((?:{'|'.join(FOLDERS)})/[\w./-]*\w)"
    missing = []
    for file, line, text in _quotes():
        for path in re.findall(pattern, text):
            if re.search(r"[A-Z]{3,}|\*", path):  # a placeholder (NAME) or a pattern
                continue
            if not (ROOT / path).exists():
                missing.append(f"{file}:{line}: {path}")
    assert missing == []


def test_class_members_exist() -> None:
    classes = _classes()
    missing = []
    for file, line, text in _quotes():
        for owner, name in re.findall(r"(?<![\w.])([A-Z]\w*)\.([a-z_]\w*)\b", text):
            if owner in classes and not any(_member(cls, name) for cls in classes[owner]):
                missing.append(f"{file}:{line}: {owner}.{name}")
    assert missing == []


def test_called_functions_exist() -> None:
    """A quoted call of a snake_case name (`divide_lines(board, 3)`) names a defined function."""
    defined = _defined()
    missing = [
        f"{file}:{line}: {name}"
        for file, line, text in _quotes()
        for name in re.findall(r"(?<![\w.])([a-z]\w*_\w*)\(", text)
        if name not in defined
    ]
    assert missing == []


@pytest.mark.parametrize(
    "quote",
    ["`ferz.board.Nothing`", "`ferz/nothing.py`", "`Board.nothing_here`", "`no_such_fn(x)`"],
)
def test_a_wrong_quote_is_found(quote: str, monkeypatch) -> None:
    """Each check fails on a quote that names nothing (the checks can fail)."""
    monkeypatch.setattr("tests.docs.test_names._quotes", lambda: [("x.md", 1, quote.strip("`"))])
    checks = [
        test_dotted_names_exist,
        test_files_exist,
        test_class_members_exist,
        test_called_functions_exist,
    ]
    failed = 0
    for check in checks:
        try:
            check()
        except AssertionError:
            failed += 1
    assert failed == 1
