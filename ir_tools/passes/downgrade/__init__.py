"""Downgrades: passes that rewrite op versions a release cannot create into older ones with the same numbers,
one module per op family; ``passes/target.retarget`` runs them in this order (``to_opset8`` first)."""

from __future__ import annotations

from .base import Downgrade
from .pad import PadTo1
from .pooling import MaxPoolTo8
from .respell import Respell

#: Every downgrade, in the order ``retarget`` runs them.
DOWNGRADES: tuple[type[Downgrade], ...] = (MaxPoolTo8, PadTo1, Respell)

__all__ = ["DOWNGRADES", "Downgrade"]
