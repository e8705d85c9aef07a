"""The fast tier (``-m "not openvino"``) does not import the modules marked ``openvino`` as a whole
(``conftest.pytest_ignore_collect``): each such module must mark every test of its so, as the tier would deselect it."""

from __future__ import annotations

import ast

from tests.conftest import MARKED_WHOLE, ROOT


def test_a_module_left_out_marks_every_test_of_its_openvino() -> None:
    left_out = [path for path in sorted((ROOT / "tests").rglob("*.py")) if MARKED_WHOLE.search(path.read_bytes())]
    assert len(left_out) > 50  # (most OpenVINO conformance suites)
    for path in left_out:
        marks = [ast.unparse(node.value) for node in ast.parse(path.read_text()).body
                 if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets)]
        assert marks == ["pytest.mark.openvino"], f"{path.relative_to(ROOT)}: pytestmark {marks}"
