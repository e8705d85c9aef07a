"""Typed attribute codecs: IR attribute strings <-> Python values, with clear errors.

An op's attributes are a frozen dataclass whose fields carry ``xml`` (the IR spelling) and
``codec`` in their metadata; ``decode`` builds one from a layer's raw ``<data>`` attributes
and ``encode`` writes it back the way OpenVINO does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass
from typing import Any, TypeVar

from ..errors import AttrError, SourceLoc
from ..ir.dims import parse_size

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Codec:
    what: str  # how the expected value is described in messages
    parse: Callable[[str], Any]  # raises ValueError on a bad value
    format: Callable[[Any], str]


def _uint(text: str) -> int:
    return parse_size(text)


def _uint_list(text: str) -> tuple[int, ...]:
    t = text.strip()
    return () if t == "" else tuple(_uint(p) for p in t.split(","))


def _boolean(text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1"):
        return True
    if t in ("false", "0"):
        return False
    raise ValueError(text)


def enum(*choices: str) -> Codec:
    def parse(text: str) -> str:
        t = text.strip().lower()
        if t not in choices:
            raise ValueError(text)
        return t

    return Codec("one of " + ", ".join(choices), parse, str)


UINT_LIST = Codec(
    "a comma-separated list of non-negative integers that fit int64", _uint_list, lambda v: ", ".join(map(str, v))
)
BOOL = Codec("true or false", _boolean, lambda v: "true" if v else "false")
STRING = Codec("a string", str, str)


def attr(xml: str, codec: Codec, default: Any = MISSING) -> Any:
    """Declare one attribute field: its IR spelling, codec and (optional) default."""
    return dataclasses.field(default=default, metadata={"xml": xml, "codec": codec})


def decode(cls: type[T], raw: Mapping[str, str], loc: SourceLoc | None = None) -> T:
    """Build the typed attributes of ``cls`` from raw IR strings; AttrError names the culprit."""
    values = {}
    for f in dataclasses.fields(cls):
        xml, codec = f.metadata["xml"], f.metadata["codec"]
        if xml not in raw:
            if f.default is MISSING:
                raise AttrError(f"missing attribute '{xml}' ({codec.what})", loc)
            continue
        try:
            values[f.name] = codec.parse(raw[xml])
        except ValueError:
            raise AttrError(f"attribute '{xml}' must be {codec.what}, got '{raw[xml]}'", loc) from None
    return cls(**values)


def encode(value: Any) -> dict[str, str]:
    """The IR attribute strings of a typed attribute object, in declaration order."""
    return {
        f.metadata["xml"]: f.metadata["codec"].format(getattr(value, f.name))
        for f in dataclasses.fields(value)
        if getattr(value, f.name) is not None
    }
