"""No module of ir_tools reaches into another's private names: an ``obj._name`` outside ``self``/``cls`` must name
something its own module defines (``graph._layers`` belongs to ir/model.py alone), and nothing private is imported
from another module. Parsed with ``ast``: no OpenVINO, milliseconds."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ir_tools"


#: Names other libraries make public with a leading underscore: lxml's element classes, NamedTuple's methods,
#: ``os._exit`` and ``atexit._run_exitfuncs`` (the exit handlers as the interpreter runs them; ``cli.run``).
THEIRS = frozenset({"_Element", "_ElementTree", "_make", "_replace", "_asdict", "_fields", "_exit", "_run_exitfuncs"})


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in THEIRS


def defined_here(tree: ast.Module) -> set[str]:
    """The private attribute names a module defines: assigned to ``self``, in ``__slots__``, or in a class body."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and private(node.attr):
            names.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(item.name)
                for target in getattr(item, "targets", [getattr(item, "target", None)]):
                    if isinstance(target, ast.Name):
                        names.add(target.id)
                        if target.id == "__slots__" and isinstance(item.value, ast.Tuple | ast.List):
                            names |= {e.value for e in item.value.elts if isinstance(e, ast.Constant)}
    return {n for n in names if private(n)}


def reaches(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    own = defined_here(tree)
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in own
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("ir_tools")):
            found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: import {a.name}"
                      for a in node.names if private(a.name)]
    return found


def test_no_module_reaches_into_anothers_private_names() -> None:
    found = [line for path in sorted(PACKAGE.rglob("*.py")) for line in reaches(path)]
    assert not found, "\n".join(found)


def test_the_rule_sees_a_reach(tmp_path: Path) -> None:
    bad = PACKAGE / "_probe_for_the_test.py"
    try:
        bad.write_text("from .ir.model import _records\n\ndef f(graph):\n    return graph._layers\n")
        assert [line.split(": ", 1)[1] for line in reaches(bad)] == ["import _records", "._layers"]
    finally:
        bad.unlink()
