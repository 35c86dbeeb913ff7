"""A private Ray instance that neighbouring Ray tests share: each started its own (`--ray
local`), and a start is the bulk of such a test's time."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tests.programs import need_module


@pytest.fixture
def ray_local() -> Any:
    """The ray module joined to a private local instance, the one the previous test left up if
    it asked for this too; `--ray local` then joins it (cluster.session closes only what it
    opened). The test that checks a match's own private instance ends does not use it."""
    ray = need_module("ray", "ray[default]")
    from ferz.match import cluster

    cluster.connect("local")
    return ray


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Shut the shared instance down unless the next test asks for it too (so that no Ray
    processes linger into other tests, and a test that starts its own finds none)."""
    if "ray_local" not in getattr(item, "fixturenames", ()):
        return
    if nextitem is not None and "ray_local" in getattr(nextitem, "fixturenames", ()):
        return
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()
