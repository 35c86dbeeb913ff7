"""The constants of each .pxd and their uncompiled fallback agree (the .pxd is the source).

The compiled core reads the `cdef enum` blocks of ferz/core/*.pxd; the uncompiled core reads
defs.py and the `if not cython.compiled:` block of each module. Both are parsed here.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from ferz.core import defs

CORE = Path(defs.__file__).resolve().parent
PXDS = sorted(p for p in CORE.glob("*.pxd") if "cdef enum" in p.read_text())


def pxd_constants(path: Path) -> dict[str, int]:
    """NAME = value lines of a .pxd's `cdef enum:` blocks."""
    out: dict[str, int] = {}
    inside = False
    for line in path.read_text().splitlines():
        if line.startswith("cdef enum"):
            inside = True
            continue
        if inside and line and not line.startswith(" "):
            inside = False
        match = re.match(r"\s+(\w+) = ([^#]+)", line) if inside else None
        if match:
            out[match[1]] = eval(match[2], {}, dict(out))  # literals and earlier names only
    return out


def fallback_constants(path: Path) -> dict[str, int]:
    """The constants a core module defines for the uncompiled run (defs.py and evaltables.py:
    all of theirs; a `from ... import` in the block: the named module's)."""
    tree = ast.parse(path.read_text())
    body = tree.body
    if path.name not in ("defs.py", "evaltables.py"):
        body = [
            node.body
            for node in tree.body
            if isinstance(node, ast.If) and ast.unparse(node.test) == "not cython.compiled"
        ]
        body = [stmt for block in body for stmt in block]
    out: dict[str, int] = {}
    for node in body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ferz.core."):
            source = CORE.parents[1].joinpath(*node.module.split(".")).with_suffix(".py")
            kept = fallback_constants(source)
            out.update({a.name: kept[a.name] for a in node.names if a.name in kept})
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                try:
                    value = eval(compile(ast.Expression(node.value), path, "eval"), {}, out)
                except NameError:  # built by a function (a table, not a constant)
                    continue
                out[target.id] = value
    return out


@pytest.mark.parametrize("pxd", PXDS, ids=lambda p: p.name)
def test_pxd_constants_match_the_fallback(pxd: Path) -> None:
    """Every enum constant of the .pxd has the same value in the uncompiled module."""
    compiled = pxd_constants(pxd)
    fallback = fallback_constants(pxd.with_suffix(".py"))
    assert compiled
    missing = sorted(set(compiled) - set(fallback))
    assert not missing, f"{pxd.name}: no uncompiled value for {missing}"
    differ = {k: (v, fallback[k]) for k, v in compiled.items() if fallback[k] != v}
    assert not differ, f"{pxd.name} (pxd, py): {differ}"


def test_defs_inline_functions_match() -> None:
    """The move-encoding helpers of defs.pxd compute what defs.py's do."""
    source = (CORE / "defs.pxd").read_text()
    functions = re.findall(r"cdef inline int (\w+)\(([^)]*)\)[^\n]*:\n\s+return ([^\n]+)", source)
    assert len(functions) == 5
    rng = random.Random(1)
    for name, params, expr in functions:
        names = [p.split()[-1] for p in params.split(",")]
        for _ in range(200):
            args = [rng.randrange(1 << 9) for _ in names]
            assert eval(expr, {}, dict(zip(names, args, strict=True))) == getattr(defs, name)(*args)
