"""Run a script in a child Python with the uncompiled core (FERZ_PURE=1), for comparisons."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.conftest import ROOT


def run_pure(script: str, cases: Any) -> Any:
    """Run `script` under FERZ_PURE=1 with `cases` as JSON on stdin; the results it printed.

    The script prints one JSON object `{"compiled": ..., "results": ...}`; that the child
    really ran uncompiled is asserted here.
    """
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        env=dict(os.environ, FERZ_PURE="1"),
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    pure = json.loads(proc.stdout)
    assert pure["compiled"] is False
    return pure["results"]
