"""Dimensions with intervals: the partial shapes that shape inference works on."""

from __future__ import annotations

import re
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
        """Whether the dim has one length (``lo == hi``)."""
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

INT64_MAX = 2**63 - 1  # the largest int64 (dims, sizes, OpenVINO's unbounded Interval maximum)
INT64_MIN = -(2**63)
_INT = re.compile(r"[+-]?[0-9]+")  # what OpenVINO's std::stoll accepts, without Python's "1_000" or "٤"
_PORT_INTERVAL = re.compile(r"([0-9]{1,19})\.\.([0-9]{0,19})")
#: Significant digits past which an integer lies beyond every bound an IR value is held to (uint64 has 20): it reads
#: as +-10**_DIGITS, which is as far out of range, since Python's int() refuses 4300 digits and more.
_DIGITS = 40


def parse_int(text: str | None) -> int | None:
    """The integer an IR attribute or ``<dim>`` spells, or None when it is not a plain decimal integer; one of more
    than 40 significant digits is +-10**40."""
    if text is not None and len(text) <= _DIGITS and text.isascii() and text.isdigit():  # the common case, fast
        return int(text)
    t = (text or "").strip()
    if not _INT.fullmatch(t):
        return None
    digits = t.lstrip("+-").lstrip("0") or "0"
    value = int(digits) if len(digits) <= _DIGITS else 10**_DIGITS
    return -value if t[0] == "-" else value


#: An unsigned integer as OpenVINO's reader reads a layer's and a port's id, an edge's layers and ports and a Const's
#: offset and size (``pugixml::get_uint64_attr``: a stream's int64, read to the end of the text).
_STREAM_INT = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")


def parse_uint64_attr(text: str | None) -> int | None:
    """The number such an attribute spells, None if OpenVINO refuses it: blanks before the digits and a sign are
    read ('+4', ' 4', '-0', measured on 2026.4), blanks after them, a negative number and one beyond int64 refused
    (where the other integer attributes refuse a sign)."""
    value = parse_int(text) if text is not None and _STREAM_INT.fullmatch(text) else None
    return value if value is not None and 0 <= value <= INT64_MAX else None


def as_layer_id(text: str) -> str:
    """A layer id as OpenVINO reads it (an unsigned integer, so ``id="01"`` and ``id="+1"`` are layer 1): the one
    spelling by which layers, edges, a body's port map and back edges name a layer. A decimal loses its leading zeros
    and sign; anything else is kept as written (and refused where it is read)."""
    if text.isascii() and text.isdigit():
        return text.lstrip("0") or "0" if len(text) > 1 and text[0] == "0" else text
    value = parse_uint64_attr(text)
    return text if value is None else str(value)


def parse_attr_int(text: str) -> int | None:
    """The integer an attribute spells, as OpenVINO reads attributes: ``parse_int``'s, without a leading ``+``
    (measured on 2026.4: an axis of '+2', strides of '+1,1' and a shape of '+1' are refused; a ``<dim>`` of '+1' is
    read)."""
    return None if text.lstrip().startswith("+") else parse_int(text)


def parse_size(text: str) -> int:
    """A non-negative integer that fits int64 (dims, kernel sizes, offsets); ValueError otherwise."""
    value = parse_attr_int(text)
    if value is None or not 0 <= value <= INT64_MAX:
        raise ValueError(text)
    return value

#: A partial shape: a tuple of Dims, or None for a dynamic rank.
Shape = Union[tuple[Dim, ...], None]  # noqa: UP007 (a runtime alias)


def parse_port_dim(text: str | None) -> int | None:
    """A port's ``<dim>``: an integer (-1 dynamic), or an interval as a PartialShape spells one (``1..4``, ``2..``),
    read as -1 unless its bounds are equal; None if neither. OpenVINO reads its leading integer and, for the ops it
    knows, infers the port's dims itself: another project's interval is read, not refused."""
    interval = _PORT_INTERVAL.fullmatch((text or "").strip())
    if interval is None:
        return parse_int(text)
    lo, hi = interval.groups()
    return int(lo) if hi and int(hi) == int(lo) else -1


def parse_dim(text: str) -> Dim:
    """Parse one entry of a Parameter ``shape`` attribute: ``3``, ``-1``, ``?``, ``1..10``, ``..30``, ``2..``."""
    t = text.strip()
    if t in ("?", "-1"):
        return DYNAMIC
    if ".." in t:
        lo_s, hi_s = t.split("..", 1)
        if lo_s != lo_s.rstrip() or hi_s != hi_s.lstrip():  # (OpenVINO refuses '1 ..3' and '1.. 3')
            raise ValueError(f"blank beside '..' in {t!r}")
        lo = parse_size(lo_s) if lo_s else 0
        hi = parse_size(hi_s) if hi_s else None
        if hi is not None and hi < lo:
            raise ValueError(f"bad interval {t!r}")
        return Dim(lo, hi)
    n = parse_size(t)
    return Dim(n, n)


def parse_shape(text: str) -> Shape:
    """Parse a Parameter ``shape`` attribute; ``...`` is a dynamic rank, ``""`` a scalar. It may be in brackets, as
    OpenVINO's PartialShape spells itself (``[1,3,?,1..10]``, ``[...]``, ``[]``), which its reader takes by design."""
    t = text.strip()
    if t[:1] == "[" and t[-1:] == "]":
        t = t[1:-1].strip()
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
    """The ``<dim>`` spelling of each dim (``Dim.as_int``, written out: a port of every layer a rewrite builds)."""
    return None if shape is None else tuple([d.lo if d.hi == d.lo else -1 for d in shape])


def declared_within(dims: Sequence[int] | None, shape: Shape) -> bool:
    """True if a port's declared ``<dim>``s agree with an inferred ``shape``: each length lies within its inferred
    interval, and -1 stands for a dim that is not static; a dynamic rank holds any dims. OpenVINO ignores declared
    dims and its IR v10 serializer wrote an interval as its upper bound: a static dim inside an interval refines it,
    one outside contradicts it."""
    if shape is None:
        return True
    if dims is None or len(dims) != len(shape):
        return False
    return all(lo <= n and (hi is None or n <= hi) if n >= 0 else lo != hi for n, (lo, hi) in
               zip(dims, ((d.lo, d.hi) for d in shape), strict=True))


def show_shape(shape: Shape) -> str:
    """``[0..10,3]``, ``[?,1,2]`` or ``[...]`` for messages."""
    return "[...]" if shape is None else "[" + ",".join(map(str, shape)) + "]"


def show(dims: Sequence[int] | None) -> str:
    """``[1,3,-1]`` or ``[...]`` for messages."""
    return "[...]" if dims is None else "[" + ",".join(str(d) for d in dims) + "]"
