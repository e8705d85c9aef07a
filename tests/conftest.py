"""Shared test configuration: repository paths, the compare-report schema check, the `openvino` marker.

Tests that run OpenVINO carry the ``openvino`` mark (module-wide ``pytestmark``); ``pytest -m "not
openvino"`` is the fast tier. OpenVINO's CPU configuration is the runner's own
(``ir_tools.runtime.openvino.CPU_CONFIG``), imported where it is used, never copied.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
REPORT_SCHEMA = json.loads((ROOT / "ir_tools" / "runtime" / "compare-report.schema.json").read_text())


@pytest.fixture
def check_report() -> Callable[[dict], dict]:
    """Validates a ``compare --format json`` document against its JSON Schema; returns it."""

    def check(report: dict) -> dict:
        jsonschema.validate(report, REPORT_SCHEMA)
        return report

    return check
