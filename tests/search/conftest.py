"""Fixtures of the search tests."""

from __future__ import annotations

import pytest

from ferz.engine import Engine


@pytest.fixture
def engine() -> Engine:
    """A fresh chess engine with a small hash table."""
    eng = Engine()
    eng.set_option("Hash", 8)
    return eng
