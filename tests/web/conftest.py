"""Fixtures of the browser tests: a real `ferz web` for each module and Debian's chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.programs import need, need_module
from tests.web.webserver import chromium, running_server


def chromium_path() -> str:
    """The chromium to drive: $FERZ_CHROMIUM if set, else Debian's; skip (or, in CI, fail)
    when it or Playwright is missing."""
    need_module("playwright.sync_api", "playwright")
    given = os.environ.get("FERZ_CHROMIUM")
    if given and Path(given).exists():
        return given
    return need("chromium")


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """`ferz web --no-browser` on a free port with an empty database; yields its URL. Its
    game reviews search 150 ms a position (300 ms by default: the same marks on the tests'
    games, whose mistakes are a mate in one or a lost queen, in half the time)."""
    db = tmp_path_factory.mktemp("web") / "games.sqlite3"
    with running_server(db, web_options=["--review-ms", "150"]) as port:
        yield f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless chromium (one for the module)."""
    with chromium(chromium_path()) as launched:
        yield launched
