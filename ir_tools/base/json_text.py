"""Strict JSON (RFC 8259) for every document ir_tools prints or embeds: JSON has no Infinity or NaN, which Python's
``json`` writes by default and node's ``JSON.parse``, jq and most readers refuse. A non-finite float is written as the
string Python spells it, ``"inf"``, ``"-inf"`` or ``"nan"`` (``float()`` reads it back)."""

from __future__ import annotations

import json
import math
from typing import Any


def plain(value: Any) -> Any:
    """``value`` with every non-finite float (in dicts, lists and tuples too) as its string."""
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps`` of ``value`` as strict JSON (non-finite floats as strings; ``options`` as json.dumps takes)."""
    return json.dumps(plain(value), allow_nan=False, **options)
