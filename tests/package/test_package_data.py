"""Every file of the package that git tracks reaches the wheel: pyproject.toml's
exclude-package-data keeps out only what the build generates (Cython's C and annotation pages).
A "*" key once excluded `*.html` from every package, so `pip install '.[web]' && ferz web`
served a 500 for its page; the wheel test that would see it is slow and does not run by default.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the tests run on 3.11 and later
    tomllib = pytest.importorskip("tomli")


def _tracked() -> list[str]:
    """The files git tracks under ferz/ (generated files are ignored, so never tracked)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "ferz"], cwd=ROOT, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return out.stdout.splitlines()


def _rules() -> dict[str, list[str]]:
    """pyproject.toml's exclude-package-data: patterns by package name ("*": every package)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return config.get("exclude-package-data", {})


def _excluded(path: str, rules: dict[str, list[str]]) -> list[str]:
    """The exclude patterns that drop path from its package's data, as setuptools matches them
    (each pattern joined to the package's folder, fnmatch's `*` crossing folders)."""
    folder = os.path.dirname(path)
    while folder and not (ROOT / folder / "__init__.py").is_file():
        folder = os.path.dirname(folder)  # a data folder belongs to the package above it
    package = folder.replace("/", ".")
    patterns = rules.get("*", []) + rules.get("", []) + rules.get(package, [])
    return [p for p in patterns if fnmatch.fnmatch(path, f"{folder}/{p}")]


def test_no_tracked_file_of_the_package_is_excluded_from_the_wheel() -> None:
    """Each tracked file under ferz/ escapes every exclude-package-data pattern of its package."""
    rules = _rules()
    dropped = {path: found for path in _tracked() if (found := _excluded(path, rules))}
    assert not dropped, f"excluded from the wheel: {dropped}"


def test_the_exclusions_still_drop_what_the_build_generates() -> None:
    """The core's generated C and Cython's annotation pages stay excluded."""
    rules = _rules()
    for generated in ("ferz/core/search.c", "ferz/core/search.html"):
        assert _excluded(generated, rules), generated
