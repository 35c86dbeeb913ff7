"""Sybil's wiring: README.md and docs/*.md are collected once, when pytest reaches
tests/docs/examples.py (their evaluators and tables are there).

pytest walks only `testpaths` (tests/), so the documents outside it are collected from here:
a `python -m pytest` from the repository's root, `python -m pytest tests/docs` and
`python -m pytest tests/docs/examples.py` each collect every document once, under its own
path (`README.md::line:123,column:1`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sybil import Sybil

from tests.docs import examples

SYBIL = Sybil(
    parsers=examples.PARSERS,
    patterns=["README.md", "docs/*.md"],
    path=str(examples.ROOT),
    fixtures=["docs_folder", "docs_match"],
)
_collect_document = SYBIL.pytest()


class Documents(pytest.File):
    """The documents whose examples examples.py runs, one Sybil file each."""

    def collect(self) -> Iterator[pytest.Collector]:
        """Every document of examples.DOCS."""
        for path in examples.DOCS:
            document = _collect_document(path, self)
            assert document is not None, f"{path} is not one of Sybil's patterns"
            yield document


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The documents, at examples.py."""
    if file_path == Path(examples.__file__):
        return Documents.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m 'not slow'` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `slow` the examples that examples.SLOW names."""
    for item in items:
        if examples.slow_reason(getattr(item, "example", None)):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def docs_match(tmp_path_factory: pytest.TempPathFactory) -> examples.ShortMatch:
    """A short ferz match, played once: the docs' games.pgn and a real summary."""
    return examples.short_match(tmp_path_factory.mktemp("docs-match"))


@pytest.fixture(scope="module")  # one document (Sybil's file is the module)
def docs_folder(
    tmp_path_factory: pytest.TempPathFactory, docs_match: examples.ShortMatch
) -> Iterator[Path]:
    """A document's own folder with the files its examples name, its working directory."""
    folder = tmp_path_factory.mktemp("docs")
    examples.make_fixtures(folder, docs_match)
    previous = os.getcwd()
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(previous)
