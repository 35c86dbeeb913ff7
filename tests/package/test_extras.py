"""The install hints of missing packages (ferz.errors.EXTRAS) name extras that bring them."""

from __future__ import annotations

import re

import pytest

from ferz.errors import EXTRAS
from tests.conftest import ROOT

tomllib = pytest.importorskip("tomllib", reason="tomllib comes with Python 3.11")


def extras() -> dict[str, set[str]]:
    """pyproject's extras, each as the set of the package names it requires."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = table["optional-dependencies"]
    return {
        name: {re.split(r"[\[<>=!~ ;]", req)[0].lower() for req in reqs}
        for name, reqs in found.items()
    }


@pytest.mark.parametrize(("package", "extra"), sorted(EXTRAS.items()))
def test_each_hint_names_an_extra_that_installs_the_package(package: str, extra: str) -> None:
    assert package in extras().get(extra, set()), f"pip install 'ferz[{extra}]' lacks {package}"
