"""No function in ferz/ grows past a page or two: long ones are split into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

import ferz

PACKAGE = Path(ferz.__file__).parent
LIMIT = 120  # statements, nested ones counted
# The search's node functions and make() are one numbered sequence of steps each, read top to
# bottom (as Stockfish's search() and do_move()); splitting them costs calls on the hot path.
EXEMPT = {("core/search.py", "search"), ("core/search.py", "qsearch"), ("core/position.py", "make")}


def statements(func: ast.AST) -> int:
    """The statements inside a function, nested blocks included, the def itself not."""
    return sum(isinstance(node, ast.stmt) for node in ast.walk(func)) - 1


def long_functions() -> list[str]:
    """Every function of the package over LIMIT statements, with its file and size."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = statements(node)
                if size > LIMIT and (name, node.name) not in EXEMPT:
                    found.append(f"{name}:{node.lineno} {node.name}: {size} statements")
    return found


def test_no_function_is_over_the_limit() -> None:
    assert long_functions() == []


def test_the_count_sees_nested_statements() -> None:
    """A function whose statements sit in a loop and a branch counts them all."""
    source = "def f(x):\n    for i in x:\n        if i:\n            a = 1\n            b = 2\n"
    tree = ast.parse(source)
    assert statements(tree.body[0]) == 4


def test_the_exempt_functions_exist() -> None:
    """An exemption names a function that is there (a renamed one must not stay exempt)."""
    for file, func in EXEMPT:
        tree = ast.parse((PACKAGE / file).read_text(encoding="utf-8"))
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert func in names, f"{file} has no {func}"
