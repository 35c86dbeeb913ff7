"""One name for each concept (#49): no two modules of ferz/ define a class by the same name."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import ferz

PACKAGE = Path(ferz.__file__).parent
#: calls that make a class of the name they are assigned to: `Line = namedtuple("Line", ...)`
FACTORIES = {"namedtuple", "NamedTuple", "Enum", "IntEnum", "Flag", "IntFlag", "TypedDict"}


def defined(node: ast.AST) -> Iterator[str]:
    """The classes a module's statement defines, in its if, try and with blocks too."""
    if isinstance(node, ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
        func = node.value.func
        if getattr(func, "id", getattr(func, "attr", None)) in FACTORIES:
            yield from (target.id for target in node.targets if isinstance(target, ast.Name))
    elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, ast.excepthandler)):
                yield from defined(child)


def shared_names() -> dict[str, list[str]]:
    """Each class name that more than one module defines, with those modules."""
    modules = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in defined(ast.parse(path.read_text(encoding="utf-8"))):
            modules[name].add(path.relative_to(PACKAGE).as_posix())
    return {name: sorted(found) for name, found in modules.items() if len(found) > 1}


def test_no_two_modules_define_a_class_by_the_same_name() -> None:
    offenders = [f"{name}: {', '.join(modules)}" for name, modules in shared_names().items()]
    assert offenders == []


def test_the_scan_sees_blocks_and_factories_but_not_functions() -> None:
    """Classes in if and try blocks and namedtuple-style calls count; a function's do not."""
    source = (
        "if X:\n    class A: pass\n"
        "try:\n    pass\nexcept E:\n    class B: pass\n"
        "C = namedtuple('C', 'x')\nD = typing.NamedTuple('D', [])\n"
        "def f():\n    class E: pass\n"
    )
    assert list(defined(ast.parse(source))) == ["A", "B", "C", "D"]
