"""Fixtures of the client conformance suite."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


class _Collect(logging.Handler):
    """Keeps every record it is handed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record."""
        self.records.append(record)


@pytest.fixture
def engine_log() -> Iterator[list[logging.LogRecord]]:
    """Fail the test if python-chess's `chess.engine` logger warns (unexpected output, bad
    PVs, stderr lines, rejected features): a handler on the logger itself collects them."""
    logger = logging.getLogger("chess.engine")
    handler = _Collect()
    level = logger.level
    if level == logging.NOTSET or level > logging.WARNING:
        logger.setLevel(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    messages = [record.getMessage() for record in handler.records]
    assert not messages, messages[:5]
