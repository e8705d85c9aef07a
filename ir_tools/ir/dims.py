"""Dimensions with intervals: the partial shapes that shape inference works on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True, slots=True)
class Dim:
    """A dimension ``lo..hi``; ``hi`` None means unbounded. Static when ``lo == hi``."""

    lo: int
    hi: int | None

    @classmethod
    def of(cls, n: int) -> Dim:
        """From an IR ``<dim>`` value: -1 is fully dynamic."""
        return DYNAMIC if n < 0 else cls(n, n)

    @property
    def is_static(self) -> bool:
        return self.hi == self.lo

    def as_int(self) -> int:
        """The ``<dim>`` spelling: the length if static, -1 otherwise."""
        return self.lo if self.is_static else -1

    def map(self, fn: Callable[[int], int]) -> Dim:
        """Apply a non-decreasing function to both bounds (interval arithmetic)."""
        return Dim(fn(self.lo), None if self.hi is None else fn(self.hi))

    def __str__(self) -> str:
        if self.is_static:
            return str(self.lo)
        if self.hi is None:
            return "?" if self.lo == 0 else f"{self.lo}.."
        return f"{self.lo}..{self.hi}"


DYNAMIC = Dim(0, None)

#: A partial shape: a tuple of Dims, or None for a dynamic rank.
Shape = Union[tuple[Dim, ...], None]  # noqa: UP007 (a runtime alias)


def parse_dim(text: str) -> Dim:
    """Parse one entry of a Parameter ``shape`` attribute: ``3``, ``-1``, ``?``, ``1..10``, ``..30``, ``2..``."""
    t = text.strip()
    if t in ("?", "-1"):
        return DYNAMIC
    if ".." in t:
        lo_s, hi_s = t.split("..", 1)
        lo = int(lo_s) if lo_s.strip() else 0
        hi = int(hi_s) if hi_s.strip() else None
        if lo < 0 or (hi is not None and (hi < lo)):
            raise ValueError(f"bad interval {t!r}")
        return Dim(lo, hi)
    n = int(t)
    if n < 0:
        raise ValueError(f"negative dimension {t!r}")
    return Dim(n, n)


def parse_shape(text: str) -> Shape:
    """Parse a Parameter ``shape`` attribute; ``...`` is a dynamic rank, ``""`` a scalar."""
    t = text.strip()
    if t == "...":
        return None
    if t == "":
        return ()
    return tuple(parse_dim(p) for p in t.split(","))


def format_shape(shape: Shape) -> str:
    """The Parameter ``shape`` attribute spelling of a partial shape."""
    if shape is None:
        return "..."
    return ",".join(str(d) for d in shape)


def shape_from_ints(dims: Sequence[int] | None) -> Shape:
    return None if dims is None else tuple(Dim.of(d) for d in dims)


def shape_to_ints(shape: Shape) -> tuple[int, ...] | None:
    return None if shape is None else tuple(d.as_int() for d in shape)


def show(dims: Sequence[int] | None) -> str:
    """``[1,3,-1]`` or ``[...]`` for messages."""
    return "[...]" if dims is None else "[" + ",".join(str(d) for d in dims) + "]"
