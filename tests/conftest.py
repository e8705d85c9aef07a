"""Shared test configuration: repository paths, the compare-report schema check, the `openvino` marker.

Tests that run OpenVINO carry the ``openvino`` mark (module-wide ``pytestmark``); ``pytest -m "not
openvino"`` is the fast tier. A test without the mark that makes an ``openvino.Core`` in this process fails, in every
run, saying so (``_openvino_only_where_marked``); one that runs OpenVINO in another process is marked by hand.
OpenVINO's CPU configuration is the runner's own (``ir_tools.runtime.openvino.CPU_CONFIG``), imported where it is
used, never copied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import jsonschema
import pytest

from ir_tools.ops import opsets
from ir_tools.ops.spec import OpSpec

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
REPORT_SCHEMA = json.loads((ROOT / "ir_tools" / "runtime" / "compare-report.schema.json").read_text())


#: The fast tier's mark expression, and a module's line that marks every test of it as running OpenVINO.
FAST_TIER = "not openvino"
MARKED_WHOLE = re.compile(rb"^pytestmark = pytest\.mark\.openvino\b", re.MULTILINE)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In the fast tier, a module marked ``openvino`` as a whole is not imported: the tier deselects each of its tests
    anyway, and importing it imports OpenVINO (and some generate their cases as they are imported)."""
    if " ".join(config.option.markexpr.split()) != FAST_TIER or collection_path.suffix != ".py":
        return None
    return True if MARKED_WHOLE.search(collection_path.read_bytes()) else None


class _Unmarked:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("this test runs OpenVINO (it made an openvino.Core): mark it @pytest.mark.openvino, "
                             "which the fast tier (-m 'not openvino') deselects")


@pytest.fixture(autouse=True)
def _openvino_only_where_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keeps the fast tier honest: a test without the ``openvino`` mark cannot make an ``openvino.Core``."""
    if request.node.get_closest_marker("openvino") is None:
        import openvino  # (here: a test's child may import this module where OpenVINO cannot be imported)

        monkeypatch.setattr(openvino, "Core", _Unmarked)


@pytest.fixture
def check_report() -> Callable[[dict], dict]:
    """Validates a ``compare --format json`` document against its JSON Schema; returns it."""

    def check(report: dict) -> dict:
        jsonschema.validate(report, REPORT_SCHEMA)
        return report

    return check


@pytest.fixture
def set_aside(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[OpSpec], None]]:
    """Sets a built-in op spec aside, as if ir_tools did not model the op (``unregister`` removes only what
    ``register`` added, so the built-in table is patched); the look-ups and spellings are put back after."""

    def aside(spec: OpSpec) -> None:
        monkeypatch.setattr(opsets, "_RANGES", tuple(r for r in opsets._RANGES if r[0] is not spec))
        opsets._build()

    try:
        yield aside
    finally:
        monkeypatch.undo()
        opsets._build()
